/** The import service's own collections; no other service reads them. */
import { defineCollection, type StoredDocument } from '@crm/store';
import type { ImportJobDocument, RowDuplicate, RowError } from '../domain/import-job';

export const importJobs = defineCollection<ImportJobDocument>({
  name: 'import_jobs',
  scope: 'workspace',
  fields: { createdAt: 'string', status: 'string' },
  indexes: [{ fields: ['createdAt'] }],
});

/** One chunk of a job's plan: it exists once the splitter has cut it, and is done once counted. */
export interface ImportChunkDocument extends StoredDocument {
  /** `${jobUid}:${index}` */
  id: string;
  jobUid: string;
  index: number;
  firstRow: number;
  rowCount: number;
  status: 'pending' | 'done';
  /** Times this chunk has been put on the bus; past the limit the sweeper gives up on it. */
  publishCount: number;
  successCount: number;
  errors: RowError[];
  duplicates: RowDuplicate[];
}

export const importChunks = defineCollection<ImportChunkDocument>({
  name: 'import_chunks',
  scope: 'workspace',
  fields: { jobUid: 'string', index: 'number', status: 'string' },
  indexes: [{ fields: ['jobUid', 'index'], unique: true }],
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

export const importCollections = [importJobs, importChunks, activeJobs];
