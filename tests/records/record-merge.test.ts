/**
 * Merging duplicates through the gateway (POST /api/{contacts,leads,accounts}/{id}/merge/): the
 * survivor's values, what moves onto it, the merged ids answering 404, the audit log, and every
 * refusal (422 on mergeIds or fields, 404 for an unknown survivor) changing nothing, across
 * workspaces too.
 */
import {
  allPages,
  createAccount,
  createContact,
  createLead,
  createOpportunity,
  createTaskOver,
  startRecordsCluster,
  workspace,
  type Workspace,
} from './records-fixtures';
import { CLUSTER_RETRY_MS, type TestCluster } from '../support/cluster';

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

const merge = (w: Workspace, path: string, id: string, body: unknown) => w.api.post(`/api/${path}/${id}/merge/`, body);

describe('contacts', () => {
  it('keeps the survivor’s values, fills its empty ones in mergeIds order, joins notes and unites tags', async () => {
    const account = await createAccount(mine);
    const survivor = await createContact(mine, { title: '', phone: '', notes: 'met at the fair', tags: ['vip'] });
    const first = await createContact(mine, { title: 'CTO', phone: '', notes: '', tags: ['vip', 'tech'] });
    const second = await createContact(mine, { title: 'CEO', phone: '+44 20 7946 0000', notes: 'prefers email', accountId: account.id });

    const merged = await merge(mine, 'contacts', survivor.id, { mergeIds: [first.id, second.id] });
    expect(merged.status).toBe(200);
    expect(merged.headers.etag).toMatch(/^"\d+"$/);
    expect(merged.body).toMatchObject({
      id: survivor.id,
      email: survivor.email,
      firstName: survivor.firstName,
      title: 'CTO',
      phone: '+44 20 7946 0000',
      notes: 'met at the fair\n\nprefers email',
      tags: ['vip', 'tech'],
      accountId: account.id,
      accountName: account.name,
    });
    expect((await mine.api.get(`/api/contacts/${survivor.id}/`)).body).toEqual(merged.body);
    for (const gone of [first, second]) expect((await mine.api.get(`/api/contacts/${gone.id}/`)).status).toBe(404);
  });

  it('takes a field-by-field choice from `fields`, the survivor’s own value included', async () => {
    const survivor = await createContact(mine, { title: 'Engineer', stage: 'engaged' });
    const other = await createContact(mine, { title: 'Director', stage: 'customer' });
    const merged = await merge(mine, 'contacts', survivor.id, { mergeIds: [other.id], fields: { title: other.id, stage: survivor.id } });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ title: 'Director', stage: 'engaged' });
  });

  it('moves tasks, activities and opportunity links onto the survivor and logs who merged what', async () => {
    const account = await createAccount(mine);
    const survivor = await createContact(mine);
    const other = await createContact(mine);
    const both = await createOpportunity(mine, account.id, { contactIds: [survivor.id, other.id] });
    const theirsOnly = await createOpportunity(mine, account.id, { contactIds: [other.id] });
    const task = await createTaskOver(t, mine, other.id);

    expect((await merge(mine, 'contacts', survivor.id, { mergeIds: [other.id] })).status).toBe(200);

    expect((await mine.api.get(`/api/opportunities/${both.id}/`)).body.contactIds).toEqual([survivor.id]);
    expect((await mine.api.get(`/api/opportunities/${theirsOnly.id}/`)).body.contactIds).toEqual([survivor.id]);
    const tasks = (await allPages(mine, `/api/tasks/?relatedTo=${survivor.id}`)).flatMap((page) => page.results);
    expect(tasks.map((x: any) => x.id)).toEqual([task]);
    const log = (await allPages(mine, `/api/activities/?recordId=${survivor.id}`)).flatMap((page) => page.results);
    const mergedEntry = log.find((entry: any) => entry.action === 'merged');
    expect(mergedEntry).toMatchObject({ recordType: 'contact', recordId: survivor.id, actorId: mine.user.id, mergedIds: [other.id] });
    // The merged contact's own history now reads under the survivor.
    expect(log.filter((entry: any) => entry.action === 'created')).toHaveLength(2);
    expect((await allPages(mine, `/api/activities/?recordId=${other.id}`)).flatMap((page) => page.results)).toEqual([]);
  });
});

