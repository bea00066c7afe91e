import type { BusMessage, MessageBus } from '@crm/bus';
import { createLogger } from '@crm/observability';
import { openStore, type DocumentStore } from '@crm/store';
import type { EnrollmentDocument } from '../../domain/model';
import { automationCollections, engineWorkspaces, enrollments } from '../../store/collections';
import { createRepositories } from '../../store/repositories';
import { RUN_FAILED_TYPE, RunEvents } from './run-events';
import type { StepDispatcher } from './step-dispatcher';
import { Sweeper } from './sweeper';

const WS = 'ws_runs';

class RecordingBus {
  readonly published: BusMessage[] = [];
  async publish(message: BusMessage): Promise<void> {
    this.published.push(message);
  }
}

function failedRun(id: string, completedAt: string, failureAnnounced?: boolean): EnrollmentDocument {
  return {
    id,
    workspaceId: WS,
    ruleId: 'rule_1',
    ruleName: 'Rule',
    enrolledRecordType: 'lead',
    enrolledRecordId: 'ld_1',
    status: 'failed',
    activeKey: null,
    reason: 'Step 1 failed',
    completedAt,
    ...(failureAnnounced === undefined ? {} : { failureAnnounced }),
  } as unknown as EnrollmentDocument;
}

describe('failed runs are announced at least once', () => {
  let store: DocumentStore;
  afterEach(() => store.close());

  it('the sweeper announces a failure a crash left unannounced, once, and leaves announced ones alone', async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: automationCollections });
    await store.global().insert(engineWorkspaces, { id: WS } as never);
    const long = '2026-01-01T00:00:00Z';
    await store.forWorkspace(WS).insert(enrollments, failedRun('log_cut', long, false));
    await store.forWorkspace(WS).insert(enrollments, failedRun('log_done', long));
    const bus = new RecordingBus();
    const repositories = createRepositories(store);
    const runEvents = new RunEvents(bus as unknown as MessageBus, repositories.runs);
    const dispatcher = { dispatch: async () => undefined } as unknown as StepDispatcher;
    const sweeper = new Sweeper(repositories, dispatcher, createLogger('test', { level: 'silent' }), {
      intervalMs: 1000,
      graceMs: 1000,
      runEvents,
    });

    await sweeper.sweep();
    expect(bus.published.map((m) => [m.type, (m.payload as { executionLogId: string }).executionLogId])).toEqual([
      [RUN_FAILED_TYPE, 'log_cut'],
    ]);
    expect(await store.forWorkspace(WS).get(enrollments, 'log_cut')).not.toHaveProperty('failureAnnounced');
    await sweeper.sweep();
    expect(bus.published).toHaveLength(1);
  });
});
