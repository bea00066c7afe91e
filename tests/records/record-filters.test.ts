/**
 * The filter language through the gateway: POST /api/{kind}/query/ with a filter tree, ordering
 * on several fields and counted cursor pages; the same `filter` on the GET lists; every refusal
 * the contract names (400 {"filter"} / {"ordering"} naming the path); tenancy; and externalId
 * (listed, filtered, unique per workspace and kind, not copied by conversion).
 */
import { CLUSTER_RETRY_MS, type TestCluster } from '../support/cluster';
import {
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
const tag = unique();

beforeAll(async () => {
  t = await startRecordsCluster();
  [mine, theirs] = await Promise.all([workspace(t), workspace(t)]);
  const acme = await createAccount(mine, { name: 'Acme', industry: 'Tools', stage: 'customer', externalId: `acc-${tag}` });
  await createAccount(mine, { name: 'Globex', industry: 'Energy' });
  await createContact(mine, {
    firstName: 'Ada',
    lastName: 'Lovelace',
    stage: 'customer',
    tags: ['vip'],
    accountId: acme.id,
    externalId: `c-1-${tag}`,
  });
  await createContact(mine, { firstName: 'Alan', lastName: 'Turing', stage: 'new', tags: ['vip', 'math'], externalId: `c-2-${tag}` });
  await createContact(mine, { firstName: 'Grace', lastName: 'Hopper', stage: 'engaged', title: 'Admiral' });
  await createContact(mine, { firstName: '', lastName: 'Noether', stage: 'new' });
  await createLead(mine, { firstName: 'Lea', lastName: 'One', leadScore: 10, externalId: `c-1-${tag}` });
  await createLead(mine, { firstName: 'Leo', lastName: 'Two', leadScore: 70 });
  await createOpportunity(mine, acme.id, { name: 'Big deal', value: 5000 });
  await createOpportunity(mine, acme.id, { name: 'Small deal', value: 50 });
  await createContact(theirs, { firstName: 'Ada', lastName: 'Elsewhere', stage: 'customer', externalId: `c-1-${tag}` });
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

const leaf = (field: string, operator: string, value?: unknown) => ({ field, operator, ...(value === undefined ? {} : { value }) });
const query = (w: Workspace, kind: string, body: Record<string, unknown>) => w.api.post(`/api/${kind}/query/`, body);
const lastNames = (body: { results: Array<{ lastName: string }> }) => body.results.map((r) => r.lastName);

describe('POST /api/{kind}/query/', () => {
  it('answers the matches of a tree of and, or and not, counted', async () => {
    const filter = {
      and: [{ or: [leaf('stage', 'eq', 'new'), leaf('stage', 'eq', 'customer')] }, { not: leaf('lastName', 'eq', 'Turing') }],
    };
    const response = await query(mine, 'contacts', { filter, ordering: 'lastName' });
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(2);
    expect(lastNames(response.body)).toEqual(['Lovelace', 'Noether']);
    expect(response.body.nextCursor).toBeNull();
  });

  it('matches unset values with neq and not_in', async () => {
    const response = await query(mine, 'contacts', { filter: leaf('title', 'neq', 'Admiral'), ordering: 'lastName' });
    expect(lastNames(response.body)).toEqual(['Lovelace', 'Noether', 'Turing']);
    const notIn = await query(mine, 'contacts', { filter: leaf('firstName', 'not_in', ['Ada', 'Alan']), ordering: 'lastName' });
    expect(lastNames(notIn.body)).toEqual(['Hopper', 'Noether']);
  });

  it('orders by several fields with unset values last, and walks by cursor counting every page', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response: { status: number; body: any } = await query(mine, 'contacts', {
        ordering: 'stage,firstName',
        limit: 1,
        ...(cursor ? { cursor } : {}),
      });
      expect(response.status).toBe(200);
      expect(response.body.count).toBe(4);
      seen.push(...lastNames(response.body));
      cursor = response.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['Lovelace', 'Hopper', 'Turing', 'Noether']);
    const descending = await query(mine, 'contacts', { ordering: '-firstName' });
    expect(lastNames(descending.body)).toEqual(['Noether', 'Hopper', 'Turing', 'Lovelace']);
  });

  it('is served under /api/v1 too', async () => {
    const response = await mine.api.post('/api/v1/contacts/query/', { filter: leaf('tags', 'contains', 'vip') });
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(2);
  });

  it.each([
    ['leads', { filter: leaf('leadScore', 'gte', 50) }, ['Two']],
    ['accounts', { filter: leaf('industry', 'contains', 'TOOL') }, ['Acme']],
    ['opportunities', { filter: leaf('value', 'lt', 100), ordering: '-value,name' }, ['Small deal']],
  ])('filters and orders %s', async (kind, body, expected) => {
    const response = await query(mine, kind, body);
    expect(response.status).toBe(200);
    expect(response.body.results.map((r: { lastName?: string; name?: string }) => r.lastName ?? r.name)).toEqual(expected);
    expect(response.body.count).toBe(expected.length);
  });

  it('filters by a field of the linked account, one dotted hop', async () => {
    const contacts = await query(mine, 'contacts', { filter: leaf('account.industry', 'eq', 'Tools') });
    expect(lastNames(contacts.body)).toEqual(['Lovelace']);
    const deals = await query(mine, 'opportunities', { filter: { not: leaf('account.name', 'eq', 'Acme') } });
    expect(deals.body.count).toBe(0);
    const unlinked = await query(mine, 'contacts', { filter: leaf('account.stage', 'neq', 'customer'), ordering: 'lastName' });
    expect(lastNames(unlinked.body)).toEqual(['Hopper', 'Noether', 'Turing']);
  });

  it("never shows another workspace's records", async () => {
    const response = await query(mine, 'contacts', { filter: leaf('firstName', 'eq', 'Ada') });
    expect(lastNames(response.body)).toEqual(['Lovelace']);
    const theirsOnly = await query(theirs, 'contacts', {});
    expect(lastNames(theirsOnly.body)).toEqual(['Elsewhere']);
  });
});

describe('refusals', () => {
  let six: unknown = leaf('stage', 'eq', 'new');
  for (let i = 0; i < 6; i += 1) six = { not: six };
  it.each([
    ['an unknown field', leaf('colour', 'eq', 'red'), 'filter.field: unknown field "colour".'],
    ['an unknown operator', { and: [leaf('stage', 'like', 'new')] }, 'filter.and[0].operator: unknown operator "like"'],
    ['a value of the wrong type', { or: [leaf('firstName', 'eq', 1)] }, 'filter.or[0].value: must be a string for "firstName".'],
    ['a filter too deep', six, 'filter.not.not.not.not.not: a filter nests at most 5 levels of and/or/not.'],
    [
      'too many leaves',
      { or: Array.from({ length: 51 }, () => leaf('stage', 'eq', 'new')) },
      'filter.or[50]: a filter holds at most 50 conditions.',
    ],
  ])('answers 400 {"filter"} for %s, on the query and on the GET list', async (_name, filter, message) => {
    const posted = await query(mine, 'contacts', { filter });
    expect(posted.status).toBe(400);
    expect(Object.keys(posted.body)).toEqual(['filter']);
    expect(posted.body.filter[0]).toContain(message);
    const listed = await mine.api.get(`/api/contacts/?filter=${encodeURIComponent(JSON.stringify(filter))}`);
    expect(listed.status).toBe(400);
    expect(listed.body.filter[0]).toContain(message);
  });

  it('answers 400 {"filter"} for a GET filter that is not JSON', async () => {
    const response = await mine.api.get('/api/leads/?filter=%7Bnope');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ filter: ['filter: must be a JSON object.'] });
  });

  it.each(['colour', 'tags', 'firstName,lastName,email,stage', 3])('answers 400 {"ordering"} for the ordering %s', async (ordering) => {
    const response = await query(mine, 'contacts', { ordering });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['ordering']);
  });
});

