/**
 * Merging duplicates (POST /api/{contacts,leads,accounts}/{id}/merge/): which ids may be merged
 * into a survivor, and the update body that gives the survivor its merged values. Pure: the
 * service reads the records, checks the body through the kind's usual update rules and writes
 * the result in one commit.
 */
import { DomainError } from '@crm/observability';
import { FieldErrorList, type FieldTable } from './field-rules';

export const MERGE_LIMIT = 10;

export type MergeableType = 'contact' | 'lead' | 'account';

export interface MergeRequest {
  mergeIds: string[];
  /** Field → the id (the survivor's or a merged one) whose value wins. */
  winners: Record<string, string>;
}

type Fields = { id: string } & Record<string, unknown>;

/** 422 on `mergeIds` unless they are 1 to 10 distinct ids, none the survivor's; checked before any read. */
export function checkMergeList(survivorId: string, mergeIds: readonly string[]): void {
  const errors = new FieldErrorList();
  if (mergeIds.length === 0) errors.add('mergeIds', 'Name at least one record to merge.');
  else if (mergeIds.length > MERGE_LIMIT) errors.add('mergeIds', `Ensure this field has no more than ${MERGE_LIMIT} elements.`);
  else if (new Set(mergeIds).size !== mergeIds.length) errors.add('mergeIds', 'Each id may appear once.');
  else if (mergeIds.includes(survivorId)) errors.add('mergeIds', 'A record cannot be merged into itself.');
  errors.throwIfAny();
}

/** 422 on `mergeIds` when one names no record of the kind in the caller's workspace (`found`). */
export function checkMergedFound(mergeIds: readonly string[], found: ReadonlySet<string>): void {
  const missing = mergeIds.find((id) => !found.has(id));
  if (missing !== undefined) throw DomainError.validation({ mergeIds: [`Invalid pk "${missing}" - object does not exist.`] });
}

/**
 * The survivor's update: a field named in `winners` takes that record's value; `notes` are joined
 * (survivor first) and `tags` united; any other field the survivor has empty takes the first
 * non-empty value in `mergeIds` order. Only fields whose value changes are in the body.
 */
export function mergedBody(
  survivor: Fields,
  merged: readonly Fields[],
  table: FieldTable,
  winners: Record<string, string>,
): Record<string, unknown> {
  const byId = new Map([survivor, ...merged].map((record) => [record.id, record]));
  const errors = new FieldErrorList();
  for (const [field, id] of Object.entries(winners)) {
    if (!(field in table)) errors.add('fields', `"${field}" is not a field that can be merged.`);
    else if (!byId.has(id)) errors.add('fields', `"${id}" is neither the survivor nor one of mergeIds.`);
  }
  errors.throwIfAny();

  const body: Record<string, unknown> = {};
  for (const [field, rule] of Object.entries(table)) {
    const own = survivor[field];
    const theirs = merged.map((record) => record[field]);
    let value: unknown;
    if (winners[field]) value = byId.get(winners[field])![field];
    else if (field === 'notes') value = [own, ...theirs].filter((v) => !isEmpty(v)).join('\n\n');
    else if (rule.kind === 'customFields') {
      // Key by key: the survivor keeps its values and fills the ones it lacks (a patch of those keys).
      const filled = filledCustomValues(own, theirs);
      if (Object.keys(filled).length > 0) body[field] = filled;
      continue;
    } else if (rule.kind === 'tags') value = [...new Set([own, ...theirs].flatMap((v) => (Array.isArray(v) ? (v as string[]) : [])))];
    else if (isEmpty(own)) value = theirs.find((v) => !isEmpty(v));
    if (value !== undefined && JSON.stringify(value) !== JSON.stringify(own ?? null)) body[field] = value;
  }
  return body;
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

/** The custom values the survivor lacks, each from the first merged record that has one. */
function filledCustomValues(own: unknown, theirs: unknown[]): Record<string, unknown> {
  const survivor = (own ?? {}) as Record<string, unknown>;
  const filled: Record<string, unknown> = {};
  for (const values of theirs) {
    for (const [key, value] of Object.entries((values ?? {}) as Record<string, unknown>)) {
      if (isEmpty(survivor[key]) && !(key in filled) && !isEmpty(value)) filled[key] = value;
    }
  }
  return filled;
}
