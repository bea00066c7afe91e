import { CLUSTER_RETRY_MS, type TestCluster } from '../support/cluster';
import { createAccount, createContact, startRecordsCluster, unique, workspace, type Workspace } from './records-fixtures';

let t: TestCluster;
let w: Workspace;

beforeAll(async () => {
  t = await startRecordsCluster();
  w = await workspace(t);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

describe('422: every failing field of a body at once', () => {
  it('lists a missing email, a missing name, an invalid choice, wrong types, an unknown field and a malformed email together', async () => {
    const response = await w.api.post('/api/contacts/', { stage: 'vip', tags: 'not-a-list', emailOptOut: 'yes', favouriteColour: 'blue' });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      email: ['This field is required.'],
      firstName: ['At least one of firstName and lastName is required.'],
      stage: ['"vip" is not a valid choice.'],
      tags: ['Expected a list of items.'],
      emailOptOut: ['Must be a valid boolean.'],
      favouriteColour: ['Unknown field.'],
    });
  });

  it('refuses a malformed email', async () => {
    const response = await w.api.post('/api/leads/', { firstName: 'A', email: 'not-an-email' });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ email: ['Enter a valid email address.'] });
  });

  it('refuses a string where an integer belongs, and a number where a string belongs', async () => {
    const response = await w.api.post('/api/leads/', { firstName: 'A', email: `a-${unique()}@example.com`, leadScore: '90', company: 12 });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ leadScore: ['A valid integer is required.'], company: ['Not a valid string.'] });
  });

  it('lists every problem of an opportunity: missing name and account, bad stage, bad date, unknown contact', async () => {
    const response = await w.api.post('/api/opportunities/', { stage: 'won', closeDate: '30/06/2030', contactIds: ['cnt_nope'] });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body).sort()).toEqual(['accountId', 'closeDate', 'contactIds', 'name', 'stage']);
    expect(response.body.name).toEqual(['This field is required.']);
  });

  it('refuses an account name that is not a string and an address with an unknown part', async () => {
    const response = await w.api.post('/api/accounts/', { name: ['x'], billingAddress: { street: '1 Main', planet: 'Mars' } });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ name: ['Not a valid string.'], billingAddress: ['planet: Unknown field.'] });
  });

  it('refuses null for a field that may not be null on PATCH', async () => {
    const contact = await createContact(w);
    const response = await w.api.patch(`/api/contacts/${contact.id}/`, { email: null });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ email: ['This field may not be null.'] });
  });

  it("refuses another workspace's account as accountId with 422, naming the id as not existing", async () => {
    const stranger = await workspace(t);
    const theirs = await createAccount(stranger);
    const response = await w.api.post('/api/contacts/', { firstName: 'A', email: `a-${unique()}@example.com`, accountId: theirs.id });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ accountId: [`Invalid pk "${theirs.id}" - object does not exist.`] });
  });

  it('never lets an operator object reach a query: {"$gt": ""} is a wrong type', async () => {
    const response = await w.api.post('/api/contacts/', { firstName: 'A', email: { $gt: '' }, stage: { $ne: 'x' } });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ email: ['Not a valid string.'], stage: ['Not a valid string.'] });
    const patch = await w.api.patch(`/api/contacts/${(await createContact(w)).id}/`, { accountId: { $gt: '' } });
    expect(patch.status).toBe(422);
    expect(patch.body).toEqual({ accountId: ['Not a valid string.'] });
  });

  it('answers malformed JSON and a body that is not an object with 400', async () => {
    const malformed = await w.api.call('POST', '/api/contacts/', {
      rawBody: '{"email": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ detail: expect.any(String) });
    const array = await w.api.post('/api/contacts/', [{ email: 'a@example.com' }]);
    expect(array.status).toBe(400);
  });
});

