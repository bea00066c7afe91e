/**
 * Cuts a job's stored file into chunks and puts them on the bus, recording the chunk plan in the
 * store first. The header is planned with the workspace's contact custom fields, read from records
 * once per split. Running it again for the same job is safe and is how lost work is recovered: chunks
 * already counted are skipped, the others are published again, and a chunk that has been
 * published too often without being counted, and that no worker has touched for a lease, is given
 * up on (its rows are reported as errors), so a job never hangs. A split stops when its job is cancelled.
 */
import { MessageTooLargeError, newMessage, type MessageBus } from '@crm/bus';
import { DomainError, isDomainError, type Logger } from '@crm/observability';
import { splitCsv, type CsvChunk } from '../adapters/csv/chunk-splitter';
import { decodeText } from '../adapters/csv/text-encoding';
import { needsCustomFields } from '../domain/column-plan';
import { NO_CUSTOM_FIELDS, type CustomFieldCatalog } from '../domain/custom-fields';
import { isTerminal, type ImportJobDocument } from '../domain/import-job';
import type { FileStorage } from '../store/file-storage';
import type { ImportJobRepository } from '../store/import-job-repository';
import type { ChunkImporter } from './chunk-importer';
import { chunkPayload } from './chunk-payload';
import { readContactCustomFields } from './custom-field-definitions';
import { CHUNK_MESSAGE, MAX_CHUNK_PUBLISHES } from './import-messages';
import type { RecordsClient } from './ports';

export interface JobSplitterDeps {
  repo: ImportJobRepository;
  files: FileStorage;
  bus: MessageBus;
  importer: ChunkImporter;
  /** Where the workspace's contact custom fields are read, once per split, for the header's plan. */
  records: RecordsClient;
  logger: Logger;
  chunkRows: number;
}

/** Records refusing to list the custom fields for a reason no retry will fix: the job fails. */
const REFUSED = new Set(['invalid_argument', 'validation_failed', 'not_found', 'permission_denied', 'unauthenticated']);

export class JobSplitter {
  constructor(private readonly deps: JobSplitterDeps) {}

  async split(workspaceId: string, jobUid: string): Promise<void> {
    const { repo, logger } = this.deps;
    const job = await repo.get(workspaceId, jobUid);
    if (!job || isTerminal(job.status)) return;
    if (job.status === 'queued') await repo.markStarted(workspaceId, jobUid);
    const log = logger.child({ jobUid, workspaceId });
    const context = { workspaceId, actorId: job.actorId, actorKind: job.actorKind, requestId: job.id };
    // Read only for a header row that may name one: a file of built-in columns needs no records.
    const customFields = async (headers: string[]): Promise<CustomFieldCatalog> => {
      if (!needsCustomFields(headers, job.fieldMappings)) return NO_CUSTOM_FIELDS;
      try {
        return await readContactCustomFields(this.deps.records, context);
      } catch (error) {
        if (!isDomainError(error) || !REFUSED.has(error.kind)) throw error;
        log.warn({ err: error }, 'import failed: its custom fields could not be read');
        throw DomainError.invalid(`The workspace's contact custom fields could not be read: ${error.message}`);
      }
    };
    try {
      const summary = await splitCsv(this.deps.files.open(job.fileId).pipe(decodeText(job.encoding)), {
        chunkRows: this.deps.chunkRows,
        mappings: job.fieldMappings,
        customFields,
        onHeader: (plan, cells) => repo.recordHeader(workspaceId, jobUid, plan.ignoredColumns, cells),
        onChunk: (chunk) => this.dispatch(job, chunk),
      });
      await repo.recordSplitDone(workspaceId, jobUid, summary.totalRows, summary.chunkCount, summary.ignoredColumns);
      log.info({ totalRows: summary.totalRows, chunks: summary.chunkCount }, 'import file split');
      await this.deps.importer.finishIfDone(workspaceId, jobUid);
    } catch (error) {
      if (error instanceof JobEnded) {
        log.info('import split stopped: the job has ended');
        return;
      }
      if (isDomainError(error) && error.kind === 'invalid_argument') {
        log.info({ reason: error.message }, 'import failed: the file cannot be imported');
        await this.end(job, error.message);
        return;
      }
      if (isMissingFile(error)) {
        log.error({ err: error }, 'import failed: its file is gone');
        await this.end(job, 'The uploaded file is no longer available; upload it again.');
        return;
      }
      throw error;
    }
  }

  private async dispatch(job: ImportJobDocument, chunk: CsvChunk): Promise<void> {
    const { repo, bus } = this.deps;
    // One chunk a turn of the event loop: where the store answers synchronously (SQLite) and the
    // bus is in-process, a split would otherwise cut and publish a whole file (hundreds of ms)
    // without letting any other call of its process in.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const workspaceId = job.workspaceId!;
    const now = await repo.get(workspaceId, job.id);
    if (!now || isTerminal(now.status)) throw new JobEnded();
    const planned = await repo.planChunk(workspaceId, job.id, chunk.index, chunk.firstRow, chunk.rows.length);
    if (planned.status === 'done') return;
    if (planned.publishCount >= MAX_CHUNK_PUBLISHES) {
      await this.deps.importer.giveUp(job, chunk, 'its batch failed repeatedly');
      return;
    }
    try {
      await bus.publish(newMessage(CHUNK_MESSAGE, chunkPayload(job.id, workspaceId, chunk), { correlationId: job.id }));
    } catch (error) {
      // Refused before it was sent (the splitter cuts chunks to fit; this is the last guard): its rows are errors.
      if (!(error instanceof MessageTooLargeError)) throw error;
      await this.deps.importer.giveUp(job, chunk, 'its rows are too large to send');
      return;
    }
    // Counted once the bus has it: a publish that failed (the broker down) brings no chunk nearer to being given up on.
    await repo.countPublish(workspaceId, job.id, chunk.index);
  }

  private end(job: ImportJobDocument, reason: string): Promise<void> {
    return this.deps.importer.fail(job, reason);
  }
}

/** Thrown out of the split when the job was cancelled meanwhile, to stop reading its file. */
class JobEnded extends Error {}

function isMissingFile(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'FileNotFound' || /FileNotFound|file not found/i.test(String((error as Error | null)?.message));
}
