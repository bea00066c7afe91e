/**
 * The fields a kind's lists, queries, exports and aggregates may name: the built-in ones and the
 * workspace's custom fields (`customFields.<key>`, and `account.customFields.<key>` one hop away
 * where the record links to an account), read from the store at each call so a field added on
 * one replica applies on every other at once. Also the GET lists' criteria built from them.
 */
import { DomainError } from '@crm/observability';
import {
  CUSTOM_FIELDS_PREFIX,
  RECORD_FILTER_FIELDS,
  customFieldDescriptor,
  type FilterFieldDescriptor,
  type FilterRecordKind,
} from '@crm/vocabulary';
import { parseIsoDate, parseIsoTimestamp } from '../domain/clock';
import * as lists from '../domain/list-rules';
import {
  builtInFields,
  parseFilterJson,
  parseOrdering,
  type FieldResolver,
  type FilterNode,
  type OrderingKey,
} from '../domain/record-filter';
import type { RecordsContext } from './records-context';

export async function fieldResolver(context: RecordsContext, workspaceId: string, kind: FilterRecordKind): Promise<FieldResolver> {
  const linksAccount = Object.values(RECORD_FILTER_FIELDS[kind]).some((field) => field.related);
  const [own, ofAccount] = await Promise.all([
    context.customFields.definitions(workspaceId, kind),
    linksAccount ? context.customFields.definitions(workspaceId, 'account') : Promise.resolve([]),
  ]);
  const custom = new Map<string, FilterFieldDescriptor>(own.map((d) => [`${CUSTOM_FIELDS_PREFIX}${d.key}`, customFieldDescriptor(d)]));
  for (const d of ofAccount) {
    const name = `${CUSTOM_FIELDS_PREFIX}${d.key}`;
    custom.set(`account.${name}`, {
      ...customFieldDescriptor(d),
      sortable: false,
      stored: undefined,
      related: { kind: 'account', via: 'accountId', field: name },
    });
  }
  const builtIn = builtInFields(kind);
  return (name) => builtIn(name) ?? custom.get(name);
}

/** What a GET list reads from its filter language parameters: `filter`, `customFields.<key>=` and `ordering`. */
export interface ListCriteria {
  filter?: FilterNode;
  ordering: lists.Ordering;
  /** Set when `ordering` names several fields or a custom one (the filter language's ordering). */
  orderingKeys?: OrderingKey[];
}

export async function listCriteria(
  context: RecordsContext,
  workspaceId: string,
  kind: FilterRecordKind,
  input: { filter?: string; customFieldEquals?: string; ordering?: string },
  /** The kind's fields when the caller has read them already. */
  known?: FieldResolver,
): Promise<ListCriteria> {
  const needsResolver = Boolean(input.filter?.trim() || input.customFieldEquals?.trim() || isLanguageOrdering(kind, input.ordering));
  const fields = known ?? (needsResolver ? await fieldResolver(context, workspaceId, kind) : builtInFields(kind));
  const tree = parseFilterJson(input.filter, fields);
  const equals = customEqualsFilter(input.customFieldEquals, fields);
  const filter = tree && equals ? { and: [tree, equals] } : (tree ?? equals);
  if (isLanguageOrdering(kind, input.ordering)) {
    return { filter, ordering: lists.ordering(kind, undefined), orderingKeys: parseOrdering(input.ordering, fields) };
  }
  return { filter, ordering: lists.ordering(kind, input.ordering) };
}

/**
 * An ordering the filter language reads: several fields, a custom field, or any sortable built-in
 * field beyond the kind's plain orderings (list-rules.ts, which the store's indexes serve alone).
 */
function isLanguageOrdering(kind: FilterRecordKind, ordering: string | undefined): boolean {
  if (!ordering) return false;
  const field = ordering.replace(/^-/, '');
  return ordering.includes(',') || field.startsWith(CUSTOM_FIELDS_PREFIX) || !lists.isPlainOrdering(kind, field);
}

/**
 * `?customFields.<key>=<value>` as the filter language's leaves: the query's text read by the
 * field's type (a number, true or false, a date, a timestamp; a multiselect holds the value).
 */
export function customEqualsFilter(text: string | undefined, fields: FieldResolver): FilterNode | undefined {
  if (!text || text.trim() === '') return undefined;
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const leaves: FilterNode[] = [];
  for (const [key, raw] of Object.entries(parsed)) {
    const field = `${CUSTOM_FIELDS_PREFIX}${key}`;
    const refuse = (message: string) => new DomainError('invalid_argument', `${field}: ${message}`, { [field]: [message] });
    const descriptor = fields(field);
    if (!descriptor) throw refuse('Unknown field.');
    const value = String(raw);
    const path = `?${field}`;
    switch (descriptor.type) {
      case 'tags':
        leaves.push({ leaf: { path, field, descriptor, operator: 'contains', value } });
        continue;
      case 'number':
        if (!/^-?\d+(\.\d+)?$/.test(value.trim())) throw refuse('A valid number is required.');
        leaves.push({ leaf: { path, field, descriptor, operator: 'eq', value: Number(value) } });
        continue;
      case 'boolean':
        if (value !== 'true' && value !== 'false') throw refuse('Must be true or false.');
        leaves.push({ leaf: { path, field, descriptor, operator: 'eq', value: value === 'true' } });
        continue;
      case 'date': {
        const date = parseIsoDate(value);
        if (!date) throw refuse('Date has wrong format. Use one of these formats instead: YYYY-MM-DD.');
        leaves.push({ leaf: { path, field, descriptor, operator: 'eq', value: date } });
        continue;
      }
      case 'timestamp': {
        const at = parseIsoTimestamp(value);
        if (!at) throw refuse('Must be an ISO 8601 timestamp.');
        leaves.push({ leaf: { path, field, descriptor, operator: 'eq', value: at } });
        continue;
      }
      case 'choice':
        if (!(descriptor.choices ?? []).includes(value)) throw refuse(`"${value}" is not a valid choice.`);
        leaves.push({ leaf: { path, field, descriptor, operator: 'eq', value } });
        continue;
      default:
        leaves.push({ leaf: { path, field, descriptor, operator: 'eq', value } });
    }
  }
  if (leaves.length === 0) return undefined;
  return leaves.length === 1 ? leaves[0] : { and: leaves };
}
