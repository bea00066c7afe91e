import { InProcessBus, type BusMessage } from '@crm/bus';
import { isDomainError } from '@crm/observability';
import type { DocumentStore } from '@crm/store';
import { webhookEventsFor } from '@crm/vocabulary';
import { FeedIntake } from '../messaging/feed-intake';
import { OutboxRelay } from '../messaging/outbox-relay';
import { feedEvents } from '../store/change-feed-collections';
import { ChangeFeedRepository } from '../store/change-feed-repository';
import { outbox, pendingEventsMark, type OutboxDocument } from '../store/collections';
import { eventually, logger, openTestStore } from '../testing/records-factory';
import { ChangeFeed } from './change-feed';

const WS = 'ws_feed';
let counter = 0;

function updated(workspaceId: string, recordId: string): OutboxDocument {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ++counter)).toISOString();
  return {
    id: `evt_${String(counter).padStart(6, '0')}`,
    workspaceId,
    type: 'records.record_updated.v1',
    correlationId: `req-${counter}`,
    occurredAt: at,
    payload: { workspaceId, recordType: 'lead', recordId, record: { id: recordId, n: counter } },
    status: 'pending',
    createdAt: at,
    publishedAt: null,
  };
}

function imported(workspaceId: string, contacts: number): OutboxDocument {
  const event = updated(workspaceId, 'none');
  const events = Array.from({ length: contacts }, (_, i) => ({
    recordType: 'contact',
    recordId: `cnt_${counter}_${i}`,
    record: { id: `cnt_${counter}_${i}` },
  }));
  return { ...event, type: 'records.contacts_created.v1', payload: { workspaceId, events } };
}

async function refusal(promise: Promise<unknown>): Promise<Record<string, string[]> | undefined> {
  try {
    await promise;
  } catch (error) {
    if (isDomainError(error) && error.kind === 'invalid_argument') return error.fields;
    throw error;
  }
  throw new Error('not refused');
}