describe('400: bad query parameters', () => {
  it.each([
    ['page=abc', 'page'],
    ['page=0', 'page'],
    ['limit=-1', 'limit'],
    ['limit=ten', 'limit'],
    ['offset=-5', 'offset'],
    ['createdAfter=yesterday', 'createdAfter'],
    ['createdBefore=2024-13-45', 'createdBefore'],
    ['stage=vip', 'stage'],
  ])('answers ?%s with 400 {detail}', async (query, name) => {
    const response = await w.api.get(`/api/contacts/?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ detail: expect.stringContaining(name) });
  });

  it.each(['password', '-searchText', 'tags', 'id,firstName,lastName,email'])(
    "answers ?ordering=%s with the filter language's 400 {ordering}",
    async (ordering) => {
      const response = await w.api.get(`/api/contacts/?ordering=${ordering}`);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ ordering: [expect.any(String)] });
    },
  );

  it('answers bad opportunity bounds with 400', async () => {
    expect((await w.api.get('/api/opportunities/?valueMin=lots')).status).toBe(400);
    expect((await w.api.get('/api/opportunities/?closeDateAfter=soon')).status).toBe(400);
  });

  it('refuses stage[$ne]=x and a repeated parameter with 400 instead of passing an operator on', async () => {
    const operator = await w.api.get('/api/contacts/?stage[$ne]=x');
    expect(operator.status).toBe(400);
    expect(operator.body).toEqual({ detail: expect.any(String) });
    const encoded = await w.api.get('/api/leads/?status%5B%24ne%5D=x');
    expect(encoded.status).toBe(400);
    const repeated = await w.api.get('/api/contacts/?stage=new&stage=customer');
    expect(repeated.status).toBe(400);
  });

  it('serves limit above 100 as 100', async () => {
    const response = await w.api.get('/api/contacts/?limit=500');
    expect(response.status).toBe(200);
    expect(response.body.results.length).toBeLessThanOrEqual(100);
  });
});

describe('search is literal', () => {
  let s: Workspace;
  const names = ['100% Cotton', 'under_score', 'dot.*star', "O'Brien", 'plain'];

  beforeAll(async () => {
    s = await workspace(t);
    for (const lastName of names) await createContact(s, { firstName: 'Pat', lastName });
  });

  it.each([
    ['%', ['100% Cotton']],
    ['_', ['under_score']],
    ['.*', ['dot.*star']],
    ["'", ["O'Brien"]],
    ["o'b", ["O'Brien"]],
    ['PAT PLAIN', ['plain']],
  ])('matches %j literally and case-insensitively', async (needle, expected) => {
    const response = await s.api.get(`/api/contacts/?search=${encodeURIComponent(needle)}`);
    expect(response.status).toBe(200);
    expect(response.body.results.map((c: { lastName: string }) => c.lastName).sort()).toEqual(expected);
    expect(response.body.count).toBe(expected.length);
  });

  it('finds by email and phone too', async () => {
    const contact = await createContact(s, { firstName: 'Searchable', email: `needle-${unique()}@example.org`, phone: '+1 555 867 5309' });
    expect(
      (await s.api.get(`/api/contacts/?search=${encodeURIComponent(contact.email.toUpperCase())}`)).body.results.map(
        (c: { id: string }) => c.id,
      ),
    ).toEqual([contact.id]);
    expect(
      (await s.api.get(`/api/contacts/?search=${encodeURIComponent('867 5309')}`)).body.results.map((c: { id: string }) => c.id),
    ).toEqual([contact.id]);
  });

  it('finds a contact by a new name after an update', async () => {
    const contact = await createContact(s, { firstName: 'Before', lastName: 'Rename' });
    await s.api.patch(`/api/contacts/${contact.id}/`, { lastName: 'Zebediah' });
    expect((await s.api.get('/api/contacts/?search=zebediah')).body.results.map((c: { id: string }) => c.id)).toEqual([contact.id]);
    expect((await s.api.get('/api/contacts/?search=before%20rename')).body.count).toBe(0);
  });
});
