import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters of base62 from the system CSPRNG, without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62]; // 248 = 4 × 62
    }
  }
  return out;
}

export type IdPrefix = 'ws_' | 'usr_' | 'key_' | 'rt_' | 'fam_';

/** An opaque identifier: a type prefix and 22 base62 characters (about 131 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}${randomBase62(22)}`;
}
