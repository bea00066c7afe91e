jest.setTimeout(180_000);

import { randomBytes } from 'node:crypto';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { csvFile, emailsAreUnique, peopleCsv, RecordsReader, START, upload, uploadCsv, waitForJob } from './import-support';

let t: TestCluster;
let owner: SignedUp;
let records: RecordsReader;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, workers: 2 });
  owner = await signUp(t.api);
  records = new RecordsReader(t.cluster);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  // generous: stopping waits for every process
  records?.close();
  await t?.stop();
});

async function jobCount(token: string): Promise<number> {
  const list = await t.api.get('/api/crm/contacts/import-jobs/', { token });
  expect(list.status).toBe(200);
  return list.body.length;
}

describe('contact import through the gateway', () => {
  it('imports a file in chunks and reports every row: created, errors and duplicates', async () => {
    const me = await signUp(t.api);
    const sourceUid = await records.createSource(me, 'Trade fair 2024');
    // One contact exists before the import, so its row is a duplicate with an existing id.
    await waitForJob(
      t.api,
      me.access,
      await uploadCsv(t.api, me.access, 'Email,Name\nexisting@example.com,Old\n', { field_mappings: '{"Name": "firstName"}' }),
    );

    const lines = ['E-mail,First Name,Last Name,Company,Tags,Mobile'];
    for (let i = 1; i <= 1200; i++) lines.push(`p${i}@example.com,"Ann, ${i}",Lee,Acme,"vip; fair",555-${i}`);
    lines.push('not-an-email,Bad,Row,Acme,,'); // row 1201
    lines.push('p7@example.com,Seven,Again,Acme,,'); // row 1202: repeats row 7
    lines.push('EXISTING@example.com,Old,Again,Acme,,'); // row 1203: already in the workspace
    lines.push('formula@example.com,"=HYPERLINK(""http://x"",""y"")",Lee,Acme,,'); // row 1204
    const uid = await uploadCsv(t.api, me.access, `${lines.join('\r\n')}\r\n`, { source_uid: sourceUid });

    const job = await waitForJob(t.api, me.access, uid);
    expect(job).toMatchObject({
      status: 'complete',
      filename: 'people.csv',
      totalRows: 1204,
      processedRows: 1204,
      successCount: 1201,
      errorCount: 1,
      progressPercent: 100,
      errorMessage: '',
      sourceName: 'Trade fair 2024',
      ignoredColumns: ['Company'],
    });
    expect(job.errors).toEqual([{ row: 1201, message: 'Email "not-an-email" is not a valid email address.' }]);
    const existing = (await records.contacts(me)).find((c) => c.email === 'existing@example.com')!;
    expect(job.duplicates).toEqual([
      { row: 1202, email: 'p7@example.com', existingContactId: null },
      { row: 1203, email: 'EXISTING@example.com', existingContactId: existing.id },
    ]);
    expect(job.startedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(job.finishedAt).toMatch(/Z$/);

    const contacts = await records.contacts(me);
    expect(contacts).toHaveLength(1 + 1201);
    expect(emailsAreUnique(contacts)).toBe(true);
    const p1 = contacts.find((c) => c.email === 'p1@example.com')!;
    expect(p1).toMatchObject({ firstName: 'Ann, 1', lastName: 'Lee', phone: '555-1', tags: ['vip', 'fair'], source: 'Trade fair 2024' });
    expect(contacts.find((c) => c.email === 'formula@example.com')!.firstName).toBe('=HYPERLINK("http://x","y")');
  });

  it('creates each email once when two imports of overlapping files run at once', async () => {
    const me = await signUp(t.api);
    // 3,000 rows in both files (upper-cased in the second, which has 500 more): the two jobs' chunks
    // with the same addresses run at once on two workers. (One records process on SQLite runs each
    // batch whole, so the race itself is the unit spec's, records-resources.spec.ts; this is the
    // end-to-end answer.)
    const rows = (from: number, to: number, upper: boolean) =>
      Array.from({ length: to - from }, (_, i) => `${upper ? `RACE${from + i}@EXAMPLE.COM` : `race${from + i}@example.com`},N${from + i}`);
    const first = `Email,First Name\n${rows(0, 3000, false).join('\n')}\n`;
    const second = `Email,First Name\n${rows(0, 3500, true).join('\n')}\n`;
    const uids = await Promise.all([uploadCsv(t.api, me.access, first), uploadCsv(t.api, me.access, second)]);
    const jobs = await Promise.all(uids.map((uid) => waitForJob(t.api, me.access, uid)));

    const contacts = await records.contacts(me);
    expect(emailsAreUnique(contacts)).toBe(true);
    expect(contacts).toHaveLength(3500);
    expect(jobs.map((job) => job.status)).toEqual(['complete', 'complete']);
    expect(jobs[0].successCount + jobs[1].successCount).toBe(3500);
    expect(jobs[0].duplicateCount + jobs[1].duplicateCount).toBe(3000);
    // The reports list the first duplicates of each job, each naming the contact that holds its email.
    const duplicates = [...jobs[0].duplicates, ...jobs[1].duplicates] as { email: string; existingContactId: string | null }[];
    expect(duplicates.length).toBeGreaterThan(0);
    const ids = new Map(contacts.map((c) => [c.email.toLowerCase(), c.id]));
    for (const d of duplicates) expect(d.existingContactId).toBe(ids.get(d.email.toLowerCase()));
  });

  it('reads a latin-1 file when it is not UTF-8', async () => {
    const uid = await uploadCsv(t.api, owner.access, Buffer.from('Email,First Name\nrene@example.com,René\n', 'latin1'));
    expect(await waitForJob(t.api, owner.access, uid)).toMatchObject({ status: 'complete', successCount: 1 });
    expect((await records.contacts(owner)).find((c) => c.email === 'rene@example.com')!.firstName).toBe('René');
  });

  it('completes a header-only file with zero rows', async () => {
    const uid = await uploadCsv(t.api, owner.access, 'Email,First Name\n');
    expect(await waitForJob(t.api, owner.access, uid)).toMatchObject({
      status: 'complete',
      totalRows: 0,
      processedRows: 0,
      progressPercent: 100,
    });
  });

  it('fails a file without an email column, saying how to map one', async () => {
    const uid = await uploadCsv(t.api, owner.access, 'Name,Company\nA,B\n');
    const job = await waitForJob(t.api, owner.access, uid);
    expect(job.status).toBe('failed');
    expect(job.errorMessage).toMatch(/no email column.*field_mappings/);
  });

  it('fails a 10 MB single line (a header with no email column) without hanging', async () => {
    const uid = await uploadCsv(t.api, owner.access, 'x'.repeat(10 * 1024 * 1024 - 10));
    const job = await waitForJob(t.api, owner.access, uid);
    expect(job.status).toBe('failed');
    expect(job.errorMessage).toMatch(/line longer than 1,000,000 characters/);
  });

  it('answers 202 queued and lists the job first', async () => {
    const response = await upload(t.api, owner.access, [csvFile(peopleCsv(3, `list-${randomBytes(3).toString('hex')}`), 'mine.csv')]);
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ uid: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'queued', filename: 'mine.csv' });
    expect(response.headers['x-ratelimit-limit']).toBeDefined();
    const list = await t.api.get('/api/crm/contacts/import-jobs/', { token: owner.access });
    expect(list.body[0].uid).toBe(response.body.uid);
    expect(list.body.length).toBeLessThanOrEqual(50);
  });
});

