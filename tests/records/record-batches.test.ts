/**
 * POST /api/{kind}/batch/ through two gateways: each refusal of the contract (no records, 1,001,
 * an unknown operation or matchOn, email for accounts and opportunities, a body over 10 MB),
 * per-record results and counts for create, update, upsert and unchanged, duplicate match values,
 * a malformed record among good ones with and without `atomic`, the events (webhooks) of each
 * record and none for an unchanged one, racing batches on the same emails (one record each),
 * an Idempotency-Key replay, and the batch counted once against the rate limit.
 */
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';
import { WebhookReceiver, type ReceivedHook } from '../webhooks/webhook-receiver';
import { unique, type Workspace } from './records-fixtures';
import { eventually } from '../support/eventually';

let t: TestCluster;
let w: Workspace;
/** A workspace on its plan's rate limit. */
let limited: Workspace;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  t = await startTestCluster({ gateways: 2, workers: 1, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  const owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  w = { ...owner, api: t.api.withToken(owner.access) };
  const other = await signUp(t.api);
  limited = { ...other, api: t.api.withToken(other.access) };
}, 300_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
  await receiver.stop();
});

const person = (email: string, extra: Record<string, unknown> = {}) => ({ firstName: 'Ada', lastName: 'Lovelace', email, ...extra });
const email = () => `ada-${unique()}@example.com`;

async function batch(kind: string, body: Record<string, unknown>, api = w.api) {
  return api.post(`/api/${kind}/batch/`, body);
}

describe('a bad request as a whole', () => {
  it.each([
    ['no records', 'contacts', { operation: 'create', records: [] }, 'records'],
    ['1,001 records', 'contacts', { operation: 'create', records: Array.from({ length: 1001 }, () => person(email())) }, 'records'],
    ['an unknown operation', 'contacts', { operation: 'merge', records: [person(email())] }, 'operation'],
    ['an unknown matchOn', 'contacts', { operation: 'upsert', matchOn: 'phone', records: [person(email())] }, 'matchOn'],
    ['upsert without matchOn', 'leads', { operation: 'upsert', records: [person(email())] }, 'matchOn'],
    ['email for accounts', 'accounts', { operation: 'upsert', matchOn: 'email', records: [{ name: 'Acme' }] }, 'matchOn'],
    ['email for opportunities', 'opportunities', { operation: 'update', matchOn: 'email', records: [{ name: 'Deal' }] }, 'matchOn'],
    [
      'a custom field nobody defined',
      'contacts',
      { operation: 'upsert', matchOn: 'customFields.erpId', records: [person(email())] },
      'matchOn',
    ],
    ['records that are not a list', 'contacts', { operation: 'create', records: { a: 1 } }, 'records'],
  ])('%s is a 422 keyed on that field and writes nothing', async (_name, kind, body, field) => {
    const before = (await w.api.get(`/api/${kind}/?limit=1`)).body.count;
    const response = await batch(kind, body);
    expect(response.status).toBe(422);
    expect(Object.keys(response.body)).toEqual([field]);
    expect((await w.api.get(`/api/${kind}/?limit=1`)).body.count).toBe(before);
  });

  it('answers 413 to a body over 10 MB, and takes one just under it', async () => {
    const notes = 'x'.repeat(9_000);
    const records = Array.from({ length: 1000 }, () => person(email(), { notes }));
    const under = await batch('contacts', { operation: 'create', records });
    expect(under.status).toBe(200);
    expect(under.body.counts.created).toBe(1000);
    const over = await batch('contacts', {
      operation: 'create',
      records: records.map((r) => ({ ...r, notes: `${notes}${'y'.repeat(2_000)}` })),
    });
    expect(over.status).toBe(413);
  });
});

