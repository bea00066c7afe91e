import { createLogger } from '@crm/observability';
import { isoDaysBefore, openStore, purgeQuery, sqliteQueryPlan, RetentionSweeper, type DocumentStore } from '@crm/store';
import type { RefreshToken } from '../domain/model';
import { authCollections, refreshTokens } from './collections';
import { authRetentionRules } from './retention-rules';

const NOW = Date.parse('2026-06-01T00:00:00Z');

function token(id: string, expiredDaysAgo: number, extra: Partial<RefreshToken> = {}): RefreshToken {
  return {
    id,
    familyId: 'fam_1',
    userId: 'usr_1',
    workspaceId: 'ws_1',
    tokenHash: id,
    expiresAt: isoDaysBefore(NOW, expiredDaysAgo),
    createdAt: isoDaysBefore(NOW, expiredDaysAgo + 30),
    ...extra,
  };
}

describe('refresh token retention', () => {
  let store: DocumentStore;
  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: authCollections });
  });
  afterEach(() => store.close());

  it('reads the purge of every rule off an index across workspaces, oldest first, without a sort or a scan', () => {
    const plans = authRetentionRules(30).map((rule) => [
      rule.collection.name,
      sqliteQueryPlan(rule.collection, purgeQuery(rule.expired(NOW), 500)),
    ]);
    for (const [name, plan] of plans)
      expect([name, plan]).toEqual([name, expect.stringMatching(/^SEARCH \S+ USING INDEX \S+ \([^)]*<\?\)$/)]);
  });

  it('deletes tokens expired longer than the retention, used or not, and keeps live and recently expired ones', async () => {
    const global = store.global();
    await global.insert(refreshTokens, token('rt_used_long_ago', 31, { usedAt: isoDaysBefore(NOW, 50) }));
    await global.insert(refreshTokens, token('rt_unused_long_ago', 40));
    await global.insert(refreshTokens, token('rt_used_recently_expired', 29, { usedAt: isoDaysBefore(NOW, 40) }));
    await global.insert(refreshTokens, token('rt_live_used', -5, { usedAt: isoDaysBefore(NOW, 1) }));
    const sweeper = new RetentionSweeper(store, authRetentionRules(30), createLogger('t', { level: 'silent' }), {
      intervalMs: 1000,
      batchSize: 100,
    });

    expect(await sweeper.sweep(NOW)).toEqual({ refresh_tokens: 2 });
    expect((await global.find(refreshTokens)).map((t) => t.id).sort()).toEqual(['rt_live_used', 'rt_used_recently_expired']);
  });
});
