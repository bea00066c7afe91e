/** The step sweeper's cost: what is overdue, not how many workspaces ever had rules. */
import type { BusMessage } from '@crm/bus';
import { createLogger } from '@crm/observability';
import { openStore, sqliteQueryPlan, type CollectionDefinition, type DocumentStore, type Query } from '@crm/store';
import type { EnrollmentDocument } from '../../domain/model';
import { automationCollections, engineWorkspaces, enrollments } from '../../store/collections';
import { createRepositories } from '../../store/repositories';
import type { StepDuePayload } from './messages';
import type { StepDispatcher } from './step-dispatcher';
import { Sweeper } from './sweeper';

const logger = createLogger('sweeper-test', { level: 'silent' });

function overdueRun(id: string, workspaceId: string, dueAt: number): EnrollmentDocument {
  return {
    id,
    workspaceId,
    ruleId: 'rul_1',
    status: 'in_progress',
    stepIndex: 1,
    dueAt,
    claimUntil: null,
    correlationId: `corr-${id}`,
  } as unknown as EnrollmentDocument;
}

describe('the step sweeper', () => {
  let store: DocumentStore;
  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: automationCollections });
  });
  afterEach(() => store.close());

  it('visits only the workspaces with overdue steps, however many idle ones have had rules', async () => {
    for (let i = 0; i < 1000; i += 1)
      await store.global().insert(engineWorkspaces, { id: `ws_idle_${i}`, registeredAt: '2026-01-01T00:00:00Z' });
    await store.global().insert(engineWorkspaces, { id: 'ws_busy', registeredAt: '2026-01-01T00:00:00Z' });
    await store.forWorkspace('ws_busy').insert(enrollments, overdueRun('log_1', 'ws_busy', Date.now() - 60_000));
    await store.forWorkspace('ws_idle_7').insert(enrollments, overdueRun('log_later', 'ws_idle_7', Date.now() + 60_000));
    let workspaceReads = 0;
    const reads: [CollectionDefinition<any>, Query][] = [];
    const counted: DocumentStore = {
      ...store,
      findAcrossWorkspaces: ((collection, query) => {
        reads.push([collection, query]);
        return store.findAcrossWorkspaces(collection, query);
      }) as DocumentStore['findAcrossWorkspaces'],
      forWorkspace: (workspaceId) => {
        workspaceReads += 1;
        return store.forWorkspace(workspaceId);
      },
    };
    const dispatched: BusMessage<StepDuePayload>[] = [];
    const dispatcher = {
      dispatch: async (message: BusMessage<StepDuePayload>) => void dispatched.push(message),
    } as unknown as StepDispatcher;
    const sweeper = new Sweeper(createRepositories(counted), dispatcher, logger, { intervalMs: 1000, graceMs: 1000 });
    expect(await sweeper.sweep()).toBe(1);
    expect(dispatched.map((m) => [m.payload.workspaceId, m.payload.executionLogId])).toEqual([['ws_busy', 'log_1']]);
    expect(workspaceReads).toBe(1);
    // Each look across workspaces walks an index that does not start with workspaceId.
    for (const [collection, query] of reads)
      expect(sqliteQueryPlan(collection, query)).toMatch(/^SEARCH \S+ USING INDEX (?!\S*workspaceId)\S+ \([^)]*\)$/);
    await sweeper.stop();
  });
});
