/**
 * An import job and the rules of its life: queued → processing → complete | failed, or cancelled
 * from either of the first two; counters that only ever move by a whole chunk's result, and the
 * public view of it at any moment.
 */
import { apiTimestamp } from '@crm/vocabulary';
import type { FieldMappings } from './column-plan';
import type { InlineReport, ReportedDuplicate, ReportedError, RowDuplicate, RowError } from './import-report';

export type ImportJobStatus = 'queued' | 'processing' | 'complete' | 'failed' | 'cancelled';

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
  /** The first entries of the report (import-report.ts), kept when the job ends; read from the report before. */
  errors: RowError[] | null;
  duplicates: RowDuplicate[] | null;
  /** Last time anything moved (split progress, a chunk counted); the sweeper's clock. */
  lastProgressMs: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** What a chunk's rows came to; counted once, with its report rows, when the chunk is done. */
export interface ChunkResult {
  successCount: number;
  errors: ReportedError[];
  duplicates: ReportedDuplicate[];
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
  duplicateCount: number;
  errors: RowError[];
  duplicates: RowDuplicate[];
  errorMessage: string;
  sourceName: string;
  ignoredColumns: string[];
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** What an upload decides about a new job; everything else starts at zero. */
export type NewJobFields = Pick<
  ImportJobDocument,
  'id' | 'filename' | 'fileId' | 'fileBytes' | 'encoding' | 'sourceUid' | 'sourceName' | 'fieldMappings' | 'actorId' | 'actorKind'
>;

/** A job as an upload creates it: queued, nothing counted yet. */
export function queuedJob(fields: NewJobFields, workspaceId: string, now: Date = new Date()): ImportJobDocument & { workspaceId: string } {
  return {
    ...fields,
    workspaceId,
    status: 'queued',
    errorMessage: '',
    totalRows: 0,
    successCount: 0,
    errorCount: 0,
    duplicateCount: 0,
    chunksDone: 0,
    chunkCount: null,
    splitDone: false,
    ignoredColumns: [],
    errors: null,
    duplicates: null,
    lastProgressMs: now.getTime(),
    createdAt: apiTimestamp(now),
    startedAt: null,
    finishedAt: null,
  };
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
  return status === 'complete' || status === 'failed' || status === 'cancelled';
}

/** The inline entries a job kept when it ended, or null while they are still read from the report. */
export function keptReport(job: ImportJobDocument): InlineReport | null {
  return job.errors === null || job.duplicates === null ? null : { errors: job.errors, duplicates: job.duplicates };
}

/**
 * The job as the API shows it. `report` holds its first errors and duplicates (the job's own once
 * it has ended, else read from the report so far); without one, as in the job list, both are empty.
 */
export function viewOf(job: ImportJobDocument, report?: InlineReport): ImportJobView {
  const errors = report?.errors ?? [];
  const duplicates = report?.duplicates ?? [];
  return {
    uid: job.id,
    filename: job.filename,
    status: job.status,
    progressPercent: progressPercent(job),
    totalRows: job.totalRows,
    processedRows: processedRows(job),
    successCount: job.successCount,
    errorCount: job.errorCount,
    duplicateCount: job.duplicateCount,
    errors,
    duplicates,
    errorMessage: job.errorMessage,
    sourceName: job.sourceName,
    ignoredColumns: job.ignoredColumns,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
  };
}
