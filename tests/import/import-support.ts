/** Helpers for the import suites: upload, poll, count contacts through the records service. */
import { GrpcClient, recordsV1 } from '@crm/grpc';
import type { ApiClient, ApiResponse } from '../support/api-client';
import type { LocalCluster, SignedUp } from '../support/cluster';
import { internalTlsOf } from '../support/internal-tls';
import { multipartBody, type FormPart } from '../support/multipart';

export const START = '/api/crm/contacts/import/start/';

export function upload(api: ApiClient, token: string, parts: FormPart[], headers: Record<string, string> = {}): Promise<ApiResponse> {
  const { body, contentType } = multipartBody(parts);
  return api.call('POST', START, { rawBody: body, token, headers: { 'content-type': contentType, ...headers } });
}

export function csvFile(content: string | Buffer, filename = 'people.csv'): FormPart {
  return { name: 'file', filename, content };
}

export async function uploadCsv(
  api: ApiClient,
  token: string,
  content: string | Buffer,
  fields: Record<string, string> = {},
): Promise<string> {
  const response = await upload(api, token, [
    csvFile(content),
    ...Object.entries(fields).map(([name, value]) => ({ name, content: value })),
  ]);
  if (response.status !== 202) throw new Error(`upload refused: ${response.status} ${response.text}`);
  return response.body.uid as string;
}

export async function waitForJob(api: ApiClient, token: string, uid: string, timeoutMs = 120_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await api.get(`/api/crm/contacts/import-jobs/${uid}/`, { token });
    if (response.status === 429) {
      await new Promise((r) => setTimeout(r, 1000 * Number(response.headers['retry-after'] ?? 1)));
      continue;
    }
    if (response.status !== 200) throw new Error(`poll failed: ${response.status} ${response.text}`);
    const job = response.body;
    expect(job.processedRows).toBe(job.successCount + job.errorCount + job.duplicateCount);
    if (job.status === 'complete' || job.status === 'failed' || job.status === 'cancelled') return job;
    if (Date.now() > deadline) throw new Error(`job ${uid} still ${job.status} (${job.processedRows}/${job.totalRows})`);
    // The spec advises polling every 1 to 2 seconds.
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** People rows: `Email,First Name,Last Name,Tags`, emails unique per prefix. */
export function peopleCsv(rows: number, prefix: string): string {
  const lines = ['Email,First Name,Last Name,Tags'];
  for (let i = 1; i <= rows; i++) lines.push(`${prefix}-${i}@example.com,First${i},Last${i},"t1;t2"`);
  return `${lines.join('\n')}\n`;
}

/** A contact as records answers it: its proto3 `optional` fields that are never null are always set. */
export type ReadContact = recordsV1.Contact & Required<Pick<recordsV1.Contact, 'firstName' | 'lastName' | 'email' | 'stage'>>;

export class RecordsReader {
  private readonly client: GrpcClient<recordsV1.RecordsServiceMethods>;

  constructor(cluster: LocalCluster) {
    const records = cluster.processes.get('records') as unknown as { env: Record<string, string> };
    this.client = new GrpcClient<recordsV1.RecordsServiceMethods>(
      recordsV1.protoPath,
      recordsV1.RecordsServiceName,
      `127.0.0.1:${records.env.GRPC_PORT}`,
      internalTlsOf(cluster, 'gateway'),
    );
  }

  private context(owner: SignedUp) {
    return { workspaceId: owner.user.workspaceId, actorId: owner.user.id, actorKind: 'user' as const };
  }

  /** Every contact of the workspace. */
  async contacts(owner: SignedUp): Promise<ReadContact[]> {
    const all: ReadContact[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await this.client.call('ListContacts', { offset, limit: 100, ordering: 'createdAt' }, this.context(owner));
      all.push(...(page.contacts as ReadContact[]));
      if (page.contacts.length < 100) return all;
    }
  }

  async createSource(owner: SignedUp, name: string): Promise<string> {
    const created = await this.client.call('CreateSource', { name }, this.context(owner));
    return created.source!.uid;
  }

  close(): void {
    this.client.close();
  }
}

/**
 * Waits for the job to end, then checks that it completed with every row of the file once:
 * contacts created + rows reported = rows in the file, and no email twice. Returns the job.
 */
export async function expectEveryRowOnce(api: ApiClient, records: RecordsReader, owner: SignedUp, uid: string, rows: number): Promise<any> {
  const job = await waitForJob(api, owner.access, uid, 180_000);
  expect(job.status).toBe('complete');
  expect(job.totalRows).toBe(rows);
  const contacts = await records.contacts(owner);
  expect(emailsAreUnique(contacts)).toBe(true);
  expect(contacts.length).toBe(job.successCount);
  expect(contacts.length + job.errorCount + job.duplicateCount).toBe(rows);
  return job;
}

/** No email twice among the contacts. */
export function emailsAreUnique(contacts: { email: string }[]): boolean {
  return new Set(contacts.map((c) => c.email.toLowerCase())).size === contacts.length;
}
