/**
 * A batch write as a whole (POST /api/{kind}/batch/): its operation, what its records are matched
 * on, and how many there are. A bad request as a whole is one 422 keyed on the field at fault;
 * a bad record is that record's error (application/record-batches.ts).
 */
import { DomainError } from '@crm/observability';
import {
  BATCH_LIMITS,
  BATCH_MATCH_FIELDS,
  BATCH_OPERATIONS,
  CUSTOM_FIELDS_PREFIX,
  EMAIL_MATCH_KINDS,
  type BatchOperation,
} from '@crm/vocabulary';
import type { RecordType } from './model';

export type BatchRecordKind = Extract<RecordType, 'contact' | 'lead' | 'account' | 'opportunity'>;

/** What a record of the batch is found by: a built-in field, or a unique custom field's key. */
export type MatchKey = { field: 'id' } | { field: 'email' } | { field: 'externalId' } | { field: 'customField'; key: string };

export interface BatchPlan {
  operation: BatchOperation;
  /** null for create: every record is new. */
  match: MatchKey | null;
  atomic: boolean;
}

/** The unique custom fields of the kind, by key (the workspace's definitions, read per batch). */
export type UniqueCustomFields = (kind: BatchRecordKind) => ReadonlySet<string>;
export const NO_CUSTOM_FIELDS: UniqueCustomFields = () => new Set();

export interface BatchRequestInput {
  kind: BatchRecordKind;
  operation: string;
  matchOn: string;
  atomic: boolean;
  recordCount: number;
}

export function batchPlan(input: BatchRequestInput, uniqueCustomFields: UniqueCustomFields = NO_CUSTOM_FIELDS): BatchPlan {
  const errors: Record<string, string[]> = {};
  const operation = (BATCH_OPERATIONS as readonly string[]).includes(input.operation) ? (input.operation as BatchOperation) : null;
  if (!operation) errors.operation = [input.operation ? `"${input.operation}" is not a valid choice.` : 'This field is required.'];
  let match: MatchKey | null = null;
  if (input.matchOn) {
    const parsed = matchKeyOf(input.kind, input.matchOn, uniqueCustomFields);
    if (typeof parsed === 'string') errors.matchOn = [parsed];
    else match = parsed;
  } else if (operation === 'upsert') {
    errors.matchOn = ['This field is required for upsert.'];
  }
  if (input.recordCount === 0) errors.records = ['Send at least one record.'];
  if (input.recordCount > BATCH_LIMITS.maxRecords)
    errors.records = [`Send at most ${BATCH_LIMITS.maxRecords.toLocaleString('en-US')} records in one batch.`];
  if (Object.keys(errors).length > 0) throw DomainError.validation(errors);
  if (operation === 'create') return { operation, match: null, atomic: input.atomic };
  return { operation: operation!, match: match ?? { field: 'id' }, atomic: input.atomic };
}

/** The match key `matchOn` names, or why it names none. */
function matchKeyOf(kind: BatchRecordKind, matchOn: string, uniqueCustomFields: UniqueCustomFields): MatchKey | string {
  if (matchOn.startsWith(CUSTOM_FIELDS_PREFIX)) {
    const key = matchOn.slice(CUSTOM_FIELDS_PREFIX.length);
    if (uniqueCustomFields(kind).has(key)) return { field: 'customField', key };
    return `"${matchOn}" is not a unique custom field of ${kind}s.`;
  }
  if (!(BATCH_MATCH_FIELDS as readonly string[]).includes(matchOn))
    return `"${matchOn}" is not a valid choice: id, email (contacts and leads), externalId or customFields.<unique key>.`;
  if (matchOn === 'email' && !(EMAIL_MATCH_KINDS as readonly string[]).includes(kind))
    return `${kind}s have no email to match on; use id, externalId or customFields.<unique key>.`;
  return { field: matchOn as 'id' | 'email' | 'externalId' };
}

/** The name of the match key in the API (`customFields.<key>` for a custom field): the field an error record is keyed on. */
export function matchFieldName(match: MatchKey): string {
  return match.field === 'customField' ? `${CUSTOM_FIELDS_PREFIX}${match.key}` : match.field;
}