describe('leads and accounts', () => {
  it('merges leads', async () => {
    const survivor = await createLead(mine, { company: '', phone: '' });
    const other = await createLead(mine, { company: 'Bletchley Park', phone: '+44 1908 640404' });
    const merged = await merge(mine, 'leads', survivor.id, { mergeIds: [other.id] });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ id: survivor.id, company: 'Bletchley Park', phone: '+44 1908 640404', email: survivor.email });
    expect((await mine.api.get(`/api/leads/${other.id}/`)).status).toBe(404);
  });

  it('merges accounts and moves their contacts and opportunities to the survivor', async () => {
    const survivor = await createAccount(mine, { industry: '' });
    const other = await createAccount(mine, { industry: 'Aerospace' });
    const contact = await createContact(mine, { accountId: other.id });
    const deal = await createOpportunity(mine, other.id);
    const merged = await merge(mine, 'accounts', survivor.id, { mergeIds: [other.id] });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ id: survivor.id, industry: 'Aerospace', contactCount: 1, openOpportunityCount: 1 });
    expect((await mine.api.get(`/api/contacts/${contact.id}/`)).body.accountId).toBe(survivor.id);
    expect((await mine.api.get(`/api/opportunities/${deal.id}/`)).body.accountId).toBe(survivor.id);
    expect((await mine.api.get(`/api/accounts/${other.id}/`)).status).toBe(404);
  });
});

describe('refusals change nothing', () => {
  it.each([
    ['an empty list', () => ({ mergeIds: [] })],
    ['more than 10 ids', (other: string) => ({ mergeIds: [other, ...Array.from({ length: 10 }, (_, i) => `cnt_missing${i}`)] })],
    ['a repeated id', (other: string) => ({ mergeIds: [other, other] })],
    ['the survivor itself', (_other: string, survivor: string) => ({ mergeIds: [survivor] })],
    ['an unknown id', () => ({ mergeIds: ['cnt_nosuchcontact'] })],
    ['a record of another kind', (_o: string, _s: string, lead: string) => ({ mergeIds: [lead] })],
    ['a list of the wrong type', () => ({ mergeIds: 'cnt_x' })],
    ['no mergeIds at all', () => ({})],
  ])('422 on mergeIds for %s', async (_name, bodyOf) => {
    const survivor = await createContact(mine, { title: '' });
    const other = await createContact(mine, { title: 'Kept apart' });
    const lead = await createLead(mine);
    const answer = await merge(mine, 'contacts', survivor.id, (bodyOf as (...ids: string[]) => unknown)(other.id, survivor.id, lead.id));
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body)).toEqual(['mergeIds']);
    expect((await mine.api.get(`/api/contacts/${survivor.id}/`)).body.title).toBe('');
    expect((await mine.api.get(`/api/contacts/${other.id}/`)).status).toBe(200);
    expect((await mine.api.get(`/api/leads/${lead.id}/`)).status).toBe(200);
  });

  it.each([
    ['an unknown field', (other: string) => ({ nickname: other })],
    ['an id outside the merge', () => ({ title: 'cnt_somebodyelse' })],
    ['a value that is not an id', () => ({ title: 42 })],
  ])('422 on fields for %s', async (_name, fieldsOf) => {
    const survivor = await createContact(mine);
    const other = await createContact(mine);
    const answer = await merge(mine, 'contacts', survivor.id, { mergeIds: [other.id], fields: fieldsOf(other.id) });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body)[0]).toMatch(/^fields/);
    expect((await mine.api.get(`/api/contacts/${other.id}/`)).status).toBe(200);
  });

  it('422 on an unknown body field', async () => {
    const survivor = await createContact(mine);
    const other = await createContact(mine);
    const answer = await merge(mine, 'contacts', survivor.id, { mergeIds: [other.id], survivor: survivor.id });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ survivor: ['Unknown field.'] });
  });

  it('never reaches into another workspace: their record as survivor is 404, as a merge id 422', async () => {
    const mineContact = await createContact(mine);
    const theirsContact = await createContact(theirs, { title: 'Theirs' });
    expect((await merge(mine, 'contacts', theirsContact.id, { mergeIds: [mineContact.id] })).status).toBe(404);
    const answer = await merge(mine, 'contacts', mineContact.id, { mergeIds: [theirsContact.id] });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body)).toEqual(['mergeIds']);
    expect((await theirs.api.get(`/api/contacts/${theirsContact.id}/`)).body.title).toBe('Theirs');
    expect((await mine.api.get(`/api/contacts/${mineContact.id}/`)).status).toBe(200);
  });

  it('opportunities cannot be merged', async () => {
    const account = await createAccount(mine);
    const deal = await createOpportunity(mine, account.id);
    const other = await createOpportunity(mine, account.id);
    expect((await merge(mine, 'opportunities', deal.id, { mergeIds: [other.id] })).status).toBe(404);
  });
});
