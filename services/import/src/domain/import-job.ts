/**
 * An import job and the rules of its life: queued → processing → complete | failed, counters that
 * only ever move by a whole chunk's result, and the public view of it at any moment.
 */
import type { FieldMappings } from './column-plan';

export type ImportJobStatus = 'queued' | 'processing' | 'complete' | 'failed';

export interface RowError {
  row: number;
  message: string;
}

export interface RowDuplicate {
  row: number;
  email: string;
  /** null when the earlier row is in the same file. */
  existingContactId: string | null;
}

export interface ImportJobDocument {
  id: string;
  workspaceId?: string;
  filename: string;
  /** Where the upload is kept until the job ends (the file-storage key). */
  fileId: string;
  fileBytes: number;
  encoding: 'utf-8' | 'windows-1252';
  sourceUid: string | null;
  sourceName: string;
  fieldMappings: FieldMappings;
  /** Who started it: the records calls are made in their name. */
  actorId: string;
  actorKind: 'user' | 'api_key' | 'system';
  status: ImportJobStatus;
  errorMessage: string;
  /** Data rows the splitter has read so far; final once `splitDone`. */
  totalRows: number;
  successCount: number;
  errorCount: number;
  duplicateCount: number;
  /** Chunks whose result has been counted. */
  chunksDone: number;
  /** Set when the splitter has read the whole file. */
  chunkCount: number | null;
  splitDone: boolean;
  ignoredColumns: string[];
  /** Filled from the chunks when the job ends; read from the chunks before. */
  errors: RowError[] | null;
  duplicates: RowDuplicate[] | null;
  /** Last time anything moved (split progress, a chunk counted); the sweeper's clock. */
  lastProgressMs: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** What a chunk's rows came to, stored on the chunk so that counting it twice is impossible. */
export interface ChunkResult {
  successCount: number;
  errors: RowError[];
  duplicates: RowDuplicate[];
}

export interface ImportJobView {
  uid: string;
  filename: string;
  status: ImportJobStatus;
  progressPercent: number;
  totalRows: number;
  processedRows: number;
  successCount: number;
  errorCount: number;
  errors: RowError[];
  duplicates: RowDuplicate[];
  errorMessage: string;
  sourceName: string;
  ignoredColumns: string[];
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export function processedRows(job: Pick<ImportJobDocument, 'successCount' | 'errorCount' | 'duplicateCount'>): number {
  return job.successCount + job.errorCount + job.duplicateCount;
}

/** 100 only when complete; while the file is still being split the total is not known, so at most 99. */
export function progressPercent(job: ImportJobDocument): number {
  if (job.status === 'complete') return 100;
  if (job.totalRows === 0) return 0;
  return Math.min(99, Math.floor((processedRows(job) * 100) / job.totalRows));
}

/** Whether every row has been counted: the file is fully split and every chunk is done. */
export function isFinished(job: Pick<ImportJobDocument, 'splitDone' | 'chunkCount' | 'chunksDone'>): boolean {
  return job.splitDone && job.chunkCount !== null && job.chunksDone >= job.chunkCount;
}

export function isTerminal(status: ImportJobStatus): boolean {
  return status === 'complete' || status === 'failed';
}

/** The job as the API shows it; `rows` are the chunk results while the job is not finished. */
export function viewOf(job: ImportJobDocument, live?: { errors: RowError[]; duplicates: RowDuplicate[] }): ImportJobView {
  const errors = job.errors ?? live?.errors ?? [];
  const duplicates = job.duplicates ?? live?.duplicates ?? [];
  return {
    uid: job.id,
    filename: job.filename,
    status: job.status,
    progressPercent: progressPercent(job),
    totalRows: job.totalRows,
    processedRows: processedRows(job),
    successCount: job.successCount,
    errorCount: job.errorCount,
    errors: [...errors].sort(byRow),
    duplicates: [...duplicates].sort(byRow),
    errorMessage: job.errorMessage,
    sourceName: job.sourceName,
    ignoredColumns: job.ignoredColumns,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
  };
}

function byRow(a: { row: number }, b: { row: number }): number {
  return a.row - b.row;
}

/** Timestamps as the API writes them: `YYYY-MM-DDThh:mm:ssZ`. */
export function timestamp(date: Date = new Date()): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
