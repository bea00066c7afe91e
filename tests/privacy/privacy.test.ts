/**
 * Privacy export and erasure across the local cluster (real processes: two gateways, records with a
 * second replica on the same store and a gateway in front of it, import and automation with their
 * workers, RabbitMQ, Redis). A person is spread over every service (contact and lead, a task, their
 * activities, an import report row, webhook deliveries, a kept Idempotency-Key answer), exported,
 * erased, then looked for by every read path; re-creation is refused by each write path until the
 * suppression is lifted; admins only; another workspace's same email untouched.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { checkHealth } from '@crm/grpc';
import { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { healthOf } from '../support/internal-tls';
import { liftRateLimit } from '../support/operator-cli';
import { freePort, SiblingProcess, waitUntil } from '../support/sibling-process';
import { uploadCsv, waitForJob } from '../import/import-support';
import { createTaskOver, type Workspace } from '../records/records-fixtures';
import { WebhookReceiver } from '../webhooks/webhook-receiver';
import { eventually } from '../support/eventually';

jest.setTimeout(180_000);

let t: TestCluster;
let owner: SignedUp;
let api: ApiClient;
/** A gateway whose only records replica is the second one (records-2), sharing the first's store. */
let api2: ApiClient;
let records2: SiblingProcess;
let gateway2: SiblingProcess;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  t = await startTestCluster({ gateways: 2, workers: 1, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  api = t.api.withToken(owner.access);
  const recordsPort = await freePort();
  records2 = SiblingProcess.start(t.cluster, 'records', 'records-2', { GRPC_PORT: String(recordsPort) });
  await waitUntil('records-2 gRPC health', () => checkHealth(healthOf(t.cluster, `127.0.0.1:${recordsPort}`, 'records')), 60_000);
  const gatewayPort = await freePort();
  gateway2 = SiblingProcess.start(t.cluster, 'gateway-1', 'gateway-records-2', {
    CRM_PORT: String(gatewayPort),
    CRM_DATA_DIR: join(t.cluster.dataDir, 'gateway-records-2'),
    RECORDS_GRPC_ADDR: `127.0.0.1:${recordsPort}`,
  });
  const second = new ApiClient(`https://localhost:${gatewayPort}`, t.cluster.ca);
  await waitUntil('the second gateway', async () => (await second.get('/readyz')).status === 200, 60_000);
  api2 = second.withToken(owner.access);
}, 240_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await gateway2?.stop();
  await records2?.stop();
  await t?.stop();
  await receiver.stop();
});

const unique = (): string => randomBytes(5).toString('hex');

const ZERO = { contacts: 0, leads: 0, notes: 0, tasks: 0, activities: 0, auditEntries: 0, emails: 0, importRows: 0, webhookDeliveries: 0 };

/** A person spread over every service, in the owner's workspace. */
async function spreadPerson(email: string) {
  const hookPath = `/privacy-${unique()}`;
  const hook = await api.post('/api/settings/webhooks/', {
    url: receiver.url(hookPath),
    events: ['contact.created', 'lead.created', 'person.erased'],
  });
  expect(hook.status).toBe(201);
  const idempotencyKey = `create-${unique()}`;
  const contactBody = { firstName: 'Erin', lastName: 'Erasable', email, phone: '+44 20 7946 0000' };
  const contact = await api.post('/api/contacts/', contactBody, { headers: { 'idempotency-key': idempotencyKey } });
  expect(contact.status).toBe(201);
  // The same person as a lead, the email written in another case.
  const lead = await api.post('/api/leads/', {
    firstName: 'Erin',
    lastName: 'Erasable',
    email: email.toUpperCase(),
    company: 'Vanishing Ltd',
  });
  expect(lead.status).toBe(201);
  const taskId = await createTaskOver(t, { api, ...owner } as Workspace, contact.body.id);
  // An import whose row with the email is a duplicate of the contact: the report keeps its cells.
  const uid = await uploadCsv(
    t.api,
    owner.access,
    `Email,First Name,Last Name\n${email},Erin,Again\nother-${unique()}@example.com,Other,Person\n`,
  );
  const job = await waitForJob(t.api, owner.access, uid);
  expect(job.duplicateCount).toBe(1);
  await eventually('the contact and lead deliveries', async () => {
    const got = receiver.received.filter((r) => r.path === hookPath && ['contact.created', 'lead.created'].includes(r.body.type));
    return got.some((r) => r.body.data.record.id === contact.body.id) && got.some((r) => r.body.data.record.id === lead.body.id);
  });
  return {
    hookPath,
    hookId: hook.body.id as string,
    contact: contact.body,
    lead: lead.body,
    taskId,
    jobUid: uid,
    idempotencyKey,
    contactBody,
  };
}

