/**
 * Cursor paging through the gateway: every records list answers `nextCursor`; sending it back as
 * `cursor` walks on with no count, stable while records are added and removed between pages (none
 * skipped or repeated), under every ordering, nullable sort fields included; and a cursor that
 * the list did not make, or that comes with page/offset or other filters, is a 400.
 */
import {
  createAccount,
  createContact,
  createOpportunity,
  startRecordsCluster,
  unique,
  workspace,
  type Workspace,
} from './records-fixtures';
import { CLUSTER_RETRY_MS, type TestCluster } from '../support/cluster';

let t: TestCluster;
let mine: Workspace;

beforeAll(async () => {
  t = await startRecordsCluster();
  mine = await workspace(t);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

const pathOf = (url: string) => url.replace(/^https:\/\/[^/]+/, '');

/** Every page from `first` on by cursor, calling `between` after each page. */
async function walkByCursor(first: string, between: (page: number, body: any) => Promise<void> = async () => undefined): Promise<any[]> {
  const pages: any[] = [];
  let path: string | null = first;
  while (path) {
    const response: { status: number; body: any; text: string } = await mine.api.get(path);
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${response.text}`);
    pages.push(response.body);
    // The lists the spec answers with count and results only carry no links.
    const linked = 'next' in response.body;
    if (pages.length > 1) {
      expect(response.body).not.toHaveProperty('count');
      if (linked) expect(response.body.previous).toBeNull();
    }
    if (linked && !response.body.nextCursor) expect(response.body.next).toBeNull();
    else if (linked && pages.length > 1) expect(response.body.next).toContain(`cursor=${encodeURIComponent(response.body.nextCursor)}`);
    await between(pages.length, response.body);
    // The first page links the next by page number; from there on `next` is the cursor link.
    const cursor: string | null = response.body.nextCursor;
    path = !cursor ? null : pages.length === 1 || !linked ? `${first}&cursor=${encodeURIComponent(cursor)}` : pathOf(response.body.next);
    if (pages.length > 50) throw new Error('too many pages');
  }
  return pages;
}

const ids = (pages: any[]) => pages.flatMap((page) => page.results.map((r: any) => r.id));

describe('walking a list by cursor', () => {
  it('visits the same records as the offset pages, in the same order, without counting past the first page', async () => {
    const tag = `walk${unique()}`;
    for (let i = 0; i < 7; i++) await createContact(mine, { tags: [tag] });
    const byOffset = ids([(await mine.api.get(`/api/contacts/?tags=${tag}&limit=100`)).body]);
    const first = (await mine.api.get(`/api/contacts/?tags=${tag}&limit=3`)).body;
    expect(first.count).toBe(7);
    expect(typeof first.nextCursor).toBe('string');
    const pages = await walkByCursor(`/api/contacts/?tags=${tag}&limit=3`);
    expect(pages.map((page) => page.results.length)).toEqual([3, 3, 1]);
    expect(pages[2].nextCursor).toBeNull();
    expect(ids(pages)).toEqual(byOffset);
  });

  it('skips and repeats nothing while records are added and removed between pages', async () => {
    const tag = `live${unique()}`;
    const made: string[] = [];
    for (let i = 0; i < 9; i++) made.push((await createContact(mine, { tags: [tag], lastName: `Live ${String(i).padStart(2, '0')}` })).id);
    const seen = new Set<string>();
    const deletedUnseen: string[] = [];
    const pages = await walkByCursor(`/api/contacts/?tags=${tag}&limit=2&ordering=lastName`, async (page, body) => {
      for (const id of ids([body])) seen.add(id);
      if (page === 1) {
        // Before and after the position: an insert sorting first, one sorting last, one seen record and one not yet seen removed.
        await createContact(mine, { tags: [tag], lastName: 'Live 00 early' });
        await createContact(mine, { tags: [tag], lastName: 'Live 99 late' });
        const unseen = made.find((id) => !seen.has(id))!;
        deletedUnseen.push(unseen);
        expect((await mine.api.delete(`/api/contacts/${unseen}/`)).status).toBe(204);
        expect((await mine.api.delete(`/api/contacts/${[...seen][0]}/`)).status).toBe(204);
      }
    });
    const walked = ids(pages);
    expect(new Set(walked).size).toBe(walked.length);
    // Every record that was there throughout, exactly once.
    for (const id of made.filter((id) => !deletedUnseen.includes(id))) expect(walked).toContain(id);
    expect(walked).not.toContain(deletedUnseen[0]);
  });

  it('orders by a field that may be null, ascending and descending, as the offset pages do', async () => {
    const account = await createAccount(mine);
    const dates = [null, '2027-01-10', null, '2027-03-01', '2027-01-10', null, '2027-02-01'];
    for (const closeDate of dates) await createOpportunity(mine, account.id, { closeDate });
    for (const ordering of ['closeDate', '-closeDate']) {
      const all = ids([(await mine.api.get(`/api/opportunities/?accountId=${account.id}&ordering=${ordering}&limit=100`)).body]);
      expect(all).toHaveLength(dates.length);
      expect(ids(await walkByCursor(`/api/opportunities/?accountId=${account.id}&ordering=${ordering}&limit=2`))).toEqual(all);
    }
  });

  it('offers cursors on tasks, activities, sources and an account’s contacts', async () => {
    const account = await createAccount(mine);
    for (let i = 0; i < 3; i++) await createContact(mine, { accountId: account.id });
    for (const path of [
      `/api/accounts/${account.id}/contacts/?limit=2`,
      '/api/activities/?limit=2',
      '/api/tasks/?limit=2',
      '/api/crm/sources/?limit=2',
    ]) {
      const first = await mine.api.get(path);
      expect(first.status).toBe(200);
      expect(first.body).toHaveProperty('nextCursor');
    }
    const contacts = await walkByCursor(`/api/accounts/${account.id}/contacts/?limit=2`);
    expect(ids(contacts)).toHaveLength(3);
  });
});

describe('the workspace’s people', () => {
  it('are listed by cursor too', async () => {
    for (let i = 0; i < 3; i++) {
      const invited = await mine.api.post('/api/settings/users/', {
        email: `member-${unique()}@example.com`,
        firstName: 'M',
        lastName: `${i}`,
        role: 'member',
      });
      expect(invited.status).toBe(201);
    }
    const all = ids([(await mine.api.get('/api/settings/users/?limit=100')).body]);
    expect(all).toHaveLength(4);
    expect(ids(await walkByCursor('/api/settings/users/?limit=3'))).toEqual(all);
    expect((await mine.api.get('/api/settings/users/?limit=3&cursor=made-up')).status).toBe(400);
  });
});

describe('automation and webhook lists', () => {
  it('walk by cursor: rules, webhook subscriptions, and the template gallery from its built-ins into the saved ones', async () => {
    for (let i = 0; i < 3; i++) {
      const rule = await mine.api.post('/api/automations/rules/', {
        name: `Cursor rule ${i}`,
        trigger: 'lead_created',
        steps: [{ type: 'send_notification', order: 1, config: { recipients: ['assigned_user'], message: 'New lead' } }],
      });
      expect(rule.status).toBe(201);
      const hook = await mine.api.post('/api/settings/webhooks/', { url: `https://hooks.example.com/${i}`, events: ['contact.created'] });
      expect(hook.status).toBe(201);
    }
    const ruleIds = ids([(await mine.api.get('/api/automations/rules/?limit=100')).body]);
    for (const [i, id] of ruleIds.slice(0, 2).entries())
      expect((await mine.api.post(`/api/automations/rules/${id}/save-as-template/`, { name: `Saved ${i}` })).status).toBe(201);
    for (const path of ['/api/automations/rules/?limit=2', '/api/settings/webhooks/?limit=2', '/api/automations/templates/?limit=3']) {
      const all = ids([(await mine.api.get(path.replace(/limit=\d+/, 'limit=100'))).body]);
      expect(all.length).toBeGreaterThanOrEqual(3);
      expect(ids(await walkByCursor(path))).toEqual(all);
    }
    for (const path of ['/api/notifications/?limit=2', '/api/emails/?limit=2'])
      expect((await mine.api.get(path)).body).toHaveProperty('nextCursor');
    expect((await mine.api.get('/api/automations/rules/?limit=2&cursor=made-up')).status).toBe(400);
    const gallery = (await mine.api.get('/api/automations/templates/?limit=3')).body.nextCursor;
    expect((await mine.api.get(`/api/automations/templates/?limit=3&category=custom&cursor=${gallery}`)).status).toBe(400);
    expect((await mine.api.get('/api/settings/api-keys/')).body.nextCursor).toBeNull();
  });
});

