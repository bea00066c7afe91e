/** The checks step validators share: texts with placeholders, user references, whole numbers. */
import type { FieldErrorList } from '@crm/observability';
import type { RecordType } from '../model';
import { placeholdersFor, unknownPlaceholders } from '../placeholders';

export const STEP_LIMITS = {
  name: 200,
  text: 2000,
  userIds: 50,
  dueDays: 365,
  waitMax: { minutes: 60 * 24 * 365, hours: 24 * 365, days: 365 },
} as const;

export const STEP_MESSAGES = {
  required: 'This field is required.',
  blank: 'This field may not be blank.',
  choice: (value: unknown) => `"${String(value)}" is not a valid choice.`,
} as const;

const USER_ID = /^usr_[A-Za-z0-9_-]{1,100}$/;

export const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);
export const isUserId = (value: unknown): value is string => typeof value === 'string' && USER_ID.test(value);
export const isMissing = (value: unknown): boolean => value === undefined || value === null || value === '';

/** Non-blank text of at most `max` characters whose placeholders are those of `recordType`. */
export function checkText(
  value: unknown,
  path: string,
  recordType: RecordType | undefined,
  errors: FieldErrorList,
  max: number = STEP_LIMITS.text,
): string | undefined {
  if (value === undefined || value === null) {
    errors.add(path, STEP_MESSAGES.required);
    return undefined;
  }
  if (typeof value !== 'string') {
    errors.add(path, 'Not a valid string.');
    return undefined;
  }
  if (!value.trim()) {
    errors.add(path, STEP_MESSAGES.blank);
    return undefined;
  }
  if (value.length > max) errors.add(path, `Ensure this field has no more than ${max} characters.`);
  if (recordType) {
    for (const name of unknownPlaceholders(value, recordType)) {
      errors.add(
        path,
        `Unknown placeholder {{${name}}} for a ${recordType}; use ${placeholdersFor(recordType)
          .map((p) => `{{${p}}}`)
          .join(', ')}.`,
      );
    }
  }
  return value;
}

/** "assigned_user" or a user id. */
export function checkUserRef(value: unknown, path: string, errors: FieldErrorList): string | undefined {
  if (value === 'assigned_user' || isUserId(value)) return value;
  errors.add(path, isMissing(value) ? STEP_MESSAGES.required : 'Expected "assigned_user" or a user id (usr_...).');
  return undefined;
}
