import { CLUSTER_RETRY_MS, type TestCluster } from '../support/cluster';
import {
  DATE,
  TIMESTAMP,
  createAccount,
  createContact,
  createOpportunity,
  createTaskOver,
  startRecordsCluster,
  unique,
  workspace,
  type Workspace,
} from './records-fixtures';

let t: TestCluster;
let w: Workspace;

beforeAll(async () => {
  t = await startRecordsCluster();
  w = await workspace(t);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

const CONTACT_FULL = [
  'id',
  'externalId',
  'customFields',
  'firstName',
  'lastName',
  'email',
  'phone',
  'title',
  'stage',
  'accountId',
  'accountName',
  'assignedTo',
  'assignedToName',
  'tags',
  'emailOptOut',
  'emailBounced',
  'notes',
  'source',
  'createdAt',
  'updatedAt',
];
const CONTACT_ITEM = [
  'id',
  'externalId',
  'customFields',
  'firstName',
  'lastName',
  'email',
  'phone',
  'title',
  'stage',
  'accountId',
  'accountName',
  'assignedTo',
  'tags',
  'createdAt',
  'updatedAt',
];
const LEAD_FULL = [
  'id',
  'externalId',
  'customFields',
  'firstName',
  'lastName',
  'email',
  'phone',
  'company',
  'status',
  'source',
  'assignedTo',
  'assignedToName',
  'leadScore',
  'emailOptOut',
  'emailBounced',
  'convertedAt',
  'convertedContactId',
  'notes',
  'createdAt',
  'updatedAt',
];
const LEAD_ITEM = [
  'id',
  'externalId',
  'customFields',
  'firstName',
  'lastName',
  'email',
  'phone',
  'company',
  'status',
  'source',
  'assignedTo',
  'leadScore',
  'createdAt',
  'updatedAt',
];
const ACCOUNT_FULL = [
  'id',
  'externalId',
  'customFields',
  'name',
  'website',
  'industry',
  'companySize',
  'annualRevenue',
  'stage',
  'phone',
  'billingAddress',
  'assignedTo',
  'assignedToName',
  'tags',
  'description',
  'contactCount',
  'openOpportunityCount',
  'openCaseCount',
  'createdAt',
  'updatedAt',
];
const ACCOUNT_ITEM = [
  'id',
  'externalId',
  'customFields',
  'name',
  'website',
  'industry',
  'companySize',
  'stage',
  'assignedTo',
  'contactCount',
  'openOpportunityCount',
  'createdAt',
  'updatedAt',
];
const OPPORTUNITY_FULL = [
  'id',
  'externalId',
  'customFields',
  'name',
  'accountId',
  'accountName',
  'value',
  'stage',
  'probability',
  'closeDate',
  'closedDate',
  'lossReason',
  'assignedTo',
  'assignedToName',
  'source',
  'contactIds',
  'description',
  'createdAt',
  'updatedAt',
];
const OPPORTUNITY_ITEM = [
  'id',
  'externalId',
  'customFields',
  'name',
  'accountId',
  'accountName',
  'value',
  'stage',
  'probability',
  'closeDate',
  'assignedTo',
  'source',
  'createdAt',
  'updatedAt',
];

const keys = (value: object) => Object.keys(value).sort();

describe('contacts', () => {
  it('creates a contact with 201, the full shape, a cnt_ id and second-precision UTC timestamps', async () => {
    const account = await createAccount(w, { name: 'Analytical Engines' });
    const response = await w.api.post('/api/contacts/', {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
      title: 'Countess',
      stage: 'engaged',
      accountId: account.id,
      assignedTo: w.user.id,
      tags: ['vip', 'math'],
      notes: 'Met at the Royal Society.',
    });
    expect(response.status).toBe(201);
    expect(keys(response.body)).toEqual([...CONTACT_FULL].sort());
    expect(response.body).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      stage: 'engaged',
      accountId: account.id,
      accountName: 'Analytical Engines',
      assignedTo: w.user.id,
      assignedToName: 'Ada Lovelace',
      tags: ['vip', 'math'],
      emailOptOut: false,
      emailBounced: false,
      notes: 'Met at the Royal Society.',
      source: null,
    });
    expect(response.body.id).toMatch(/^cnt_/);
    expect(response.body.createdAt).toMatch(TIMESTAMP);
    expect(response.body.updatedAt).toMatch(TIMESTAMP);
  });

  it('reads, updates and deletes a contact (200, 200, 204 with no body, then 404)', async () => {
    const contact = await createContact(w);
    const read = await w.api.get(`/api/contacts/${contact.id}/`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(contact);

    const updated = await w.api.patch(`/api/contacts/${contact.id}/`, { stage: 'customer', title: 'Rear Admiral' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: contact.id, stage: 'customer', title: 'Rear Admiral', email: contact.email });
    expect(keys(updated.body)).toEqual([...CONTACT_FULL].sort());

    const deleted = await w.api.delete(`/api/contacts/${contact.id}/`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await w.api.get(`/api/contacts/${contact.id}/`)).status).toBe(404);
  });

  it('ignores read-only fields sent back on PATCH, and clears a nullable field with null', async () => {
    const account = await createAccount(w);
    const contact = await createContact(w, { accountId: account.id });
    const response = await w.api.patch(`/api/contacts/${contact.id}/`, {
      ...contact,
      id: 'cnt_other',
      createdAt: '2000-01-01T00:00:00Z',
      accountName: 'x',
      accountId: null,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: contact.id, createdAt: contact.createdAt, accountId: null, accountName: null });
  });

  it('lists contact items with only the list fields', async () => {
    await createContact(w);
    const response = await w.api.get('/api/contacts/');
    expect(response.status).toBe(200);
    expect(keys(response.body)).toEqual(['count', 'next', 'nextCursor', 'previous', 'results']);
    for (const item of response.body.results) expect(keys(item)).toEqual([...CONTACT_ITEM].sort());
  });

  it('deletes a contact together with its tasks', async () => {
    const contact = await createContact(w);
    const taskId = await createTaskOver(t, w, contact.id);
    const before = await w.api.get(`/api/tasks/?relatedTo=${contact.id}`);
    expect(before.status).toBe(200);
    expect(before.body.results).toEqual([
      {
        id: taskId,
        name: 'Follow up',
        dueDate: null,
        assignedTo: null,
        relatedTo: contact.id,
        status: 'open',
        createdAt: expect.stringMatching(TIMESTAMP),
      },
    ]);
    expect((await w.api.delete(`/api/contacts/${contact.id}/`)).status).toBe(204);
    const after = await w.api.get(`/api/tasks/?relatedTo=${contact.id}`);
    expect(after.body).toEqual({ count: 0, next: null, previous: null, nextCursor: null, results: [] });
  });
});

