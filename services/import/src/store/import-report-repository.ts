/**
 * Reads and writes of a job's report rows (collections.ts: importReportRows). Rows are written as
 * part of a chunk's unit of work (`rowWrites`), read back in row order a page at a time, never all
 * at once.
 */
import type { DocumentStore, WriteOp } from '@crm/store';
import type { ChunkResult } from '../domain/import-job';
import { INLINE_ENTRIES, inlineReport, type InlineReport } from '../domain/import-report';
import { importReportRows, type ImportReportRowDocument } from './collections';

function rowId(jobUid: string, row: number): string {
  return `${jobUid}:${row}`;
}

export class ImportReportRepository {
  constructor(private readonly store: DocumentStore) {}

  /** The file's header cells, as row 0; written again by a repeated split, to the same effect. */
  async recordHeader(workspaceId: string, jobUid: string, cells: string[]): Promise<void> {
    const header: ImportReportRowDocument = {
      id: rowId(jobUid, 0),
      jobUid,
      row: 0,
      kind: 'header',
      message: '',
      existingContactId: null,
      earlierRow: null,
      cells,
    };
    await this.store.forWorkspace(workspaceId).upsert(importReportRows, header, { set: { cells } });
  }

  /** The inserts that add a chunk's errors and duplicates to the report. */
  rowWrites(jobUid: string, result: ChunkResult): WriteOp[] {
    const errors = result.errors.map((e): ImportReportRowDocument => ({
      id: rowId(jobUid, e.row),
      jobUid,
      row: e.row,
      kind: 'error',
      message: e.message,
      existingContactId: null,
      earlierRow: null,
      cells: e.cells,
    }));
    const duplicates = result.duplicates.map((d): ImportReportRowDocument => ({
      id: rowId(jobUid, d.row),
      jobUid,
      row: d.row,
      kind: 'duplicate',
      message: d.email,
      existingContactId: d.existingContactId,
      earlierRow: d.earlierRow,
      cells: d.cells,
    }));
    return [...errors, ...duplicates].map((document): WriteOp => ({
      kind: 'insert',
      collection: importReportRows,
      document: document as ImportReportRowDocument & Record<string, unknown>,
    }));
  }

  /** The first errors and duplicates, as the job shows them. */
  async first(workspaceId: string, jobUid: string): Promise<InlineReport> {
    const [errors, duplicates] = await Promise.all([
      this.firstOfKind(workspaceId, jobUid, 'error'),
      this.firstOfKind(workspaceId, jobUid, 'duplicate'),
    ]);
    return inlineReport(
      errors.map((e) => ({ row: e.row, message: e.message })),
      duplicates.map((d) => ({ row: d.row, email: d.message, existingContactId: d.existingContactId })),
    );
  }

  private firstOfKind(workspaceId: string, jobUid: string, kind: 'error' | 'duplicate'): Promise<ImportReportRowDocument[]> {
    return this.store.forWorkspace(workspaceId).find(importReportRows, {
      where: [
        { field: 'jobUid', op: 'eq', value: jobUid },
        { field: 'kind', op: 'eq', value: kind },
      ],
      sort: [{ field: 'row', direction: 'asc' }],
      limit: INLINE_ENTRIES,
    });
  }

  /** Up to `limit` rows after `afterRow`, in row order (the header is row 0: start at -1). */
  page(workspaceId: string, jobUid: string, afterRow: number, limit: number): Promise<ImportReportRowDocument[]> {
    return this.store.forWorkspace(workspaceId).find(importReportRows, {
      where: [
        { field: 'jobUid', op: 'eq', value: jobUid },
        { field: 'row', op: 'gt', value: afterRow },
      ],
      sort: [{ field: 'row', direction: 'asc' }],
      limit,
    });
  }
}
