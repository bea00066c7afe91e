/**
 * A checked filter tree (domain/record-filter.ts) as the store's conditions, and an ordering as its
 * sort keys. Values stay values (each adapter binds or wraps them), operators come from this
 * table, never from input, and field paths from the field's descriptor.
 */
import type { Condition, Scalar, SortKey } from '@crm/store';
import type { FilterLeaf, FilterNode, OrderingKey } from '../domain/record-filter';

export function filterToConditions(filter: FilterNode | undefined): Condition[] {
  if (!filter) return [];
  if ('and' in filter) return filter.and.flatMap(filterToConditions);
  if ('or' in filter) return [{ or: filter.or.map(filterToConditions) }];
  if ('not' in filter) return [{ not: filterToConditions(filter.not) }];
  return [leafCondition(filter.leaf)];
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

/** Unset values sort last ascending and first descending, as the language promises. */
export function orderingToSort(ordering: OrderingKey[]): SortKey[] {
  return ordering.map((key) => ({ field: key.descriptor.stored ?? key.field, direction: key.direction, unset: 'high' }));
}
