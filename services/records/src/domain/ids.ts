import { randomBytes, randomUUID } from 'node:crypto';

/**
 * Record ids: a type prefix, then the creation time and randomness, in an alphabet that sorts like
 * the time, so "createdAt desc, id desc" keeps records made in the same second newest first.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

function base32(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/** Random bytes are drawn in blocks: one call per id cost more than the rest of a bulk insert's row. */
const RANDOM_BLOCK_WORDS = 512;
let randomBlock = new BigUint64Array(0);
let randomNext = 0;

function randomWord(): bigint {
  if (randomNext >= randomBlock.length) {
    randomBlock = new BigUint64Array(randomBytes(RANDOM_BLOCK_WORDS * 8).buffer);
    randomNext = 0;
  }
  return randomBlock[randomNext++]!;
}

let lastMs = 0;
let sequence = 0;

export function newId(prefix: string, now = Date.now()): string {
  // A per-millisecond sequence keeps ids from one process ordered even within a millisecond.
  if (now === lastMs) sequence++;
  else {
    lastMs = now;
    sequence = 0;
  }
  const time = base32(BigInt(now), 9);
  const seq = base32(BigInt(sequence), 3);
  const random = base32(randomWord(), 12);
  return `${prefix}${time}${seq}${random}`;
}

export const ID_PREFIX = {
  contact: 'cnt_',
  lead: 'ld_',
  account: 'acc_',
  opportunity: 'opp_',
  task: 'tsk_',
  note: 'nte_',
  activity: 'act_',
  event: 'evt_',
} as const;

export type IdGenerator = (prefix: string) => string;
export const defaultIds: IdGenerator = (prefix) => newId(prefix);
export const newSourceUid = (): string => randomUUID();
