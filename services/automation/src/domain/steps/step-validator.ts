import type { FieldErrorList } from '@crm/observability';
import type { RecordType } from '../model';

/**
 * One step type's config rules: the keys it takes (any other is "Unknown field.") and the checks of
 * their values, adding each failure at `at.<key>`. Texts are trimmed once every check has passed.
 */
export interface StepValidator {
  required: readonly string[];
  optional: readonly string[];
  /** Config keys holding text to trim. */
  trimmed?: readonly string[];
  check(config: Record<string, unknown>, at: string, recordType: RecordType | undefined, errors: FieldErrorList): void;
}
