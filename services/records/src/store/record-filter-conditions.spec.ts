import { sqliteQueryPlan, type Condition } from '@crm/store';
import type { FilterRecordKind } from '@crm/vocabulary';
import { builtInFields, parseOrdering } from '../domain/record-filter';
import { RECORD_COLLECTIONS } from './collections';
import { orderingToSort } from './record-filter-conditions';

const inWorkspace: Condition = { field: 'workspaceId', op: 'eq', value: 'ws_a' };
const KINDS: FilterRecordKind[] = ['contact', 'lead', 'account', 'opportunity'];
const planOf = (kind: FilterRecordKind, ordering: string | undefined) =>
  sqliteQueryPlan(RECORD_COLLECTIONS[kind], {
    where: [inWorkspace],
    sort: orderingToSort(parseOrdering(ordering, builtInFields(kind))),
    limit: 500,
  });

describe('ordering a list', () => {
  // The default of POST query and exports: a sort of the whole workspace per page made an export of
  // 100,000 contacts take 50 s.
  it.each(KINDS)('%s: the default order and the timestamps are read off an index, without sorting', (kind) => {
    for (const ordering of [undefined, 'createdAt', '-updatedAt']) {
      const plan = planOf(kind, ordering);
      expect(plan).toMatch(/USING (COVERING )?INDEX/);
      expect(plan).not.toContain('TEMP B-TREE');
    }
  });

  it('keeps unset values last for a field a record may leave empty', () => {
    const sort = orderingToSort(parseOrdering('lastName', builtInFields('contact')));
    expect(sort).toEqual([{ field: 'lastName', direction: 'asc', unset: 'high' }]);
  });
});
