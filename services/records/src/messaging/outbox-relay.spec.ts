import { randomUUID } from 'node:crypto';
import { InProcessBus, openBus, type BusLocation, type BusMessage, type MessageBus } from '@crm/bus';
import type { DocumentStore } from '@crm/store';
import { eventually, logger, openTestStore } from '../testing/records-factory';
import { outbox, outboxWorkspaces, pendingEventsMark, type OutboxDocument } from '../store/collections';
import { OutboxRelay } from './outbox-relay';

const WS = 'ws_relay';

function pendingEvent(n: number): OutboxDocument {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)).toISOString();
  return {
    id: `evt_${String(n).padStart(4, '0')}`,
    workspaceId: WS,
    type: 'records.record_updated.v1',
    correlationId: `req-${n}`,
    occurredAt: at,
    payload: { workspaceId: WS, recordId: `rec_${n % 3}`, n },
    status: 'pending',
    createdAt: at,
    publishedAt: null,
  };
}

/** The events, pending, in one commit that marks their workspace, as a write would leave them. */
function commitPending(store: DocumentStore, events: OutboxDocument[]): Promise<void> {
  return store
    .forWorkspace(WS)
    .commit([
      pendingEventsMark(WS, events[0]!.id),
      ...events.map((document) => ({ kind: 'insert' as const, collection: outbox, document: { ...document } })),
    ]);
}