describe('filter on the GET lists', () => {
  it.each([
    ['contacts', 'stage=new', leaf('tags', 'contains', 'math'), 1],
    ['leads', '', leaf('lastName', 'in', ['One', 'Two']), 2],
    ['accounts', 'industry=Energy', leaf('name', 'eq', 'Globex'), 1],
    ['opportunities', 'ordering=value', leaf('name', 'contains', 'deal'), 2],
  ])('ANDs the filter with the other parameters of %s, and keeps it in the links', async (kind, parameters, filter, count) => {
    const encoded = encodeURIComponent(JSON.stringify(filter));
    const response = await mine.api.get(`/api/${kind}/?${parameters}&limit=1&filter=${encoded}`);
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(count);
    if (count > 1) expect(response.body.next).toContain('filter=');
  });
});

describe('externalId', () => {
  it('is in list items and single records, and filterable', async () => {
    const listed = await mine.api.get(`/api/contacts/?externalId=c-2-${tag}`);
    expect(listed.body.count).toBe(1);
    expect(listed.body.results[0].externalId).toBe(`c-2-${tag}`);
    const one = await mine.api.get(`/api/contacts/${listed.body.results[0].id}/`);
    expect(one.body.externalId).toBe(`c-2-${tag}`);
    const queried = await query(mine, 'contacts', { filter: leaf('externalId', 'is_empty') });
    expect(queried.body.count).toBe(2);
  });

  it('is unique per workspace and kind: a clash is 422 on externalId, on create and update', async () => {
    const clash = await mine.api.post('/api/contacts/', {
      firstName: 'Dup',
      email: `dup-${unique()}@example.com`,
      externalId: `c-1-${tag}`,
    });
    expect(clash.status).toBe(422);
    expect(Object.keys(clash.body)).toEqual(['externalId']);
    const other = await createContact(mine, { externalId: `c-9-${tag}` });
    const patched = await mine.api.patch(`/api/contacts/${other.id}/`, { externalId: `c-2-${tag}` });
    expect(patched.status).toBe(422);
    expect(Object.keys(patched.body)).toEqual(['externalId']);
    const cleared = await mine.api.patch(`/api/contacts/${other.id}/`, { externalId: null });
    expect(cleared.body.externalId).toBeNull();
  });

  it('may repeat across kinds and across workspaces', async () => {
    // Set up above: c-1 on a contact and a lead of mine, and on a contact of theirs.
    const leads = await mine.api.get(`/api/leads/?externalId=c-1-${tag}`);
    expect(leads.body.count).toBe(1);
    const elsewhere = await theirs.api.get(`/api/contacts/?externalId=c-1-${tag}`);
    expect(elsewhere.body.results.map((c: { lastName: string }) => c.lastName)).toEqual(['Elsewhere']);
  });

  it('refuses a blank or too long externalId', async () => {
    for (const externalId of ['  ', 'x'.repeat(256)]) {
      const response = await mine.api.post('/api/accounts/', { name: 'Blank', externalId });
      expect(response.status).toBe(422);
      expect(Object.keys(response.body)).toEqual(['externalId']);
    }
  });

  it('is not copied by conversion: the lead keeps its own, what it makes gets none', async () => {
    const lead = await createLead(mine, { externalId: `lead-${tag}` });
    const converted = await mine.api.post(`/api/leads/${lead.id}/convert/`, { createAccount: true, accountName: `Conv ${tag}` });
    expect(converted.status).toBe(200);
    expect((await mine.api.get(`/api/leads/${lead.id}/`)).body.externalId).toBe(`lead-${tag}`);
    expect((await mine.api.get(`/api/contacts/${converted.body.contact.id}/`)).body.externalId).toBeNull();
    if (converted.body.account) expect((await mine.api.get(`/api/accounts/${converted.body.account.id}/`)).body.externalId).toBeNull();
  });
});
