/**
 * Idempotency-Key through two gateway replicas sharing Redis: a retry on either replica replays the
 * first answer and creates nothing; another body with the key is 422; concurrent requests with one
 * key create one record; keys are per workspace and at most 255 characters.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { csvFile, upload } from '../import/import-support';
import type { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';
import type { Workspace } from './records-fixtures';

let t: TestCluster;
let mine: Workspace;
let theirs: Workspace;
/** This workspace's client on each gateway replica. */
let replicas: ApiClient[];

async function workspace(): Promise<Workspace> {
  const owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  return { ...owner, api: t.api.withToken(owner.access) };
}

beforeAll(async () => {
  t = await startTestCluster({ gateways: 2, withWorkers: false });
  [mine, theirs] = await Promise.all([workspace(), workspace()]);
  replicas = t.gateways.map((g) => g.withToken(mine.access));
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

const newKey = (): string => `key-${randomBytes(8).toString('hex')}`;
const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });
const contactBody = (lastName: string) => ({ firstName: 'Grace', lastName, email: `${lastName.toLowerCase()}@example.com` });

async function contactsNamed(api: ApiClient, lastName: string): Promise<number> {
  return (await api.get(`/api/contacts/?search=${lastName}`)).body.count;
}

describe('Idempotency-Key', () => {
  it('replays the first answer on the other replica with Idempotent-Replayed: true, and creates nothing', async () => {
    const key = newKey();
    const name = `Replay${randomBytes(4).toString('hex')}`;
    const first = await replicas[0]!.post('/api/contacts/', contactBody(name), keyed(key));
    const retry = await replicas[1]!.post('/api/contacts/', contactBody(name), keyed(key));
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers.etag).toBe(first.headers.etag);
    expect(await contactsNamed(mine.api, name)).toBe(1);
  });

  it('answers 422 with a detail to the same key with another body, and creates nothing', async () => {
    const key = newKey();
    const name = `Other${randomBytes(4).toString('hex')}`;
    await replicas[0]!.post('/api/contacts/', contactBody(name), keyed(key));
    const other = await replicas[1]!.post('/api/contacts/', { ...contactBody(name), title: 'CTO' }, keyed(key));
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ detail: expect.stringMatching(/different request/) });
    expect(await contactsNamed(mine.api, name)).toBe(1);
  });

  it('creates one record from concurrent requests with one key, on both replicas', async () => {
    const key = newKey();
    const name = `Race${randomBytes(4).toString('hex')}`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => replicas[i % 2]!.post('/api/contacts/', contactBody(name), keyed(key))),
    );
    const fresh = answers.filter((a) => a.status === 201 && a.headers['idempotent-replayed'] === undefined);
    expect(fresh).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 201) expect(answer.body.id).toBe(fresh[0]!.body.id);
      else expect(answer).toMatchObject({ status: 409, body: { detail: expect.any(String) } });
    }
    expect(await contactsNamed(mine.api, name)).toBe(1);
  });

  it('refuses a key of 256 characters with 400 and creates nothing; 255 is accepted', async () => {
    const name = `Long${randomBytes(4).toString('hex')}`;
    const tooLong = await mine.api.post('/api/contacts/', contactBody(name), keyed('k'.repeat(256)));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual({ detail: expect.stringMatching(/255/) });
    expect(await contactsNamed(mine.api, name)).toBe(0);
    const longest = `${randomBytes(4).toString('hex')}${'k'.repeat(247)}`;
    expect((await mine.api.post('/api/contacts/', contactBody(name), keyed(longest))).status).toBe(201);
  });

  it("keeps keys per workspace: another workspace's request with the same key runs on its own", async () => {
    const key = newKey();
    const name = `Tenant${randomBytes(4).toString('hex')}`;
    const ours = await mine.api.post('/api/contacts/', contactBody(name), keyed(key));
    const theirsAnswer = await theirs.api.post('/api/contacts/', { ...contactBody(name), title: 'Other body' }, keyed(key));
    expect(theirsAnswer.status).toBe(201);
    expect(theirsAnswer.headers['idempotent-replayed']).toBeUndefined();
    expect(theirsAnswer.body.id).not.toBe(ours.body.id);
    expect(await contactsNamed(theirs.api, name)).toBe(1);
    expect(await contactsNamed(mine.api, name)).toBe(1);
  });

  it('keeps a 4xx answer: a retry of an invalid body gets the same 422 replayed', async () => {
    const key = newKey();
    const first = await mine.api.post('/api/contacts/', { firstName: 'No email' }, keyed(key));
    const retry = await replicas[1]!.post('/api/contacts/', { firstName: 'No email' }, keyed(key));
    expect(first.status).toBe(422);
    expect(retry).toMatchObject({ status: 422, body: first.body });
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('replays a lead conversion without converting again', async () => {
    const lead = await mine.api.post('/api/leads/', { firstName: 'Alan', lastName: 'Turing', email: `alan-${newKey()}@example.com` });
    const key = newKey();
    const first = await replicas[0]!.post(`/api/leads/${lead.body.id}/convert/`, { createAccount: false }, keyed(key));
    const retry = await replicas[1]!.post(`/api/leads/${lead.body.id}/convert/`, { createAccount: false }, keyed(key));
    expect(first.status).toBe(200);
    expect(retry).toMatchObject({ status: 200, body: first.body });
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('keeps no one-time secret: a retry of an API key creation answers 409 with a detail, creating one key', async () => {
    const before = (await mine.api.get('/api/settings/api-keys/')).body.count;
    const key = newKey();
    const first = await replicas[0]!.post('/api/settings/api-keys/', { name: 'sync' }, keyed(key));
    const retry = await replicas[1]!.post('/api/settings/api-keys/', { name: 'sync' }, keyed(key));
    expect(first.status).toBe(201);
    expect(retry).toMatchObject({ status: 409, body: { detail: expect.stringContaining('one-time secret') } });
    expect(retry.text).not.toContain(first.body.key);
    expect((await mine.api.get('/api/settings/api-keys/')).body.count).toBe(before + 1);
  });

  it('answers 409 to a retry of a webhook creation, a secret rotation and an invitation, which carry one-time secrets', async () => {
    const webhookKey = newKey();
    const webhook = { url: 'https://hooks.example.com/crm', events: ['contact.created'] };
    const created = await replicas[0]!.post('/api/settings/webhooks/', webhook, keyed(webhookKey));
    expect(created.status).toBe(201);
    const rotateKey = newKey();
    const rotatePath = `/api/settings/webhooks/${created.body.id}/rotate-secret/`;
    const rotated = await replicas[0]!.post(rotatePath, {}, keyed(rotateKey));
    expect(rotated.status).toBe(200);
    const inviteKey = newKey();
    const invitation = { email: `invitee-${newKey()}@example.com`, role: 'member', firstName: 'Ada', lastName: 'Byron' };
    const invited = await replicas[0]!.post('/api/settings/users/', invitation, keyed(inviteKey));
    expect(invited.status).toBe(201);

    const retries = [
      await replicas[1]!.post('/api/settings/webhooks/', webhook, keyed(webhookKey)),
      await replicas[1]!.post(rotatePath, {}, keyed(rotateKey)),
      await replicas[1]!.post('/api/settings/users/', invitation, keyed(inviteKey)),
    ];
    expect(retries.map((r) => r.status)).toEqual([409, 409, 409]);
    for (const secret of [created.body.secret, rotated.body.secret, invited.body.inviteToken])
      expect(retries.map((r) => r.text).join('\n')).not.toContain(secret);
  });

  it('leaves no one-time secret in Redis', async () => {
    const created = await replicas[0]!.post('/api/settings/api-keys/', { name: 'stored?' }, keyed(newKey()));
    const webhook = await replicas[0]!.post(
      '/api/settings/webhooks/',
      { url: 'https://hooks.example.com/stored', events: ['contact.created'] },
      keyed(newKey()),
    );
    expect([created.status, webhook.status]).toEqual([201, 201]);
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const keys = await redis.keys(`crm:${t.cluster.runId}:idem:*`);
      const entries = (await Promise.all(keys.map((k) => redis.get(k)))).map((v) => JSON.parse(v ?? '{}'));
      const stored = entries.map((e) => `${JSON.stringify(e)}\n${Buffer.from(e.answer?.body ?? '', 'base64').toString()}`).join('\n');
      expect(keys.length).toBeGreaterThan(0);
      expect(stored).not.toContain(created.body.key);
      expect(stored).not.toContain(webhook.body.secret);
    } finally {
      redis.disconnect();
    }
  });

  it('replays a rule creation and a template install, creating one rule each', async () => {
    const before = (await mine.api.get('/api/automations/rules/')).body.count;
    const ruleKey = newKey();
    const rule = {
      name: `Rule ${newKey()}`,
      trigger: 'lead_created',
      steps: [{ type: 'wait', order: 1, config: { duration: 1, unit: 'days' } }],
    };
    const created = await replicas[0]!.post('/api/automations/rules/', rule, keyed(ruleKey));
    const createdAgain = await replicas[1]!.post('/api/automations/rules/', rule, keyed(ruleKey));
    expect(created.status).toBe(201);
    expect(createdAgain).toMatchObject({ status: 201, body: created.body });
    const installKey = newKey();
    const path = '/api/automations/templates/tmpl_new_lead_welcome/install/';
    const installed = await replicas[0]!.post(path, {}, keyed(installKey));
    const installedAgain = await replicas[1]!.post(path, {}, keyed(installKey));
    expect(installed.status).toBe(201);
    expect(installedAgain).toMatchObject({ status: 201, body: installed.body });
    expect((await mine.api.get('/api/automations/rules/')).body.count).toBe(before + 2);
  });

  it('replays an import start with the first job, whatever file the retry carries', async () => {
    const key = newKey();
    const file = csvFile('First Name,Last Name,E-mail\nAda,Lovelace,ada.idem@example.com\n');
    const first = await upload(replicas[0]!, mine.access, [file], { 'idempotency-key': key });
    const retry = await upload(replicas[1]!, mine.access, [file], { 'idempotency-key': key });
    expect(first.status).toBe(202);
    expect(retry).toMatchObject({ status: 202, body: first.body });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const jobs = (await mine.api.get('/api/crm/contacts/import-jobs/')).body as Array<{ uid: string }>;
    expect(jobs.filter((j) => j.uid === first.body.uid)).toHaveLength(1);
    expect(jobs).toHaveLength(1);
  });
});