describe('privacy export and erasure', () => {
  let person: Awaited<ReturnType<typeof spreadPerson>>;
  const email = `Erin.Erasable-${unique()}@Example.com`;
  let receipt: any;
  let otherWorkspace: SignedUp;
  let othersContactId: string;

  beforeAll(async () => {
    person = await spreadPerson(email);
    // Another workspace has a contact with the same email: an erasure here must not touch it.
    otherWorkspace = await signUp(t.api);
    const theirs = await t.api.post(
      '/api/contacts/',
      { firstName: 'Erin', lastName: 'Elsewhere', email },
      { token: otherWorkspace.access },
    );
    expect(theirs.status).toBe(201);
    othersContactId = theirs.body.id;
    // records-2 answers this search before the erasure, so any answer it keeps is a stale one.
    const warm = await api2.get(`/api/contacts/?search=${encodeURIComponent(email.toLowerCase())}`);
    expect(warm.body.count).toBe(1);
  });

  it('exports every contact and lead with the email, case-insensitively, and what hangs off them', async () => {
    const bundle = await api.post('/api/privacy/export/', { email: email.toLowerCase() });
    expect(bundle.status).toBe(200);
    expect(bundle.body.email).toBe(email.toLowerCase());
    expect(bundle.body.contacts.map((c: any) => c.id)).toEqual([person.contact.id]);
    expect(bundle.body.contacts[0].phone).toBe('+44 20 7946 0000');
    expect(bundle.body.leads.map((l: any) => l.id)).toEqual([person.lead.id]);
    expect(bundle.body.tasks.map((task: any) => task.id)).toEqual([person.taskId]);
    expect(bundle.body.activities.map((a: any) => a.recordId).sort()).toEqual([person.contact.id, person.lead.id].sort());
    expect(bundle.body.importRows).toEqual([
      expect.objectContaining({ jobId: person.jobUid, kind: 'duplicate', cells: [email, 'Erin', 'Again'] }),
    ]);
    const delivered = bundle.body.webhookDeliveries.map((d: any) => d.payload.data.record.id).sort();
    expect(delivered).toEqual([person.contact.id, person.lead.id].sort());
    expect(bundle.body).toEqual(expect.objectContaining({ notes: [], emails: [] }));
    // The audit log's entries about them: each creation, with its values.
    const audited = bundle.body.auditEntries.map((e: any) => [e.recordId, e.action]).sort();
    expect(audited).toEqual(
      [
        [person.contact.id, 'created'],
        [person.lead.id, 'created'],
      ].sort(),
    );
    const created = bundle.body.auditEntries.find((e: any) => e.recordId === person.contact.id);
    expect(created.changes.email).toEqual({ from: null, to: email });
    expect(created.actor).toEqual({ type: 'user', id: owner.user.id, name: expect.any(String) });
  });

  it('erases the person and answers a receipt counting each kind', async () => {
    const response = await api.post('/api/privacy/erase/', { email });
    expect(response.status).toBe(200);
    receipt = response.body;
    expect(receipt.email).toBe(email);
    expect(receipt.counts).toEqual({
      ...ZERO,
      contacts: 1,
      leads: 1,
      tasks: 1,
      activities: 2,
      auditEntries: 2,
      importRows: 1,
      webhookDeliveries: 2,
    });
  });

  it('keeps the audit entries about the erased records with their ids, every value blanked, and adds an `erased` entry', async () => {
    for (const recordId of [person.contact.id, person.lead.id]) {
      const log = await api.get(`/api/audit-log/?recordId=${recordId}`);
      expect(log.status).toBe(200);
      expect(log.body.results.map((e: any) => e.action)).toEqual(['erased', 'created']);
      const text = JSON.stringify(log.body.results);
      expect(text.toLowerCase()).not.toContain(email.toLowerCase());
      expect(text).not.toContain('Erasable');
      for (const entry of log.body.results)
        for (const change of Object.values(entry.changes) as { from: unknown; to: unknown }[])
          for (const value of [change.from, change.to]) expect([null, '[erased]']).toContain(value);
      expect(log.body.results[1].changes.email).toEqual({ from: null, to: '[erased]' });
    }
  });

  it('leaves nothing a single-record read, a list, a query, a search or an aggregate finds, on either records replica', async () => {
    const needle = encodeURIComponent(email.toLowerCase());
    for (const client of [api, api2]) {
      expect((await client.get(`/api/contacts/${person.contact.id}/`)).status).toBe(404);
      expect((await client.get(`/api/leads/${person.lead.id}/`)).status).toBe(404);
      expect((await client.get(`/api/contacts/?search=${needle}`)).body.count).toBe(0);
      expect((await client.get(`/api/leads/?search=${needle}`)).body.count).toBe(0);
      expect((await client.get('/api/contacts/?search=erasable')).body.count).toBe(0);
      const filter = { field: 'email', operator: 'eq', value: email };
      expect((await client.post('/api/contacts/query/', { filter })).body.count).toBe(0);
      expect((await client.post('/api/leads/query/', { search: 'vanishing' })).body.count).toBe(0);
      const aggregate = await client.get(`/api/contacts/aggregate/?groupBy=stage&metrics=count&search=${needle}`);
      expect(aggregate.status).toBe(200);
      expect(aggregate.body.total.count).toBe(0);
      expect((await client.get(`/api/activities/?recordId=${person.contact.id}`)).body.count).toBe(0);
      expect((await client.get(`/api/tasks/?relatedTo=${person.contact.id}`)).body.count).toBe(0);
    }
    const again = await api.post('/api/privacy/export/', { email });
    for (const section of Object.keys(ZERO)) expect([section, again.body[section]]).toEqual([section, []]);
  });

  it('blanks the import report row and the job’s duplicates, keeping the row', async () => {
    const job = await api.get(`/api/crm/contacts/import-jobs/${person.jobUid}/`);
    expect(JSON.stringify(job.body).toLowerCase()).not.toContain(email.toLowerCase());
    expect(job.body.duplicates).toEqual([expect.objectContaining({ row: 1, email: '[erased]' })]);
    const report = await api.get(`/api/crm/contacts/import-jobs/${person.jobUid}/errors/`);
    expect(report.status).toBe(200);
    expect(report.text.toLowerCase()).not.toContain(email.toLowerCase());
    expect(report.text).toContain('[erased]');
  });

  it('sends person.erased with the receipt’s counts and never the email, and a redelivery sends no payload', async () => {
    const erased = await eventually('the person.erased delivery', async () =>
      receiver.received.find((r) => r.path === person.hookPath && r.body.type === 'person.erased'),
    );
    expect(erased.body.data).toEqual({ counts: receipt.counts });
    expect(erased.rawBody.toLowerCase()).not.toContain(email.toLowerCase());
    const sent = receiver.received.find((r) => r.path === person.hookPath && r.body.data.record?.id === person.contact.id)!;
    const deliveries = await api.get(`/api/settings/webhooks/${person.hookId}/deliveries/?limit=100`);
    const created = deliveries.body.results.find((d: any) => d.eventId === sent.body.id);
    const before = receiver.received.length;
    expect((await api.post(`/api/settings/webhooks/${person.hookId}/deliveries/${created.id}/redeliver/`, {})).status).toBe(202);
    const redelivered = await eventually('the redelivery', async () =>
      receiver.received.slice(before).find((r) => r.path === person.hookPath && r.body.type === 'contact.created'),
    );
    expect(redelivered.body.data).toBe('[erased]');
    expect(redelivered.rawBody.toLowerCase()).not.toContain(email.toLowerCase());
  });

  it('forgets the kept Idempotency-Key answer that held the person (a retry runs again and is refused)', async () => {
    const retry = await api.post('/api/contacts/', person.contactBody, { headers: { 'idempotency-key': person.idempotencyKey } });
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.status).toBe(422);
    expect(retry.text.toLowerCase()).not.toContain(email.toLowerCase());
  });

  it('refuses the email on create, PATCH and import until the suppression is lifted', async () => {
    const variant = `  ${email.toUpperCase()} `.trim();
    const create = await api.post('/api/contacts/', { firstName: 'Erin', lastName: 'Back', email: variant });
    expect(create.status).toBe(422);
    expect(Object.keys(create.body)).toEqual(['email']);
    expect((await api.post('/api/leads/', { firstName: 'Erin', lastName: 'Back', email, company: 'X' })).status).toBe(422);
    const other = await api.post('/api/contacts/', { firstName: 'Someone', lastName: 'Else', email: `else-${unique()}@example.com` });
    const patch = await api.patch(`/api/contacts/${other.body.id}/`, { email });
    expect(patch.status).toBe(422);
    expect(Object.keys(patch.body)).toEqual(['email']);
    // A PATCH that leaves the email alone still works.
    expect((await api.patch(`/api/contacts/${other.body.id}/`, { title: 'CTO' })).status).toBe(200);
    const uid = await uploadCsv(t.api, owner.access, `Email,First Name,Last Name\n${email},Erin,Imported\n`);
    const job = await waitForJob(t.api, owner.access, uid);
    expect([job.successCount, job.errorCount]).toEqual([0, 1]);
    expect(job.errors[0].message).toMatch(/suppression list/);

    const lifted = await api.call('DELETE', '/api/privacy/suppressions/', { body: { email: email.toLowerCase() } });
    expect(lifted.status).toBe(204);
    const back = await api.post('/api/contacts/', { firstName: 'Erin', lastName: 'Back', email });
    expect(back.status).toBe(201);
  });

  it('leaves another workspace’s contact with the same email alone', async () => {
    const theirs = await t.api.get(`/api/contacts/${othersContactId}/`, { token: otherWorkspace.access });
    expect(theirs.status).toBe(200);
    expect(theirs.body.email).toBe(email);
    const more = await t.api.post('/api/leads/', { firstName: 'E', lastName: 'E', email, company: 'Y' }, { token: otherWorkspace.access });
    expect(more.status).toBe(201);
  });
});

