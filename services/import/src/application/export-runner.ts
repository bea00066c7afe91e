/**
 * One run of an export (the worker role): reads the kind's list from a snapshot of records
 * (StreamRecords), writes it as lines into chunks of about `chunkBytes`, and keeps the job's
 * progress. Memory holds one batch of records and one chunk, whatever the file's size.
 */
import { apiTimestamp } from '@crm/vocabulary';
import type { Logger } from '@crm/observability';
import { isDomainError } from '@crm/observability';
import { fileHeader, recordLine } from '../domain/export-rows';
import type { ExportJobDocument } from '../domain/export-job';
import type { ExportJobRepository } from '../store/export-job-repository';
import type { ExportPayload } from './export-messages';
import type { RecordsReader } from './ports';

export interface ExportRunnerDeps {
  repo: ExportJobRepository;
  records: RecordsReader;
  logger: Logger;
  chunkBytes: number;
  /** Records per StreamRecords message. */
  batchSize: number;
  now?: () => Date;
}

const PLURAL = { contact: 'contacts', lead: 'leads', account: 'accounts', opportunity: 'opportunities' } as const;

export class ExportRunner {
  constructor(private readonly deps: ExportRunnerDeps) {}

  private now(): string {
    return apiTimestamp(this.deps.now?.());
  }

  async handle(payload: ExportPayload): Promise<void> {
    const { repo, logger } = this.deps;
    const job = await repo.startRun(payload.workspaceId, payload.exportId, this.now());
    if (!job) return; // ended, or gone
    try {
      await repo.dropEarlierRuns(payload.workspaceId, job.id, job.run);
      const { rows, chunks } = await this.write(payload.workspaceId, job);
      await repo.complete(payload.workspaceId, job.id, job.run, { rowsWritten: rows, chunkCount: chunks, finishedAt: this.now() });
      logger.info({ exportId: job.id, workspaceId: payload.workspaceId, rows, chunks }, 'export complete');
    } catch (error) {
      // A refusal is final; anything else (records or the store gone) too: a run cut short by a
      // crash comes back by redelivery, but one that failed in hand would only fail again.
      const message = isDomainError(error) && error.kind !== 'internal' ? error.message : 'The export could not be written.';
      logger.warn({ err: error, exportId: job.id }, 'export failed');
      await repo.fail(payload.workspaceId, job.id, message, this.now());
    }
  }

  private async write(workspaceId: string, job: ExportJobDocument): Promise<{ rows: number; chunks: number }> {
    const { repo, records, chunkBytes, batchSize } = this.deps;
    const context = { workspaceId, actorId: job.actorId, actorKind: job.actorKind, requestId: job.id };
    const stream = records.stream(
      'StreamRecords',
      { recordType: job.kind, filter: job.filter, search: job.search, ordering: job.ordering, batchSize },
      context,
    );
    let buffer = fileHeader(job.format, job.fields);
    let rows = 0;
    let chunks = 0;
    let first = true;
    const flush = async () => {
      await repo.writeChunk(workspaceId, job.id, job.run, chunks, buffer);
      chunks += 1;
      buffer = '';
      await repo.progress(workspaceId, job.id, job.run, { rowsWritten: rows });
    };
    for await (const part of stream) {
      if (first) {
        first = false;
        await repo.progress(workspaceId, job.id, job.run, { rowCount: part.total });
        continue;
      }
      for (const record of part[PLURAL[job.kind]]) {
        buffer += recordLine(job.format, job.fields, record);
        rows += 1;
        if (buffer.length >= chunkBytes) await flush();
      }
    }
    if (buffer.length > 0 || chunks === 0) await flush();
    return { rows, chunks };
  }
}
