import { FIELD_LIMITS } from './limits';
import { isEmail } from './email';

describe('the email rule', () => {
  it('accepts an ordinary address', () => {
    expect(isEmail('ada.lovelace+crm@example.co.uk')).toBe(true);
  });

  it.each([
    ['no domain dot', 'ada@localhost'],
    ['a space', 'ada lovelace@example.com'],
    ['two dots', 'ada..lovelace@example.com'],
    ['a domain label ending in a hyphen', 'ada@example-.com'],
    ['a reserved character', 'ada<x>@example.com'],
  ])('refuses an address with %s', (_why, address) => {
    expect(isEmail(address)).toBe(false);
  });

  it('refuses an address longer than the email limit', () => {
    const local = 'a'.repeat(64);
    const domain = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`;
    const address = `${local}@${domain}`;
    expect(address.length).toBeGreaterThan(FIELD_LIMITS.email);
    expect(isEmail(address)).toBe(false);
    expect(isEmail(`${local}@${'b'.repeat(63)}.com`)).toBe(true);
  });
});
