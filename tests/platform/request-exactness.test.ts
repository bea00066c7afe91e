/**
 * The document and the server agree on requests too: what the server accepts, the document accepts,
 * and what the document refuses, the server refuses, on the cases outside tools found apart
 * (read-only fields on webhook create, lengths in characters, blank names, a null account on create,
 * webhook event types, a non-object JSON body, HEAD, the import-job list's `limit`). Every answer is
 * also checked by the conformance setup, which now checks the query parameters of accepted calls.
 */
import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { OpenApiConformance } from '../support/openapi-conformance';

let t: TestCluster;
let api: ApiClient;
let document: OpenApiConformance;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, withWorkers: false });
  api = t.api.withToken((await signUp(t.api)).access);
  document = new OpenApiConformance((await api.get('/api/openapi.json')).body);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

const emoji = (n: number) => '😀'.repeat(n);

/** Sends `body`; the server's verdict (2xx or 422) must be the document's. */
async function agree(template: string, path: string, body: Record<string, unknown>): Promise<{ status: number; accepted: boolean }> {
  const answer = await api.post(path, body);
  const accepted = document.acceptsRequestBody('post', template, body);
  expect({ body, status: answer.status, documentAccepts: accepted }).toEqual({
    body,
    status: accepted ? 201 : 422,
    documentAccepts: accepted,
  });
  return { status: answer.status, accepted };
}

describe('requests: the server and its document agree', () => {
  it('counts lengths in characters, as JSON Schema does: 200 emoji fit a 200-character name, 201 do not', async () => {
    await agree('/api/accounts/', '/api/accounts/', { name: emoji(200) });
    await agree('/api/accounts/', '/api/accounts/', { name: emoji(201) });
    const signup = await t.api.post('/api/auth/signup/', {
      workspaceName: emoji(200),
      email: `emoji-${randomBytes(4).toString('hex')}@example.com`,
      password: emoji(10),
      firstName: emoji(150),
      lastName: 'Lovelace',
    });
    expect(signup.status).toBe(201);
  });

  it('refuses blank and white-space-only names in both', async () => {
    for (const name of ['', '   ']) await agree('/api/accounts/', '/api/accounts/', { name });
    await agree('/api/contacts/', '/api/contacts/', { firstName: ' ', email: `blank-${randomBytes(4).toString('hex')}@example.com` });
    await agree('/api/contacts/', '/api/contacts/', { lastName: 'Only', email: `last-${randomBytes(4).toString('hex')}@example.com` });
  });

  it('refuses a null account on opportunity create in both, while update may unlink it', async () => {
    await agree('/api/opportunities/', '/api/opportunities/', { name: 'Deal', accountId: null });
    const account = await api.post('/api/accounts/', { name: 'Linked' });
    const created = await api.post('/api/opportunities/', { name: 'Deal', accountId: account.body.id });
    expect(created.status).toBe(201);
    expect(document.acceptsRequestBody('patch', '/api/opportunities/{id}/', { accountId: null })).toBe(true);
  });

  it('ignores read-only fields on webhook create, as on update, and lists the event types as an enum', async () => {
    const sentBack = { id: 'wh_x', failingReason: null, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' };
    await agree('/api/settings/webhooks/', '/api/settings/webhooks/', {
      url: 'https://hooks.example.com/a',
      events: ['contact.created'],
      ...sentBack,
    });
    await agree('/api/settings/webhooks/', '/api/settings/webhooks/', { url: 'https://hooks.example.com/b', events: ['contact.exploded'] });
  });

  it('answers well-formed JSON that is not an object with a 400 that says so', async () => {
    for (const body of ['null', '42', '"str"']) {
      const answer = await api.call('POST', '/api/accounts/', { headers: { 'content-type': 'application/json' }, rawBody: body });
      expect([body, answer.status, answer.body]).toEqual([body, 400, { detail: 'The request body must be a JSON object.' }]);
    }
  });

  it('serves HEAD as documented: the GET without a body', async () => {
    const answer = await api.call('HEAD', '/api/contacts/');
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('');
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('pages the import-job list by its documented limit', async () => {
    const answer = await api.get('/api/crm/contacts/import-jobs/?limit=1');
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBeLessThanOrEqual(1);
    expect((await api.get('/api/crm/contacts/import-jobs/?limit=0')).status).toBe(400);
  });
});
