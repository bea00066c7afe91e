/**
 * The worker's job: one chunk of rows → contacts, through the records service's idempotent batch
 * create (key `${jobUid}:${chunkIndex}`, so a redelivered chunk creates nothing twice), then the
 * job's counters move by the chunk's result exactly once (see ImportJobRepository.applyChunkResult).
 */
import type { DeliveryInfo } from '@crm/bus';
import type { recordsV1 } from '@crm/grpc';
import { isDomainError, type Logger } from '@crm/observability';
import type { CsvChunk } from '../csv/chunk-splitter';
import { normaliseStage, recordsProblem, rowProblem, type ContactFields } from '../domain/contact-row';
import { isTerminal, type ChunkResult, type ImportJobDocument, type RowDuplicate, type RowError } from '../domain/import-job';
import type { FileStorage } from '../store/file-storage';
import type { ImportJobRepository } from '../store/import-job-repository';
import { MAX_DELIVERIES, type ChunkPayload } from './import-messages';
import type { RecordsClient } from './ports';
import { counter } from '@crm/telemetry';

const importedRows = counter('import_rows_total', 'CSV rows handled by import workers, by outcome.', ['outcome']);

/** Errors from records that no retry will fix: the rows are reported instead. */
const PERMANENT = new Set(['invalid_argument', 'validation_failed', 'not_found', 'permission_denied', 'payload_too_large']);
const BATCH_TIMEOUT_MS = 60_000;

export interface ChunkImporterDeps {
  repo: ImportJobRepository;
  files: FileStorage;
  records: RecordsClient;
  logger: Logger;
  /** Waits before a failed attempt is handed back for redelivery; tests make it 0. */
  retryBackoffMs?: number;
}

export class ChunkImporter {
  constructor(private readonly deps: ChunkImporterDeps) {}

  /** Handles one delivery of a chunk; resolves once its result is counted (then the message is acked). */
  async handle(payload: ChunkPayload, info: DeliveryInfo = { attempt: 1, redelivered: false }): Promise<void> {
    const { repo } = this.deps;
    const job = await repo.get(payload.workspaceId, payload.jobUid);
    if (!job || isTerminal(job.status)) return;
    let result: ChunkResult;
    try {
      result = await this.importRows(job, payload);
    } catch (error) {
      const lastAttempt = info.attempt >= MAX_DELIVERIES;
      if (!lastAttempt) {
        this.deps.logger.warn(
          { err: error, jobUid: job.id, chunk: payload.index, attempt: info.attempt },
          'chunk failed; it will be retried',
        );
        await delay((this.deps.retryBackoffMs ?? 500) * info.attempt);
        throw error;
      }
      this.deps.logger.error(
        { err: error, jobUid: job.id, chunk: payload.index },
        'chunk failed on its last delivery; its rows are reported as errors',
      );
      result = failedRows(payload, 'the contacts service did not answer after several attempts');
    }
    await repo.applyChunkResult(payload.workspaceId, payload.jobUid, payload.index, result);
    await this.finishIfDone(payload.workspaceId, payload.jobUid);
  }

  /** Counts a chunk that cannot be imported: every row an error with `reason`. */
  async giveUp(job: ImportJobDocument, chunk: CsvChunk, reason: string): Promise<void> {
    const payload: ChunkPayload = {
      jobUid: job.id,
      workspaceId: job.workspaceId!,
      index: chunk.index,
      firstRow: chunk.firstRow,
      rows: chunk.rows,
    };
    this.deps.logger.error({ jobUid: job.id, chunk: chunk.index }, 'chunk given up; its rows are reported as errors');
    await this.deps.repo.applyChunkResult(payload.workspaceId, payload.jobUid, payload.index, failedRows(payload, reason));
  }

