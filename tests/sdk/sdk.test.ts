/**
 * The TypeScript SDK (clients/typescript) against a local cluster, through Node's own fetch trusting
 * the cluster's CA, as an integrator would use it: every public method at least once, token refresh
 * with rotation, a 429 waited out by its Retry-After, a POST retried after a lost answer with its
 * automatic Idempotency-Key, cursor walks over several pages, 422s as field errors and a stale
 * If-Match answered 412. The README's sync loop (examples/sync-contacts.ts) runs here too.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { syncContacts } from '../../clients/typescript/examples/sync-contacts';
import * as sdk from '../../clients/typescript/src';
import {
  CrmApiError,
  CrmClient,
  CrmValidationError,
  etagOf,
  type ContactListItem,
  type FetchLike,
  type Tokens,
} from '../../clients/typescript/src';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';
import { WebhookReceiver } from '../webhooks/webhook-receiver';

let t: TestCluster;
let dispatcher: Agent;
let fetchWithCa: FetchLike;
let owner: SignedUp;
let crm: CrmClient;
const receiver = new WebhookReceiver();

/** Every public method and getter of the SDK's classes, watched (calls go through) so that the last test can name any left untried. */
const watched: { name: string; spy: jest.SpyInstance }[] = [];
function watchEveryPublicMethod(): void {
  const classes = Object.entries(sdk).filter(([, value]) => typeof value === 'function' && /^[A-Z]/.test(value.name));
  for (const [className, value] of classes) {
    const cls = value as unknown as { prototype: object; login?: unknown };
    if (typeof cls.login === 'function')
      watched.push({ name: `${className}.login`, spy: jest.spyOn(cls as { login: () => unknown }, 'login') });
    for (const member of Object.getOwnPropertyNames(cls.prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(cls.prototype, member)!;
      if (member === 'constructor' || member.startsWith('_')) continue;
      const target = cls.prototype as Record<string, () => unknown>;
      if (descriptor.get)
        watched.push({ name: `${className}#${member}`, spy: jest.spyOn(cls.prototype as Record<string, object>, member, 'get') });
      else if (typeof descriptor.value === 'function') watched.push({ name: `${className}#${member}`, spy: jest.spyOn(target, member) });
    }
  }
}

beforeAll(async () => {
  watchEveryPublicMethod();
  await receiver.start();
  t = await startTestCluster({ gateways: 1, workers: 1, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  dispatcher = new Agent({ connect: { ca: t.cluster.ca } });
  // Node's fetch with a dispatcher that trusts the cluster's self-signed CA (the README's recipe).
  fetchWithCa = (request) => fetch(request, { dispatcher } as unknown as RequestInit);
  owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  crm = await CrmClient.login({ baseUrl: t.api.baseUrl, fetch: fetchWithCa, email: owner.user.email, password: owner.password });
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  jest.restoreAllMocks();
  await dispatcher?.close();
  await t?.stop();
  await receiver.stop();
});

const unique = () => randomBytes(4).toString('hex');

async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function login(who: SignedUp): Promise<Tokens> {
  const answer = await t.api.post('/api/auth/login/', { email: who.user.email, password: who.password });
  return { access: answer.body.access, refresh: answer.body.refresh };
}

describe('sessions', () => {
  it('logs in and reads who it is, with a session, a bare access token or an API key', async () => {
    expect(await crm.auth.me()).toMatchObject({ email: owner.user.email, role: 'admin' });
    expect(crm.auth.tokens).toEqual({ access: expect.any(String), refresh: expect.any(String) });
    const bare = new CrmClient({ baseUrl: t.api.baseUrl, fetch: fetchWithCa, credentials: { accessToken: crm.auth.tokens!.access } });
    expect((await bare.auth.me()).email).toBe(owner.user.email);
  });

  it('refreshes a refused access token once for five concurrent calls, rotating the refresh token, and logs out', async () => {
    const tokens = await login(owner);
    const reported: Tokens[] = [];
    const session = new CrmClient({
      baseUrl: t.api.baseUrl,
      fetch: fetchWithCa,
      credentials: { tokens: { access: 'not-a-token', refresh: tokens.refresh } },
      onTokens: (pair) => void reported.push(pair),
    });
    // Two refreshes with one token would be a reuse: the gateway would revoke the family and some calls would get 401.
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => session.auth.me()));
    expect(answers.map((me) => me.email)).toEqual(Array(5).fill(owner.user.email));
    expect(reported).toHaveLength(1);
    expect(reported[0]!.refresh).not.toBe(tokens.refresh);
    expect(session.auth.tokens).toEqual(reported[0]);

    await session.auth.logout();
    expect((await t.api.post('/api/auth/token/refresh/', { refresh: reported[0]!.refresh })).status).toBe(401);
  });

  it('creates, lists, reports the usage of and revokes an API key, which then gets 401', async () => {
    const created = await crm.apiKeys.create(`sdk ${unique()}`);
    const withKey = new CrmClient({ baseUrl: t.api.baseUrl, fetch: fetchWithCa, credentials: { apiKey: created.key } });
    expect((await withKey.auth.me()).workspaceId).toBe(owner.user.workspaceId);
    expect((await crm.apiKeys.list()).map((key) => key.id)).toContain(created.id);
    expect((await crm.apiKeys.usage(created.id)).total).toBeGreaterThanOrEqual(1);
    await crm.apiKeys.revoke(created.id);
    await expect(withKey.auth.me()).rejects.toMatchObject({ name: 'CrmApiError', status: 401 });
  });
});

describe('retries', () => {
  it('waits out a 429 by its Retry-After and then creates the contact once', async () => {
    const limited = await signUp(t.api);
    await liftRateLimit(t.cluster, limited.user.workspaceId, 3);
    const probe = await t.api.get('/api/auth/me/', { token: limited.access });
    const secondsLeft = Number(probe.headers['x-ratelimit-reset']) - Date.now() / 1000;
    if (secondsLeft < 8) await new Promise((r) => setTimeout(r, (secondsLeft + 0.5) * 1000)); // one window for the burst
    let status = 0;
    for (let i = 0; i < 10 && status !== 429; i += 1) status = (await t.api.get('/api/auth/me/', { token: limited.access })).status;
    expect(status).toBe(429);

    const waits: number[] = [];
    const client = new CrmClient({
      baseUrl: t.api.baseUrl,
      fetch: fetchWithCa,
      credentials: { tokens: { access: limited.access, refresh: limited.refresh } },
      // Instead of sleeping out the window, the wait lifts the limit (it counts from the very next request).
      sleep: async (ms) => {
        waits.push(ms);
        await liftRateLimit(t.cluster, limited.user.workspaceId);
      },
    });
    const email = `throttled-${unique()}@example.com`;
    const contact = await client.contacts.create({ email, firstName: 'Patient' });
    expect(waits).toHaveLength(1);
    expect(waits[0]! % 1000).toBe(0); // whole seconds: Retry-After's, not a jittered backoff
    expect(waits[0]).toBeGreaterThan(0);
    expect((await client.contacts.list({ search: email }).toArray()).map((c) => c.id)).toEqual([contact.id]);
  });

  it('retries a POST whose answer was lost with the same automatic Idempotency-Key: one contact, the first answer replayed', async () => {
    const attempts: { key: string | null; replayed: string | null }[] = [];
    const lossy: FetchLike = async (request) => {
      const response = await fetchWithCa(request);
      if (request.method !== 'POST') return response;
      attempts.push({ key: request.headers.get('idempotency-key'), replayed: response.headers.get('idempotent-replayed') });
      if (attempts.length > 1) return response;
      await response.body?.cancel(); // the contact exists, but the client never hears of it
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
    };
    const client = new CrmClient({ baseUrl: t.api.baseUrl, fetch: lossy, credentials: { tokens: crm.auth.tokens! } });
    const email = `lost-${unique()}@example.com`;
    const contact = await client.contacts.create({ email, firstName: 'Once' });
    expect(attempts).toEqual([
      { key: expect.stringMatching(/^[0-9a-f-]{36}$/), replayed: null },
      { key: attempts[0]!.key, replayed: 'true' },
    ]);
    expect((await crm.contacts.list({ search: email }).toArray()).map((c) => c.id)).toEqual([contact.id]);
  });

  it('sends an Idempotency-Key given by the caller: the same key twice creates one lead', async () => {
    const key = `sdk-${unique()}`;
    const body = { email: `keyed-${unique()}@example.com`, firstName: 'Keyed' };
    const first = await crm.leads.create(body, { idempotencyKey: key });
    const again = await crm.leads.create(body, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
  });
});

describe('records', () => {
  it('creates, reads, updates, lists, merges and deletes contacts', async () => {
    const tag = `t${unique()}`;
    const survivor = await crm.contacts.create({ email: `ada-${tag}@example.com`, firstName: 'Ada', tags: [tag] });
    const duplicate = await crm.contacts.create({ email: `ada2-${tag}@example.com`, lastName: 'Lovelace', title: 'Countess', tags: [tag] });
    expect(await crm.contacts.get(survivor.id)).toEqual(survivor);
    expect((await crm.contacts.update(survivor.id, { stage: 'engaged' })).stage).toBe('engaged');
    const merged = await crm.contacts.merge(survivor.id, { mergeIds: [duplicate.id] });
    expect({ lastName: merged.lastName, title: merged.title }).toEqual({ lastName: 'Lovelace', title: 'Countess' });
    expect((await crm.contacts.list({ tags: tag }).toArray()).map((c) => c.id)).toEqual([survivor.id]);
    expect((await crm.activities.list({ recordId: survivor.id }).toArray()).length).toBeGreaterThanOrEqual(2);
    expect(await crm.tasks.list({ relatedTo: survivor.id }).toArray()).toEqual([]);
    await crm.contacts.delete(survivor.id);
    await expect(crm.contacts.get(survivor.id)).rejects.toMatchObject({ status: 404, detail: 'Not found.' });
  });

  it('creates, reads, updates, lists, merges, converts and deletes leads', async () => {
    const company = `Engines ${unique()}`;
    const lead = await crm.leads.create({ email: `charles-${unique()}@example.com`, firstName: 'Charles', company });
    const duplicate = await crm.leads.create({ email: `charles-${unique()}@example.com`, lastName: 'Babbage', company });
    expect((await crm.leads.get(lead.id)).company).toBe(company);
    expect((await crm.leads.update(lead.id, { leadScore: 80 })).leadScore).toBe(80);
    expect((await crm.leads.merge(lead.id, { mergeIds: [duplicate.id] })).lastName).toBe('Babbage');
    expect((await crm.leads.list({ search: company }).toArray()).map((l) => l.id)).toEqual([lead.id]);
    const converted = await crm.leads.convert(lead.id, { createAccount: true });
    expect({ status: converted.lead.status, account: converted.account?.name }).toEqual({ status: 'converted', account: company });
    await expect(crm.leads.convert(lead.id)).rejects.toMatchObject({ status: 400 });
    await crm.leads.delete(lead.id);
  });

  it("creates, reads, updates, lists, merges and deletes accounts, and walks an account's contacts", async () => {
    const name = `Analytical ${unique()}`;
    const account = await crm.accounts.create({ name });
    const duplicate = await crm.accounts.create({ name: `${name} Ltd`, industry: 'Computing' });
    const contact = await crm.contacts.create({ email: `ac-${unique()}@example.com`, firstName: 'Linked', accountId: duplicate.id });
    expect((await crm.accounts.get(account.id)).name).toBe(name);
    expect((await crm.accounts.update(account.id, { stage: 'active' })).stage).toBe('active');
    expect((await crm.accounts.merge(account.id, { mergeIds: [duplicate.id] })).industry).toBe('Computing');
    expect((await crm.accounts.contacts(account.id).toArray()).map((c) => c.id)).toEqual([contact.id]);
    expect((await crm.accounts.list({ search: name }).toArray()).map((a) => a.id)).toEqual([account.id]);
    await crm.accounts.delete(account.id);
    expect((await crm.contacts.get(contact.id)).accountId).toBeNull();
  });

  it('creates, reads, updates, lists and deletes opportunities', async () => {
    const account = await crm.accounts.create({ name: `Deal ${unique()}` });
    const opportunity = await crm.opportunities.create({ name: `Big ${unique()}`, accountId: account.id, value: 1000 });
    expect((await crm.opportunities.get(opportunity.id)).value).toBe(1000);
    expect((await crm.opportunities.update(opportunity.id, { stage: 'closed_won' })).probability).toBe(100);
    expect((await crm.opportunities.list({ accountId: account.id }).toArray()).map((o) => o.id)).toEqual([opportunity.id]);
    await crm.opportunities.delete(opportunity.id);
  });

  it('walks a list of five by cursor, two at a time, newest first', async () => {
    const tag = `page${unique()}`;
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1)
      created.push((await crm.contacts.create({ email: `p${i}-${tag}@example.com`, firstName: `P${i}`, tags: [tag] })).id);
    const seen: string[] = [];
    for await (const contact of crm.contacts.list({ tags: tag, limit: 2 })) seen.push(contact.id);
    expect(seen).toEqual([...created].reverse());
    const pages: { size: number; count: number | undefined }[] = [];
    for await (const page of crm.contacts.list({ tags: tag, limit: 2 }).pages())
      pages.push({ size: page.results.length, count: page.count });
    expect(pages).toEqual([
      { size: 2, count: 5 },
      { size: 2, count: undefined },
      { size: 1, count: undefined },
    ]);
  });

  it('throws a 422 as CrmValidationError with the failing fields', async () => {
    const failure = await crm.contacts.create({ email: 'not-an-email', firstName: 'X' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(CrmValidationError);
    expect(Object.keys((failure as CrmValidationError).fields)).toEqual(['email']);
    expect((failure as CrmValidationError).fields.email).toEqual([expect.any(String)]);
  });

  it('sends If-Match when asked: a stale version gets 412 and changes nothing', async () => {
    const contact = await crm.contacts.create({ email: `v-${unique()}@example.com`, firstName: 'Versioned' });
    const read = await crm.contacts.get(contact.id);
    const updated = await crm.contacts.update(contact.id, { title: 'First' }, { ifMatch: etagOf(read) });
    expect(etagOf(updated)).not.toBe(etagOf(read));
    const stale = await crm.contacts.update(contact.id, { title: 'Second' }, { ifMatch: etagOf(read) }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(CrmApiError);
    expect(stale).toMatchObject({ status: 412 });
    await expect(crm.contacts.delete(contact.id, { ifMatch: etagOf(read) })).rejects.toMatchObject({ status: 412 });
    expect((await crm.contacts.get(contact.id)).title).toBe('First');
    await crm.contacts.delete(contact.id, { ifMatch: etagOf(updated) });
  });

  it('leaves operations without a method to the openapi-fetch client underneath', async () => {
    const sources = await crm.api.GET('/api/crm/sources/');
    expect(sources.response.status).toBe(200);
    expect(sources.data?.results).toEqual(expect.any(Array));
  });
});

describe('automation', () => {
  it('creates, reads, updates, lists, activates, deactivates, logs, saves as a template and deletes a rule', async () => {
    const name = `Welcome ${unique()}`;
    const rule = await crm.automations.rules.create({
      name,
      trigger: 'lead_created',
      steps: [{ type: 'wait', order: 1, config: { duration: 1, unit: 'hours' } }],
    });
    expect(rule.isActive).toBe(false);
    expect((await crm.automations.rules.get(rule.id)).name).toBe(name);
    expect((await crm.automations.rules.update(rule.id, { name: `${name}!` })).name).toBe(`${name}!`);
    expect((await crm.automations.rules.list().toArray()).map((r) => r.id)).toContain(rule.id);
    expect((await crm.automations.rules.activate(rule.id)).isActive).toBe(true);
    expect((await crm.automations.rules.deactivate(rule.id)).isActive).toBe(false);
    expect(await crm.automations.rules.logs(rule.id).toArray()).toEqual([]);
    const template = await crm.automations.rules.saveAsTemplate(rule.id, { name: `${name} template` });
    expect(template.category).toBe('custom');
    await crm.automations.rules.delete(rule.id);
    await expect(crm.automations.rules.get(rule.id)).rejects.toMatchObject({ status: 404 });
  });

  it('lists, reads and installs templates', async () => {
    const [first] = await crm.automations.templates
      .list({ limit: 1 })
      .toArray()
      .then((all) => all.slice(0, 1));
    const template = await crm.automations.templates.get(first!.id);
    expect(template.id).toBe(first!.id);
    const installed = await crm.automations.templates.install(template.id, { name: `Installed ${unique()}` });
    expect(installed).toMatchObject({ isActive: false, installedFromTemplateId: template.id });
  });

  it('rejects an invalid step with the dotted field path', async () => {
    const failure = await crm.automations.rules
      .create({ name: 'Broken', trigger: 'lead_created', steps: [{ type: 'wait', order: 1, config: { duration: -1, unit: 'hours' } }] })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(CrmValidationError);
    expect(Object.keys((failure as CrmValidationError).fields)).toEqual(['steps.0.config.duration']);
  });
});

describe('webhooks', () => {
  it('creates, reads, updates, lists, tests, rotates, redelivers and deletes a subscription', async () => {
    const hook = await crm.webhooks.create({ url: receiver.url('/sdk'), events: ['contact.created'] });
    expect(hook.secret).toEqual(expect.any(String));
    expect((await crm.webhooks.get(hook.id)).url).toBe(receiver.url('/sdk'));
    expect((await crm.webhooks.update(hook.id, { events: ['contact.created', 'lead.created'] })).events).toEqual([
      'contact.created',
      'lead.created',
    ]);
    expect((await crm.webhooks.list().toArray()).map((w) => w.id)).toContain(hook.id);
    const { secret } = await crm.webhooks.rotateSecret(hook.id);
    expect(secret).not.toBe(hook.secret);
    const { eventId } = await crm.webhooks.test(hook.id);
    const delivery = await eventually('the test delivery', async () =>
      (await crm.webhooks.deliveries(hook.id).toArray()).find((d) => d.eventId === eventId),
    );
    await crm.webhooks.redeliver(hook.id, delivery.id);
    await eventually('the redelivery', async () => {
      const attempts = (await crm.webhooks.deliveries(hook.id).toArray()).filter((d) => d.eventId === eventId);
      return attempts.length >= 2 ? attempts : undefined;
    });
    await crm.webhooks.delete(hook.id);
    await expect(crm.webhooks.get(hook.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe('imports', () => {
  it('imports a CSV at once, as a dry run and for real', async () => {
    const tag = unique();
    const csv = `email,first name\nnow-${tag}@example.com,Now\nnot-an-email,Bad\n`;
    const dry = await crm.imports.importNow({ name: 'now.csv', content: csv }, { dryRun: true });
    expect({ created: dry.created.map((c) => c.id), errors: dry.errors.map((e) => e.row), dryRun: dry.dryRun }).toEqual({
      created: [null],
      errors: [2],
      dryRun: true,
    });
    const real = await crm.imports.importNow({ name: 'now.csv', content: csv });
    expect(real.created.map((c) => c.email)).toEqual([`now-${tag}@example.com`]);
  });

  it('starts a CSV job, waits for it, downloads its error report, lists it, and cannot cancel it once complete', async () => {
    const tag = unique();
    const started = await crm.imports.start({ name: 'job.csv', content: `email,first name\njob-${tag}@example.com,Job\nbad,Bad\n` });
    const job = await crm.imports.wait(started.uid, { intervalMs: 300 });
    expect({ status: job.status, successCount: job.successCount, errorCount: job.errorCount }).toEqual({
      status: 'complete',
      successCount: 1,
      errorCount: 1,
    });
    expect((await crm.imports.errors(started.uid)).split(/\r?\n/)[0]).toBe('row,kind,reason,email,first name');
    expect((await crm.imports.list()).map((j) => j.uid)).toContain(started.uid);
    expect((await crm.imports.get(started.uid)).status).toBe('complete');
    await expect(crm.imports.cancel(started.uid)).rejects.toMatchObject({ status: 409 });
  });
});

describe("the README's sync loop", () => {
  it('is examples/sync-contacts.ts, and copies what changed since its checkpoint', async () => {
    const readme = readFileSync(join(__dirname, '../../clients/typescript/README.md'), 'utf8');
    const example = readFileSync(join(__dirname, '../../clients/typescript/examples/sync-contacts.ts'), 'utf8');
    expect(readme).toContain(example.replace("from '../src'", "from 'crm-platform-sdk'"));
    expect(example.trim().split('\n').length).toBeLessThanOrEqual(20);

    const tokens = await login(owner);
    const sync = new CrmClient({ baseUrl: t.api.baseUrl, fetch: fetchWithCa, credentials: { tokens } });
    const copied = new Map<string, ContactListItem>();
    const store = { upsert: async (contact: ContactListItem) => void copied.set(contact.id, contact) };
    const checkpoint = await syncContacts(sync, store, null);
    expect(copied.size).toBe(
      await sync.contacts
        .list()
        .toArray()
        .then((all) => all.length),
    );

    copied.clear();
    await new Promise((r) => setTimeout(r, 1100)); // timestamps have whole seconds
    const changed = await sync.contacts.create({ email: `sync-${unique()}@example.com`, firstName: 'Changed' });
    const next = await syncContacts(sync, store, checkpoint);
    expect(copied.has(changed.id)).toBe(true);
    expect(next).toBe(changed.updatedAt);
    expect([...copied.values()].every((c) => c.updatedAt >= checkpoint!)).toBe(true);
  });
});

describe('the suite', () => {
  it('has called every public method of the SDK at least once', () => {
    expect(watched.length).toBeGreaterThan(60);
    expect(watched.filter((w) => w.spy.mock.calls.length === 0).map((w) => w.name)).toEqual([]);
  });
});
