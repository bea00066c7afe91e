/**
 * A record kind's built-in fields as data: one descriptor per field, in answer order, saying what
 * the value is and where the field takes part (written, listed, filtered, searched, imported,
 * tested by automation conditions, merged into step text). Every layer reads the same list: the
 * gateway's answers, write body, list parameters and OpenAPI schemas; the records service's rules,
 * create defaults, search text, stored type and proto mapping; the import's header matching and row
 * checks; automation's conditions and placeholders. Adding a built-in field is one descriptor here
 * plus its proto fields (a spec fails when the two drift).
 */
import { FIELD_LIMITS } from '../limits';

export type BuiltInFieldType =
  /** The record's own id (`prefix` + ULID). */
  | 'id'
  | 'text'
  | 'email'
  /** One of `choices`. */
  | 'choice'
  /** An id of another record (`target`) or of a user. */
  | 'reference'
  | 'number'
  | 'integer'
  /** An http(s) URL, or empty. */
  | 'url'
  /** `YYYY-MM-DD`. */
  | 'date'
  /** `YYYY-MM-DDThh:mm:ssZ`, set by the service. */
  | 'timestamp'
  | 'boolean'
  /** A list of short strings. */
  | 'tags'
  /** A list of ids of other records (`target`). */
  | 'references'
  /** A postal address (street, city, state, postalCode, country), or null. */
  | 'address'
  /** A client's own id: unique per workspace and kind. */
  | 'externalId'
  /** The workspace's custom field values (custom-fields.ts), carried as one JSON object. */
  | 'customFields';

export type BuiltInValue = string | number | boolean | null | readonly string[];

export interface BuiltInField {
  type: BuiltInFieldType;
  /** What the answer's schema says about the value. */
  description?: string;
  /** `id`: the id's prefix. */
  prefix?: string;
  /** Text: the most characters a value may have. */
  maxLength?: number;
  /** Numbers: the smallest and largest values. */
  min?: number;
  max?: number;
  /** `choice`: the value set. */
  choices?: readonly string[];
  /** `reference`: what the id names. */
  target?: 'account' | 'contact' | 'user';
  /** The value may be null (a write sends null to clear it). */
  nullable?: boolean;
  /** A client writes it; without `write` the field is read-only (ignored when sent back). */
  write?: {
    /** The value of a created record that does not send it. */
    default?: BuiltInValue;
    /** Must be sent on create. */
    required?: boolean;
    /** One of the fields of which at least one is required on create (people's names). */
    oneOfRequired?: boolean;
    /** What the write schema adds to the answer's description. */
    description?: string;
  };
  /** Filled when the record is read (the account's name, the owner's, an account's counts), never stored. */
  readTime?: true;
  /** In list items as well as in the full record (and in an export's default columns). */
  listed?: boolean;
  /** The filter language names it in `filter` and (when `sortable`) `ordering`. */
  filter?: {
    sortable: boolean;
    /** Aggregates may group by it: free text of few recurring values, or an owner. */
    selectLike?: boolean;
    /** Every record holds a value: an ordering by it needs no place for unset values. */
    alwaysSet?: boolean;
    /** Also a GET list parameter of the same name, with this description. */
    parameter?: string;
    /**
     * A GET list's `ordering` by it alone is the store's plain ordering, as before the filter
     * language: unset and '' values sort low, and its cursors stay valid. Any other sortable field
     * (and several) is the filter language's ordering, unset values last.
     */
    plainOrdering?: true;
  };
  /** A list's `search` matches it (people's names as one "first last" string). */
  searchable?: boolean;
  /** A CSV import fills it: the label a person reads in a row's error, and the headers that name it (normalised: lower case, letters and digits only). */
  import?: { label: string; headers: readonly string[] };
  /** Automation: rule conditions may test it. */
  condition?: boolean;
  /** Automation: step text may hold `{{<kind>.<field>}}`. */
  placeholder?: boolean;
}

export type BuiltInFields = Readonly<Record<string, BuiltInField>>;

/** The stored value type of one descriptor. */
type ValueOf<F> = F extends { type: 'tags' | 'references' }
  ? string[]
  : F extends { type: 'boolean' }
    ? boolean
    : F extends { type: 'number' | 'integer' }
      ? number
      : F extends { type: 'address' }
        ? PostalAddress
        : F extends { type: 'choice'; choices: readonly (infer C)[] }
          ? C
          : string;