describe('an email nobody has', () => {
  it('answers zero counts and is suppressed all the same', async () => {
    const email = `nobody-${unique()}@example.com`;
    const response = await api.post('/api/privacy/erase/', { email });
    expect(response.status).toBe(200);
    expect(response.body.counts).toEqual(ZERO);
    expect((await api.post('/api/contacts/', { firstName: 'No', lastName: 'Body', email })).status).toBe(422);
  });

  it('keeps no answer for replay: a retry of an erasure with its key answers 409', async () => {
    const headers = { 'idempotency-key': `erase-${unique()}` };
    const body = { email: `kept-${unique()}@example.com` };
    expect((await api.post('/api/privacy/erase/', body, { headers })).status).toBe(200);
    const retry = await api.post('/api/privacy/erase/', body, { headers });
    expect(retry.status).toBe(409);
    expect(retry.text).not.toContain(body.email);
  });

  it('answers 422 on email for a blank or missing one', async () => {
    expect((await api.post('/api/privacy/erase/', { email: ' ' })).body).toEqual({ email: [expect.any(String)] });
    expect((await api.post('/api/privacy/export/', {})).body).toEqual({ email: [expect.any(String)] });
  });
});

describe('who may call the privacy routes', () => {
  let member: string;
  let key: string;

  beforeAll(async () => {
    const invited = await api.post('/api/settings/users/', {
      email: `member-${unique()}@example.com`,
      firstName: 'M',
      lastName: 'M',
      role: 'member',
    });
    expect(invited.status).toBe(201);
    const accepted = await t.api.post('/api/auth/invitations/accept/', { token: invited.body.inviteToken, password: 'a member password' });
    expect(accepted.status).toBe(200);
    member = accepted.body.access;
    const created = await api.post('/api/settings/api-keys/', { name: 'every scope' });
    expect(created.status).toBe(201);
    key = created.body.key;
  });

  it.each([
    ['POST', '/api/privacy/export/'],
    ['POST', '/api/privacy/erase/'],
    ['DELETE', '/api/privacy/suppressions/'],
  ])('%s %s answers 403 to a member and to an API key holding every scope', async (method, path) => {
    const body = { email: `anyone-${unique()}@example.com` };
    expect((await t.api.call(method, path, { body, token: member })).status).toBe(403);
    expect((await t.api.call(method, path, { body, token: key })).status).toBe(403);
  });
});