describe('the change feed', () => {
  let store: DocumentStore;
  let bus: InProcessBus;
  let published: BusMessage[];
  let relays: OutboxRelay[];
  let feed: ChangeFeed;

  function replica(holder: string): OutboxRelay {
    const relay = new OutboxRelay(store, bus, logger, { sweepIntervalMs: 60_000, batchSize: 7, holder });
    relays.push(relay);
    return relay;
  }

  async function commit(...events: OutboxDocument[]): Promise<void> {
    await store
      .forWorkspace(events[0]!.workspaceId)
      .commit([
        pendingEventsMark(events[0]!.workspaceId, events[0]!.id),
        ...events.map((document) => ({ kind: 'insert' as const, collection: outbox, document: { ...document } })),
      ]);
  }

  /** Every page from the start, `limit` at a time. */
  async function readAll(workspaceId: string, limit: string, types?: string) {
    const results = [];
    let after: string | undefined;
    for (;;) {
      const page = await feed.list(workspaceId, { after, limit, types });
      results.push(...page.results);
      if (page.results.length === 0) return { results, after: page.nextCursor };
      after = page.nextCursor;
    }
  }

  beforeEach(async () => {
    store = await openTestStore();
    bus = new InProcessBus(logger);
    published = [];
    relays = [];
    await bus.consume({ name: 'test.feed', bindings: ['records.#'] }, async (message) => {
      published.push(message);
    });
    feed = new ChangeFeed(new ChangeFeedRepository(store));
  });

  afterEach(async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    await bus.close();
    await store.close();
  });

  it('numbers every event once, without gaps, while two replicas relay the same workspace at once', async () => {
    const [a, b] = [replica('a'), replica('b')];
    for (let round = 0; round < 10; round++) {
      await commit(...Array.from({ length: 5 }, (_, i) => updated(WS, `ld_${i}`)));
      a.poke(WS);
      b.poke(WS);
    }
    await eventually(
      async () => (await store.forWorkspace(WS).count(outbox)) === 0 && new Set(published.map((m) => m.id)).size === 50,
      1000,
    );
    const entries = await store.forWorkspace(WS).find(feedEvents, { sort: [{ field: 'seq', direction: 'asc' }] });
    expect(entries.map((entry) => entry.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // In the order the relay published them, which is the order they were written.
    const outboxIds = entries.map((entry) => entry.id.split(':')[0]);
    expect(outboxIds).toEqual([...new Set(published.map((message) => message.id))]);
    expect(outboxIds).toEqual([...outboxIds].sort());
  });

  it('answers the webhook envelopes of the published messages, with the same ids', async () => {
    const relay = replica('a');
    await commit(updated(WS, 'ld_1'), imported(WS, 3), updated(WS, 'ld_2'));
    await relay.drain(WS);
    await eventually(() => published.length === 3);
    const page = await feed.list(WS, {});
    expect(page.results).toEqual(published.flatMap((message) => webhookEventsFor(message)));
    expect(page.results.map((event) => event.type)).toEqual([
      'lead.updated',
      'contact.created',
      'contact.created',
      'contact.created',
      'lead.updated',
    ]);
  });

  it('resumes exactly after the last event given, also inside an import batch and when nothing new happened', async () => {
    const relay = replica('a');
    await commit(updated(WS, 'ld_1'), imported(WS, 5), updated(WS, 'ld_2'));
    await relay.drain(WS);
    const all = (await feed.list(WS, { limit: '1000' })).results.map((event) => event.id);
    const paged = await readAll(WS, '2');
    expect(paged.results.map((event) => event.id)).toEqual(all);

    // Nothing new: the cursor stays put, and then gives exactly what came after it.
    expect((await feed.list(WS, { after: paged.after })).results).toEqual([]);
    const again = await feed.list(WS, { after: paged.after });
    expect(again.results).toEqual([]);
    await commit(updated(WS, 'ld_3'));
    await relay.drain(WS);
    const next = await feed.list(WS, { after: again.nextCursor });
    expect(next.results.map((event) => event.data.record)).toEqual([expect.objectContaining({ id: 'ld_3' })]);
  });

  it('filters by type, page after page', async () => {
    const relay = replica('a');
    await commit(updated(WS, 'ld_1'), imported(WS, 2), updated(WS, 'ld_2'));
    await relay.drain(WS);
    const only = await readAll(WS, '1', 'contact.created');
    expect(only.results.map((event) => event.type)).toEqual(['contact.created', 'contact.created']);
    const both = await feed.list(WS, { types: 'lead.updated, contact.created' });
    expect(both.results).toHaveLength(4);
  });

  it("refuses a cursor it did not make, another workspace's, an unknown type and a bad limit", async () => {
    const relay = replica('a');
    await commit(updated(WS, 'ld_1'), updated(WS, 'ld_2'));
    await commit(updated('ws_other', 'ld_9'));
    await relay.drain(WS);
    await relay.drain('ws_other');
    const theirs = (await feed.list('ws_other', { limit: '1' })).nextCursor;
    const mine = (await feed.list(WS, { limit: '1' })).nextCursor;
    expect(await refusal(feed.list(WS, { after: theirs }))).toEqual({ after: [expect.any(String)] });
    const forged = Buffer.from(
      Buffer.from(mine, 'base64url')
        .toString()
        .replace(/^f1\.\d+\./, 'f1.0.'),
    ).toString('base64url');
    expect(await refusal(feed.list(WS, { after: forged }))).toEqual({ after: [expect.any(String)] });
    expect(await refusal(feed.list(WS, { after: 'not-a-cursor' }))).toEqual({ after: [expect.any(String)] });
    expect(await refusal(feed.list(WS, { types: 'lead.updated,lead.exploded' }))).toEqual({
      types: [expect.stringContaining('lead.exploded')],
    });
    for (const limit of ['0', '-1', 'ten', '1.5']) expect(await refusal(feed.list(WS, { limit }))).toEqual({ limit: [expect.any(String)] });
    // Another workspace's events never appear in this one's feed.
    expect((await feed.list(WS, {})).results.map((event) => event.workspaceId)).toEqual([WS, WS]);
  });

  it('serves 100 by default and at most 1,000', async () => {
    const relay = replica('a');
    await commit(imported(WS, 1_200));
    await relay.drain(WS);
    expect((await feed.list(WS, {})).results).toHaveLength(100);
    expect((await feed.list(WS, { limit: '5000' })).results).toHaveLength(1_000);
  });

  it("takes other services' events in once, after the records events before them, without publishing them again", async () => {
    const relay = replica('a');
    const intake = new FeedIntake(store, relay);
    await commit(imported(WS, 2));
    const ended: BusMessage = {
      id: 'imp_1:complete',
      type: 'import.job_completed.v1',
      correlationId: 'imp_1',
      occurredAt: new Date().toISOString(),
      payload: { workspaceId: WS, jobUid: 'imp_1', status: 'complete' },
    };
    await intake.handle(ended);
    await intake.handle(ended);
    await eventually(async () => (await store.forWorkspace(WS).count(outbox)) === 0);
    await relay.drain(WS);
    await eventually(() => published.length === 1);
    const page = await feed.list(WS, {});
    expect(page.results.map((event) => event.type)).toEqual(['contact.created', 'contact.created', 'import.completed']);
    expect(page.results[2]!.id).toBe(webhookEventsFor(ended)[0]!.id);
    expect(published.map((message) => message.type)).toEqual(['records.contacts_created.v1']);
  });
});
