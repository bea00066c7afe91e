import { createLogger } from '@crm/observability';
import { openStore } from '../open-store';
import { defineCollection, type DocumentStore } from '../port';
import { isoDaysBefore, RetentionSweeper } from './retention-sweeper';
import { leases } from './store-lease';

interface Sent {
  id: string;
  workspaceId?: string;
  createdAt: string;
}
const sent = defineCollection<Sent>({ name: 'sent', scope: 'workspace', fields: { createdAt: 'string' } });
const logger = createLogger('retention-test', { level: 'silent' });
const NOW = Date.parse('2026-06-01T00:00:00Z');
const keepFor30Days = {
  collection: sent,
  expired: (now: number) => [{ field: 'createdAt', op: 'lt' as const, value: isoDaysBefore(now, 30) }],
};

describe('the retention sweeper', () => {
  let store: DocumentStore;
  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: [sent, leases] });
    for (const ws of ['ws_a', 'ws_b']) {
      for (let i = 0; i < 5; i += 1)
        await store.forWorkspace(ws).insert(sent, { id: `${ws}_old${i}`, createdAt: isoDaysBefore(NOW, 31 + i) });
      await store.forWorkspace(ws).insert(sent, { id: `${ws}_new`, createdAt: isoDaysBefore(NOW, 29) });
    }
  });
  afterEach(() => store.close());

  const left = async () =>
    [...(await store.forWorkspace('ws_a').find(sent)), ...(await store.forWorkspace('ws_b').find(sent))].map((d) => d.id).sort();

  it('deletes documents past their retention in every workspace and keeps newer ones', async () => {
    const sweeper = new RetentionSweeper(store, [keepFor30Days], logger, { intervalMs: 1000, batchSize: 100 });
    expect(await sweeper.sweep(NOW)).toEqual({ sent: 10 });
    expect(await left()).toEqual(['ws_a_new', 'ws_b_new']);
  });

  it('deletes at most a batch per pass, and drains a backlog over several passes', async () => {
    const sweeper = new RetentionSweeper(store, [keepFor30Days], logger, { intervalMs: 1000, batchSize: 4 });
    expect(await sweeper.sweep(NOW)).toEqual({ sent: 4 });
    expect(await left()).toHaveLength(8);
    expect(await sweeper.sweep(NOW)).toEqual({ sent: 4 });
    expect(await sweeper.sweep(NOW)).toEqual({ sent: 2 });
    expect(await sweeper.sweep(NOW)).toEqual({ sent: 0 });
    expect(await left()).toEqual(['ws_a_new', 'ws_b_new']);
  });

  it('lets one replica sweep at a time, and another once the holder has stopped', async () => {
    const first = new RetentionSweeper(store, [keepFor30Days], logger, { intervalMs: 1000, batchSize: 1 });
    const second = new RetentionSweeper(store, [keepFor30Days], logger, { intervalMs: 1000, batchSize: 1 });
    expect(await first.sweep(NOW)).toEqual({ sent: 1 });
    expect(await second.sweep(NOW)).toEqual({});
    await first.stop();
    expect(await second.sweep(NOW)).toEqual({ sent: 1 });
  });
});
