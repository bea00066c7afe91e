/**
 * A record kind's fields in one table, one row per field with its flags: its answer schema, whether
 * and how a client writes it (no `write`: read-only, ignored when sent back), whether list items
 * carry it, whether the list filters on it. The rows are made from the kind's built-in field
 * descriptors (built-in-record-fields.ts); the kind's answers, write body, list filters and their
 * OpenAPI schemas all come from them.
 */
import { MAX_SEARCH_LENGTH, type FilterRecordKind } from '@crm/vocabulary';
import type { JsonSchema } from '../../openapi/operation';
import { orderingDescription } from './record-query.routes';
import type { QueryParameter, RecordKind } from './record-kind';
import { recordAnswer, t } from './record-shape';
import type { WritableField } from './write-body';

export interface RecordField {
  /** Its value in answers. */
  answer: JsonSchema;
  /** Writable, with its body type; left out for a read-only field (ignored when sent back). */
  write?: WritableField;
  /** Required on create (the service enforces it; stated in the document). */
  required?: boolean;
  /** One of the fields of which at least one is required on create (contacts' and leads' names). */
  oneOfRequired?: boolean;
  /** In list items as well as in the full record. */
  listed?: boolean;
  /** A list filter of the same name (a string in the query unless `schema` says otherwise). */
  filter?: { description: string; schema?: JsonSchema };
}

export type RecordFields = Record<string, RecordField>;

type FromTable<F extends string> = Pick<RecordKind<F>, 'write' | 'answer' | 'filters'>;

/**
 * The kind's field lists from its table. `listParameters` are the list's filters in the order its
 * links keep them: a field's name for a field's filter (its row says `filter`), or a parameter that
 * is no field (search, date ranges, ordering).
 */
export function fromTable<F extends string>(table: RecordFields, listParameters: ReadonlyArray<F | QueryParameter<F>>): FromTable<F> {
  const rows = Object.entries(table);
  const names = (keep: (field: RecordField) => boolean) => rows.filter(([, field]) => keep(field)).map(([name]) => name);
  const filters = listParameters.map((entry) => {
    if (typeof entry !== 'string') return entry;
    const filter = table[entry]?.filter;
    if (!filter) throw new Error(`${entry} is listed as a filter, but its field has no filter.`);
    return { name: entry, description: filter.description, schema: filter.schema ?? t.string() };
  });
  const unlisted = names((field) => field.filter !== undefined).filter((name) => !listParameters.includes(name as F));
  if (unlisted.length > 0) throw new Error(`Filters not in the list's parameters: ${unlisted.join(', ')}.`);
  return {
    answer: recordAnswer(
      Object.fromEntries(rows.map(([name, field]) => [name, field.answer])),
      names((field) => field.listed === true),
    ),
    write: {
      fields: Object.fromEntries(rows.flatMap(([name, field]) => (field.write ? [[name, field.write]] : []))),
      readOnly: names((field) => !field.write),
      required: names((field) => field.required === true),
      ...(names((field) => field.oneOfRequired === true).length > 0
        ? { oneOfRequired: names((field) => field.oneOfRequired === true) }
        : {}),
    },
    filters,
  };
}

const ISO = 'ISO 8601 date or timestamp (any offset); 400 when not one.';

/**
 * `ordering`: up to 3 comma-separated fields the records service sorts the kind by (built-in or
 * `customFields.<key>`), `-` prefixed for descending; the service judges it (else 400), so the
 * document states no enum a custom field could not be in.
 */
export function orderingParameter(kind: FilterRecordKind): QueryParameter<'ordering'> {
  return { name: 'ordering', description: orderingDescription(kind), schema: { type: 'string' } };
}

/** `search`: one literal substring, at most 200 characters (else 400). */
export function searchParameter(description: string): QueryParameter<'search'> {
  return { name: 'search', description, schema: { type: 'string', maxLength: MAX_SEARCH_LENGTH } };
}

/** The `createdAt` range filters contacts and leads share. */
export const CREATED_RANGE: readonly QueryParameter<'createdAfter' | 'createdBefore'>[] = [
  { name: 'createdAfter', description: `createdAt on or after; ${ISO}`, schema: t.string() },
  { name: 'createdBefore', description: `createdAt on or before; ${ISO}`, schema: t.string() },
];
