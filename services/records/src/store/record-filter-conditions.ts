/**
 * A checked filter tree (domain/record-filter.ts) as the store's conditions, and an ordering as its
 * sort keys. Values stay values (each adapter binds or wraps them), operators come from this
 * table, never from input, and field paths from the field's descriptor.
 *
 * A field of the linked account (`account.name`) is answered in two steps, with no join: the
 * accounts meeting the condition are found first (at most RELATED_ACCOUNTS_LIMIT, else the filter
 * is refused), then the records whose accountId is one of them. A condition that unset values
 * meet (neq, not_in, is_empty) is the negation of its opposite's step, so a record without an
 * account meets it, as it meets the same condition on its own fields.
 */
import type { Condition, Scalar, SortKey } from '@crm/store';
import { RELATED_ACCOUNTS_LIMIT, type FilterOperator } from '@crm/vocabulary';
import { refused, type FilterLeaf, type FilterNode, type OrderingKey } from '../domain/record-filter';

/** The ids of up to `limit` accounts of the workspace meeting `where`. */
export type AccountIdsLookup = (where: Condition[], limit: number) => Promise<string[]>;

const OPPOSITE: Partial<Record<FilterOperator, FilterOperator>> = { neq: 'eq', not_in: 'in', is_empty: 'is_not_empty' };

export async function filterToConditions(filter: FilterNode | undefined, accountIds: AccountIdsLookup): Promise<Condition[]> {
  if (!filter) return [];
  if ('and' in filter) return (await Promise.all(filter.and.map((child) => filterToConditions(child, accountIds)))).flat();
  if ('or' in filter) return [{ or: await Promise.all(filter.or.map((child) => filterToConditions(child, accountIds))) }];
  if ('not' in filter) return [{ not: await filterToConditions(filter.not, accountIds) }];
  const { leaf } = filter;
  if (!leaf.descriptor.related) return [leafCondition(leaf)];
  return [await relatedCondition(leaf, accountIds)];
}

async function relatedCondition(leaf: FilterLeaf, accountIds: AccountIdsLookup): Promise<Condition> {
  const related = leaf.descriptor.related!;
  const opposite = OPPOSITE[leaf.operator];
  const positive: FilterLeaf = {
    ...leaf,
    field: related.field,
    descriptor: { ...leaf.descriptor, related: undefined, stored: undefined },
    operator: opposite ?? leaf.operator,
  };
  const ids = await accountIds([leafCondition(positive)], RELATED_ACCOUNTS_LIMIT + 1);
  if (ids.length > RELATED_ACCOUNTS_LIMIT) {
    throw refused('filter', `${leaf.path}: "${leaf.field}" matches more than ${RELATED_ACCOUNTS_LIMIT} accounts; narrow it.`);
  }
  const linked: Condition = { field: related.via, op: 'in', values: ids };
  return opposite ? { not: [linked] } : linked;
}

function leafCondition(leaf: FilterLeaf): Condition {
  const field = leaf.descriptor.stored ?? leaf.field;
  const value = leaf.value as Scalar;
  const values = (Array.isArray(leaf.value) ? leaf.value : []) as Scalar[];
  switch (leaf.operator) {
    case 'eq':
      return { field, op: 'eq', value };
    // The store's ne and nin keep documents without the field, as the language promises.
    case 'neq':
      return { field, op: 'ne', value };
    case 'in':
      return { field, op: 'in', values };
    case 'not_in':
      return { field, op: 'nin', values };
    case 'contains':
      return leaf.descriptor.type === 'tags' ? { field, op: 'has', value } : { field, op: 'contains_text', value: value as string };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return { field, op: leaf.operator, value: value as string | number };
    case 'is_empty':
      return { field, op: 'empty', value: true };
    case 'is_not_empty':
      return { field, op: 'empty', value: false };
    default: {
      const unreachable: never = leaf.operator;
      throw new Error(`Unknown operator ${String(unreachable)}`);
    }
  }
}

/** Unset values sort last ascending and first descending, as the language promises (a field every record holds has none). */
export function orderingToSort(ordering: OrderingKey[]): SortKey[] {
  return ordering.map((key) => ({
    field: key.descriptor.stored ?? key.field,
    direction: key.direction,
    ...(key.descriptor.alwaysSet ? {} : { unset: 'high' as const }),
  }));
}