describe('leads', () => {
  it('creates, reads, updates, lists and deletes a lead with the spec shapes', async () => {
    const created = await w.api.post('/api/leads/', {
      firstName: 'Alan',
      lastName: 'Turing',
      email: `alan-${unique()}@example.com`,
      company: 'Bletchley',
      source: 'referral',
      leadScore: 42,
    });
    expect(created.status).toBe(201);
    expect(keys(created.body)).toEqual([...LEAD_FULL].sort());
    expect(created.body).toMatchObject({
      status: 'new',
      source: 'referral',
      leadScore: 42,
      convertedAt: null,
      convertedContactId: null,
      assignedTo: null,
      assignedToName: null,
    });
    expect(created.body.id).toMatch(/^ld_/);

    const patched = await w.api.patch(`/api/leads/${created.body.id}/`, { status: 'qualified', leadScore: 80 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ status: 'qualified', leadScore: 80 });

    const list = await w.api.get('/api/leads/?status=qualified');
    expect(list.status).toBe(200);
    expect(list.body.results.map((l: { id: string }) => l.id)).toContain(created.body.id);
    for (const item of list.body.results) expect(keys(item)).toEqual([...LEAD_ITEM].sort());

    expect((await w.api.delete(`/api/leads/${created.body.id}/`)).status).toBe(204);
    expect((await w.api.get(`/api/leads/${created.body.id}/`)).status).toBe(404);
  });
});

