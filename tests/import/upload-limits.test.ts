jest.setTimeout(300_000);

// Issue 10, items 4 and 5: uploads sent with `Expect: 100-continue` (curl over 1 MB) reach the import
// service, a request refused from its headers is answered before its body is sent, and a file over
// 10 MB gets a 413 that curl and Node's fetch can read, with or without a Content-Length.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { waitForJob } from './import-support';
import { curl, curlUpload, fetchUpload } from './upload-clients';

const MB = 1024 * 1024;
const TOO_LARGE = { detail: 'The file is larger than the 10 MB limit.' };

let t: TestCluster;
let owner: SignedUp;
let work: string;
let caFile: string;
let fetchAgent: Agent;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, workers: 1 });
  owner = await signUp(t.api);
  work = mkdtempSync(join(tmpdir(), 'crm-upload-limits-'));
  caFile = join(work, 'ca.pem');
  writeFileSync(caFile, t.cluster.ca);
  fetchAgent = new Agent({ connect: { ca: t.cluster.ca } });
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await fetchAgent?.close();
  await t?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A valid CSV of exactly `bytes` bytes: one contact per ~4 KB row (the wide Padding column is not imported). */
function csvOfSize(bytes: number, prefix: string): { content: Buffer; rows: number } {
  const header = 'Email,First Name,Padding\n';
  const lines: string[] = [];
  let size = header.length;
  while (bytes - size > 8 * 1024) {
    const line = `${prefix}-${lines.length + 1}@example.com,Ann,${'n'.repeat(4000)}\n`;
    lines.push(line);
    size += line.length;
  }
  const last = `${prefix}-${lines.length + 1}@example.com,Ann,`;
  lines.push(`${last}${'n'.repeat(bytes - size - last.length - 1)}\n`);
  return { content: Buffer.from(header + lines.join('')), rows: lines.length };
}

function fileOf(name: string, content: Buffer): string {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
}

async function jobUids(token: string): Promise<string[]> {
  const list = await t.api.get('/api/crm/contacts/import-jobs/', { token });
  expect(list.status).toBe(200);
  return list.body.map((job: { uid: string }) => job.uid);
}

/** Upload files the import service holds right now (one per job not yet finished). */
function storedUploads(): string[] {
  return readdirSync(join(t.cluster.dataDir, 'import', 'import-uploads'));
}

describe('uploads with and without Expect: 100-continue', () => {
  const sizes: [string, number][] = [
    ['1 MB', 1 * MB],
    ['5 MB', 5 * MB],
    ['9.9 MB', Math.floor(9.9 * MB)],
  ];
  describe.each(sizes)('a %s CSV sent with curl', (label, bytes) => {
    it.each([true, false])('is accepted and imported whole (Expect: 100-continue %s)', async (expectContinue) => {
      const me = await signUp(t.api);
      const { content, rows } = csvOfSize(bytes, `c${bytes}-${expectContinue}`);
      const file = fileOf(`${label}-${expectContinue}.csv`, content);

      const sent = await curlUpload(t.api.baseUrl, { caFile, token: me.access, file, expectContinue });

      expect({ status: sent.status, body: sent.body, exitCode: sent.exitCode }).toEqual({
        status: 202,
        body: { uid: expect.any(String), status: 'queued', filename: `${label}-${expectContinue}.csv` },
        exitCode: 0,
      });
      if (expectContinue) {
        expect(sent.trace).toMatch(/^> Expect: 100-continue/m);
        expect(sent.trace).toMatch(/^< HTTP\/1\.1 100 Continue/m);
      } else {
        expect(sent.trace).not.toMatch(/Expect:/);
      }
      const job = await waitForJob(t.api, me.access, sent.body.uid, 240_000);
      expect(job).toMatchObject({ status: 'complete', totalRows: rows, successCount: rows, errors: [], ignoredColumns: ['Padding'] });
    });
  });

  it('refuses a request without a valid token before its body is sent (no 100 Continue)', async () => {
    const file = fileOf('unauthenticated.csv', csvOfSize(2 * MB, 'anon').content);
    const sent = await curlUpload(t.api.baseUrl, { caFile, token: 'not-a-token', file, expectContinue: true });
    expect(sent.status).toBe(401);
    expect(sent.body).toEqual({ detail: expect.any(String) });
    expect(sent.trace).not.toMatch(/100 Continue/);
    expect(sent.uploaded).toBe(0);
  });

  it('refuses a Content-Length over the limit before the body is sent (no 100 Continue)', async () => {
    const before = await jobUids(owner.access);
    const file = fileOf('eleven.csv', csvOfSize(11 * MB, 'big').content);
    const sent = await curlUpload(t.api.baseUrl, { caFile, token: owner.access, file, expectContinue: true });
    expect({ status: sent.status, body: sent.body }).toEqual({ status: 413, body: TOO_LARGE });
    expect(sent.trace).not.toMatch(/100 Continue/);
    expect(sent.uploaded).toBe(0);
    expect(await jobUids(owner.access)).toEqual(before);
  });

  it('refuses a workspace over its rate limit before the body is sent (no 100 Continue)', async () => {
    const me = await signUp(t.api);
    let status = 200;
    for (let sent = 0; status !== 429 && sent < 500; sent++)
      status = (await t.api.get('/api/crm/contacts/import-jobs/', { token: me.access })).status;
    expect(status).toBe(429);
    const file = fileOf('limited.csv', csvOfSize(2 * MB, 'limited').content);
    const sent = await curlUpload(t.api.baseUrl, { caFile, token: me.access, file, expectContinue: true });
    expect(sent.status).toBe(429);
    expect(sent.body).toEqual({ detail: expect.any(String) });
    expect(sent.trace).not.toMatch(/100 Continue/);
    expect(sent.uploaded).toBe(0);
  });

  it('sends 100 Continue for a JSON body too (sign-up with Expect)', async () => {
    const body = JSON.stringify({
      workspaceName: 'Expect Ltd',
      email: `expect-${Date.now()}@example.com`,
      password: 'pw-expect-continue-1',
      firstName: 'Ex',
      lastName: 'Pect',
    });
    const sent = await curl([
      '--cacert',
      caFile,
      '-H',
      'Expect: 100-continue',
      '-H',
      'content-type: application/json',
      '--data',
      body,
      `${t.api.baseUrl}/api/auth/signup/`,
    ]);
    expect(sent.status).toBe(201);
    expect(sent.trace).toMatch(/^< HTTP\/1\.1 100 Continue/m);
  });
});

