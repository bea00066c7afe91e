/**
 * An export: what was asked (a kind's list with its filter, search, ordering and columns, as CSV
 * or JSON lines), who asked (the records are read as them), and how far its one run has got.
 * The file is kept as numbered chunks of the run that wrote it (store/export-collections.ts).
 */
import { randomUUID } from 'node:crypto';
import type { ActorKind } from '@crm/grpc';
import type { StoredDocument } from '@crm/store';
import type { FilterRecordKind } from '@crm/vocabulary';

export const EXPORT_KINDS = ['contact', 'lead', 'account', 'opportunity'] as const;
export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export type ExportStatus = 'queued' | 'processing' | 'complete' | 'failed';

export const CONTENT_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', jsonl: 'application/x-ndjson' };

export interface ExportJobDocument extends StoredDocument {
  /** `exp_` and 32 hex digits. */
  id: string;
  kind: FilterRecordKind;
  format: ExportFormat;
  status: ExportStatus;
  /** As the caller sent them; checked by records when the export was asked for. */
  filter: string;
  search: string;
  ordering: string;
  /** The columns, in order. */
  fields: string[];
  actorId: string;
  actorKind: ActorKind;
  /** The records the snapshot holds (the list's count when the run started); 0 until then. */
  rowCount: number;
  rowsWritten: number;
  /** Runs started: a redelivered message starts another, whose chunks replace the last one's. */
  run: number;
  /** Chunks of the file the complete run wrote. */
  chunkCount: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  errorMessage: string;
}

export function newExportId(): string {
  return `exp_${randomUUID().replace(/-/g, '')}`;
}

export function progressPercent(job: Pick<ExportJobDocument, 'status' | 'rowCount' | 'rowsWritten'>): number {
  if (job.status === 'complete') return 100;
  if (job.rowCount <= 0) return 0;
  return Math.min(99, Math.floor((job.rowsWritten * 100) / job.rowCount));
}

export function isEnded(status: ExportStatus): boolean {
  return status === 'complete' || status === 'failed';
}
