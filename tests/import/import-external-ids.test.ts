/**
 * externalId through an import: a CSV column headed `External ID` (or `externalId`) fills it, and
 * a row whose externalId a contact of the workspace (or an earlier row) already has is a row error.
 */
jest.setTimeout(120_000);

import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { multipartBody } from '../support/multipart';

const PATH = '/api/contacts/import/';

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, workers: 1 });
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

function importCsv(token: string, csv: string) {
  const { body, contentType } = multipartBody([{ name: 'file', filename: 'people.csv', contentType: 'text/csv', content: csv }]);
  return t.api.call('POST', PATH, { rawBody: body, token, headers: { 'content-type': contentType } });
}

describe('importing externalId', () => {
  it('reads the External ID and externalId headers, and makes a taken externalId a row error', async () => {
    const me = await signUp(t.api);
    const api = t.api.withToken(me.access);
    const first = await importCsv(me.access, 'Email,First Name,External ID\nann@example.com,Ann,crm-1\n');
    expect(first.status).toBe(200);
    expect(first.body.created).toHaveLength(1);
    const listed = await api.get('/api/contacts/?externalId=crm-1');
    expect(listed.body.results.map((c: { email: string }) => c.email)).toEqual(['ann@example.com']);

    const csv = ['email,firstName,externalId', 'bob@example.com,Bob,crm-1', 'cy@example.com,Cy,crm-2', 'di@example.com,Di,crm-2'].join(
      '\n',
    );
    const second = await importCsv(me.access, csv);
    expect(second.status).toBe(200);
    expect(second.body.created).toHaveLength(1);
    expect(second.body.errors.map((e: { row: number }) => e.row)).toEqual([1, 3]);
    expect(second.body.errors[0].message).toMatch(/^External ID: /);
    expect((await api.get('/api/contacts/?externalId=crm-2')).body.results[0].email).toBe('cy@example.com');
  });
});
