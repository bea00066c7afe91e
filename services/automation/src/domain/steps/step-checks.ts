/** The checks step validators share: texts with placeholders, user references, whole numbers. */
import type { FieldErrorList } from '@crm/observability';
import { AUTOMATION_LIMITS, USER_ID_PATTERN, characterCount } from '@crm/vocabulary';
import type { RecordType } from '../model';
import { placeholdersFor, unknownPlaceholders } from '../placeholders';

export const STEP_LIMITS = AUTOMATION_LIMITS;

export const STEP_MESSAGES = {
  required: 'This field is required.',
  blank: 'This field may not be blank.',
  choice: (value: unknown) => `"${String(value)}" is not a valid choice.`,
} as const;

const USER_ID = new RegExp(USER_ID_PATTERN);

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
  if (characterCount(value) > max) errors.add(path, `Ensure this field has no more than ${max} characters.`);
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
