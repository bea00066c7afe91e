/**
 * The audit log with field history across the local cluster (real processes: gateway, records,
 * import and automation with their workers, RabbitMQ, Redis). Every write path (a user's and an API
 * key's create, PATCH and DELETE, a batch, a CSV import, an automation step, a merge, a lead
 * conversion, a privacy erasure) leaves its entries with the action, actor, changed fields and the
 * write's X-Request-Id; a write that does not commit leaves none. Then the admin list's filters and
 * cursors, admins only, and a record's history. Every answer is checked against the OpenAPI document.
 */
import { join } from 'node:path';
import { checkHealth } from '@crm/grpc';
import { ApiClient } from '../support/api-client';
import { healthOf } from '../support/internal-tls';
import { multipartBody } from '../support/multipart';
import { CLUSTER_RETRY_MS, startTestCluster, type TestCluster } from '../support/cluster';
import { freePort, SiblingProcess, waitUntil } from '../support/sibling-process';
import { createContact, createLead, memberOf, unique, workspace, type Workspace } from './records-fixtures';

jest.setTimeout(180_000);

let t: TestCluster;
let owner: Workspace;
/** An API key of the owner's workspace, holding every scope. */
let key: { id: string; key: string; name: string };

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, workers: 1 });
  owner = await workspace(t);
  const created = await owner.api.post('/api/settings/api-keys/', { name: 'audit key' });
  expect(created.status).toBe(201);
  key = { id: created.body.id, key: created.body.key, name: 'audit key' };
}, 240_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

interface Entry {
  id: string;
  occurredAt: string;
  action: string;
  recordKind: string;
  recordId: string;
  actor: { type: string; id: string; name: string };
  requestId: string;
  changes: Record<string, { from: unknown; to: unknown }>;
}

async function entriesOf(requestId: string): Promise<Entry[]> {
  const response = await owner.api.get(`/api/audit-log/?requestId=${encodeURIComponent(requestId)}&limit=100`);
  expect(response.status).toBe(200);
  return response.body.results;
}

