/**
 * A record kind's fields in one table, one row per field with its flags: its answer schema, whether
 * and how a client writes it (no `write`: read-only, ignored when sent back), whether list items
 * carry it, whether the list filters on it. The kind's answers, write body, list filters and their
 * OpenAPI schemas all come from the rows, so adding a field is one row.
 */
import { FIELD_LIMITS, MAX_SEARCH_LENGTH, type FilterRecordKind } from '@crm/vocabulary';
import type { JsonSchema } from '../../openapi/operation';
import { orderingDescription } from './record-query.routes';
import type { QueryParameter, RecordKind } from './record-routes';
import { t, type ResponseFields } from './record-shape';
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

/** The name and email rows people records (contacts, leads) share. */
export const PERSON_FIELDS: RecordFields = {
  firstName: {
    answer: t.string(),
    write: { type: 'string', maxLength: FIELD_LIMITS.name, description: 'At least one of firstName and lastName is required on create.' },
    oneOfRequired: true,
    listed: true,
  },
  lastName: { answer: t.string(), write: { type: 'string', maxLength: FIELD_LIMITS.name }, oneOfRequired: true, listed: true },
  email: { answer: t.string(), write: { type: 'string', format: 'email', maxLength: FIELD_LIMITS.email }, required: true, listed: true },
};

/** `externalId`, a client's own id, on every record kind: written, listed and filtered alike. */
export const EXTERNAL_ID_FIELD: RecordField = {
  answer: t.nullableString("The client's own id (1 to 255 characters), unique per workspace and kind, or null."),
  write: {
    type: 'string',
    nullable: true,
    maxLength: FIELD_LIMITS.externalId,
    description: 'Unique per workspace and kind (422 on `externalId` when another record of the kind has it); null clears.',
  },
  listed: true,
  filter: { description: 'Records with exactly this externalId.' },
};

/**
 * `customFields`, the workspace's own fields of the kind (/api/settings/custom-fields/), on every
 * record kind: carried to and from the records service as JSON text, judged there against the
 * definitions. Answered in full records and list items alike.
 */
export const CUSTOM_FIELDS_FIELD: RecordField = {
  answer: t.openObject(
    "The workspace's custom fields of this kind (/api/settings/custom-fields/), by key: one entry per defined field, null when unset; `{}` when the kind has none. Each value is typed by its definition: text, url, email, select, date (`YYYY-MM-DD`) and datetime as strings, number and integer as numbers, boolean as a boolean, multiselect as a list of strings.",
  ),
  write: {
    type: 'json',
    nullable: true,
    description:
      "Any subset of the kind's custom fields, by key; keys not sent keep their value (on update) and null clears one. An unknown key, a value of the wrong type, a select value not among the options, a missing required field on create or a clash on a unique field: 422 keyed `customFields.<key>`. Not an object: 422 on `customFields`. Null as a whole changes nothing.",
  },
  listed: true,
};

/** How a client writes tags, on every kind that has them. */
export const TAGS_WRITE: WritableField = {
  type: 'strings',
  maxItems: FIELD_LIMITS.tagCount,
  itemMaxLength: FIELD_LIMITS.tagLength,
  description: 'Blank and repeated tags are dropped.',
};

type FromTable<F extends string> = Pick<RecordKind<F>, 'write' | 'responseFields' | 'fullFields' | 'listFields' | 'filters'>;

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
    responseFields: Object.fromEntries(rows.map(([name, field]) => [name, field.answer])) as ResponseFields,
    fullFields: names(() => true),
    listFields: names((field) => field.listed === true),
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
