import { derivedId, newId } from './ids';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** The digits' value, most significant first. */
const valueOf = (digits: string) => [...digits].reduce((value, digit) => value * 32 + ALPHABET.indexOf(digit), 0);

describe('record ids', () => {
  it('are the prefix, 9 digits of the time in ms, a 3-digit sequence and 12 random digits', () => {
    const now = Date.UTC(2026, 10, 25, 12, 0, 0, 123);
    const id = newId('cnt_', now);
    expect(id).toMatch(/^cnt_[0-9a-hjkmnp-tv-z]{24}$/);
    expect(valueOf(id.slice(4, 13))).toBe(now);
  });

  it('sort like their time, and within one millisecond like their order of making', () => {
    const now = Date.UTC(2026, 10, 25);
    const sameMs = Array.from({ length: 40 }, () => newId('act_', now));
    expect([...sameMs].sort()).toEqual(sameMs);
    expect(sameMs.map((id) => valueOf(id.slice(13, 16)))).toEqual(sameMs.map((_, i) => i));
    expect(newId('act_', now + 1) > sameMs.at(-1)!).toBe(true);
    expect(newId('act_', now + 1000 * 86_400 * 365 * 50) > newId('act_', now + 2)).toBe(true);
  });

  it('carry 60 random bits: every digit of the random part varies, and 100,000 ids of one millisecond are distinct', () => {
    const ids = Array.from({ length: 100_000 }, () => newId('cnt_', 1_700_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    const random = ids.map((id) => id.slice(16));
    for (let position = 0; position < 12; position++) {
      expect(new Set(random.map((digits) => digits[position])).size).toBe(32);
    }
  });

  it('derived from a time and a seed are the same wherever they are made, and sort by that time among the others', () => {
    const at = Date.UTC(2026, 10, 29, 1, 0, 0, 500);
    const id = derivedId('aud_', at, 'fld_1:cnt_1');
    expect(derivedId('aud_', at, 'fld_1:cnt_1')).toBe(id);
    expect(derivedId('aud_', at, 'fld_1:cnt_2')).not.toBe(id);
    expect(id).toMatch(/^aud_[0-9a-hjkmnp-tv-z]{24}$/);
    expect(newId('aud_', at - 1) < id).toBe(true);
    expect(newId('aud_', at + 1) > id).toBe(true);
  });
});
