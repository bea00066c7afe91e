import { CLUSTER_RETRY_MS, type TestCluster } from '../support/cluster';
import {
  allPages,
  createContact,
  createOpportunity,
  createAccount,
  startRecordsCluster,
  workspace,
  type Workspace,
} from './records-fixtures';

let t: TestCluster;
let w: Workspace;
const created: { id: string; stage: string; tags: string[] }[] = [];

beforeAll(async () => {
  t = await startRecordsCluster();
  w = await workspace(t);
  // 25 contacts: every 5th a customer; tags alternate so that "a,b" picks every 6th.
  for (let i = 0; i < 25; i += 1) {
    const tags = [i % 2 === 0 ? 'a' : 'x', i % 3 === 0 ? 'b' : 'y'];
    const stage = i % 5 === 0 ? 'customer' : 'new';
    const contact = await createContact(w, { firstName: `Person${String(i).padStart(2, '0')}`, stage, tags });
    created.push({ id: contact.id, stage, tags });
  }
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

const ids = (pages: any[]) => pages.flatMap((p) => p.results.map((r: { id: string }) => r.id));
const newestFirst = () => [...created].reverse().map((c) => c.id);

describe('paginated lists', () => {
  it("pages 20 at a time by default, newest first, with absolute next/previous links on the caller's origin", async () => {
    const first = await w.api.get('/api/contacts/');
    expect(first.body.count).toBe(25);
    expect(first.body.results).toHaveLength(20);
    expect(first.body.previous).toBeNull();
    expect(first.body.next).toBe(`${t.api.baseUrl}/api/contacts/?page=2`);
    const second = await w.api.get(first.body.next.replace(t.api.baseUrl, ''));
    expect(second.body.results).toHaveLength(5);
    expect(second.body.next).toBeNull();
    expect(second.body.previous).toBe(`${t.api.baseUrl}/api/contacts/?page=1`);
    expect(ids([first.body, second.body])).toEqual(newestFirst());
  });

  it('follows next to the end keeping every filter, and previous back to the start', async () => {
    const pages = await allPages(w, '/api/contacts/?stage=new&limit=7&ordering=firstName');
    expect(pages.map((p) => p.results.length)).toEqual([7, 7, 6]);
    for (const page of pages.slice(1)) expect(page.previous).toContain('stage=new');
    expect(pages[0].next).toContain('stage=new');
    expect(pages[0].next).toContain('ordering=firstName');
    expect(pages[0].next).toContain('limit=7');
    const expected = created.filter((c) => c.stage === 'new').map((c) => c.id);
    expect(ids(pages)).toEqual(expected);
    const back = await w.api.get(pages[2].previous.replace(t.api.baseUrl, ''));
    expect(back.body.results.map((r: { id: string }) => r.id)).toEqual(pages[1].results.map((r: { id: string }) => r.id));
  });

  it('pages by offset and limit the same way', async () => {
    const pages = await allPages(w, '/api/contacts/?offset=0&limit=10');
    expect(pages.map((p) => p.results.length)).toEqual([10, 10, 5]);
    expect(pages[0].next).toBe(`${t.api.baseUrl}/api/contacts/?limit=10&offset=10`);
    expect(pages[2].previous).toBe(`${t.api.baseUrl}/api/contacts/?limit=10&offset=10`);
    expect(ids(pages)).toEqual(newestFirst());
  });

  it('keeps the /api/v1 prefix in links when the caller used it', async () => {
    const first = await w.api.get('/api/v1/contacts/?limit=5');
    expect(first.body.next).toBe(`${t.api.baseUrl}/api/v1/contacts/?limit=5&page=2`);
  });

  it('filters by stage and by every one of the comma-separated tags', async () => {
    const customers = await w.api.get('/api/contacts/?stage=customer');
    expect(customers.body.count).toBe(5);
    const tagged = await w.api.get('/api/contacts/?tags=a,%20b');
    const expected = created
      .filter((c) => c.tags.includes('a') && c.tags.includes('b'))
      .map((c) => c.id)
      .reverse();
    expect(tagged.body.results.map((r: { id: string }) => r.id)).toEqual(expected);
  });

  it('filters by createdAfter and createdBefore', async () => {
    const future = await w.api.get('/api/contacts/?createdAfter=2999-01-01T00:00:00Z');
    expect(future.body).toEqual({ count: 0, next: null, previous: null, nextCursor: null, results: [] });
    const past = await w.api.get('/api/contacts/?createdBefore=2999-01-01');
    expect(past.body.count).toBe(25);
  });

  it('orders by an allowed field in either direction', async () => {
    const ascending = await w.api.get('/api/contacts/?ordering=firstName&limit=3');
    expect(ascending.body.results.map((r: { firstName: string }) => r.firstName)).toEqual(['Person00', 'Person01', 'Person02']);
    const descending = await w.api.get('/api/contacts/?ordering=-firstName&limit=1');
    expect(descending.body.results[0].firstName).toBe('Person24');
  });

  it("orders by any field the filter language sorts by, not only the store's plain orderings", async () => {
    // id, phone and title are sortable fields of the filter language (record-fields.ts) but no plain ordering.
    const byId = await w.api.get('/api/contacts/?ordering=id&limit=3');
    expect(byId.status).toBe(200);
    expect(byId.body.results.map((r: { id: string }) => r.id)).toEqual([...created.map((c) => c.id)].sort().slice(0, 3));
    const byIdDescending = await w.api.get('/api/contacts/?ordering=-id&limit=1');
    expect(byIdDescending.body.results[0].id).toBe([...created.map((c) => c.id)].sort().at(-1));
    const byTitle = await w.api.get('/api/contacts/?ordering=-title,firstName&limit=2');
    expect(byTitle.body.results.map((r: { firstName: string }) => r.firstName)).toEqual(['Person00', 'Person01']);
  });

  it('answers a page past the end with an empty page and the count', async () => {
    const response = await w.api.get('/api/contacts/?page=9');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ count: 25, next: null, results: [] });
  });

  it('filters opportunities by account, value and close date bounds', async () => {
    const account = await createAccount(w);
    const small = await createOpportunity(w, account.id, { value: 100, closeDate: '2030-01-15' });
    const large = await createOpportunity(w, account.id, { value: 9000, closeDate: '2030-03-15' });
    const byValue = await w.api.get(`/api/opportunities/?accountId=${account.id}&valueMin=500`);
    expect(byValue.body.results.map((o: { id: string }) => o.id)).toEqual([large.id]);
    const byDate = await w.api.get(`/api/opportunities/?accountId=${account.id}&closeDateBefore=2030-02-01`);
    expect(byDate.body.results.map((o: { id: string }) => o.id)).toEqual([small.id]);
  });
});

