/**
 * Exports and their files. A file is kept as numbered chunks in this service's own store, not on a
 * disk: every replica of the server (which serves downloads) and of the worker (which writes them)
 * reaches the same store, SQLite on one machine or MongoDB in Kubernetes, with nothing more to
 * deploy, back up or secure; retention deletes a file with the same store call as its job.
 */
import { defineCollection, type StoredDocument } from '@crm/store';
import type { ExportJobDocument } from '../domain/export-job';

export const exportJobs = defineCollection<ExportJobDocument>({
  name: 'export_jobs',
  scope: 'workspace',
  fields: { createdAt: 'string', status: 'string' },
  // The second serves retention (exports past EXPORT_RETENTION_DAYS), in every workspace at once.
  indexes: [{ fields: ['createdAt'] }, { fields: ['createdAt'], acrossWorkspaces: true }],
});

/** One piece of a file, in order: `${exportId}:${run}:${index}`, about EXPORT_CHUNK_KIB of text. */
export interface ExportChunkDocument extends StoredDocument {
  id: string;
  exportId: string;
  run: number;
  index: number;
  data: string;
}

export const exportChunks = defineCollection<ExportChunkDocument>({
  name: 'export_chunks',
  scope: 'workspace',
  fields: { exportId: 'string', run: 'number' },
  indexes: [{ fields: ['exportId', 'run'] }],
});

export function chunkId(exportId: string, run: number, index: number): string {
  return `${exportId}:${run}:${index}`;
}