describe('accounts', () => {
  it('creates an account with the full shape and counts, lists items, and lists its contacts', async () => {
    const created = await w.api.post('/api/accounts/', {
      name: 'Initech',
      website: 'https://initech.example',
      industry: 'software',
      companySize: '51-200',
      annualRevenue: 1500000.5,
      stage: 'active',
      phone: '+1 555 0100',
      billingAddress: { street: '1 Main St', city: 'Austin', state: 'TX', postalCode: '73301', country: 'US' },
      tags: ['enterprise'],
      description: 'TPS reports.',
    });
    expect(created.status).toBe(201);
    expect(keys(created.body)).toEqual([...ACCOUNT_FULL].sort());
    expect(created.body).toMatchObject({
      annualRevenue: 1500000.5,
      contactCount: 0,
      openOpportunityCount: 0,
      openCaseCount: 0,
      billingAddress: { city: 'Austin', postalCode: '73301' },
    });
    expect(created.body.id).toMatch(/^acc_/);

    const contact = await createContact(w, { accountId: created.body.id, title: 'Manager', stage: 'contacted' });
    await createOpportunity(w, created.body.id);
    const read = await w.api.get(`/api/accounts/${created.body.id}/`);
    expect(read.body).toMatchObject({ contactCount: 1, openOpportunityCount: 1 });

    const contacts = await w.api.get(`/api/accounts/${created.body.id}/contacts/`);
    expect(contacts.status).toBe(200);
    expect(contacts.body).toEqual({
      count: 1,
      nextCursor: null,
      results: [
        {
          id: contact.id,
          firstName: contact.firstName,
          lastName: contact.lastName,
          email: contact.email,
          title: 'Manager',
          stage: 'contacted',
        },
      ],
    });

    const list = await w.api.get('/api/accounts/?industry=software');
    for (const item of list.body.results) expect(keys(item)).toEqual([...ACCOUNT_ITEM].sort());
  });

  it('renders an account without revenue or address as nulls', async () => {
    const account = await createAccount(w);
    expect(account).toMatchObject({ annualRevenue: null, billingAddress: null, assignedTo: null, website: '' });
  });

  it('deletes an account and leaves its contacts and opportunities unlinked', async () => {
    const account = await createAccount(w);
    const contact = await createContact(w, { accountId: account.id });
    const opportunity = await createOpportunity(w, account.id);
    expect((await w.api.delete(`/api/accounts/${account.id}/`)).status).toBe(204);
    const contactAfter = await w.api.get(`/api/contacts/${contact.id}/`);
    expect(contactAfter.status).toBe(200);
    expect(contactAfter.body).toMatchObject({ accountId: null, accountName: null });
    const opportunityAfter = await w.api.get(`/api/opportunities/${opportunity.id}/`);
    expect(opportunityAfter.status).toBe(200);
    expect(opportunityAfter.body).toMatchObject({ accountId: null, accountName: null });
  });
});

