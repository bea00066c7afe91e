/** The words of a 422, shared by every field check (field-rules.ts, custom-field-values.ts), and the URL rule. */
import { FIELD_LIMITS, characterCount } from '@crm/vocabulary';

export const MESSAGES = {
  required: 'This field is required.',
  blank: 'This field may not be blank.',
  notNull: 'This field may not be null.',
  unknown: 'Unknown field.',
  string: 'Not a valid string.',
  email: 'Enter a valid email address.',
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  boolean: 'Must be a valid boolean.',
  url: 'Enter a valid URL.',
  date: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
  list: 'Expected a list of items.',
  object: 'Expected an object.',
  choice: (value: unknown) => `"${String(value)}" is not a valid choice.`,
  maxLength: (max: number) => `Ensure this field has no more than ${max} characters.`,
  max: (max: number) => `Ensure this value is less than or equal to ${max}.`,
  min: (min: number) => `Ensure this value is greater than or equal to ${min}.`,
  tagCount: (max: number) => `Ensure this field has no more than ${max} elements.`,
  tagLength: (max: number) => `Ensure each tag has no more than ${max} characters.`,
  missingReference: (value: string) => `Invalid pk "${value}" - object does not exist.`,
} as const;

export function isHttpUrl(value: string): boolean {
  if (characterCount(value) > FIELD_LIMITS.url) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}
