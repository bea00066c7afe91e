/**
 * The change feed (GET /api/events/) across real processes: two records replicas on one store, each
 * behind its own gateway, writing one workspace's leads and contacts at once while an import of
 * 1,100 rows runs through the import workers. The feed, read page by page through both gateways
 * and across a restart of one of them, gives every event once, each lead's changes in the order
 * they were made, the import's end after its contacts, and the very envelopes the webhook
 * receiver got (same id as X-CRM-Event-Id). Then its edges: a cursor at the end, forged and
 * foreign cursors, unknown types, the limit's clamp, the types filter and another workspace.
 * Retention (7 days) is proved on the store by services/records/src/store/retention-rules.spec.ts.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { checkHealth } from '@crm/grpc';
import { WEBHOOK_EVENT_TYPES } from '@crm/vocabulary';
import { ApiClient, type ApiResponse } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { healthOf } from '../support/internal-tls';
import { liftRateLimit } from '../support/operator-cli';
import { freePort, SiblingProcess, waitUntil } from '../support/sibling-process';
import { peopleCsv, uploadCsv, waitForJob } from '../import/import-support';
import { WebhookReceiver } from '../webhooks/webhook-receiver';
import { eventually } from '../support/eventually';

jest.setTimeout(300_000);

interface Envelope {
  id: string;
  type: string;
  occurredAt: string;
  workspaceId: string;
  data: Record<string, any>;
}

const IMPORT_ROWS = 1_100;
const LEADS = 4;
const STEPS = 8;
const CONTACTS_VIA_SECOND = 20;

let t: TestCluster;
let records2: SiblingProcess;
let gateway2: SiblingProcess;
let api2: ApiClient;
let owner: SignedUp;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  t = await startTestCluster({ gateways: 1, workers: 1, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  const recordsPort = await freePort();
  records2 = SiblingProcess.start(t.cluster, 'records', 'records-2', { GRPC_PORT: String(recordsPort) });
  await waitUntil('records-2 gRPC health', () => checkHealth(healthOf(t.cluster, `127.0.0.1:${recordsPort}`, 'records')), 60_000);
  const gatewayPort = await freePort();
  gateway2 = SiblingProcess.start(t.cluster, 'gateway-1', 'gateway-records-2', {
    CRM_PORT: String(gatewayPort),
    CRM_DATA_DIR: join(t.cluster.dataDir, 'gateway-records-2'),
    RECORDS_GRPC_ADDR: `127.0.0.1:${recordsPort}`,
  });
  api2 = new ApiClient(`https://localhost:${gatewayPort}`, t.cluster.ca);
  await waitUntil('the second gateway', async () => (await api2.get('/readyz')).status === 200, 60_000);
  owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
}, 480_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await api2?.close();
  await gateway2?.stop();
  await records2?.stop();
  await t?.stop();
  await receiver.stop();
}, 60_000);

/** A loaded machine (2 cores, shared) can take a call past the gateway's deadline: a 503, sent again. */
async function patiently(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  for (let attempt = 1; ; attempt++) {
    const response = await send();
    if (response.status !== 503 || attempt === 10) return response;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

function feedPage(api: ApiClient, token: string, query: Record<string, string>): Promise<ApiResponse> {
  return patiently(() => api.get(`/api/events/?${new URLSearchParams(query).toString()}`, { token }));
}

/** Reads from `after` until a page comes back empty; every page through `api()` (which may change between pages). */
async function readToEnd(api: () => ApiClient, after: string | undefined, limit: string, into: Envelope[]): Promise<string> {
  let cursor = after;
  for (;;) {
    const page = await feedPage(api(), owner.access, { ...(cursor ? { after: cursor } : {}), limit });
    expect(page.status).toBe(200);
    into.push(...(page.body.results as Envelope[]));
    expect(typeof page.body.nextCursor).toBe('string');
    if (page.body.results.length === 0) {
      expect(page.body.nextCursor).toBe(cursor ?? page.body.nextCursor);
      return page.body.nextCursor as string;
    }
    cursor = page.body.nextCursor as string;
  }
}

describe('the change feed under two records replicas and a concurrent import', () => {
  const feed: Envelope[] = [];
  let cursor: string | undefined;
  let leadIds: string[] = [];
  let importUid = '';

  it('gives every event once, in the order each record changed, through both gateways and a gateway restart', async () => {
    const hook = await t.api.post(
      '/api/settings/webhooks/',
      { url: receiver.url('/feed'), events: WEBHOOK_EVENT_TYPES.filter((type) => type !== 'webhook.test') },
      { token: owner.access },
    );
    expect(hook.status).toBe(201);
    const replicas = [t.api, api2];
    const prefix = `feed-${randomBytes(3).toString('hex')}`;

    // The leads first, alternating replicas.
    leadIds = [];
    for (let i = 0; i < LEADS; i++) {
      const lead = await patiently(() =>
        replicas[i % 2]!.post(
          '/api/leads/',
          { firstName: 'step-0', lastName: `Feed${i}`, email: `${prefix}-lead-${i}@example.com` },
          { token: owner.access },
        ),
      );
      expect(lead.status).toBe(201);
      leadIds.push(lead.body.id);
    }
    // Then at once: the import, each lead's chain of updates through alternating replicas, contacts through the second replica, and a reader.
    importUid = await uploadCsv(t.api, owner.access, peopleCsv(IMPORT_ROWS, `${prefix}-imp`));
    const chains = Promise.all(
      leadIds.map(async (id, chain) => {
        for (let step = 1; step <= STEPS; step++) {
          const response = await patiently(() =>
            replicas[(step + chain) % 2]!.patch(`/api/leads/${id}/`, { firstName: `step-${step}` }, { token: owner.access }),
          );
          expect(response.status).toBe(200);
        }
      }),
    );
    const contacts = (async () => {
      for (let i = 0; i < CONTACTS_VIA_SECOND; i++) {
        const response = await patiently(() =>
          api2.post(
            '/api/contacts/',
            { firstName: 'Via', lastName: `Second${i}`, email: `${prefix}-second-${i}@example.com` },
            { token: owner.access },
          ),
        );
        // A retry after a 503 whose write had committed finds the email taken.
        expect([201, 400, 409, 422]).toContain(response.status);
      }
    })();
    cursor = await readToEnd(() => t.api, undefined, '37', feed);
    await Promise.all([chains, contacts]);
    cursor = await readToEnd(() => api2, cursor, '53', feed);

    // The first gateway restarts; the reader goes on with its cursor, there and on the other gateway.
    await t.cluster.restart('gateway-1');
    const job = await waitForJob(t.api, owner.access, importUid);
    expect(job).toMatchObject({ status: 'complete', successCount: IMPORT_ROWS });
    const count = (test: (event: Envelope) => boolean) => feed.filter(test).length;
    const isImported = (event: Envelope) =>
      event.type === 'contact.created' && String(event.data.record?.email).startsWith(`${prefix}-imp-`);
    const isSecond = (event: Envelope) =>
      event.type === 'contact.created' && String(event.data.record?.email).startsWith(`${prefix}-second-`);
    const lastSteps = (event: Envelope) => event.type === 'lead.updated' && event.data.record?.firstName === `step-${STEPS}`;
    let turn = 0;
    await eventually(
      'every event in the feed',
      async () => {
        cursor = await readToEnd(() => (turn++ % 2 === 0 ? t.api : api2), cursor, '1000', feed);
        return (
          count(isImported) >= IMPORT_ROWS &&
          count((event) => event.type === 'import.completed') >= 1 &&
          count(isSecond) >= CONTACTS_VIA_SECOND &&
          count(lastSteps) >= LEADS
        );
      },
      90_000,
    );

    // Each once, all of this workspace.
    expect(new Set(feed.map((event) => event.id)).size).toBe(feed.length);
    expect(new Set(feed.map((event) => event.workspaceId))).toEqual(new Set([owner.user.workspaceId]));
    expect(new Set(feed.filter(isSecond).map((event) => event.data.record.email)).size).toBe(count(isSecond));
    expect(count(isSecond)).toBe(CONTACTS_VIA_SECOND);
    // Each lead's changes in the order they were made (a PATCH retried after a 503 may repeat its step).
    for (const id of leadIds) {
      const own = feed.filter((event) => event.data.record?.id === id).map((event) => `${event.type} ${event.data.record.firstName}`);
      expect(own.filter((step, i) => step !== own[i - 1])).toEqual([
        'lead.created step-0',
        ...Array.from({ length: STEPS }, (_, i) => `lead.updated step-${i + 1}`),
      ]);
    }
    // The import's end after every contact it created.
    const position = (test: (event: Envelope) => boolean) => feed.map((event, i) => (test(event) ? i : -1)).filter((i) => i >= 0);
    const imported = position(isImported);
    expect(imported).toHaveLength(IMPORT_ROWS);
    const ended = position((event) => event.type === 'import.completed');
    expect(ended).toHaveLength(1);
    expect(feed[ended[0]!]!.data).toMatchObject({ jobUid: importUid, status: 'complete' });
    expect(Math.max(...imported)).toBeLessThan(ended[0]!);
  });

  it("gives the very envelopes the webhook receiver got, with the delivery's X-CRM-Event-Id as id", async () => {
    const byId = new Map(feed.map((event) => [event.id, event]));
    await eventually(
      'every event delivered',
      async () => new Set(receiver.received.filter((hook) => hook.path === '/feed').map((hook) => hook.eventId)).size >= feed.length,
      90_000,
    );
    const hooks = receiver.received.filter((hook) => hook.path === '/feed');
    for (const hook of hooks) {
      expect(hook.body.id).toBe(hook.eventId);
      expect(byId.get(hook.eventId)).toEqual(hook.body);
    }
    expect(new Set(hooks.map((hook) => hook.eventId))).toEqual(new Set(byId.keys()));
  });

  it('gives a cursor at the end that resumes exactly when something happens', async () => {
    const empty = await feedPage(t.api, owner.access, { after: cursor! });
    expect(empty.body).toEqual({ results: [], nextCursor: cursor });
    const lead = await api2.post(
      '/api/leads/',
      { firstName: 'Late', lastName: 'Comer', email: `late-${randomBytes(3).toString('hex')}@example.com` },
      { token: owner.access },
    );
    const next = await eventually('the new event', async () => {
      const page = await feedPage(t.api, owner.access, { after: cursor! });
      return page.body.results.length > 0 && page;
    });
    expect(next.body.results.map((event: Envelope) => [event.type, event.data.record.id])).toEqual([['lead.created', lead.body.id]]);
  });

  it('serves 100 by default and 1,000 above that, and filters by type', async () => {
    expect((await feedPage(t.api, owner.access, {})).body.results).toHaveLength(100);
    expect((await feedPage(api2, owner.access, { limit: '5000' })).body.results).toHaveLength(1_000);
    const ends = await feedPage(t.api, owner.access, { types: 'import.completed,lead.created', limit: '1000' });
    expect(ends.body.results.map((event: Envelope) => event.type).sort()).toEqual(
      [...Array(LEADS + 1).fill('lead.created'), 'import.completed'].sort(),
    );
  });

  it('refuses forged cursors, unknown types and bad limits with 400 on the parameter', async () => {
    const forged = Buffer.from(
      Buffer.from(cursor!, 'base64url')
        .toString()
        .replace(/^f1\.\d+\./, 'f1.3.'),
    ).toString('base64url');
    for (const after of [forged, 'abc', `${cursor}x`]) {
      const refused = await feedPage(t.api, owner.access, { after });
      expect([refused.status, Object.keys(refused.body)]).toEqual([400, ['after']]);
    }
    const unknown = await feedPage(t.api, owner.access, { types: 'lead.created,lead.exploded' });
    expect([unknown.status, unknown.body]).toEqual([400, { types: [expect.stringContaining('lead.exploded')] }]);
    const limit = await feedPage(t.api, owner.access, { limit: '-3' });
    expect([limit.status, Object.keys(limit.body)]).toEqual([400, ['limit']]);
  });

  it("never shows another workspace's events, and refuses its cursor", async () => {
    const other = await signUp(t.api);
    const theirs = await api2.post(
      '/api/leads/',
      { firstName: 'Other', lastName: 'Side', email: `other-${randomBytes(3).toString('hex')}@example.com` },
      { token: other.access },
    );
    expect(theirs.status).toBe(201);
    const page = await eventually('their event', async () => {
      const read = await feedPage(t.api, other.access, {});
      return read.body.results.length > 0 && read;
    });
    expect(page.body.results.map((event: Envelope) => [event.workspaceId, event.data.record.id])).toEqual([
      [other.user.workspaceId, theirs.body.id],
    ]);
    const mine = await feedPage(t.api, owner.access, { limit: '1000', types: 'lead.created' });
    expect(mine.body.results.some((event: Envelope) => event.data.record.id === theirs.body.id)).toBe(false);
    const foreign = await feedPage(t.api, owner.access, { after: page.body.nextCursor });
    expect([foreign.status, Object.keys(foreign.body)]).toEqual([400, ['after']]);
    const reverse = await feedPage(t.api, other.access, { after: cursor! });
    expect([reverse.status, Object.keys(reverse.body)]).toEqual([400, ['after']]);
  });

  it('serves a key holding events:read and refuses one without it', async () => {
    const key = async (scopes: string[]) =>
      (await t.api.post('/api/settings/api-keys/', { name: `feed-${scopes.join()}`, scopes }, { token: owner.access })).body.key as string;
    expect((await feedPage(t.api, await key(['events:read']), { limit: '1' })).status).toBe(200);
    const refused = await feedPage(t.api, await key(['contacts:read']), { limit: '1' });
    expect([refused.status, refused.body.detail]).toEqual([403, expect.stringContaining('events:read')]);
  });
});