describe('opportunities', () => {
  it('creates, closes as won and as lost, lists and deletes opportunities', async () => {
    const account = await createAccount(w, { name: 'Globex' });
    const contact = await createContact(w);
    const created = await w.api.post('/api/opportunities/', {
      name: 'Globex renewal',
      accountId: account.id,
      value: 25000,
      closeDate: '2030-06-30',
      contactIds: [contact.id],
      description: 'Yearly.',
    });
    expect(created.status).toBe(201);
    expect(keys(created.body)).toEqual([...OPPORTUNITY_FULL].sort());
    expect(created.body).toMatchObject({
      accountName: 'Globex',
      stage: 'prospecting',
      probability: 10,
      closeDate: '2030-06-30',
      closedDate: null,
      lossReason: null,
      contactIds: [contact.id],
    });
    expect(created.body.id).toMatch(/^opp_/);

    const won = await w.api.patch(`/api/opportunities/${created.body.id}/`, {
      stage: 'closed_won',
      closedDate: '2030-06-01',
      probability: 100,
    });
    expect(won.status).toBe(200);
    expect(won.body).toMatchObject({ stage: 'closed_won', closedDate: '2030-06-01', probability: 100 });

    const other = await createOpportunity(w, account.id);
    const lost = await w.api.patch(`/api/opportunities/${other.id}/`, { stage: 'closed_lost', lossReason: 'Budget' });
    expect(lost.body).toMatchObject({ stage: 'closed_lost', lossReason: 'Budget' });
    expect(lost.body.closedDate).toMatch(DATE);

    const list = await w.api.get(`/api/opportunities/?accountId=${account.id}&valueMin=1000`);
    expect(list.body.results.map((o: { id: string }) => o.id)).toEqual([created.body.id]);
    for (const item of list.body.results) expect(keys(item)).toEqual([...OPPORTUNITY_ITEM].sort());

    expect((await w.api.delete(`/api/opportunities/${other.id}/`)).status).toBe(204);
  });
});

describe('sources, activities and the /api/v1 alias', () => {
  it('creates and lists sources', async () => {
    const created = await w.api.post('/api/crm/sources/', { name: 'Trade show' });
    expect(created.status).toBe(201);
    expect(keys(created.body)).toEqual(['createdAt', 'name', 'uid']);
    expect(created.body.uid).toMatch(/^[0-9a-f-]{36}$/);
    const list = await w.api.get('/api/crm/sources/');
    expect(list.status).toBe(200);
    expect(list.body.results).toContainEqual(created.body);
  });

  it('records activities with the actor kind: user for a login, api_key (the system user) for a key', async () => {
    const contact = await createContact(w);
    const key = await w.api.post('/api/settings/api-keys/', { name: `bench ${unique()}` });
    expect(key.status).toBe(201);
    const byKey = await t.api.patch(`/api/contacts/${contact.id}/`, { title: 'Via key' }, { token: key.body.key });
    expect(byKey.status).toBe(200);

    const log = await w.api.get(`/api/activities/?recordId=${contact.id}`);
    expect(log.status).toBe(200);
    expect(log.body.count).toBe(2);
    const [updated, created] = log.body.results;
    expect(keys(created)).toEqual(['action', 'actorId', 'actorType', 'createdAt', 'id', 'mergedIds', 'recordId', 'recordType']);
    expect(created.mergedIds).toEqual([]);
    expect(created).toMatchObject({
      action: 'created',
      recordType: 'contact',
      recordId: contact.id,
      actorId: w.user.id,
      actorType: 'user',
    });
    expect(updated).toMatchObject({ action: 'updated', actorType: 'api_key' });
    expect(updated.actorId).not.toBe(w.user.id);
  });

  it('keeps activities after the record is deleted', async () => {
    const contact = await createContact(w);
    await w.api.delete(`/api/contacts/${contact.id}/`);
    const log = await w.api.get(`/api/activities/?recordId=${contact.id}`);
    expect(log.body.results.map((a: { action: string }) => a.action)).toEqual(['deleted', 'created']);
  });

  it('serves a records route under /api/v1/ exactly as under /api/', async () => {
    const contact = await createContact(w);
    const plain = await w.api.get(`/api/contacts/${contact.id}/`);
    const v1 = await w.api.get(`/api/v1/contacts/${contact.id}/`);
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(plain.body);
    expect((await w.api.get(`/api/v2/contacts/${contact.id}/`)).status).toBe(404);
  });
});
