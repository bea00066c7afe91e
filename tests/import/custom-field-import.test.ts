/**
 * Contact custom fields through both imports (contract-decisions "Round 3", custom fields): a CSV
 * header equal to a field's key or label (case-insensitive) fills it, as does a `field_mappings`
 * entry naming `customFields.<key>`; a built-in header wins over a custom field's label; a bad cell
 * is a row error from records (`customFields.<key>: …`); an unknown `customFields.<key>` target is
 * refused like an unknown built-in one.
 */
jest.setTimeout(180_000);

import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { multipartBody } from '../support/multipart';
import { csvFile, upload, uploadCsv, waitForJob } from './import-support';

const SYNC_PATH = '/api/contacts/import/';

let t: TestCluster;
let owner: SignedUp;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, workers: 1 });
  owner = await signUp(t.api);
  // The owner of a new workspace is its admin, who may define fields.
  const define = async (body: Record<string, unknown>) => {
    const response = await t.api.post('/api/settings/custom-fields/', { kind: 'contact', ...body }, { token: owner.access });
    if (response.status !== 201) throw new Error(`define ${String(body.key)}: ${response.status} ${response.text}`);
  };
  await define({ key: 'shoeSize', label: 'Shoe size', type: 'integer' });
  await define({ key: 'favouriteColour', label: 'Favourite colour', type: 'text' });
  await define({ key: 'region', label: 'Sales region', type: 'select', options: ['North', 'South'] });
  // Labelled like a built-in header: the built-in Email column must keep it.
  await define({ key: 'otherEmail', label: 'Email', type: 'text' });
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

function importNow(csv: string, fields: Record<string, string> = {}, dryRun = false) {
  const { body, contentType } = multipartBody([
    { name: 'file', filename: 'people.csv', contentType: 'text/csv', content: csv },
    ...Object.entries(fields).map(([name, content]) => ({ name, content })),
  ]);
  return t.api.call('POST', `${SYNC_PATH}${dryRun ? '?dryRun=true' : ''}`, {
    rawBody: body,
    token: owner.access,
    headers: { 'content-type': contentType },
  });
}

/** The workspace's contact with this email, as the contacts list answers it. */
async function contact(email: string): Promise<any> {
  const response = await t.api.get(`/api/contacts/?search=${encodeURIComponent(email)}`, { token: owner.access });
  expect(response.status).toBe(200);
  const found = (response.body.results as { email: string }[]).filter((c) => c.email === email);
  expect(found).toHaveLength(1);
  return found[0];
}

describe('custom fields in the CSV import', () => {
  it('fills them from a key header, a label header and field_mappings, and makes a bad cell a row error', async () => {
    const csv = [
      'EMAIL,First Name,shoesize,  FAVOURITE COLOUR ,Territory',
      'cf-ann@example.com,Ann,42,teal,North',
      'cf-bob@example.com,Bob,abc,red,South',
      'cf-cy@example.com,Cy,,,',
    ].join('\n');
    const uid = await uploadCsv(t.api, owner.access, `${csv}\n`, { field_mappings: '{"Territory": "customFields.region"}' });
    const job = await waitForJob(t.api, owner.access, uid);
    expect(job).toMatchObject({ status: 'complete', totalRows: 3, successCount: 2, errorCount: 1, duplicateCount: 0, ignoredColumns: [] });
    expect(job.errors).toHaveLength(1);
    expect(job.errors[0].row).toBe(2);
    expect(job.errors[0].message).toMatch(/customFields\.shoeSize/);

    expect((await contact('cf-ann@example.com')).customFields).toEqual({
      shoeSize: 42,
      favouriteColour: 'teal',
      region: 'North',
      otherEmail: null,
    });
    expect((await contact('cf-cy@example.com')).customFields).toEqual({
      shoeSize: null,
      favouriteColour: null,
      region: null,
      otherEmail: null,
    });
    const missing = await t.api.get(`/api/contacts/?search=${encodeURIComponent('cf-bob@example.com')}`, { token: owner.access });
    expect(missing.body.results).toEqual([]);
  });

  it('refuses an upload whose field_mappings names an unknown custom field, like an unknown built-in field', async () => {
    for (const target of ['customFields.hatSize', 'hatSize']) {
      const response = await upload(t.api, owner.access, [
        csvFile('Email,Hat\na@example.com,7\n'),
        { name: 'field_mappings', content: JSON.stringify({ Hat: target }) },
      ]);
      expect(response.status).toBe(400);
      expect(response.text).toMatch(/not a contact field/);
    }
  });

  it('fills them in the synchronous import too, with the same header rules', async () => {
    const csv = [
      'Email,Last Name,Shoe Size,favouritecolour,Area',
      'sync-di@example.com,Di,38,green,South',
      'sync-ed@example.com,Ed,abc,,',
    ].join('\n');
    // A dry run answers what the real run will (the bad cell a row error), and creates nothing.
    const dry = await importNow(csv, { field_mappings: '{"Area": "customFields.region"}' }, true);
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, created: [{ email: 'sync-di@example.com' }], duplicates: [] });
    expect(dry.body.errors).toEqual([{ row: 2, message: expect.stringMatching(/customFields\.shoeSize/) }]);
    expect((await t.api.get('/api/contacts/?search=sync-di%40example.com', { token: owner.access })).body.count).toBe(0);

    const response = await importNow(csv, { field_mappings: '{"Area": "customFields.region"}' });
    expect(response.status).toBe(200);
    expect(response.body.created).toHaveLength(1);
    expect(response.body.created[0]).toMatchObject({ email: 'sync-di@example.com' });
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0].row).toBe(2);
    expect(response.body.errors[0].message).toMatch(/customFields\.shoeSize/);
    expect((await contact('sync-di@example.com')).customFields).toMatchObject({ shoeSize: 38, favouriteColour: 'green', region: 'South' });

    const refused = await importNow('Email,Last Name,Hat\nx@example.com,X,7\n', { field_mappings: '{"Hat": "customFields.hatSize"}' });
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/not a contact field/);
  });
});
