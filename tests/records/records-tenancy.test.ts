import { CLUSTER_RETRY_MS, type TestCluster } from '../support/cluster';
import {
  TIMESTAMP,
  createAccount,
  createContact,
  createLead,
  createOpportunity,
  startRecordsCluster,
  unique,
  workspace,
  type Workspace,
} from './records-fixtures';

let t: TestCluster;
let mine: Workspace;
let theirs: Workspace;

beforeAll(async () => {
  t = await startRecordsCluster();
  [mine, theirs] = await Promise.all([workspace(t), workspace(t)]);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

describe("another workspace's records", () => {
  it.each([
    ['contacts', (w: Workspace) => createContact(w)],
    ['leads', (w: Workspace) => createLead(w)],
    ['accounts', (w: Workspace) => createAccount(w)],
  ])('are 404 on get, patch and delete of %s', async (path, make) => {
    const record = await make(theirs);
    for (const response of [
      await mine.api.get(`/api/${path}/${record.id}/`),
      await mine.api.patch(`/api/${path}/${record.id}/`, { notes: 'x' }),
      await mine.api.delete(`/api/${path}/${record.id}/`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Not found.' });
    }
    expect((await theirs.api.get(`/api/${path}/${record.id}/`)).status).toBe(200);
  });

  it("are 404 for an opportunity, an account's contacts and a lead conversion", async () => {
    const account = await createAccount(theirs);
    const opportunity = await createOpportunity(theirs, account.id);
    const lead = await createLead(theirs);
    expect((await mine.api.get(`/api/opportunities/${opportunity.id}/`)).status).toBe(404);
    expect((await mine.api.get(`/api/accounts/${account.id}/contacts/`)).status).toBe(404);
    const convert = await mine.api.post(`/api/leads/${lead.id}/convert/`, {});
    expect(convert.status).toBe(404);
    expect((await theirs.api.get(`/api/leads/${lead.id}/`)).body.status).toBe('new');
  });

  it('never appear in lists, and their ids in a body are 422 (not found in this workspace)', async () => {
    const contact = await createContact(theirs, { lastName: `Secret${unique()}` });
    const list = await mine.api.get(`/api/contacts/?search=${contact.lastName}`);
    expect(list.body.count).toBe(0);
    const account = await createAccount(mine);
    const opportunity = await mine.api.post('/api/opportunities/', { name: 'Deal', accountId: account.id, contactIds: [contact.id] });
    expect(opportunity.status).toBe(422);
    expect(opportunity.body).toEqual({ contactIds: [`Invalid pk "${contact.id}" - object does not exist.`] });
  });

  it('answers an id that cannot be one of ours with 404', async () => {
    expect((await mine.api.get('/api/contacts/..%2F..%2Fetc/')).status).toBe(404);
    expect((await mine.api.get('/api/leads/ld_doesnotexist/')).status).toBe(404);
  });
});

describe('lead conversion', () => {
  it('converts into a contact only, with account and opportunity null', async () => {
    const lead = await createLead(mine, { phone: '+1 555 0101', notes: 'Warm.' });
    const response = await mine.api.post(`/api/leads/${lead.id}/convert/`, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      lead: { id: lead.id, status: 'converted', convertedAt: expect.stringMatching(TIMESTAMP) },
      contact: { id: expect.stringMatching(/^cnt_/), firstName: lead.firstName, lastName: lead.lastName },
      account: null,
      opportunity: null,
    });
    const contact = await mine.api.get(`/api/contacts/${response.body.contact.id}/`);
    expect(contact.body).toMatchObject({ email: lead.email, phone: '+1 555 0101', notes: 'Warm.', accountId: null });
    const after = await mine.api.get(`/api/leads/${lead.id}/`);
    expect(after.body).toMatchObject({
      status: 'converted',
      convertedAt: response.body.lead.convertedAt,
      convertedContactId: response.body.contact.id,
    });
  });

  it('converts with an account named after the company and a default opportunity', async () => {
    const lead = await createLead(mine, { company: 'Wayne Enterprises' });
    const response = await mine.api.post(`/api/leads/${lead.id}/convert/`, {
      createAccount: true,
      createOpportunity: true,
      opportunityValue: 5000,
    });
    expect(response.status).toBe(200);
    expect(response.body.account).toEqual({ id: expect.stringMatching(/^acc_/), name: 'Wayne Enterprises' });
    expect(response.body.opportunity).toEqual({ id: expect.stringMatching(/^opp_/), name: 'Wayne Enterprises opportunity', value: 5000 });
    const opportunity = await mine.api.get(`/api/opportunities/${response.body.opportunity.id}/`);
    expect(opportunity.body).toMatchObject({
      stage: 'prospecting',
      accountId: response.body.account.id,
      contactIds: [response.body.contact.id],
    });
    const contact = await mine.api.get(`/api/contacts/${response.body.contact.id}/`);
    expect(contact.body.accountId).toBe(response.body.account.id);
  });

  it('converts with given account and opportunity names and stage', async () => {
    const lead = await createLead(mine);
    const response = await mine.api.post(`/api/leads/${lead.id}/convert/`, {
      createAccount: true,
      accountName: 'Stark Industries',
      createOpportunity: true,
      opportunityName: 'Arc reactors',
      opportunityStage: 'proposal',
    });
    expect(response.status).toBe(200);
    expect(response.body.account.name).toBe('Stark Industries');
    expect(response.body.opportunity).toMatchObject({ name: 'Arc reactors', value: 0 });
  });

  it('refuses an opportunity without an account, and bad option types, in one 422, changing nothing', async () => {
    const lead = await createLead(mine);
    const response = await mine.api.post(`/api/leads/${lead.id}/convert/`, {
      createOpportunity: true,
      opportunityValue: 'lots',
      opportunityStage: 'won',
      extra: 1,
    });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body).sort()).toEqual(['createOpportunity', 'extra', 'opportunityStage', 'opportunityValue']);
    expect((await mine.api.get(`/api/leads/${lead.id}/`)).body.status).toBe('new');
  });

  it('answers a second conversion with 400 "Lead is already converted."', async () => {
    const lead = await createLead(mine);
    expect((await mine.api.post(`/api/leads/${lead.id}/convert/`, {})).status).toBe(200);
    const again = await mine.api.post(`/api/leads/${lead.id}/convert/`, { createAccount: true });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: 'Lead is already converted.' });
  });

  it('does not let PATCH mark a lead converted', async () => {
    const lead = await createLead(mine);
    const response = await mine.api.patch(`/api/leads/${lead.id}/`, { status: 'converted' });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body)).toEqual(['status']);
  });
});
