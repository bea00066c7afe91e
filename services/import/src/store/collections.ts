/** The import service's own collections; no other service reads them. */
import { defineCollection, leases, type StoredDocument } from '@crm/store';
import type { ImportJobDocument } from '../domain/import-job';
import { exportChunks, exportJobs } from './export-collections';

export const importJobs = defineCollection<ImportJobDocument>({
  name: 'import_jobs',
  scope: 'workspace',
  fields: { createdAt: 'string', status: 'string' },
  // The second serves retention (finished jobs past IMPORT_RETENTION_DAYS), in every workspace at once.
  indexes: [{ fields: ['createdAt'] }, { fields: ['finishedAt'], acrossWorkspaces: true }],
});

/**
 * One chunk of a job's plan: it exists once the splitter has cut it, is claimed by the worker that
 * imports it (only while the job is processing, so a cancel stops every chunk not claimed yet),
 * and is done once counted. A chunk published too often without being counted and idle for
 * CHUNK_LEASE_MS is taken by the splitter to be given up on (`giving_up`): workers leave it from then on.
 */
export interface ImportChunkDocument extends StoredDocument {
  /** `${jobUid}:${index}` */
  id: string;
  jobUid: string;
  index: number;
  firstRow: number;
  rowCount: number;
  status: 'pending' | 'claimed' | 'giving_up' | 'done';
  /** Times the bus confirmed this chunk; past the limit, once idle, the splitter gives up on it. */
  publishCount: number;
  /** When it was last published, claimed, or started on a batch: a worker may be on it until CHUNK_LEASE_MS after. */
  activeAtMs?: number;
  successCount: number;
  errorCount: number;
  duplicateCount: number;
}

export const importChunks = defineCollection<ImportChunkDocument>({
  name: 'import_chunks',
  scope: 'workspace',
  fields: { jobUid: 'string', index: 'number', status: 'string' },
  indexes: [{ fields: ['jobUid', 'index'], unique: true }],
});

/**
 * A job's report, one document per row (so no document grows with the file): the file's header
 * cells as row 0, then every failed or duplicate row with its original cells. Written with the
 * chunk's result, in the same unit of work; kept as long as the job (IMPORT_RETENTION_DAYS after it ends).
 */
export interface ImportReportRowDocument extends StoredDocument {
  /** `${jobUid}:${row}` */
  id: string;
  jobUid: string;
  row: number;
  kind: 'header' | 'error' | 'duplicate';
  /** error: the message; duplicate: the email. */
  message: string;
  existingContactId: string | null;
  earlierRow: number | null;
  cells: string[];
}

export const importReportRows = defineCollection<ImportReportRowDocument>({
  name: 'import_report_rows',
  scope: 'workspace',
  fields: { jobUid: 'string', row: 'number', kind: 'string' },
  indexes: [{ fields: ['jobUid', 'row'], unique: true }, { fields: ['jobUid', 'kind', 'row'] }],
});

/**
 * Jobs that are not finished, across workspaces: what the sweeper walks. Written next to the job,
 * removed when it ends; a marker whose job is gone is simply dropped.
 */
export interface ActiveJobDocument extends StoredDocument {
  /** The job uid. */
  id: string;
  jobWorkspaceId: string;
  /** Epoch ms when the sweeper should look at the job next. */
  checkAt: number;
}

export const activeJobs = defineCollection<ActiveJobDocument>({
  name: 'import_active_jobs',
  scope: 'global',
  fields: { checkAt: 'number' },
  indexes: [{ fields: ['checkAt'] }],
});

export const importCollections = [importJobs, importChunks, importReportRows, activeJobs, leases, exportJobs, exportChunks];
