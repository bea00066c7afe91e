import { afterKeysInOrder } from '../list-cursor';
import { defineCollection, type SortKey, type StoredDocument } from '../port';
import { sqliteQueryPlan } from './query-plan';

type Person = StoredDocument & { createdAt: string; stage?: string };
const people = defineCollection<Person>({
  name: 'people',
  scope: 'workspace',
  fields: { createdAt: 'string', stage: 'string' },
  indexes: [{ fields: ['createdAt'] }, { fields: ['stage', 'createdAt'] }],
});

const workspace = { field: 'workspaceId', op: 'eq', value: 'w1' } as const;

describe('a cursor page on SQLite', () => {
  it.each([
    ['newest first', [{ field: 'createdAt', direction: 'desc' }], ['2026-01-01T00:00:00Z']],
    ['oldest first', [{ field: 'createdAt', direction: 'asc' }], ['2026-01-01T00:00:00Z']],
    [
      'by stage, then oldest',
      [
        { field: 'stage', direction: 'asc' },
        { field: 'createdAt', direction: 'asc' },
      ],
      ['lead', '2026-01-01T00:00:00Z'],
    ],
  ] as [string, SortKey[], string[]][])('reads each group after the cursor as one index range (%s)', (_name, sort, values) => {
    // Together, as one OR, SQLite walks the index from the list's start and filters every row before
    // the cursor: a page deep in a list of 100,000 cost 11.7 ms instead of 0.5 ms.
    for (const group of afterKeysInOrder(sort, { values, id: 'p_5' })) {
      const plan = sqliteQueryPlan(people, { where: [workspace, ...group], sort, limit: 51 });
      expect(plan).toMatch(/^SEARCH people USING (COVERING )?INDEX people__workspaceId__/);
      expect(plan).not.toMatch(/TEMP B-TREE|SCAN/);
    }
  });
});