describe('an upload over 10 MB gets a 413 the client can read', () => {
  const eleven = csvOfSize(11 * MB, 'over').content;
  let elevenFile: string;
  beforeAll(() => {
    elevenFile = fileOf('over.csv', eleven);
  });

  async function expectNothingKept(token: string, send: () => Promise<void>): Promise<void> {
    const jobsBefore = await jobUids(token);
    const filesBefore = new Set(storedUploads());
    await send();
    expect(await jobUids(token)).toEqual(jobsBefore);
    expect(storedUploads().filter((name) => !filesBefore.has(name))).toEqual([]);
  }

  it.each([false, true])('with Node fetch (chunked: %s), every time', async (chunked) => {
    await expectNothingKept(owner.access, async () => {
      for (let attempt = 0; attempt < 3; attempt++) {
        const answer = await fetchUpload(t.api.baseUrl, fetchAgent, owner.access, eleven, chunked);
        expect(answer).toEqual({ status: 413, body: TOO_LARGE });
      }
    });
  });

  it('a refusal the import service makes at the start of a large body reaches the client (not a .csv)', async () => {
    const notCsv = fileOf('contacts.txt', csvOfSize(9 * MB, 'txt').content);
    await expectNothingKept(owner.access, async () => {
      for (const chunked of [false, true]) {
        const sent = await curlUpload(t.api.baseUrl, { caFile, token: owner.access, file: notCsv, expectContinue: false, chunked });
        expect({ status: sent.status, body: sent.body, exitCode: sent.exitCode }).toEqual({
          status: 400,
          body: { detail: 'Only .csv files can be imported.' },
          exitCode: 0,
        });
      }
    });
  });

  it.each([false, true])('with curl and no Expect (chunked: %s)', async (chunked) => {
    await expectNothingKept(owner.access, async () => {
      const sent = await curlUpload(t.api.baseUrl, { caFile, token: owner.access, file: elevenFile, expectContinue: false, chunked });
      expect({ status: sent.status, body: sent.body, exitCode: sent.exitCode }).toEqual({ status: 413, body: TOO_LARGE, exitCode: 0 });
    });
  });

  it('with curl, chunked and Expect: 100-continue (the size is only known once the file is read)', async () => {
    await expectNothingKept(owner.access, async () => {
      const sent = await curlUpload(t.api.baseUrl, { caFile, token: owner.access, file: elevenFile, expectContinue: true, chunked: true });
      expect({ status: sent.status, body: sent.body, exitCode: sent.exitCode }).toEqual({ status: 413, body: TOO_LARGE, exitCode: 0 });
    });
  });

  it('leaves the connection usable: the next request on it is answered', async () => {
    const oneConnection = new Agent({ connect: { ca: t.cluster.ca }, connections: 1 });
    try {
      const refused = await fetchUpload(t.api.baseUrl, oneConnection, owner.access, eleven, false);
      expect(refused.status).toBe(413);
      const next = await fetch(`${t.api.baseUrl}/api/crm/contacts/import-jobs/`, {
        headers: { authorization: `Bearer ${owner.access}` },
        dispatcher: oneConnection,
      } as unknown as RequestInit);
      expect(next.status).toBe(200);
    } finally {
      await oneConnection.close();
    }
  });
});
