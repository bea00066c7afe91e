/**
 * Optimistic concurrency through the gateway: a strong ETag from the record's version on single-
 * record answers, If-None-Match → 304, If-Match on PATCH and DELETE → 412 when the record changed,
 * and another workspace's record stays a 404 whatever the headers.
 */
import {
  createAccount,
  createContact,
  createLead,
  createOpportunity,
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

const STRONG_ETAG = /^"\d+"$/;

/** Each kind with a factory and a valid change made from a value. */
const kinds: Array<[string, (w: Workspace) => Promise<{ id: string }>, (value: string) => Record<string, unknown>]> = [
  ['contacts', (w) => createContact(w), (value) => ({ title: value })],
  ['leads', (w) => createLead(w), (value) => ({ company: value })],
  ['accounts', (w) => createAccount(w), (value) => ({ industry: value })],
  ['opportunities', async (w) => createOpportunity(w, (await createAccount(w)).id), (value) => ({ name: value })],
];

describe.each(kinds)('%s', (path, make, changeTo) => {
  const change = changeTo('first');
  it('answers a strong ETag on GET and 304 with no body to a matching If-None-Match', async () => {
    const record = await make(mine);
    const read = await mine.api.get(`/api/${path}/${record.id}/`);
    expect(read.headers.etag).toMatch(STRONG_ETAG);
    const again = await mine.api.get(`/api/${path}/${record.id}/`, { headers: { 'if-none-match': read.headers.etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(read.headers.etag);
  });

  it('changes the ETag with every PATCH, and a stale If-None-Match gets the record', async () => {
    const record = await make(mine);
    const before = (await mine.api.get(`/api/${path}/${record.id}/`)).headers.etag!;
    const patched = await mine.api.patch(`/api/${path}/${record.id}/`, change);
    expect(patched.status).toBe(200);
    expect(patched.headers.etag).toMatch(STRONG_ETAG);
    expect(patched.headers.etag).not.toBe(before);
    const read = await mine.api.get(`/api/${path}/${record.id}/`, { headers: { 'if-none-match': before } });
    expect(read.status).toBe(200);
    expect(read.headers.etag).toBe(patched.headers.etag);
  });

  it('refuses PATCH and DELETE with a stale If-Match with 412 {detail} and changes nothing', async () => {
    const record = await make(mine);
    const stale = (await mine.api.get(`/api/${path}/${record.id}/`)).headers.etag!;
    const current = (await mine.api.patch(`/api/${path}/${record.id}/`, change)).body;
    const patch = await mine.api.patch(`/api/${path}/${record.id}/`, changeTo('lost update'), { headers: { 'if-match': stale } });
    expect(patch.status).toBe(412);
    expect(patch.body).toEqual({ detail: expect.any(String) });
    const remove = await mine.api.delete(`/api/${path}/${record.id}/`, { headers: { 'if-match': stale } });
    expect(remove.status).toBe(412);
    expect((await mine.api.get(`/api/${path}/${record.id}/`)).body).toEqual(current);
  });

  it('applies PATCH and DELETE with the current If-Match', async () => {
    const record = await make(mine);
    const etag = (await mine.api.get(`/api/${path}/${record.id}/`)).headers.etag!;
    const patched = await mine.api.patch(`/api/${path}/${record.id}/`, change, { headers: { 'if-match': etag } });
    expect(patched.status).toBe(200);
    const remove = await mine.api.delete(`/api/${path}/${record.id}/`, { headers: { 'if-match': patched.headers.etag! } });
    expect(remove.status).toBe(204);
    expect((await mine.api.get(`/api/${path}/${record.id}/`)).status).toBe(404);
  });

  it('lets exactly one of two concurrent PATCHes with the same If-Match through; the other gets 412', async () => {
    const record = await make(mine);
    const etag = (await mine.api.get(`/api/${path}/${record.id}/`)).headers.etag!;
    const answers = await Promise.all([
      mine.api.patch(`/api/${path}/${record.id}/`, changeTo('one'), { headers: { 'if-match': etag } }),
      mine.api.patch(`/api/${path}/${record.id}/`, changeTo('two'), { headers: { 'if-match': etag } }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    expect((await mine.api.get(`/api/${path}/${record.id}/`)).body).toEqual(winner.body);
  });

  it("answers 404 for another workspace's record whatever the conditional headers", async () => {
    const record = await make(theirs);
    const etag = (await theirs.api.get(`/api/${path}/${record.id}/`)).headers.etag!;
    const conditional = { headers: { 'if-match': etag, 'if-none-match': etag } };
    for (const answer of [
      await mine.api.get(`/api/${path}/${record.id}/`, { headers: { 'if-none-match': etag } }),
      await mine.api.patch(`/api/${path}/${record.id}/`, change, conditional),
      await mine.api.delete(`/api/${path}/${record.id}/`, conditional),
    ]) {
      expect(answer).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    }
    expect((await theirs.api.get(`/api/${path}/${record.id}/`)).headers.etag).toBe(etag);
  });
});

describe('If-Match', () => {
  it('changes nothing without it (unconditional writes), and answers a malformed one with 400', async () => {
    const record = await createContact(mine);
    expect((await mine.api.patch(`/api/contacts/${record.id}/`, { title: 'A' })).status).toBe(200);
    const malformed = await mine.api.patch(`/api/contacts/${record.id}/`, { title: 'B' }, { headers: { 'if-match': 'not-quoted' } });
    expect(malformed).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/If-Match/) } });
    expect((await mine.api.get(`/api/contacts/${record.id}/`)).body.title).toBe('A');
  });

  it('never matches a weak tag: 412', async () => {
    const record = await createContact(mine);
    const etag = (await mine.api.get(`/api/contacts/${record.id}/`)).headers.etag!;
    const weak = await mine.api.patch(`/api/contacts/${record.id}/`, { title: 'W' }, { headers: { 'if-match': `W/${etag}` } });
    expect(weak.status).toBe(412);
  });
});
