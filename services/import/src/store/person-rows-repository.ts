/**
 * The privacy export's and erasure's reads and writes of import data: the workspace's jobs, their
 * report rows a page at a time (in row order, off the report's index), a row's values blanked, and
 * the first entries an ended job keeps on itself.
 */
import type { DocumentStore } from '@crm/store';
import type { ImportJobDocument } from '../domain/import-job';
import { importJobs, importReportRows, type ImportReportRowDocument } from './collections';

export const ROWS_PER_PAGE = 500;

export class PersonRowsRepository {
  constructor(private readonly store: DocumentStore) {}

  jobs(workspaceId: string): Promise<ImportJobDocument[]> {
    return this.store.forWorkspace(workspaceId).find(importJobs, {});
  }

  /** Up to ROWS_PER_PAGE error and duplicate rows of a job after `afterRow`, in row order. */
  rows(workspaceId: string, jobUid: string, afterRow: number): Promise<ImportReportRowDocument[]> {
    return this.store.forWorkspace(workspaceId).find(importReportRows, {
      where: [
        { field: 'jobUid', op: 'eq', value: jobUid },
        { field: 'row', op: 'gt', value: afterRow },
      ],
      sort: [{ field: 'row', direction: 'asc' }],
      limit: ROWS_PER_PAGE,
    });
  }

  async blankRow(workspaceId: string, row: ImportReportRowDocument, blank: string): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(importReportRows, row.id, {
      set: { cells: row.cells.map(() => blank), message: blank },
    });
  }

  async setKeptReport(
    workspaceId: string,
    job: ImportJobDocument,
    report: Pick<ImportJobDocument, 'errors' | 'duplicates'>,
  ): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(importJobs, job.id, { set: report });
  }
}
