/**
 * The worker's job: one chunk of rows → contacts, through the records service's idempotent batch
 * create, in batches of RECORDS_BATCH_ROWS sent in order (key `${jobUid}:${chunkIndex}:${batch}`, so
 * a redelivered chunk creates nothing twice), then the job's counters move by the chunk's result
 * exactly once (see ImportJobRepository.applyChunkResult).
 * A chunk is claimed first, which only succeeds while the job is processing: after a cancel, no
 * chunk that was not already being imported is.
 */
import type { DeliveryInfo } from '@crm/bus';
import type { recordsV1 } from '@crm/grpc';
import { isDomainError, type Logger } from '@crm/observability';
import type { CsvChunk } from '../adapters/csv/chunk-splitter';
import { recordsProblem, type ChunkRow } from '../domain/contact-row';
import type { ChunkResult, ImportJobDocument } from '../domain/import-job';
import type { FileStorage } from '../store/file-storage';
import type { ImportJobRepository } from '../store/import-job-repository';
import { chunkPayload, chunkRows } from './chunk-payload';
import { batchKey, batchSlices, BatchNeverCreated, CHUNK_LEASE_MS, createContactBatch, recallContactBatch } from './contact-batch';
import { sortRows } from './contact-rows';
import type { ImportEvents } from './import-events';
import type { ReceivedChunkPayload } from './import-messages';
import type { RecordsClient } from './ports';
import { counter } from '@crm/telemetry';
import { systemClock, type Clock } from '@crm/vocabulary';

const importedRows = counter('import_rows_total', 'CSV rows handled by import workers, by outcome.', ['outcome']);

/** Errors from records that no retry will fix: the rows are reported instead. */
const PERMANENT = new Set(['invalid_argument', 'validation_failed', 'not_found', 'permission_denied', 'payload_too_large']);
/** A delivery that is the chunk's last, for callers outside the bus. */
const LAST_ATTEMPT: DeliveryInfo = { attempt: 1, redelivered: false, retryInMs: null };

export interface ChunkImporterDeps {
  repo: ImportJobRepository;
  files: FileStorage;
  records: RecordsClient;
  logger: Logger;
  /** Where ended jobs are announced (import.completed / import.failed webhooks); none in most unit tests. */
  events?: ImportEvents;
  /** The process's clock; the system's when not given. */
  clock?: Clock;
}

export class ChunkImporter {
  constructor(private readonly deps: ChunkImporterDeps) {}

  /** Handles one delivery of a chunk; resolves once its result is counted (then the message is acked). */
  async handle(payload: ReceivedChunkPayload, info: DeliveryInfo = LAST_ATTEMPT): Promise<void> {
    const { repo } = this.deps;
    const job = await repo.get(payload.workspaceId, payload.jobUid);
    if (!job || (await repo.claimChunk(payload.workspaceId, payload.jobUid, payload.index)) === 'leave') return;
    await this.importAndCount(job, payload, info);
  }

  private async importAndCount(job: ImportJobDocument, payload: ReceivedChunkPayload, info: DeliveryInfo): Promise<void> {
    const { repo } = this.deps;
    const rows = chunkRows(payload);
    let result: ChunkResult | 'let go';
    try {
      result = await this.importRows(job, payload, rows, info.retryInMs === null);
    } catch (error) {
      const log = this.deps.logger.child({ jobUid: job.id, chunk: payload.index, attempt: info.attempt });
      if (info.retryInMs !== null) {
        log.warn({ err: error, retryInMs: info.retryInMs }, 'chunk failed; it will be retried');
        // The bus brings it back later; until then the sweeper must not take the job for stalled.
        await repo.expectProgressBy(payload.workspaceId, payload.jobUid, (this.deps.clock ?? systemClock)().getTime() + info.retryInMs);
        throw error;
      }
      // Records cannot say whether a batch exists: dead-letter the chunk rather than report rows
      // that may exist as not imported; the sweeper sends the job's missing chunks again.
      log.error({ err: error }, 'chunk failed on its last attempt and a batch of it could not be looked up');
      throw error;
    }
    if (result === 'let go') return;
    await repo.applyChunkResult(payload.workspaceId, payload.jobUid, payload.index, result);
    await this.finishIfDone(payload.workspaceId, payload.jobUid);
  }

  /** Fails the job with a reason a person can act on, announces it, and drops its file. */
  async fail(job: ImportJobDocument, reason: string): Promise<void> {
    const failed = await this.deps.repo.fail(job.workspaceId!, job.id, reason);
    if (!failed) return;
    await this.announceEnd(failed);
    await this.deps.files.remove(job.fileId).catch(() => undefined);
  }

  /**
   * Gives up on a chunk published too often without being counted, once no worker can be on it
   * (CHUNK_LEASE_MS idle; else it is left for now). Batches go in order, so an earlier attempt that
   * created any created the first: then the chunk is imported here and counted as created, else its
   * rows are reported as errors.
   */
  async giveUp(job: ImportJobDocument, chunk: CsvChunk, reason: string): Promise<void> {
    const payload = chunkPayload(job.id, job.workspaceId!, chunk);
    if (!(await this.deps.repo.takeToGiveUp(payload.workspaceId, payload.jobUid, payload.index, CHUNK_LEASE_MS))) return;
    const context = { workspaceId: payload.workspaceId, actorId: job.actorId, actorKind: job.actorKind, requestId: job.id };
    const createsAny = sortRows(chunkRows(payload)).toCreate.length > 0;
    const stored = createsAny ? await recallContactBatch(this.deps.records, batchKey(job.id, chunk.index, 0), context) : 'never created';
    if (typeof stored === 'object') return this.importAndCount(job, payload, LAST_ATTEMPT);
    this.deps.logger.error({ jobUid: job.id, chunk: chunk.index }, 'chunk given up; its rows are reported as errors');
    await this.deps.repo.applyChunkResult(payload.workspaceId, payload.jobUid, payload.index, failedRows(chunk.rows, reason));
  }

