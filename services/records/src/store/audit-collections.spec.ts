import { sqliteQueryPlan, type Condition } from '@crm/store';
import { auditEntries } from './audit-collections';

const newestFirst = [{ field: 'occurredAt', direction: 'desc' as const }];
const inWorkspace: Condition = { field: 'workspaceId', op: 'eq', value: 'ws_a' };

describe('audit entries collection', () => {
  it.each(['recordId', 'recordKind', 'actorType', 'actorId', 'action', 'requestId'])(
    'reads a page filtered by %s newest first off one index, without sorting',
    (field) => {
      const plan = sqliteQueryPlan(auditEntries, {
        where: [inWorkspace, { field, op: 'eq', value: 'x' }],
        sort: newestFirst,
        limit: 25,
      });
      expect(plan).toMatch(/^SEARCH \S+ USING INDEX \S+/);
      expect(plan).not.toContain('TEMP B-TREE');
    },
  );

  it('reads the whole log in a time window newest first off an index', () => {
    const where: Condition[] = [inWorkspace, { field: 'occurredAt', op: 'gt', value: '2026-01-01T00:00:00Z' }];
    const plan = sqliteQueryPlan(auditEntries, { where, sort: newestFirst, limit: 25 });
    expect(plan).toMatch(/^SEARCH \S+ USING INDEX \S+/);
    expect(plan).not.toContain('TEMP B-TREE');
  });
});
