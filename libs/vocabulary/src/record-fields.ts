/**
 * The filter language's view of the records' fields: one descriptor per field a list can filter
 * and order by, made from each kind's built-in fields (fields/) that say `filter`, read by the
 * records service (the filter language's checks and its store conditions) and the gateway (the
 * OpenAPI document). A custom field is one more descriptor (`customFields.<key>`), resolved from
 * the workspace's definitions (custom-fields.ts).
 */
import {
  ACCOUNT_FIELDS,
  CONTACT_FIELDS,
  fieldNames,
  LEAD_FIELDS,
  OPPORTUNITY_FIELDS,
  type BuiltInField,
  type BuiltInFields,
} from './fields';
import { ACCOUNT_STAGES } from './records';

export type FilterFieldType =
  /** Free text: substring `contains`. */
  | 'text'
  /** One of a value set (`choices`). */
  | 'choice'
  /** A record or user id. */
  | 'reference'
  | 'number'
  /** `YYYY-MM-DD`. */
  | 'date'
  /** ISO 8601, stored as `YYYY-MM-DDThh:mm:ssZ`. */
  | 'timestamp'
  | 'boolean'
  /** A list of strings: `contains` is membership. */
  | 'tags';

export interface FilterFieldDescriptor {
  type: FilterFieldType;
  /** For `choice`. */
  choices?: readonly string[];
  /** Whether `ordering` may name it (every scalar field; not lists). */
  sortable: boolean;
  /**
   * Every record holds a value (its id, the timestamps the service sets): an ordering by it needs
   * no place for unset values, so the store's index on it serves the order and the cursor.
   */
  alwaysSet?: boolean;
  /** The stored document's path when it differs from the public name. */
  stored?: string;
  /**
   * A field of the linked account (`account.name`): the records whose `accountId` names an account
   * that matches. `field` is the account's field of that name.
   */
  related?: { kind: 'account'; via: 'accountId'; field: string };
  /**
   * Aggregates may group by it: a field of few values (a value set, an owner, a source). Choice
   * and boolean fields are always select-like; date and timestamp fields group by a date bucket.
   */
  selectLike?: boolean;
}

export type FilterRecordKind = 'contact' | 'lead' | 'account' | 'opportunity';