  /**
   * Announces an ended job (import.completed / import.failed webhooks), then forgets its chunks and
   * sweeper marker: at least once, since a worker stopping before the forget leaves the marker and
   * the sweeper announces the end again (a repeat has the same message id, so a consumer sees one event).
   */
  async announceEnd(job: ImportJobDocument): Promise<void> {
    await this.deps.events?.ended(job);
    await this.deps.repo.forget(job.workspaceId!, job.id);
  }

  /** Completes the job when every chunk is counted, announces it, and drops its file. */
  async finishIfDone(workspaceId: string, jobUid: string): Promise<void> {
    const completed = await this.deps.repo.completeIfFinished(workspaceId, jobUid);
    if (completed) {
      await this.announceEnd(completed);
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

  /** The chunk's result, or 'let go' when another worker counted it (or it is gone) between two of its batches. */
  private async importRows(
    job: ImportJobDocument,
    payload: ReceivedChunkPayload,
    rows: ChunkRow[],
    lastAttempt: boolean,
  ): Promise<ChunkResult | 'let go'> {
    const cells = new Map<number, string[]>();
    for (const row of rows) cells.set(row.row, row.cells);
    const { errors, duplicates, toCreate } = sortRows(rows);
    const cellsOf = (row: number) => cells.get(row) ?? [];
    let successCount = 0;
    const slices = batchSlices(toCreate);
    for (const [slice, batch] of slices.entries()) {
      if (slice > 0 && !(await this.deps.repo.holdChunk(payload.workspaceId, payload.jobUid, payload.index))) return 'let go';
      let answer: recordsV1.BatchCreateContactsResponse;
      try {
        answer = await createContactBatch(
          this.deps.records,
          { idempotencyKey: batchKey(job.id, payload.index, slice), rows: batch, sourceUid: job.sourceUid ?? '', importJobId: job.id },
          { workspaceId: payload.workspaceId, actorId: job.actorId, actorKind: job.actorKind, requestId: job.id },
          lastAttempt,
        );
      } catch (error) {
        if (isDomainError(error) && PERMANENT.has(error.kind)) {
          const reason = error.kind === 'not_found' && job.sourceUid ? 'the source chosen for this import no longer exists' : error.message;
          for (const row of batch) errors.push({ row: row.row, message: `Not imported: ${reason}`, cells: cellsOf(row.row) });
          continue;
        }
        if (!(error instanceof BatchNeverCreated)) throw error;
        // This batch was never created, so no attempt reached the ones after it: none of them exists.
        this.deps.logger.error(
          { err: error, jobUid: job.id, chunk: payload.index, batch: slice },
          'chunk failed on its last attempt and a batch of it was never created; its rows and the rest of the chunk are reported as errors',
        );
        for (const row of slices.slice(slice).flat())
          errors.push({
            row: row.row,
            message: 'Not imported: the contacts service could not be reached in the time allowed.',
            cells: cellsOf(row.row),
          });
        break;
      }
      successCount += accountFor(answer, batch, cellsOf, { errors, duplicates });
    }
    return counted({ successCount, errors, duplicates });
  }
}

/**
 * Records' answer to one batch, added to the chunk's errors and duplicates; every row is accounted
 * for, whatever records answered. Answers how many were created.
 */
function accountFor(
  answer: recordsV1.BatchCreateContactsResponse,
  batch: { row: number }[],
  cellsOf: (row: number) => string[],
  into: Pick<ChunkResult, 'errors' | 'duplicates'>,
): number {
  const answered = new Set<number>();
  for (const created of answer.created) answered.add(created.row);
  for (const duplicate of answer.duplicates) {
    answered.add(duplicate.row);
    into.duplicates.push({
      row: duplicate.row,
      email: duplicate.email,
      existingContactId: duplicate.sameImport || !duplicate.existingContactId ? null : duplicate.existingContactId,
      earlierRow: null,
      cells: cellsOf(duplicate.row),
    });
  }
  for (const error of answer.errors) {
    answered.add(error.row);
    into.errors.push({ row: error.row, message: recordsProblem(error.message), cells: cellsOf(error.row) });
  }
  for (const row of batch)
    if (!answered.has(row.row))
      into.errors.push({
        row: row.row,
        message: 'Not imported: the contacts service gave no answer for this row.',
        cells: cellsOf(row.row),
      });
  return answer.created.length;
}

/** Rows through the import workers, by outcome (a redelivered chunk is counted again). */
function counted(result: ChunkResult): ChunkResult {
  importedRows.inc({ outcome: 'created' }, result.successCount);
  importedRows.inc({ outcome: 'error' }, result.errors.length);
  importedRows.inc({ outcome: 'duplicate' }, result.duplicates.length);
  return result;
}

function failedRows(rows: ChunkRow[], reason: string): ChunkResult {
  return {
    successCount: 0,
    errors: rows.map((row) => ({ row: row.row, message: `Not imported: ${reason}.`, cells: row.cells })),
    duplicates: [],
  };
}