export interface PostalAddress {
  street: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

/**
 * The values a stored record of the kind holds for its built-in fields (not the id, timestamps,
 * externalId and customFields every kind's base has, nor names filled at read time).
 */
export type StoredBuiltInValues<L extends BuiltInFields> = {
  -readonly [K in keyof L as K extends BaseFieldName ? never : L[K] extends { readTime: true } ? never : K]: L[K] extends { nullable: true }
    ? ValueOf<L[K]> | null
    : ValueOf<L[K]>;
};

/** The fields every kind's stored base holds. */
type BaseFieldName = 'id' | 'externalId' | 'createdAt' | 'updatedAt' | 'customFields';

/** The names of a list's fields that a CSV import fills. */
export type ImportedFieldName<L extends BuiltInFields> = {
  [K in keyof L]: L[K] extends { import: object } ? K : never;
}[keyof L] &
  string;

/** The names of the fields `keep` accepts, in answer order. */
export function fieldNames(fields: BuiltInFields, keep: (field: BuiltInField) => boolean = () => true): string[] {
  return Object.entries(fields)
    .filter(([, field]) => keep(field))
    .map(([name]) => name);
}

/** The values a created record takes for the writable fields its body left out. */
export function createDefaults(fields: BuiltInFields): Record<string, BuiltInValue> {
  const defaults: Record<string, BuiltInValue> = {};
  for (const [name, field] of Object.entries(fields)) {
    const value = field.write?.default;
    if (value !== undefined) defaults[name] = Array.isArray(value) ? [...(value as string[])] : value;
  }
  return defaults;
}

// The descriptors every kind shares.

export const idField = <P extends string>(prefix: P) =>
  ({
    type: 'id',
    prefix,
    listed: true,
    filter: { sortable: true, alwaysSet: true },
    condition: true,
  }) as const satisfies BuiltInField;

export const EXTERNAL_ID = {
  type: 'externalId',
  description: "The client's own id (1 to 255 characters), unique per workspace and kind, or null.",
  nullable: true,
  maxLength: FIELD_LIMITS.externalId,
  write: {
    default: null,
    description: 'Unique per workspace and kind (422 on `externalId` when another record of the kind has it); null clears.',
  },
  listed: true,
  filter: { sortable: true, parameter: 'Records with exactly this externalId.' },
} as const satisfies BuiltInField;

/** The owner, on every kind. */
export const ASSIGNED_TO = {
  type: 'reference',
  target: 'user',
  description: 'The owning user (`usr_...`), or null.',
  nullable: true,
  write: { default: null, description: 'A user of the workspace; null unassigns.' },
  listed: true,
  filter: { sortable: true, selectLike: true, parameter: 'Owner user id.' },
  condition: true,
} as const satisfies BuiltInField;

export const ASSIGNED_TO_NAME = {
  type: 'text',
  description: "The owner's name (read-only).",
  nullable: true,
  readTime: true,
} as const satisfies BuiltInField;

export const CREATED_AT = {
  type: 'timestamp',
  listed: true,
  filter: { sortable: true, alwaysSet: true, plainOrdering: true },
  condition: true,
} as const satisfies BuiltInField;
export const UPDATED_AT: BuiltInField = CREATED_AT;

export const CUSTOM_FIELDS = {
  type: 'customFields',
  description:
    "The workspace's custom fields of this kind (/api/settings/custom-fields/), by key: one entry per defined field, null when unset; `{}` when the kind has none. Each value is typed by its definition: text, url, email, select, date (`YYYY-MM-DD`) and datetime as strings, number and integer as numbers, boolean as a boolean, multiselect as a list of strings.",
  nullable: true,
  write: {
    description:
      "Any subset of the kind's custom fields, by key; keys not sent keep their value (on update) and null clears one. An unknown key, a value of the wrong type, a select value not among the options, a missing required field on create or a clash on a unique field: 422 keyed `customFields.<key>`. Not an object: 422 on `customFields`. Null as a whole changes nothing.",
  },
  listed: true,
} as const satisfies BuiltInField;

/** The name and email fields people records (contacts, leads) share. */
export const PERSON = {
  firstName: {
    type: 'text',
    maxLength: FIELD_LIMITS.name,
    write: { default: '', oneOfRequired: true, description: 'At least one of firstName and lastName is required on create.' },
    listed: true,
    filter: { sortable: true, plainOrdering: true },
    searchable: true,
    condition: true,
    placeholder: true,
  },
  lastName: {
    type: 'text',
    maxLength: FIELD_LIMITS.name,
    write: { default: '', oneOfRequired: true },
    listed: true,
    filter: { sortable: true, plainOrdering: true },
    searchable: true,
    condition: true,
    placeholder: true,
  },
  email: {
    type: 'email',
    maxLength: FIELD_LIMITS.email,
    write: { required: true },
    listed: true,
    filter: { sortable: true, plainOrdering: true },
    searchable: true,
    condition: true,
    placeholder: true,
  },
} as const satisfies BuiltInFields;