describe('a cursor is refused', () => {
  let cursor: string;
  beforeAll(async () => {
    const tag = `bad${unique()}`;
    for (let i = 0; i < 3; i++) await createContact(mine, { tags: [tag], stage: 'new' });
    cursor = (await mine.api.get(`/api/contacts/?stage=new&limit=1`)).body.nextCursor;
    expect(typeof cursor).toBe('string');
  });

  it.each([
    ['with page', () => `/api/contacts/?stage=new&limit=1&page=2&cursor=${cursor}`, false],
    ['with offset', () => `/api/contacts/?stage=new&limit=1&offset=1&cursor=${cursor}`, false],
    ['with other filters', () => `/api/contacts/?stage=customer&limit=1&cursor=${cursor}`, false],
    ['with another ordering', () => `/api/contacts/?stage=new&ordering=email&limit=1&cursor=${cursor}`, false],
    ['on another list', () => `/api/leads/?limit=1&cursor=${cursor}`, false],
    ['when edited', () => `/api/contacts/?stage=new&limit=1&cursor=${cursor.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`, false],
    ['when made up', () => `/api/contacts/?stage=new&limit=1&cursor=not-a-cursor`, false],
    ['with characters no cursor has', () => `/api/contacts/?stage=new&limit=1&cursor=${encodeURIComponent('{"$gt":""}')}`, false],
    ['from another workspace', () => `/api/contacts/?stage=new&limit=1&cursor=${cursor}`, true],
  ])('%s: 400', async (_name, path, elsewhere) => {
    const answer = await (elsewhere ? (await workspace(t)).api : mine.api).get(path());
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/cursor/);
  });

  it('and the same cursor with its own filters still works', async () => {
    const answer = await mine.api.get(`/api/contacts/?stage=new&limit=1&cursor=${cursor}`);
    expect(answer.status).toBe(200);
    expect(answer.body.results).toHaveLength(1);
  });
});
