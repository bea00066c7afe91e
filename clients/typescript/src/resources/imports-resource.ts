import type { Client } from 'openapi-fetch';
import type { Answer } from '../api-types';
import type { paths } from '../generated/crm-api';
import { answer, createHeaders, type CreateOptions } from './answer';

export interface ImportFile {
  /** The file's name: its extension says what it is (`.csv`; for `importNow` also `.vcf`, `.jpg`, `.png`, `.pdf`). */
  name: string;
  content: Blob | string;
}

export interface ImportOptions extends CreateOptions {
  /** A source whose name is stamped on every contact created. */
  sourceUid?: string;
  /** CSV header → contact field, or → null to skip that column. */
  fieldMappings?: Record<string, string | null>;
}

export type ImportJob = Answer<'getImportJob', 200>;
const FINAL = new Set(['complete', 'failed', 'cancelled']);

/** The upload as the API takes it. The Idempotency-Key of an upload covers its method and path, not the file. */
function uploadForm(file: ImportFile, options: ImportOptions | undefined): FormData {
  const form = new FormData();
  form.append('file', typeof file.content === 'string' ? new Blob([file.content], { type: 'text/csv' }) : file.content, file.name);
  if (options?.sourceUid) form.append('source_uid', options.sourceUid);
  if (options?.fieldMappings) form.append('field_mappings', JSON.stringify(options.fieldMappings));
  return form;
}

/** Contact imports: an asynchronous CSV job (`start`, then `wait`), or a small file answered at once (`importNow`). */
export class ImportsResource {
  constructor(private readonly api: Client<paths>) {}

  /** Queues a CSV of up to 10 MB; poll it with `get` or `wait`. */
  start(file: ImportFile, options?: ImportOptions): Promise<Answer<'startContactImport', 202>> {
    return answer(
      this.api.POST('/api/crm/contacts/import/start/', {
        // openapi-fetch sends FormData as it is (multipart, with its boundary).
        body: uploadForm(file, options) as never,
        headers: createHeaders(options),
      }),
    );
  }

  /** Up to 500 CSV rows, a vCard file, a business-card photo or a PDF, answered at once; `dryRun` creates nothing. */
  importNow(file: ImportFile, options?: ImportOptions & { dryRun?: boolean }): Promise<Answer<'importContactsNow', 200>> {
    return answer(
      this.api.POST('/api/contacts/import/', {
        params: { query: options?.dryRun ? { dryRun: true } : {} },
        body: uploadForm(file, options) as never,
        headers: createHeaders(options),
      }),
    );
  }

  /** The workspace's 50 newest jobs, newest first (errors and duplicates only on `get`). */
  list(): Promise<Answer<'listImportJobs', 200>> {
    return answer(this.api.GET('/api/crm/contacts/import-jobs/'));
  }

  get(uid: string): Promise<ImportJob> {
    return answer(this.api.GET('/api/crm/contacts/import-jobs/{job_uid}/', { params: { path: { job_uid: uid } } }));
  }

  /** Polls the job until it is complete, failed or cancelled. */
  async wait(uid: string, { intervalMs = 1000, timeoutMs = 10 * 60_000 } = {}): Promise<ImportJob> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.get(uid);
      if (FINAL.has(job.status)) return job;
      if (Date.now() > deadline) throw new Error(`Import job ${uid} is still ${job.status} after ${timeoutMs} ms.`);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }

  /** Stops the job; 409 when it is already final. */
  cancel(uid: string): Promise<ImportJob> {
    return answer(this.api.POST('/api/crm/contacts/import-jobs/{job_uid}/cancel/', { params: { path: { job_uid: uid } } }));
  }

  /** The whole error and duplicate report as CSV text (`row,kind,reason` and the file's own header). */
  errors(uid: string): Promise<string> {
    return answer(
      this.api.GET('/api/crm/contacts/import-jobs/{job_uid}/errors/', { params: { path: { job_uid: uid } }, parseAs: 'text' }),
    ) as Promise<string>;
  }
}
