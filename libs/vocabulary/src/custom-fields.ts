/**
 * Custom fields: a workspace's own typed fields of a record kind (contract-decisions "Round 3"),
 * described as data. Each definition becomes a filter descriptor beside the built-in ones
 * (record-fields.ts), so the filter language, `ordering`, aggregates, search and the OpenAPI
 * document read a custom field the way they read a built-in one, named `customFields.<key>`.
 */
import { ACCOUNT_FIELDS, CONTACT_FIELDS, LEAD_FIELDS, OPPORTUNITY_FIELDS, type BuiltInFields } from './fields';
import { RECORD_FILTER_FIELDS, type FilterFieldDescriptor, type FilterRecordKind } from './record-fields';

export const CUSTOM_FIELD_KINDS = ['contact', 'lead', 'account', 'opportunity'] as const;
export type CustomFieldKind = (typeof CUSTOM_FIELD_KINDS)[number];

export const CUSTOM_FIELD_TYPES = [
  'text',
  'number',
  'integer',
  'boolean',
  'date',
  'datetime',
  'select',
  'multiselect',
  'url',
  'email',
] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

/** The types a definition may mark `unique`. */
export const UNIQUE_CUSTOM_FIELD_TYPES: readonly CustomFieldType[] = ['text', 'integer', 'url', 'email'];
/** The types a list's `search` reads. */
export const SEARCHABLE_CUSTOM_FIELD_TYPES: readonly CustomFieldType[] = ['text', 'url', 'email'];
/** The types that take `options` (and require them). */
export const OPTION_CUSTOM_FIELD_TYPES: readonly CustomFieldType[] = ['select', 'multiselect'];

export const CUSTOM_FIELD_LIMITS = {
  perKind: 100,
  label: 100,
  description: 1_000,
  text: 1_000,
  options: 200,
  option: 100,
} as const;

export const CUSTOM_FIELD_KEY_PATTERN = /^[a-z][a-zA-Z0-9]{0,39}$/;

/** How a custom field is named wherever a field name goes: filters, ordering, errors, mappings. */
export const CUSTOM_FIELDS_PREFIX = 'customFields.';
/** A custom field's full name (`customFields.<key>`), as a JSON Schema / RegExp pattern. */
export const CUSTOM_FIELD_NAME_PATTERN = `^customFields\\.${CUSTOM_FIELD_KEY_PATTERN.source.slice(1)}`;

export interface CustomFieldDefinition {
  /** `fld_...` */
  id: string;
  kind: CustomFieldKind;
  key: string;
  label: string;
  type: CustomFieldType;
  /** Empty unless select or multiselect. */
  options: string[];
  required: boolean;
  unique: boolean;
  description: string;
  createdAt: string;
  updatedAt: string;
}

/** A stored value: text, url, email, select, date and datetime as strings; multiselect as a list. */
export type CustomFieldValue = string | number | boolean | string[];
export type CustomFieldValues = Record<string, CustomFieldValue>;

const BUILT_IN_FIELDS: Record<CustomFieldKind, BuiltInFields> = {
  contact: CONTACT_FIELDS,
  lead: LEAD_FIELDS,
  account: ACCOUNT_FIELDS,
  opportunity: OPPORTUNITY_FIELDS,
};

/** The stored records' own bookkeeping names, on every kind. */
const BOOKKEEPING_NAMES = new Set(['fullName', 'searchText', 'version', 'workspaceId']);

/**
 * Whether `key` names a field of the kind already: one of its built-in fields (fields/, `customFields`
 * itself included), a filter field of the kind (`accountName`), or the records' bookkeeping.
 */
export function isBuiltInFieldName(kind: CustomFieldKind, key: string): boolean {
  const has = (table: object) => Object.prototype.hasOwnProperty.call(table, key);
  return has(BUILT_IN_FIELDS[kind]) || has(RECORD_FILTER_FIELDS[kind as FilterRecordKind]) || BOOKKEEPING_NAMES.has(key);
}

/** The filter language's view of a definition (`customFields.<key>`). */
export function customFieldDescriptor(definition: Pick<CustomFieldDefinition, 'key' | 'type' | 'options'>): FilterFieldDescriptor {
  const stored = `${CUSTOM_FIELDS_PREFIX}${definition.key}`;
  switch (definition.type) {
    case 'text':
    case 'url':
    case 'email':
      return { type: 'text', sortable: true, stored };
    case 'number':
    case 'integer':
      return { type: 'number', sortable: true, stored };
    case 'boolean':
      return { type: 'boolean', sortable: true, stored };
    case 'date':
      return { type: 'date', sortable: true, stored };
    case 'datetime':
      return { type: 'timestamp', sortable: true, stored };
    case 'select':
      return { type: 'choice', choices: definition.options, sortable: true, stored };
    case 'multiselect':
      return { type: 'tags', sortable: false, stored };
    default: {
      const unreachable: never = definition.type;
      throw new Error(`Unknown custom field type ${String(unreachable)}`);
    }
  }
}