describe('per-record results', () => {
  it('creates, updates, leaves unchanged and upserts, answering each in order with counts', async () => {
    const [a, b, c] = [email(), email(), email()];
    const created = await batch('contacts', { operation: 'create', records: [person(a), person(b)] });
    expect(created.status).toBe(200);
    expect(created.body.counts).toEqual({ created: 2, updated: 0, unchanged: 0, error: 0 });
    expect(created.body.results.map((r: any) => [r.index, r.status, r.errors])).toEqual([
      [0, 'created', null],
      [1, 'created', null],
    ]);
    const [idA, idB] = created.body.results.map((r: any) => r.id);
    expect((await w.api.get(`/api/contacts/${idA}/`)).body).toMatchObject({ email: a, firstName: 'Ada' });

    const updated = await batch('contacts', {
      operation: 'update',
      records: [
        { id: idA, title: 'Countess' },
        { id: idB, firstName: 'Ada' },
      ],
    });
    expect(updated.body.results.map((r: any) => [r.status, r.id])).toEqual([
      ['updated', idA],
      ['unchanged', idB],
    ]);
    expect(updated.body.counts).toEqual({ created: 0, updated: 1, unchanged: 1, error: 0 });
    expect((await w.api.get(`/api/contacts/${idA}/`)).body.title).toBe('Countess');

    const upserted = await batch('contacts', {
      operation: 'upsert',
      matchOn: 'email',
      records: [person(a, { title: 'Countess' }), person(b.toUpperCase(), { phone: '+44 1' }), person(c)],
    });
    expect(upserted.body.results.map((r: any) => r.status)).toEqual(['unchanged', 'updated', 'created']);
    expect(upserted.body.results.slice(0, 2).map((r: any) => r.id)).toEqual([idA, idB]);
    expect(upserted.body.counts).toEqual({ created: 1, updated: 1, unchanged: 1, error: 0 });
  });

  it('upserts by externalId, and update by a value nobody has is that record’s error', async () => {
    const externalId = `erp-${unique()}`;
    const first = await batch('accounts', { operation: 'upsert', matchOn: 'externalId', records: [{ externalId, name: 'Acme' }] });
    expect(first.body.results[0]).toMatchObject({ status: 'created', errors: null });
    const second = await batch('accounts', {
      operation: 'upsert',
      matchOn: 'externalId',
      records: [{ externalId, name: 'Acme Corp' }],
    });
    expect(second.body.results[0]).toMatchObject({ status: 'updated', id: first.body.results[0].id });
    const missing = await batch('accounts', { operation: 'update', matchOn: 'externalId', records: [{ externalId: 'nobody', name: 'X' }] });
    expect(missing.body.results[0]).toMatchObject({ status: 'error', id: null, errors: { externalId: [expect.any(String)] } });
  });

  it('makes the second of two records with the same match value an error', async () => {
    const shared = email();
    const response = await batch('leads', {
      operation: 'upsert',
      matchOn: 'email',
      records: [person(shared, { company: 'A' }), person(shared.toUpperCase(), { company: 'B' })],
    });
    expect(response.status).toBe(200);
    expect(response.body.results.map((r: any) => r.status)).toEqual(['created', 'error']);
    expect(response.body.results[1].errors).toEqual({ email: [expect.stringMatching(/same email/)] });
    const leads = await w.api.get(`/api/leads/?search=${encodeURIComponent(shared)}`);
    expect(leads.body.count).toBe(1);
  });

  it('writes the good records around a malformed one, and none of them with atomic', async () => {
    const [a, b] = [email(), email()];
    const records = [person(a), { firstName: 'Bad', email: 'not-an-email', colour: 'red' }, 42, person(b)];
    const atomic = await batch('contacts', { operation: 'create', atomic: true, records });
    expect(atomic.status).toBe(422);
    expect(atomic.body.results.map((r: any) => [r.status, r.id])).toEqual([
      ['skipped', null],
      ['error', null],
      ['error', null],
      ['skipped', null],
    ]);
    expect(atomic.body.results[1].errors).toEqual({ email: [expect.any(String)], colour: ['Unknown field.'] });
    expect(atomic.body.results[2].errors).toEqual({ nonFieldErrors: ['Expected an object.'] });
    expect(atomic.body.counts).toEqual({ created: 0, updated: 0, unchanged: 0, error: 2, skipped: 2 });
    for (const address of [a, b]) expect((await w.api.get(`/api/contacts/?search=${encodeURIComponent(address)}`)).body.count).toBe(0);

    const partial = await batch('contacts', { operation: 'create', records });
    expect(partial.status).toBe(200);
    expect(partial.body.results.map((r: any) => r.status)).toEqual(['created', 'error', 'error', 'created']);
    expect(partial.body.counts).toEqual({ created: 2, updated: 0, unchanged: 0, error: 2 });
    for (const address of [a, b]) expect((await w.api.get(`/api/contacts/?search=${encodeURIComponent(address)}`)).body.count).toBe(1);
  });
});