describe('refused uploads create no job', () => {
  // A workspace of its own, so the rate-limit budget of the other tests is not in the way.
  beforeAll(async () => {
    owner = await signUp(t.api);
  });

  const refusals: [string, () => Promise<{ status: number; body: any }>, number, RegExp][] = [
    ['a file that is not .csv', () => upload(t.api, owner.access, [csvFile('Email\na@x.io\n', 'people.xlsx')]), 400, /\.csv/],
    ['no file part', () => upload(t.api, owner.access, [{ name: 'source_uid', content: '' }]), 400, /No file part/],
    ['two files', () => upload(t.api, owner.access, [csvFile('Email\na@x.io\n'), csvFile('Email\nb@x.io\n', 'b.csv')]), 400, /one file/],
    ['an empty file', () => upload(t.api, owner.access, [csvFile('')]), 400, /empty/],
    [
      'binary junk',
      () => upload(t.api, owner.access, [csvFile(Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(2000), Buffer.alloc(8)]))]),
      400,
      /binary/,
    ],
    [
      'invalid field_mappings',
      () => upload(t.api, owner.access, [csvFile('Email\na@x.io\n'), { name: 'field_mappings', content: '{"a":' }]),
      400,
      /field_mappings/,
    ],
    [
      'a mapping to an unknown field',
      () => upload(t.api, owner.access, [csvFile('Email\na@x.io\n'), { name: 'field_mappings', content: '{"a":"shoeSize"}' }]),
      400,
      /not a contact field/,
    ],
    [
      'an unknown source_uid',
      () =>
        upload(t.api, owner.access, [csvFile('Email\na@x.io\n'), { name: 'source_uid', content: '00000000-0000-4000-8000-000000000000' }]),
      400,
      /source_uid/,
    ],
    ['a file over 10 MB', () => upload(t.api, owner.access, [csvFile(Buffer.alloc(10 * 1024 * 1024 + 10, 'a'))]), 413, /10 MB/],
    [
      'a truncated upload',
      () =>
        t.api.call('POST', START, {
          token: owner.access,
          headers: { 'content-type': 'multipart/form-data; boundary=XYZ' },
          rawBody:
            '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\nEmail\na@x.io\n',
        }),
      400,
      /incomplete|multipart/,
    ],
    ['a JSON body', () => t.api.post(START, { file: 'Email\n' }, { token: owner.access }), 400, /multipart/],
  ];

  it.each(refusals)('refuses %s', async (_name, send, status, detail) => {
    const before = await jobCount(owner.access);
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.body.detail).toMatch(detail);
    expect(await jobCount(owner.access)).toBe(before);
  });

  it('refuses an upload without a credential', async () => {
    const response = await upload(t.api, '', [csvFile('Email\na@x.io\n')]);
    expect(response.status).toBe(401);
  });
});