  /** Completes the job when every chunk is counted, and drops its file. */
  async finishIfDone(workspaceId: string, jobUid: string): Promise<void> {
    const completed = await this.deps.repo.completeIfFinished(workspaceId, jobUid);
    if (completed) {
      await this.deps.files
        .remove(completed.fileId)
        .catch((err: unknown) => this.deps.logger.warn({ err, jobUid }, 'could not remove an import file'));
      this.deps.logger.info(
        {
          jobUid,
          workspaceId,
          successCount: completed.successCount,
          errorCount: completed.errorCount,
          duplicates: completed.duplicateCount,
        },
        'import complete',
      );
    }
  }

  private async importRows(job: ImportJobDocument, payload: ChunkPayload): Promise<ChunkResult> {
    const errors: RowError[] = [];
    const duplicates: RowDuplicate[] = [];
    const toCreate: recordsV1.ContactRow[] = [];
    for (const row of payload.rows) {
      if ('problem' in row) {
        errors.push({ row: row.row, message: row.problem });
        continue;
      }
      const problem = rowProblem(row.fields);
      if (problem) errors.push({ row: row.row, message: problem });
      else if (row.duplicateInFile) duplicates.push({ row: row.row, email: row.fields.email!, existingContactId: null });
      else toCreate.push(contactRow(row.row, row.fields));
    }
    let successCount = 0;
    if (toCreate.length > 0) {
      let answer: recordsV1.BatchCreateContactsResponse;
      try {
        answer = await this.deps.records.call(
          'BatchCreateContacts',
          { idempotencyKey: `${job.id}:${payload.index}`, rows: toCreate, sourceUid: job.sourceUid ?? '', importJobId: job.id },
          { workspaceId: payload.workspaceId, actorId: job.actorId, actorKind: job.actorKind, requestId: job.id },
          { timeoutMs: BATCH_TIMEOUT_MS },
        );
      } catch (error) {
        if (isDomainError(error) && PERMANENT.has(error.kind)) {
          const reason = error.kind === 'not_found' && job.sourceUid ? 'the source chosen for this import no longer exists' : error.message;
          for (const row of toCreate) errors.push({ row: row.row, message: `Not imported: ${reason}` });
          return counted({ successCount: 0, errors, duplicates });
        }
        throw error;
      }
      const answered = new Set<number>();
      for (const created of answer.created) answered.add(created.row);
      successCount = answer.created.length;
      for (const duplicate of answer.duplicates) {
        answered.add(duplicate.row);
        duplicates.push({
          row: duplicate.row,
          email: duplicate.email,
          existingContactId: duplicate.sameImport || !duplicate.existingContactId ? null : duplicate.existingContactId,
        });
      }
      for (const error of answer.errors) {
        answered.add(error.row);
        errors.push({ row: error.row, message: recordsProblem(error.message) });
      }
      // Every row is accounted for, whatever records answered.
      for (const row of toCreate)
        if (!answered.has(row.row))
          errors.push({ row: row.row, message: 'Not imported: the contacts service gave no answer for this row.' });
    }
    return counted({ successCount, errors, duplicates });
  }
}

/** Rows through the import workers, by outcome (a redelivered chunk is counted again). */
function counted(result: ChunkResult): ChunkResult {
  importedRows.inc({ outcome: 'created' }, result.successCount);
  importedRows.inc({ outcome: 'error' }, result.errors.length);
  importedRows.inc({ outcome: 'duplicate' }, result.duplicates.length);
  return result;
}

function contactRow(row: number, fields: ContactFields): recordsV1.ContactRow {
  return {
    row,
    firstName: fields.firstName ?? '',
    lastName: fields.lastName ?? '',
    email: fields.email ?? '',
    phone: fields.phone ?? '',
    title: fields.title ?? '',
    stage: fields.stage ? normaliseStage(fields.stage) : '',
    notes: fields.notes ?? '',
    tags: fields.tags ?? [],
  };
}

function failedRows(payload: ChunkPayload, reason: string): ChunkResult {
  return { successCount: 0, errors: payload.rows.map((row) => ({ row: row.row, message: `Not imported: ${reason}.` })), duplicates: [] };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