describe('events', () => {
  it('sends each created and updated record’s webhook, and none for an unchanged one', async () => {
    const path = `/batch-${unique()}`;
    const hook = await w.api.post('/api/settings/webhooks/', { url: receiver.url(path), events: ['contact.created', 'contact.updated'] });
    expect(hook.status).toBe(201);
    const [a, b] = [email(), email()];
    const created = await batch('contacts', { operation: 'upsert', matchOn: 'email', records: [person(a), person(b)] });
    const [idA, idB] = created.body.results.map((r: any) => r.id);
    const of = (type: string, id: string) => (r: ReceivedHook) => r.body.type === type && r.body.data.record?.id === id;
    await eventually(
      'both contact.created',
      () => receiver.on(path).some(of('contact.created', idA)) && receiver.on(path).some(of('contact.created', idB)),
    );

    const changed = await batch('contacts', {
      operation: 'upsert',
      matchOn: 'email',
      records: [person(a, { title: 'Countess' }), person(b)],
    });
    expect(changed.body.results.map((r: any) => r.status)).toEqual(['updated', 'unchanged']);
    const update = await eventually('contact.updated of the changed one', () => receiver.on(path).find(of('contact.updated', idA)));
    expect(update.body.data.record.title).toBe('Countess');
    // A later single write's webhook arrives after anything the batch sent, so its arrival bounds the wait.
    await w.api.patch(`/api/contacts/${idA}/`, { title: 'Lady' });
    await eventually('the later update', () =>
      receiver.on(path).find((r) => of('contact.updated', idA)(r) && r.body.data.record.title === 'Lady'),
    );
    expect(receiver.on(path).filter(of('contact.updated', idB))).toEqual([]);
    expect(receiver.on(path).filter(of('contact.created', idA))).toHaveLength(1);
  });

  it('lists a batch’s events in the change feed once each, in the batch’s order, under the ids its webhooks carry', async () => {
    const path = `/feed-${unique()}`;
    const hook = await w.api.post('/api/settings/webhooks/', { url: receiver.url(path), events: ['lead.created'] });
    expect(hook.status).toBe(201);
    const start = (await w.api.get('/api/events/?limit=1000')).body;
    let cursor: string = start.nextCursor;
    for (let page = start; page.results.length > 0; cursor = page.nextCursor) {
      page = (await w.api.get(`/api/events/?after=${encodeURIComponent(cursor)}&limit=1000`)).body;
    }
    const emails = Array.from({ length: 50 }, () => email());
    const written = await batch('leads', { operation: 'create', records: emails.map((e) => person(e)) });
    expect(written.status).toBe(200);
    const ids = written.body.results.map((r: any) => r.id);
    const fed = await eventually('the batch’s 50 events in the feed', async () => {
      const page = (await w.api.get(`/api/events/?after=${encodeURIComponent(cursor)}&limit=1000`)).body;
      const created = page.results.filter((e: any) => e.type === 'lead.created');
      return created.length >= ids.length ? created : undefined;
    });
    expect(fed.map((e: any) => e.data.record.id)).toEqual(ids);
    expect(new Set(fed.map((e: any) => e.id)).size).toBe(ids.length);
    await eventually('the batch’s 50 webhooks', () => receiver.on(path).length >= ids.length);
    expect(new Set(receiver.on(path).map((r) => r.body.id))).toEqual(new Set(fed.map((e: any) => e.id)));
  });
});

describe('races and retries', () => {
  it('makes one record per email of two batches racing on two gateways', async () => {
    const emails = Array.from({ length: 200 }, email);
    const [one, two] = t.gateways.map((g) => g.withToken(w.access));
    const answers = await Promise.all(
      [one!, two!, one!, two!].map((api, i) =>
        batch('contacts', { operation: 'upsert', matchOn: 'email', records: emails.map((e) => person(e, { title: `T${i % 2}` })) }, api),
      ),
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    expect(answers.reduce((n, a) => n + a.body.counts.created, 0)).toBe(emails.length);
    for (const e of emails.slice(0, 20)) expect((await w.api.get(`/api/contacts/?search=${encodeURIComponent(e)}`)).body.count).toBe(1);
    const ids = new Set(answers.flatMap((a) => a.body.results.map((r: any) => r.id)));
    expect(ids.size).toBe(emails.length);
  });

  it('replays the first answer to a retry with the same Idempotency-Key, writing nothing again', async () => {
    const key = `batch-${unique()}`;
    const body = { operation: 'create', records: [person(email()), person(email())] };
    const first = await w.api.post('/api/contacts/batch/', body, { headers: { 'idempotency-key': key } });
    const again = await w.api.post('/api/contacts/batch/', body, { headers: { 'idempotency-key': key } });
    expect(again.status).toBe(first.status);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const search = body.records[0]!.email;
    expect((await w.api.get(`/api/contacts/?search=${encodeURIComponent(search)}`)).body.count).toBe(1);
  });

  it('counts a batch of many records as one request against the plan', async () => {
    const api = limited.api;
    const before = await api.get('/api/contacts/?limit=1');
    const remaining = Number(before.headers['x-ratelimit-remaining']);
    const response = await api.post('/api/contacts/batch/', {
      operation: 'create',
      records: Array.from({ length: 50 }, () => person(email())),
    });
    expect(response.status).toBe(200);
    expect(Number(response.headers['x-ratelimit-remaining'])).toBe(remaining - 1);
  });
});