describe('tenancy', () => {
  beforeAll(async () => {
    owner = await signUp(t.api);
  });

  it('keeps a job to its workspace, whatever caller headers the client sends', async () => {
    const other = await signUp(t.api);
    const uid = await uploadCsv(t.api, owner.access, peopleCsv(2, `ten-${randomBytes(3).toString('hex')}`), {});
    expect((await t.api.get(`/api/crm/contacts/import-jobs/${uid}/`, { token: other.access })).status).toBe(404);
    expect(
      (await t.api.get('/api/crm/contacts/import-jobs/', { token: other.access })).body.map((j: { uid: string }) => j.uid),
    ).not.toContain(uid);
    expect((await t.api.get('/api/crm/contacts/import-jobs/not-a-uid/', { token: other.access })).status).toBe(404);

    const spoofed = await upload(t.api, other.access, [csvFile('Email,First Name\nspoof@example.com,S\n')], {
      'x-crm-workspace-id': owner.user.workspaceId,
    });
    expect(spoofed.status).toBe(202);
    expect((await t.api.get(`/api/crm/contacts/import-jobs/${spoofed.body.uid}/`, { token: owner.access })).status).toBe(404);
    expect((await waitForJob(t.api, other.access, spoofed.body.uid)).successCount).toBe(1);
    expect((await records.contacts(owner)).some((c) => c.email === 'spoof@example.com')).toBe(false);
  });
});
