/**
 * The one email rule: a local part without spaces or the characters mail headers reserve, and a
 * domain of at least two labels of letters, digits and inner hyphens (at most 63 each), with no
 * `..` anywhere and at most 254 characters in all.
 */
import { FIELD_LIMITS } from './limits';

export const EMAIL_PATTERN =
  /^[^\s@<>()[\]\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isEmail(value: string): boolean {
  return value.length <= FIELD_LIMITS.email && EMAIL_PATTERN.test(value) && !value.includes('..');
}