async function eventually<T>(description: string, check: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${description}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

const asKey = () => ({ token: key.key });
const byUser = () => ({ type: 'user', id: owner.user.id, name: `${owner.user.firstName} ${owner.user.lastName}` });
const byKey = () => ({ type: 'apiKey', id: key.id, name: key.name });

/** What a write path is expected to leave: the entries of its request, by record. */
interface Expected {
  requestId: string;
  entries: Array<{ recordId: string; recordKind: string; action: string; actor: object; changes: object }>;
}

const PATHS: Array<[string, () => Promise<Expected>]> = [
  [
    'a user creates a contact',
    async () => {
      const email = `ada-${unique()}@example.com`;
      const response = await owner.api.post('/api/contacts/', { firstName: 'Ada', lastName: 'Lovelace', email, title: 'Countess' });
      expect(response.status).toBe(201);
      return {
        requestId: response.headers['x-request-id']!,
        entries: [
          {
            recordId: response.body.id,
            recordKind: 'contact',
            action: 'created',
            actor: byUser(),
            changes: expect.objectContaining({
              firstName: { from: null, to: 'Ada' },
              lastName: { from: null, to: 'Lovelace' },
              email: { from: null, to: email },
              title: { from: null, to: 'Countess' },
            }),
          },
        ],
      };
    },
  ],
  [
    'a user PATCHes a contact: exactly the changed fields',
    async () => {
      const contact = await createContact(owner, { lastName: 'Hopper', title: 'Admiral' });
      const response = await owner.api.patch(`/api/contacts/${contact.id}/`, { lastName: 'Byron', title: 'Admiral', phone: '555-0100' });
      expect(response.status).toBe(200);
      return {
        requestId: response.headers['x-request-id']!,
        entries: [
          {
            recordId: contact.id,
            recordKind: 'contact',
            action: 'updated',
            actor: byUser(),
            changes: { lastName: { from: 'Hopper', to: 'Byron' }, phone: { from: '', to: '555-0100' } },
          },
        ],
      };
    },
  ],
  [
    'a user DELETEs a lead: the last values',
    async () => {
      const lead = await createLead(owner, { company: 'Gone Ltd' });
      const response = await owner.api.delete(`/api/leads/${lead.id}/`);
      expect(response.status).toBe(204);
      return {
        requestId: response.headers['x-request-id']!,
        entries: [
          {
            recordId: lead.id,
            recordKind: 'lead',
            action: 'deleted',
            actor: byUser(),
            changes: expect.objectContaining({ company: { from: 'Gone Ltd', to: null }, email: { from: lead.email, to: null } }),
          },
        ],
      };
    },
  ],
  [
    'an API key creates an account',
    async () => {
      const name = `Keyed ${unique()}`;
      const response = await t.api.post('/api/accounts/', { name }, asKey());
      expect(response.status).toBe(201);
      return {
        requestId: response.headers['x-request-id']!,
        entries: [
          {
            recordId: response.body.id,
            recordKind: 'account',
            action: 'created',
            actor: byKey(),
            changes: expect.objectContaining({ name: { from: null, to: name } }),
          },
        ],
      };
    },
  ],
  [
    'an API key PATCHes a lead',
    async () => {
      const lead = await createLead(owner, { company: 'Before Co' });
      const response = await t.api.patch(`/api/leads/${lead.id}/`, { company: 'After Co' }, asKey());
      expect(response.status).toBe(200);
      return {
        requestId: response.headers['x-request-id']!,
        entries: [
          {
            recordId: lead.id,
            recordKind: 'lead',
            action: 'updated',
            actor: byKey(),
            changes: { company: { from: 'Before Co', to: 'After Co' } },
          },
        ],
      };
    },
  ],
  [
    'an API key DELETEs a contact',
    async () => {
      const contact = await createContact(owner);
      const response = await t.api.delete(`/api/contacts/${contact.id}/`, asKey());
      expect(response.status).toBe(204);
      return {
        requestId: response.headers['x-request-id']!,
        entries: [
          {
            recordId: contact.id,
            recordKind: 'contact',
            action: 'deleted',
            actor: byKey(),
            changes: expect.objectContaining({ email: { from: contact.email, to: null } }),
          },
        ],
      };
    },
  ],
  [
    'a batch creates two leads',
    async () => {
      const records = [1, 2].map((n) => ({
        firstName: `Batch${n}`,
        lastName: 'Lead',
        email: `batch-${n}-${unique()}@example.com`,
        company: 'B',
      }));
      const response = await owner.api.post('/api/leads/batch/', { operation: 'create', records });
      expect(response.status).toBe(200);
      return {
        requestId: response.headers['x-request-id']!,
        entries: response.body.results.map((r: { id: string }, i: number) => ({
          recordId: r.id,
          recordKind: 'lead',
          action: 'created',
          actor: byUser(),
          changes: expect.objectContaining({ firstName: { from: null, to: `Batch${i + 1}` } }),
        })),
      };
    },
  ],
  [
    'a CSV import creates a contact',
    async () => {
      const email = `imported-${unique()}@example.com`;
      const { body, contentType } = multipartBody([
        { name: 'file', filename: 'people.csv', contentType: 'text/csv', content: `Email,First Name,Last Name\n${email},Imo,Ported\n` },
      ]);
      const response = await t.api.call('POST', '/api/contacts/import/', {
        rawBody: body,
        token: owner.access,
        headers: { 'content-type': contentType },
      });
      expect(response.status).toBe(200);
      const id = response.body.created[0].id as string;
      return {
        requestId: response.headers['x-request-id']!,
        entries: [
          {
            recordId: id,
            recordKind: 'contact',
            action: 'imported',
            actor: byUser(),
            changes: expect.objectContaining({ email: { from: null, to: email }, firstName: { from: null, to: 'Imo' } }),
          },
        ],
      };
    },
  ],
  [
    'a user merges two contacts',
    async () => {
      const survivor = await createContact(owner, { phone: '' });
      const other = await createContact(owner, { phone: '555-0199' });
      const response = await owner.api.post(`/api/contacts/${survivor.id}/merge/`, { mergeIds: [other.id] });
      expect(response.status).toBe(200);
      return {
        requestId: response.headers['x-request-id']!,
        entries: [
          {
            recordId: survivor.id,
            recordKind: 'contact',
            action: 'merged',
            actor: byUser(),
            changes: expect.objectContaining({ phone: { from: '', to: '555-0199' } }),
          },
          {
            recordId: other.id,
            recordKind: 'contact',
            action: 'merged',
            actor: byUser(),
            changes: expect.objectContaining({ email: { from: other.email, to: null } }),
          },
        ],
      };
    },
  ],
  [
    'a user converts a lead',
    async () => {
      const lead = await createLead(owner);
      const response = await owner.api.post(`/api/leads/${lead.id}/convert/`, { createAccount: false });
      expect(response.status).toBe(200);
      const contactId = response.body.contact.id as string;
      return {
        requestId: response.headers['x-request-id']!,
        entries: [
          {
            recordId: lead.id,
            recordKind: 'lead',
            action: 'converted',
            actor: byUser(),
            changes: expect.objectContaining({
              status: { from: lead.status, to: 'converted' },
              convertedContactId: { from: null, to: contactId },
            }),
          },
          {
            recordId: contactId,
            recordKind: 'contact',
            action: 'created',
            actor: byUser(),
            changes: expect.objectContaining({ email: { from: null, to: lead.email } }),
          },
        ],
      };
    },
  ],
  [
    'an admin erases a person',
    async () => {
      const email = `erase-${unique()}@example.com`;
      const contact = await createContact(owner, { email });
      const response = await owner.api.post('/api/privacy/erase/', { email });
      expect(response.status).toBe(200);
      return {
        requestId: response.headers['x-request-id']!,
        entries: [
          {
            recordId: contact.id,
            recordKind: 'contact',
            action: 'erased',
            actor: byUser(),
            changes: expect.objectContaining({ email: { from: '[erased]', to: null } }),
          },
        ],
      };
    },
  ],
];

describe('every write path leaves its audit entries, found by the write’s X-Request-Id', () => {
  it.each(PATHS)('%s', async (_name, write) => {
    const expected = await write();
    expect(expected.requestId).toEqual(expect.any(String));
    const found = await entriesOf(expected.requestId);
    const sortKey = (e: { recordId: string }) => e.recordId;
    const actual = [...found].sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
    const wanted = [...expected.entries].sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
    expect(actual).toEqual(wanted.map((e) => expect.objectContaining({ ...e, requestId: expected.requestId })));
    for (const entry of found) {
      expect(entry.id).toMatch(/^aud_/);
      expect(entry.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      // Bookkeeping is never a change.
      for (const hidden of ['updatedAt', 'createdAt', 'version', 'searchText', 'workspaceId', 'emailKey'])
        expect(Object.keys(entry.changes)).not.toContain(hidden);
    }
  });

  it('an automation step that updates a record: the system actor, the field it set', async () => {
    const rule = await owner.api.post('/api/automations/rules/', {
      name: 'Assign',
      trigger: 'lead_created',
      triggerConditions: [{ field: 'company', operator: 'eq', value: 'Automated Audit' }],
      steps: [{ type: 'assign_user', order: 1, config: { mode: 'round_robin', userIds: [owner.user.id] } }],
    });
    expect(rule.status).toBe(201);
    expect((await owner.api.post(`/api/automations/rules/${rule.body.id}/activate/`)).status).toBe(200);
    const lead = await createLead(owner, { company: 'Automated Audit', assignedTo: null });
    const entry = await eventually('the automation’s audit entry', async () => {
      const log = await owner.api.get(`/api/audit-log/?recordId=${lead.id}&action=updated`);
      return log.body.results[0] as Entry | undefined;
    });
    expect(entry).toMatchObject({
      recordKind: 'lead',
      action: 'updated',
      actor: { type: 'system' },
      changes: { assignedTo: { from: null, to: owner.user.id } },
    });
    expect(entry.requestId).toEqual(expect.any(String));
    await owner.api.post(`/api/automations/rules/${rule.body.id}/deactivate/`);
  });
});

describe('a write that does not commit leaves no entry', () => {
  it('a PATCH with a stale If-Match (412), a refused body (422) and a commit that fails on a unique externalId', async () => {
    const contact = await createContact(owner, { externalId: `ext-${unique()}` });
    const stale = await owner.api.patch(`/api/contacts/${contact.id}/`, { lastName: 'Never' }, { headers: { 'if-match': '"999"' } });
    expect(stale.status).toBe(412);
    const invalid = await owner.api.post('/api/contacts/', { firstName: 'No', email: 'not-an-email' });
    expect(invalid.status).toBe(422);
    // The entry is staged with the record; the store refuses the commit on the unique index, so neither lands.
    const clash = await owner.api.post('/api/contacts/', {
      firstName: 'Clash',
      lastName: 'X',
      email: `c-${unique()}@example.com`,
      externalId: contact.externalId,
    });
    expect(clash.status).toBe(422);
    expect(Object.keys(clash.body)).toEqual(['externalId']);
    for (const response of [stale, invalid, clash]) expect(await entriesOf(response.headers['x-request-id']!)).toEqual([]);
    const history = await owner.api.get(`/api/contacts/${contact.id}/history/`);
    expect(history.body.results.map((e: Entry) => e.action)).toEqual(['created']);
  });
});

describe('records killed between the write and the answer', () => {
  it('every PATCH in flight either committed with its entry or left neither', async () => {
    // A second records replica on the same store, behind its own gateway, killed (SIGKILL) while PATCHes are in flight.
    const recordsPort = await freePort();
    const records2 = SiblingProcess.start(t.cluster, 'records', 'records-audit-kill', { GRPC_PORT: String(recordsPort) });
    let gateway2: SiblingProcess | undefined;
    try {
      await waitUntil(
        'records-audit-kill gRPC health',
        () => checkHealth(healthOf(t.cluster, `127.0.0.1:${recordsPort}`, 'records')),
        60_000,
      );
      const gatewayPort = await freePort();
      gateway2 = SiblingProcess.start(t.cluster, 'gateway-1', 'gateway-audit-kill', {
        CRM_PORT: String(gatewayPort),
        CRM_DATA_DIR: join(t.cluster.dataDir, 'gateway-audit-kill'),
        RECORDS_GRPC_ADDR: `127.0.0.1:${recordsPort}`,
      });
      const second = new ApiClient(`https://localhost:${gatewayPort}`, t.cluster.ca);
      await waitUntil('the second gateway', async () => (await second.get('/readyz')).status === 200, 60_000);
      const api2 = second.withToken(owner.access);
      const targets = await Promise.all(Array.from({ length: 80 }, () => createContact(owner)));
      const sent: Array<{ id: string; requestId: string; title: string; status: number }> = [];
      let answered = 0;
      let killed: Promise<void> | undefined;
      // Eight writers, each PATCHing its contacts one after another; records is killed once ten answers are in, so some are mid-flight.
      const writer = async (w: number) => {
        for (let i = w; i < targets.length && !killed; i += 8) {
          const s = { id: targets[i].id as string, requestId: `kill-${unique()}-${i}`, title: `Killed ${i}`, status: 0 };
          sent.push(s);
          s.status = await api2
            .patch(`/api/contacts/${s.id}/`, { title: s.title }, { headers: { 'x-request-id': s.requestId } })
            .then((r) => r.status)
            .catch(() => 0);
          answered += 1;
          if (answered === 10) killed = records2.stop('SIGKILL');
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
      await killed;
      let committed = 0;
      for (const s of sent) {
        const record = (await owner.api.get(`/api/contacts/${s.id}/`)).body;
        const entries = await entriesOf(s.requestId);
        const landed = record.title === s.title;
        if (landed) committed += 1;
        // The change and its entry committed together, or neither did; a 200 always means both.
        expect([s.requestId, landed, entries.length]).toEqual([s.requestId, landed, landed ? 1 : 0]);
        if (s.status === 200) expect(landed).toBe(true);
      }
      expect(committed).toBeGreaterThanOrEqual(10);
      // Not every PATCH got through: the kill came before some of them committed.
      expect(committed).toBeLessThan(sent.length);
    } finally {
      await gateway2?.stop();
      if (records2.running) await records2.stop('SIGKILL');
    }
  });
});

describe('the admin list', () => {
  let tagged: { ids: string[]; startedAt: string };

  beforeAll(async () => {
    // A second workspace: none of its entries may show here, nor ours there.
    const startedAt = new Date(Date.now() - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createContact(owner, { title: `Paged ${i}` })).id);
    tagged = { ids, startedAt };
  });

  it('filters by recordId, recordKind, actorType, actorId, action and a time window', async () => {
    const [first] = tagged.ids;
    const byRecord = await owner.api.get(`/api/audit-log/?recordId=${first}`);
    expect(byRecord.body.results.map((e: Entry) => [e.recordId, e.action])).toEqual([[first, 'created']]);
    const keyed = await owner.api.get(`/api/audit-log/?actorType=apiKey&limit=100`);
    expect(keyed.body.results.length).toBeGreaterThanOrEqual(3);
    for (const entry of keyed.body.results) expect(entry.actor).toEqual(byKey());
    const byActor = await owner.api.get(`/api/audit-log/?actorId=${key.id}&limit=100`);
    expect(byActor.body.results.map((e: Entry) => e.id)).toEqual(keyed.body.results.map((e: Entry) => e.id));
    const accounts = await owner.api.get('/api/audit-log/?recordKind=account&limit=100');
    expect(accounts.body.results.length).toBeGreaterThan(0);
    for (const entry of accounts.body.results) expect(entry.recordKind).toBe('account');
    const merged = await owner.api.get('/api/audit-log/?action=merged&recordKind=contact');
    expect(merged.body.count).toBe(2);
    const windowed = await owner.api.get(`/api/audit-log/?after=${tagged.startedAt}&action=created&recordKind=contact&limit=100`);
    expect(windowed.body.results.map((e: Entry) => e.recordId)).toEqual(expect.arrayContaining(tagged.ids));
    const before = await owner.api.get(`/api/audit-log/?before=${tagged.startedAt}&limit=100`);
    for (const entry of before.body.results) expect(entry.occurredAt < tagged.startedAt).toBe(true);
    expect(before.body.results.map((e: Entry) => e.recordId)).not.toContain(first);
    const other = await workspace(t);
    expect((await other.api.get(`/api/audit-log/?recordId=${first}`)).body.results).toEqual([]);
  });

  it('refuses an unknown actorType, action or recordKind and a bad timestamp with 400 naming the filter', async () => {
    for (const [query, field] of [
      ['actorType=robot', 'actorType'],
      ['action=touched', 'action'],
      ['recordKind=note', 'recordKind'],
      ['after=yesterday', 'after'],
    ]) {
      const response = await owner.api.get(`/api/audit-log/?${query}`);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body)).toEqual([field]);
    }
  });

  it('walks newest first by cursor, each entry once', async () => {
    const all = await owner.api.get(`/api/audit-log/?after=${tagged.startedAt}&recordKind=contact&action=created&limit=100`);
    const expected = all.body.results.map((e: Entry) => e.id);
    expect(expected.length).toBeGreaterThanOrEqual(5);
    const seen: string[] = [];
    let page = await owner.api.get(`/api/audit-log/?after=${tagged.startedAt}&recordKind=contact&action=created&limit=2`);
    for (let guard = 0; guard < 50; guard++) {
      expect(page.status).toBe(200);
      seen.push(...page.body.results.map((e: Entry) => e.id));
      if (!page.body.nextCursor) break;
      page = await owner.api.get(
        `/api/audit-log/?after=${tagged.startedAt}&recordKind=contact&action=created&limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`,
      );
    }
    expect(seen).toEqual(expected);
    const times = all.body.results.map((e: Entry) => e.occurredAt);
    expect([...times].sort().reverse()).toEqual(times);
    // The tagged contacts were made one after the other: newest first.
    const order = all.body.results.map((e: Entry) => e.recordId).filter((id: string) => tagged.ids.includes(id));
    expect(order).toEqual([...tagged.ids].reverse());
  });

  it('is for admins only: a member and an API key get 403', async () => {
    const { token } = await memberOf(t, owner);
    const member = await t.api.get('/api/audit-log/', { token });
    expect(member.status).toBe(403);
    expect(member.body).toEqual({ detail: expect.any(String) });
    expect((await t.api.get('/api/audit-log/', asKey())).status).toBe(403);
    // A member reads a record's history.
    const [first] = tagged.ids;
    const history = await t.api.get(`/api/contacts/${first}/history/`, { token });
    expect(history.status).toBe(200);
    expect(history.body.results).toHaveLength(1);
  });
});

describe('a record’s history', () => {
  it('lists its entries newest first, outlives the record, and answers 404 for an id that never existed', async () => {
    const contact = await createContact(owner, { title: 'One' });
    await owner.api.patch(`/api/contacts/${contact.id}/`, { title: 'Two' });
    await owner.api.delete(`/api/contacts/${contact.id}/`);
    const history = await owner.api.get(`/api/contacts/${contact.id}/history/`);
    expect(history.status).toBe(200);
    expect(history.body.results.map((e: Entry) => e.action)).toEqual(['deleted', 'updated', 'created']);
    expect(history.body.results[1].changes).toEqual({ title: { from: 'One', to: 'Two' } });
    expect((await owner.api.get('/api/contacts/cnt_doesnotexist/history/')).status).toBe(404);
    // Another kind's path for the id: not this record's history.
    expect((await owner.api.get(`/api/leads/${contact.id}/history/`)).status).toBe(404);
  });

  it('is readable by a key with the family’s read scope only', async () => {
    const contact = await createContact(owner);
    const reader = await owner.api.post('/api/settings/api-keys/', { name: 'reader', scopes: ['contacts:read'] });
    const leadsOnly = await owner.api.post('/api/settings/api-keys/', { name: 'leads', scopes: ['leads:write'] });
    expect((await t.api.get(`/api/contacts/${contact.id}/history/`, { token: reader.body.key })).status).toBe(200);
    const refused = await t.api.get(`/api/contacts/${contact.id}/history/`, { token: leadsOnly.body.key });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('contacts:read');
  });
});

describe('the OpenAPI document', () => {
  it('describes the audit log and every kind’s history', async () => {
    const document = (await t.api.get('/api/openapi.json')).body;
    expect(document.paths['/api/audit-log/'].get['x-roles']).toEqual(['admin']);
    const parameters = document.paths['/api/audit-log/'].get.parameters.map((p: { name: string }) => p.name);
    expect(parameters).toEqual(
      expect.arrayContaining(['recordId', 'recordKind', 'actorType', 'actorId', 'action', 'requestId', 'after', 'before', 'cursor']),
    );
    for (const kind of ['contacts', 'leads', 'accounts', 'opportunities']) {
      const operation = document.paths[`/api/${kind}/{id}/history/`]?.get;
      expect(operation).toBeDefined();
      expect(operation['x-scope']).toBe(`${kind}:read`);
    }
  });
});
