/**
 * Builds the engine against SQLite :memory:, the in-process bus and fakes of records, auth and the
 * email transport, for unit specs.
 */
import { apiTimestamp } from '@crm/vocabulary';
import { InProcessBus, newMessage, type BusMessage } from '@crm/bus';
import { createLogger, DomainError } from '@crm/observability';
import { openStore, type DocumentStore } from '@crm/store';
import { RuleService } from '../application/rule-service';
import type { RecordsGateway, TaskSummary } from '../adapters/records-gateway';
import type { DirectoryUser, WorkspaceDirectory } from '../adapters/workspace-directory';
import { NoAiWriter, type AiWriter } from '../adapters/ai-writer';
import type { EmailTransport, OutboundEmail } from '../adapters/email-transport';
import { Enroller } from '../application/engine/enroller';
import { ExitWatcher } from '../application/engine/exit-watcher';
import { StepActions } from '../application/engine/step-actions';
import { StepDispatcher } from '../application/engine/step-dispatcher';
import { StepRunner } from '../application/engine/step-runner';
import { Sweeper } from '../application/engine/sweeper';
import type { RecordType } from '../domain/model';
import { automationCollections } from '../store/collections';
import { createRepositories, type AutomationRepositories } from '../store/repositories';

export class FakeRecords implements RecordsGateway {
  readonly records = new Map<string, Record<string, unknown>>();
  readonly tasks: Array<TaskSummary & { assignedTo: string | null; relatedTo: string; workspaceId: string }> = [];
  readonly assignments: Array<{ id: string; userId: string; correlationId: string }> = [];
  /** Fails the next n calls with an unavailable error. */
  failNext = 0;
  private taskSeq = 0;

  put(record: Record<string, unknown>): Record<string, unknown> {
    this.records.set(String(record.id), record);
    return record;
  }

  private maybeFail(): void {
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new DomainError('unavailable', 'records unavailable');
    }
  }

  async getRecord(_ws: string, _type: RecordType, id: string): Promise<Record<string, unknown> | null> {
    this.maybeFail();
    const record = this.records.get(id);
    return record ? structuredClone(record) : null;
  }
  async createTask(
    workspaceId: string,
    task: { name: string; dueDate: string; assignedTo: string | null; relatedTo: string },
  ): Promise<TaskSummary> {
    this.maybeFail();
    const created = {
      id: `tsk_${++this.taskSeq}`,
      name: task.name,
      dueDate: task.dueDate,
      createdAt: apiTimestamp(),
      assignedTo: task.assignedTo,
      relatedTo: task.relatedTo,
      workspaceId,
    };
    this.tasks.push(created);
    return created;
  }
  async listTasks(_ws: string, relatedTo: string): Promise<TaskSummary[]> {
    return this.tasks.filter((t) => t.relatedTo === relatedTo);
  }
  async assignOwner(_ws: string, _type: RecordType, id: string, userId: string, correlationId: string): Promise<void> {
    this.maybeFail();
    this.assignments.push({ id, userId, correlationId });
    const record = this.records.get(id);
    if (record) record.assignedTo = userId;
  }
  close(): void {}
}

export class FakeDirectory implements WorkspaceDirectory {
  readonly people = new Map<string, DirectoryUser>();
  planName = 'starter';
  async workspaceName(): Promise<string> {
    return 'Acme Corp';
  }
  async plan(): Promise<string> {
    return this.planName;
  }
  async users(_ws: string, ids: string[]): Promise<Map<string, DirectoryUser>> {
    return new Map(ids.filter((id) => this.people.has(id)).map((id) => [id, this.people.get(id)!]));
  }
  close(): void {}
}

export class RecordingTransport implements EmailTransport {
  readonly kind = 'log' as const;
  readonly sent: OutboundEmail[] = [];
  async send(email: OutboundEmail): Promise<void> {
    this.sent.push(email);
  }
  close(): void {}
}

export interface EngineHarness {
  store: DocumentStore;
  /** The repositories over `store` that the engine's classes were given. */
  repositories: AutomationRepositories;
  bus: InProcessBus;
  rules: RuleService;
  records: FakeRecords;
  directory: FakeDirectory;
  transport: RecordingTransport;
  enroller: Enroller;
  exits: ExitWatcher;
  runner: StepRunner;
  sweeper: Sweeper;
  /** Publishes a records event as the records service would. */
  /** `cause` is what records puts on events of a service's own write (automation's rules behind it). */
  publishEvent(type: string, payload: Record<string, unknown>, correlationId?: string, cause?: string): Promise<BusMessage>;
  close(): Promise<void>;
}

export async function buildEngine(options: { waitScale?: number; ai?: AiWriter; consume?: boolean } = {}): Promise<EngineHarness> {
  const logger = createLogger('automation-test', { level: 'silent' });
  const store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: automationCollections });
  const bus = new InProcessBus(logger, { stopGraceMs: 1000 });
  const records = new FakeRecords();
  const directory = new FakeDirectory();
  const transport = new RecordingTransport();
  const dispatcher = new StepDispatcher(bus);
  const waitScale = options.waitScale ?? 1;
  const repositories = createRepositories(store);
  const enroller = new Enroller(repositories, dispatcher, logger, waitScale);
  const actions = new StepActions({ repositories, records, directory, transport, ai: options.ai ?? new NoAiWriter(), logger });
  const runner = new StepRunner(repositories.runs, records, actions, dispatcher, logger, { waitScale, claimLeaseMs: 60_000 });
  const sweeper = new Sweeper(repositories, dispatcher, logger, { intervalMs: 1000, graceMs: 0 });
  const exits = new ExitWatcher(repositories.runs, records, logger);
  if (options.consume !== false) {
    await bus.consume({ name: 'automation.events', bindings: ['records.#'] }, async (m) => {
      await enroller.handle(m);
      await exits.handle(m);
    });
    await bus.consume({ name: 'automation.steps', bindings: ['automation.step_due.v1'] }, (m) => runner.handle(m));
  }
  return {
    store,
    repositories,
    bus,
    rules: new RuleService(repositories),
    records,
    directory,
    transport,
    enroller,
    exits,
    runner,
    sweeper,
    async publishEvent(type, payload, correlationId = 'req-1', cause) {
      const message = { ...newMessage(type, payload, { correlationId }), ...(cause ? { cause } : {}) };
      await bus.publish(message);
      return message;
    },
    async close() {
      await sweeper.stop();
      await bus.close();
      await store.close();
    },
  };
}

/** Resolves once `check` holds (polling), or rejects after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
