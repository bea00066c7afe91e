/**
 * The report download, a page at a time: the job's report rows read in row order and written as
 * CSV lines with fast-csv's formatter (header `row,kind,reason` then the file's own header cells;
 * then one line per row error and per duplicate with the row's original cells). Cells a
 * spreadsheet would run as formulas are neutralised. Memory holds one page, whatever the report.
 */
import { writeToString } from 'fast-csv';
import { DomainError } from '@crm/observability';
import { duplicateReason, neutralisedCell, REPORT_COLUMNS } from '../domain/import-report';
import type { ImportReportRowDocument } from '../store/collections';
import type { ImportJobRepository } from '../store/import-job-repository';

/** Rows per page: small enough that a page of long rows stays far below the gRPC message limit. */
export const REPORT_PAGE_ROWS = 200;

export interface ReportPage {
  csv: string;
  lastRow: number;
  done: boolean;
}

export async function reportPage(repo: ImportJobRepository, workspaceId: string, jobUid: string, afterRow: number): Promise<ReportPage> {
  if (!(await repo.get(workspaceId, jobUid))) throw DomainError.notFound();
  const rows = await repo.reports.page(workspaceId, jobUid, afterRow, REPORT_PAGE_ROWS);
  const lines = rows.map(reportLine);
  // The header line comes first even when the file's header was never read (a job failed early).
  if (afterRow < 0 && rows[0]?.kind !== 'header') lines.unshift([...REPORT_COLUMNS]);
  return {
    csv: lines.length > 0 ? await writeToString(lines, { includeEndRowDelimiter: true }) : '',
    lastRow: rows.at(-1)?.row ?? afterRow,
    done: rows.length < REPORT_PAGE_ROWS,
  };
}

function reportLine(row: ImportReportRowDocument): string[] {
  const cells = row.cells.map(neutralisedCell);
  switch (row.kind) {
    case 'header':
      return [...REPORT_COLUMNS, ...cells];
    case 'error':
      return [String(row.row), 'error', neutralisedCell(row.message), ...cells];
    case 'duplicate':
      return [String(row.row), 'duplicate', neutralisedCell(duplicateReason({ ...row, email: row.message })), ...cells];
  }
}
