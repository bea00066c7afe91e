/** Builds a records service on an in-memory store and an in-process bus, for unit tests. */
import { InProcessBus, type BusMessage, type MessageBus } from '@crm/bus';
import { createLogger, type Logger } from '@crm/observability';
import { openStore, type DocumentStore } from '@crm/store';
import { createRecordsResources, type RecordsResources } from '../application/records-resources';
import type { Caller } from '../application/views';
import type { Clock } from '@crm/vocabulary';
import type { IdGenerator } from '../domain/ids';
import { OutboxRelay } from '../messaging/outbox-relay';
import { StaticUserDirectory, type UserDirectory } from '../adapters/user-directory';
import { recordsCollections } from '../store/collections';
import { RecordsRepository } from '../store/records-repository';

export const logger: Logger = createLogger('records-test', { level: 'silent' });

export const USERS = {
  usr_ada: { workspaceId: 'ws_a', name: 'Ada Lovelace' },
  usr_bob: { workspaceId: 'ws_b', name: 'Bob Other' },
};

export function callerIn(workspaceId = 'ws_a', actor: Caller['actor'] = { id: 'usr_ada', type: 'user' }): Caller {
  return { workspaceId, actor, correlationId: 'req-1' };
}

export interface Harness {
  store: DocumentStore;
  bus: MessageBus;
  relay: OutboxRelay;
  /** The records service's operations, by resource. */
  service: RecordsResources;
  published: BusMessage[];
  close(): Promise<void>;
}

export async function openTestStore(): Promise<DocumentStore> {
  return openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: recordsCollections });
}

export async function recordsHarness(
  options: { store?: DocumentStore; users?: UserDirectory; clock?: Clock; ids?: IdGenerator; relay?: 'manual' | 'auto' } = {},
): Promise<Harness> {
  const store = options.store ?? (await openTestStore());
  const bus = new InProcessBus(logger);
  const published: BusMessage[] = [];
  const consumer = await bus.consume({ name: 'test.records', bindings: ['records.#'] }, async (message) => {
    published.push(message);
  });
  const relay = new OutboxRelay(store, bus, logger, { sweepIntervalMs: 60_000 });
  const manual = options.relay === 'manual';
  const service = createRecordsResources({
    repository: new RecordsRepository(store),
    users: options.users ?? new StaticUserDirectory(USERS),
    relay: manual ? { register: (ws) => relay.register(ws), poke: () => undefined } : relay,
    clock: options.clock,
    ids: options.ids,
  });
  return {
    store,
    bus,
    relay,
    service,
    published,
    async close() {
      await service.context.auditStaging.stop();
      await relay.stop();
      await consumer.stop();
      await bus.close();
      if (!options.store) await store.close();
    },
  };
}

/** Waits until `check` holds, giving the event loop turns in between (no timing assertions). */
export async function eventually(check: () => boolean | Promise<boolean>, turns = 200): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('condition not met');
}