export const FILTER_OPERATORS = ['eq', 'neq', 'in', 'not_in', 'contains', 'gt', 'gte', 'lt', 'lte', 'is_empty', 'is_not_empty'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

const EQUALITY: readonly FilterOperator[] = ['eq', 'neq', 'in', 'not_in', 'is_empty', 'is_not_empty'];
const RANGE: readonly FilterOperator[] = [...EQUALITY, 'gt', 'gte', 'lt', 'lte'];

/** The operators each type of field takes. */
export const OPERATORS_BY_TYPE: Record<FilterFieldType, readonly FilterOperator[]> = {
  text: [...EQUALITY, 'contains'],
  choice: EQUALITY,
  reference: EQUALITY,
  number: RANGE,
  date: RANGE,
  timestamp: RANGE,
  boolean: ['eq', 'neq', 'is_empty', 'is_not_empty'],
  tags: ['contains', 'is_empty', 'is_not_empty'],
};

/** Bounds checked before anything is compiled. */
export const FILTER_LIMITS = {
  /** Levels of and/or/not; leaves do not count. */
  maxDepth: 5,
  maxLeaves: 50,
  /** Values of one `in` or `not_in`. */
  maxValues: 100,
  /** Fields of one `ordering`. */
  maxOrderingFields: 3,
  /** Characters of a text value. */
  maxTextLength: 1_000,
} as const;

const text = (): FilterFieldDescriptor => ({ type: 'text', sortable: true });
const choice = (choices: readonly string[]): FilterFieldDescriptor => ({ type: 'choice', choices, sortable: true });

const FILTER_TYPE: Record<BuiltInField['type'], FilterFieldType | undefined> = {
  id: 'reference',
  text: 'text',
  email: 'text',
  externalId: 'text',
  choice: 'choice',
  reference: 'reference',
  number: 'number',
  integer: 'number',
  url: 'text',
  date: 'date',
  timestamp: 'timestamp',
  boolean: 'boolean',
  tags: 'tags',
  references: undefined,
  address: undefined,
  customFields: undefined,
};

/** The filter descriptors of a kind's built-in fields that the filter language names. */
export function filterFieldsOf(fields: BuiltInFields): Record<string, FilterFieldDescriptor> {
  const out: Record<string, FilterFieldDescriptor> = {};
  for (const [name, field] of Object.entries(fields)) {
    const type = FILTER_TYPE[field.type];
    if (!field.filter || !type) continue;
    out[name] = {
      type,
      sortable: field.filter.sortable,
      ...(field.choices ? { choices: field.choices } : {}),
      ...(field.filter.alwaysSet ? { alwaysSet: true } : {}),
      ...(field.filter.selectLike ? { selectLike: true } : {}),
    };
  }
  return out;
}

/** A field of the linked account, one dotted hop away; lists cannot be ordered by it. */
const accountField = (field: string, descriptor: FilterFieldDescriptor): FilterFieldDescriptor => ({
  ...descriptor,
  sortable: false,
  related: { kind: 'account', via: 'accountId', field },
});
const ACCOUNT_HOP = {
  'account.name': accountField('name', text()),
  'account.industry': accountField('industry', text()),
  'account.stage': accountField('stage', choice(ACCOUNT_STAGES)),
  /** The list item's accountName is the linked account's name. */
  accountName: accountField('name', text()),
};

/** How many accounts a related condition may match: its records are then found by `accountId in (...)`. */
export const RELATED_ACCOUNTS_LIMIT = 1_000;

/**
 * The fields of each kind's filter language: its built-in fields that say `filter` (fields/) and,
 * where a record links to an account, the account's name, industry and stage.
 */
export const RECORD_FILTER_FIELDS: Record<FilterRecordKind, Record<string, FilterFieldDescriptor>> = {
  contact: { ...filterFieldsOf(CONTACT_FIELDS), ...ACCOUNT_HOP },
  lead: filterFieldsOf(LEAD_FIELDS),
  account: filterFieldsOf(ACCOUNT_FIELDS),
  opportunity: { ...filterFieldsOf(OPPORTUNITY_FIELDS), ...ACCOUNT_HOP },
};

/** The fields a kind's GET list orders by alone through the store's plain ordering (`filter.plainOrdering`). */
export const PLAIN_ORDERINGS: Record<FilterRecordKind, readonly string[]> = {
  contact: fieldNames(CONTACT_FIELDS, (field) => field.filter?.plainOrdering === true),
  lead: fieldNames(LEAD_FIELDS, (field) => field.filter?.plainOrdering === true),
  account: fieldNames(ACCOUNT_FIELDS, (field) => field.filter?.plainOrdering === true),
  opportunity: fieldNames(OPPORTUNITY_FIELDS, (field) => field.filter?.plainOrdering === true),
};

/** Aggregates (`GET /api/{kind}/aggregate/`): what `groupBy` and `metrics` take. */
export const AGGREGATE_BUCKETS = ['day', 'week', 'month', 'quarter', 'year'] as const;
export type AggregateBucket = (typeof AGGREGATE_BUCKETS)[number];
export const AGGREGATE_METRIC_OPS = ['sum', 'avg', 'min', 'max'] as const;
export type AggregateMetricOp = (typeof AGGREGATE_METRIC_OPS)[number];
export const AGGREGATE_LIMITS = { maxGroupBy: 2, maxMetrics: 10 } as const;

/** A field aggregates group by as it is: select-like, on the record itself. */
export function isGroupable(field: FilterFieldDescriptor): boolean {
  return !field.related && (field.type === 'choice' || field.type === 'boolean' || field.selectLike === true);
}

/** A field aggregates group by a date bucket of. */
export function isBucketable(field: FilterFieldDescriptor): boolean {
  return !field.related && (field.type === 'date' || field.type === 'timestamp');
}

/** A field aggregates sum, average, minimise and maximise. */
export function isMeasurable(field: FilterFieldDescriptor): boolean {
  return !field.related && field.type === 'number';
}
