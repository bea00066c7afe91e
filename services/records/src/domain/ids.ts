import { createHash, randomBytes, randomUUID } from 'node:crypto';

/**
 * Record ids: a type prefix, then the creation time and randomness, in an alphabet that sorts like
 * the time, so "createdAt desc, id desc" keeps records made in the same second newest first.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** Every 10-bit value as its two digits. */
const PAIRS = Array.from({ length: 1024 }, (_, value) => ALPHABET[value >> 5]! + ALPHABET[value & 31]!);
/** The low 15 bits as three digits. */
const three = (value: number) => ALPHABET[(value >>> 10) & 31]! + PAIRS[value & 1023]!;
/** The low 30 bits as six digits. */
const six = (value: number) => PAIRS[(value >>> 20) & 1023]! + PAIRS[(value >>> 10) & 1023]! + PAIRS[value & 1023]!;

/** Random bytes are drawn in blocks: one call per id cost more than the rest of a bulk insert's row. */
const RANDOM_BLOCK_WORDS = 1024;
let randomBlock = new Uint32Array(0);
let randomNext = 0;

/** A random 32-bit word (six() keeps its low 30 bits). */
function randomBits(): number {
  if (randomNext >= randomBlock.length) {
    randomBlock = new Uint32Array(randomBytes(RANDOM_BLOCK_WORDS * 4).buffer);
    randomNext = 0;
  }
  return randomBlock[randomNext++]!;
}

let lastMs = 0;
let sequence = 0;

/** `prefix`, then 9 digits of the time in ms (45 bits), 3 of a per-millisecond sequence, 12 random (60 bits). */
export function newId(prefix: string, now = Date.now()): string {
  // A per-millisecond sequence keeps ids from one process ordered even within a millisecond.
  if (now === lastMs) sequence++;
  else {
    lastMs = now;
    sequence = 0;
  }
  // Table lookups on 32-bit numbers: BigInt arithmetic made id generation 3% of an import's CPU in records.
  const time = three(Math.floor(now / 2 ** 30)) + six(now % 2 ** 30);
  return `${prefix}${time}${three(sequence)}${six(randomBits())}${six(randomBits())}`;
}

/**
 * An id whose every character follows from `at` (ms) and `seed`: two processes making the id of
 * the same thing make the same one, and it sorts among newId's ids by `at`.
 */
export function derivedId(prefix: string, at: number, seed: string): string {
  const time = three(Math.floor(at / 2 ** 30)) + six(at % 2 ** 30);
  const digest = createHash('sha256').update(seed).digest();
  const rest = Array.from(digest.subarray(0, 15), (byte) => ALPHABET[byte & 31]).join('');
  return `${prefix}${time}${rest}`;
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
  auditEntry: 'aud_',
  customField: 'fld_',
} as const;

export type IdGenerator = (prefix: string) => string;
export const defaultIds: IdGenerator = (prefix) => newId(prefix);
export const newSourceUid = (): string => randomUUID();