describe('OutboxRelay across replicas sharing one store', () => {
  let store: DocumentStore;
  let bus: InProcessBus;
  let published: BusMessage[];
  const relays: OutboxRelay[] = [];

  function replica(holder: string, leaseMs = 5_000): OutboxRelay {
    const relay = new OutboxRelay(store, bus, logger, { sweepIntervalMs: 60_000, batchSize: 7, holder, leaseMs });
    relays.push(relay);
    return relay;
  }

  async function commitEvents(from: number, count: number): Promise<void> {
    const events = Array.from({ length: count }, (_, i) => pendingEvent(from + i));
    await commitPending(store, events);
  }

  beforeEach(async () => {
    store = await openTestStore();
    bus = new InProcessBus(logger);
    published = [];
    await bus.consume({ name: 'test.relay', bindings: ['records.#'] }, async (message) => {
      published.push(message);
    });
  });

  afterEach(async () => {
    await Promise.all(relays.splice(0).map((relay) => relay.stop()));
    await bus.close();
    await store.close();
  });

  it('publishes each event once and in order when both replicas are poked together', async () => {
    const a = replica('replica-a');
    const b = replica('replica-b');
    await a.register(WS);
    for (let round = 0; round < 10; round++) {
      await commitEvents(round * 10, 10);
      a.poke(WS);
      b.poke(WS);
      await Promise.all([a.drain(WS), b.drain(WS)]);
    }
    await eventually(() => published.length >= 100);
    expect(published.map((m) => m.id)).toEqual(Array.from({ length: 100 }, (_, n) => pendingEvent(n).id));
    await expect(store.forWorkspace(WS).count(outbox)).resolves.toBe(0);
  });

  it('reads a few events at a time while a heavy one (a group) waits, and its full batch otherwise', async () => {
    const limits: number[] = [];
    const watched: DocumentStore = {
      ...store,
      forWorkspace: (workspaceId) => {
        const scoped = store.forWorkspace(workspaceId);
        return Object.assign(Object.create(scoped) as typeof scoped, {
          find: ((collection, query) => {
            if ((collection as unknown) === outbox) limits.push(query?.limit ?? Infinity);
            return scoped.find(collection, query);
          }) as typeof scoped.find,
        });
      },
    };
    const relay = new OutboxRelay(watched, bus, logger, { sweepIntervalMs: 60_000, batchSize: 7, heavyBatchSize: 2, holder: 'replica-a' });
    relays.push(relay);
    await relay.register(WS);
    const events = Array.from({ length: 10 }, (_, n) => (n === 5 ? { ...pendingEvent(n), heavy: true as const } : pendingEvent(n)));
    await commitPending(store, events);
    await relay.drain(WS);
    await eventually(() => published.length >= 10);
    expect(published.map((m) => m.id)).toEqual(events.map((e) => e.id));
    // Events 0-5 two at a time, until the heavy one is gone; then the rest in one read.
    expect(limits).toEqual([2, 2, 2, 7]);
    limits.length = 0;
    await commitEvents(10, 10);
    await relay.drain(WS);
    await eventually(() => published.length >= 20);
    expect(limits).toEqual([7, 7]);
  });

  it('sweeps only the workspaces with events to relay, however many idle ones are registered', async () => {
    let workspaceReads = 0;
    const counted: DocumentStore = {
      ...store,
      forWorkspace: (workspaceId) => {
        workspaceReads += 1;
        return store.forWorkspace(workspaceId);
      },
    };
    const relay = new OutboxRelay(counted, bus, logger, { sweepIntervalMs: 60_000, batchSize: 7, holder: 'replica-a' });
    relays.push(relay);
    for (let i = 0; i < 1000; i += 1) await relay.register(`ws_idle_${String(i).padStart(4, '0')}`);
    await relay.register(WS);
    await commitEvents(0, 3);
    await relay.sweep();
    await eventually(() => published.length >= 3);
    await expect(store.forWorkspace(WS).count(outbox)).resolves.toBe(0);
    expect(workspaceReads).toBeLessThan(10);
    // The workspace's mark is gone with its events: the next sweep reads no workspace at all.
    workspaceReads = 0;
    await relay.sweep();
    expect(workspaceReads).toBe(0);
  });

  it('keeps the mark of a workspace written to while the sweep looked at it, so its new events are swept', async () => {
    const relay = replica('replica-a');
    await relay.register(WS);
    await commitEvents(0, 1);
    const [seen] = await store.global().find(outboxWorkspaces, { where: [{ field: 'pendingMark', op: 'exists', value: true }] });
    await relay.drain(WS);
    await commitEvents(1, 1);
    // What a sweep that read `seen` before this commit would write: the mark has moved on, so it stays.
    await store
      .global()
      .update(outboxWorkspaces, WS, { unset: ['pendingMark'] }, { where: [{ field: 'pendingMark', op: 'eq', value: seen!.pendingMark! }] });
    await relay.sweep();
    await eventually(() => published.length >= 2);
    expect(published.map((m) => m.id)).toEqual([pendingEvent(0).id, pendingEvent(1).id]);
  });

  it('leaves events to the replica holding the lease, which relays them after giving it up', async () => {
    const a = replica('replica-a');
    const b = replica('replica-b');
    await a.register(WS);
    await store.global().update(outboxWorkspaces, WS, { set: { leaseHolder: 'replica-a', leaseExpiresAt: Date.now() + 60_000 } });
    await commitEvents(0, 3);
    await b.drain(WS);
    await expect(store.forWorkspace(WS).count(outbox)).resolves.toBe(3);
    await a.drain(WS);
    await eventually(() => published.length === 3);
    expect(published.map((m) => m.id)).toEqual(['evt_0000', 'evt_0001', 'evt_0002']);
  });

  it("takes over a dead holder's lease once it lapses, without a sweep", async () => {
    const survivor = replica('replica-b', 200);
    await survivor.register(WS);
    // A holder that died mid-drain: its lease is taken and its events are pending.
    await store.global().update(outboxWorkspaces, WS, { set: { leaseHolder: 'replica-dead', leaseExpiresAt: Date.now() + 400 } });
    await commitEvents(0, 20);
    await survivor.drain(WS);
    await expect(store.forWorkspace(WS).count(outbox)).resolves.toBe(20);
    await eventually(() => published.length === 20, 400);
    expect(published.map((m) => m.id)).toEqual(Array.from({ length: 20 }, (_, n) => pendingEvent(n).id));
    await expect(store.global().get(outboxWorkspaces, WS)).resolves.toMatchObject({ leaseHolder: 'replica-b', leaseExpiresAt: 0 });
  });

  it('gives the lease up when a publish fails, so the other replica goes on at once', async () => {
    const a = replica('replica-a');
    const b = replica('replica-b');
    await a.register(WS);
    await commitEvents(0, 3);
    jest.spyOn(bus, 'publish').mockRejectedValueOnce(new Error('broker gone'));
    await a.drain(WS);
    await expect(store.global().get(outboxWorkspaces, WS)).resolves.toMatchObject({ leaseHolder: 'replica-a', leaseExpiresAt: 0 });
    await b.drain(WS);
    await expect(store.forWorkspace(WS).count(outbox)).resolves.toBe(0);
  });

  it('keeps its lease while a slow broker holds its publishes, so no other replica publishes the workspace meanwhile', async () => {
    const leaseMs = 150;
    // Replica a's broker takes three leases' time to confirm its first batch.
    let slowCalls = 0;
    const slowBus: MessageBus = Object.create(bus) as MessageBus;
    slowBus.publish = async (message, options) => {
      if (slowCalls++ < 7) await new Promise((resolve) => setTimeout(resolve, leaseMs * 3));
      return bus.publish(message, options);
    };
    const a = new OutboxRelay(store, slowBus, logger, { sweepIntervalMs: 60_000, batchSize: 7, holder: 'replica-a', leaseMs });
    const b = replica('replica-b', leaseMs);
    relays.push(a);
    await a.register(WS);
    await commitEvents(0, 10);
    const drainingA = a.drain(WS);
    await new Promise((resolve) => setTimeout(resolve, leaseMs * 2));
    await b.drain(WS);
    await drainingA;
    await eventually(async () => (await store.forWorkspace(WS).count(outbox)) === 0, 400);
    await eventually(() => published.length >= 10);
    // Whatever either replica published has reached the consumer (deliveries run on setImmediate).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(published.map((m) => m.id)).toEqual(Array.from({ length: 10 }, (_, n) => pendingEvent(n).id));
  });

  it('deletes nothing it published after losing its lease, so the new holder publishes those events', async () => {
    const a = replica('replica-a');
    await a.register(WS);
    await commitEvents(0, 3);
    const publish = bus.publish.bind(bus);
    // While replica-a publishes, its lease lapses and replica-b takes it.
    jest.spyOn(bus, 'publish').mockImplementationOnce(async (message) => {
      await store.global().update(outboxWorkspaces, WS, { set: { leaseHolder: 'replica-b', leaseExpiresAt: Date.now() + 60_000 } });
      return publish(message);
    });
    await a.drain(WS);
    await expect(store.forWorkspace(WS).count(outbox)).resolves.toBe(3);
  });
});