describe("an account's contacts", () => {
  it('come a page at a time, newest first, as count and results only, walked on by cursor', async () => {
    const account = await createAccount(w);
    const linked: string[] = [];
    for (let i = 0; i < 3; i += 1) linked.unshift((await createContact(w, { accountId: account.id })).id);
    const first = await w.api.get(`/api/accounts/${account.id}/contacts/?limit=2`);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['count', 'nextCursor', 'results']);
    expect(first.body.count).toBe(3);
    const second = await w.api.get(`/api/accounts/${account.id}/contacts/?limit=2&page=2`);
    expect(second.body).toMatchObject({ count: 3, nextCursor: null });
    const pages = await allPages(w, `/api/accounts/${account.id}/contacts/?limit=2`);
    expect(ids(pages)).toEqual(linked);
    const byOffset = await w.api.get(`/api/accounts/${account.id}/contacts/?offset=1&limit=1`);
    expect(byOffset.body.results.map((c: { id: string }) => c.id)).toEqual([linked[1]]);
  });

  it('answer bad paging values with 400', async () => {
    const account = await createAccount(w);
    for (const query of ['page=0', 'page=abc', 'limit=-1', 'offset=-3', 'page=1&offset=2']) {
      const response = await w.api.get(`/api/accounts/${account.id}/contacts/?${query}`);
      expect([query, response.status, typeof response.body.detail]).toEqual([query, 400, 'string']);
    }
  });
});

describe('search', () => {
  const names: Record<string, string> = {};

  beforeAll(async () => {
    const people = [
      { firstName: 'Jürgen', lastName: 'Müller', email: `jm-${Date.now()}@mueller.example` },
      { firstName: 'Ada', lastName: 'Lovelace', email: `ada_love-${Date.now()}@analytical.example` },
      { firstName: 'Adax', lastName: 'Loveless', email: `adaxlove-${Date.now()}@analytical.example` },
      { firstName: 'Percent', lastName: 'Sign%s', email: `percent-${Date.now()}@signs.example` },
    ];
    for (const person of people) names[(await createContact(w, person)).id] = `${person.firstName} ${person.lastName}`;
  });

  async function found(query: string): Promise<{ count: number; names: string[] }> {
    const response = await w.api.get(`/api/contacts/?${query}`);
    expect(response.status).toBe(200);
    const listed = response.body.results.map((c: { firstName: string; lastName: string }) => `${c.firstName} ${c.lastName}`);
    return { count: response.body.count, names: listed.sort() };
  }

  it.each([
    ['the middle of a word', 'ovela', ['Ada Lovelace']],
    ['any case, non-ASCII too', 'ÜLLER', ['Jürgen Müller']],
    ['across first and last name', 'a lovel', ['Ada Lovelace']],
    ['an email', 'ADA_LOVE-', ['Ada Lovelace']],
    ['_ literally', 'a_l', ['Ada Lovelace']],
    ['% literally', 'n%s', ['Percent Sign%s']],
    ['% literally, short', '%s', ['Percent Sign%s']],
    ['one character', 'ü', ['Jürgen Müller']],
    ['two characters', 'xl', ['Adax Loveless']],
    ['nothing for a miss', 'zzzz', []],
    ['nothing for a short miss', 'zq', []],
  ])('matches %s (%j), counting the same', async (_what, term, expected) => {
    await expect(found(`search=${encodeURIComponent(term)}`)).resolves.toEqual({ count: expected.length, names: expected });
  });

  it('ANDs the search with the other filters, and counts every match beyond the page', async () => {
    await expect(found('search=rson0&stage=customer')).resolves.toEqual({ count: 2, names: ['Person00 Hopper', 'Person05 Hopper'] });
    const page = await found('search=rson&limit=3');
    expect(page).toEqual({ count: 25, names: expect.any(Array) });
    expect(page.names).toHaveLength(3);
  });
});
