/**
 * The records' fields as data: one descriptor per field a list can filter and order by, read by
 * the records service (the filter language's checks and its store conditions) and the gateway (the
 * OpenAPI document). A custom field will be one more descriptor (`customFields.<key>`), resolved
 * from the workspace's definitions instead of this table.
 */
import { ACCOUNT_STAGES, CONTACT_STAGES, LEAD_STATUSES, OPPORTUNITY_STAGES } from './records';

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

/** Free text that holds a few recurring values (a source, an industry): aggregates group by it. */
const selectText = (): FilterFieldDescriptor => ({ type: 'text', sortable: true, selectLike: true });
const text = (stored?: string): FilterFieldDescriptor => ({ type: 'text', sortable: true, ...(stored ? { stored } : {}) });
const reference = (): FilterFieldDescriptor => ({ type: 'reference', sortable: true });
/** The owner: aggregates group by it. */
const owner = (): FilterFieldDescriptor => ({ type: 'reference', sortable: true, selectLike: true });
const choice = (choices: readonly string[]): FilterFieldDescriptor => ({ type: 'choice', choices, sortable: true });
const number = (): FilterFieldDescriptor => ({ type: 'number', sortable: true });
const timestamp = (): FilterFieldDescriptor => ({ type: 'timestamp', sortable: true });
const tags = (): FilterFieldDescriptor => ({ type: 'tags', sortable: false });

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

const alwaysSet = (descriptor: FilterFieldDescriptor): FilterFieldDescriptor => ({ ...descriptor, alwaysSet: true });
const COMMON = {
  id: alwaysSet(reference()),
  externalId: text(),
  assignedTo: owner(),
  createdAt: alwaysSet(timestamp()),
  updatedAt: alwaysSet(timestamp()),
};
const PERSON = { firstName: text(), lastName: text(), email: text(), phone: text(), notes: text() };

/**
 * Every list item field of each kind (but the owner's name and the account's counts, filled in at
 * read time), plus notes or description, externalId and, where a record links to an account, the
 * account's name, industry and stage.
 */
export const RECORD_FILTER_FIELDS: Record<FilterRecordKind, Record<string, FilterFieldDescriptor>> = {
  contact: {
    ...COMMON,
    ...PERSON,
    title: text(),
    stage: choice(CONTACT_STAGES),
    accountId: reference(),
    tags: tags(),
    ...ACCOUNT_HOP,
  },
  lead: {
    ...COMMON,
    ...PERSON,
    company: text(),
    status: choice(LEAD_STATUSES),
    source: selectText(),
    leadScore: number(),
  },
  account: {
    ...COMMON,
    name: text(),
    website: text(),
    industry: selectText(),
    companySize: text(),
    stage: choice(ACCOUNT_STAGES),
    description: text(),
  },
  opportunity: {
    ...COMMON,
    name: text(),
    accountId: reference(),
    value: number(),
    stage: choice(OPPORTUNITY_STAGES),
    probability: number(),
    closeDate: { type: 'date', sortable: true },
    source: selectText(),
    description: text(),
    ...ACCOUNT_HOP,
  },
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