const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

describe.each<{ name: string; location: () => BusLocation }>([
  { name: 'in-process', location: () => ({ kind: 'in-process' }) },
  {
    name: 'amqp',
    location: () => ({ kind: 'amqp', url: AMQP_URL, exchange: `crm-relay-${randomUUID().slice(0, 8)}.events`, queueExpiresMs: 60_000 }),
  },
])('OutboxRelay on the $name bus while no queue is bound', ({ location }) => {
  let store: DocumentStore;
  let bus: MessageBus;
  let relay: OutboxRelay;

  beforeEach(async () => {
    store = await openTestStore();
    bus = await openBus(location(), logger, { initialConnectRetries: 2 }).catch((err: Error) => {
      throw new Error(`RabbitMQ is not reachable at ${AMQP_URL} (${err.message}); start it with \`rabbitmq-server -detached\`.`);
    });
    // A short sweep interval: the first wait before unroutable events are tried again.
    relay = new OutboxRelay(store, bus, logger, { sweepIntervalMs: 100, batchSize: 7, holder: 'replica-a' });
  });

  afterEach(async () => {
    await relay.stop();
    await bus.close();
    await store.close();
  });

  it('keeps the events a fresh install has nobody to receive, and delivers them once a queue is bound', async () => {
    await relay.register(WS);
    const events = Array.from({ length: 10 }, (_, n) => pendingEvent(n));
    await commitPending(store, events);

    await relay.drain(WS);
    await expect(store.forWorkspace(WS).count(outbox)).resolves.toBe(10);
    // Kept aside, so later events are not held up behind them.
    await expect(store.forWorkspace(WS).count(outbox, [{ field: 'status', op: 'eq', value: 'unroutable' }])).resolves.toBe(10);

    const received: BusMessage[] = [];
    const queue = `relay-${randomUUID().slice(0, 8)}`;
    const consumer = await bus.consume({ name: queue, bindings: ['records.#'] }, async (message) => {
      received.push(message);
    });
    await eventually(async () => {
      await relay.sweep();
      return received.length === 10;
    }, 2_000);
    await consumer.stop();
    expect(received.map((m) => m.id)).toEqual(events.map((e) => e.id));
    await expect(store.forWorkspace(WS).count(outbox)).resolves.toBe(0);
  });
  it('keeps events of a type no queue takes aside, without holding up or repeating the others, and sends them once their queue is back', async () => {
    await relay.register(WS);
    const updates: BusMessage[] = [];
    const created: BusMessage[] = [];
    const consumers = [
      await bus.consume({ name: `relay-${randomUUID().slice(0, 8)}`, bindings: ['records.record_updated.v1'] }, async (m) => {
        updates.push(m);
      }),
    ];
    const events = Array.from({ length: 12 }, (_, n) => ({
      ...pendingEvent(n),
      type: n % 3 === 0 ? 'records.lead_created.v1' : 'records.record_updated.v1',
    }));
    const commit = (batch: OutboxDocument[]) => commitPending(store, batch);
    await commit(events.slice(0, 6));
    await relay.drain(WS);
    await commit(events.slice(6));
    await relay.drain(WS);
    await relay.drain(WS);
    const isUpdate = (e: { type: string }) => e.type === 'records.record_updated.v1';
    await eventually(() => updates.length === 8, 2_000);
    expect(updates.map((m) => m.id)).toEqual(events.filter(isUpdate).map((e) => e.id));
    await expect(store.forWorkspace(WS).count(outbox, [{ field: 'status', op: 'eq', value: 'unroutable' }])).resolves.toBe(4);

    consumers.push(
      await bus.consume({ name: `relay-${randomUUID().slice(0, 8)}`, bindings: ['records.lead_created.v1'] }, async (m) => {
        created.push(m);
      }),
    );
    // The next lead_created event is taken: the ones kept aside follow at once, oldest first.
    const next = { ...pendingEvent(20), type: 'records.lead_created.v1' };
    await commit([next]);
    await relay.drain(WS);
    await eventually(() => created.length === 5, 2_000);
    expect(created.map((m) => m.id).sort()).toEqual([...events.filter((e) => !isUpdate(e)).map((e) => e.id), next.id].sort());
    await expect(store.forWorkspace(WS).count(outbox)).resolves.toBe(0);
    expect(updates).toHaveLength(8);
    await Promise.all(consumers.map((c) => c.stop()));
  });
});
