/**
 * A job's report: every row that was not imported (an error) or was a duplicate, with the row's
 * original cells. The job shows only its first entries, within a count and a byte budget, so that
 * a poll answer stays small whatever the file; the whole report is the CSV download.
 */

/** A row error as the job shows it. */
export interface RowError {
  row: number;
  message: string;
}

/** A duplicate row as the job shows it. */
export interface RowDuplicate {
  row: number;
  email: string;
  /** null when the earlier row is in the same file. */
  existingContactId: string | null;
}

/** A row error as the report keeps it. */
export interface ReportedError extends RowError {
  cells: string[];
}

/** A duplicate as the report keeps it. */
export interface ReportedDuplicate extends RowDuplicate {
  cells: string[];
  /** The earlier row of the same file with this email, when the splitter saw it. */
  earlierRow: number | null;
}

/** The first entries of a report, as a job shows them. */
export interface InlineReport {
  errors: RowError[];
  duplicates: RowDuplicate[];
}

/** At most this many errors, and as many duplicates, are shown on the job (contract decisions: Import). */
export const INLINE_ENTRIES = 1000;
/**
 * The entries together take at most this many bytes of JSON, so that a poll answer stays under
 * 100 KB whatever the file (the rest of the job is a few KB).
 */
export const INLINE_BYTES = 92 * 1024;

/**
 * The entries a job shows: first the duplicates, then the errors, each the first in row order, up
 * to 1,000 of each, while they fit INLINE_BYTES. Duplicates go first because the contract makes
 * `len(duplicates) = duplicateCount` up to 1,000: 1,000 duplicates whose emails average up to about
 * 35 characters (most do) always fit; longer ones are cut, to keep the byte bound.
 */
export function inlineReport(firstErrors: RowError[], firstDuplicates: RowDuplicate[]): InlineReport {
  let bytes = 0;
  const fitting = <T>(entries: T[]): T[] => {
    const shown: T[] = [];
    for (const entry of entries.slice(0, INLINE_ENTRIES)) {
      bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
      if (bytes > INLINE_BYTES) break;
      shown.push(entry);
    }
    return shown;
  };
  const duplicates = fitting(firstDuplicates.map(duplicateEntry));
  const errors = fitting(firstErrors.map(errorEntry));
  return { errors, duplicates };
}

function errorEntry(error: RowError): RowError {
  return { row: error.row, message: error.message };
}

function duplicateEntry(duplicate: RowDuplicate): RowDuplicate {
  return { row: duplicate.row, email: duplicate.email, existingContactId: duplicate.existingContactId };
}

/** The report's `reason` for a duplicate: the contact it already is, or the earlier row. */
export function duplicateReason(duplicate: Pick<ReportedDuplicate, 'email' | 'existingContactId' | 'earlierRow'>): string {
  if (duplicate.existingContactId) return `Duplicate: ${duplicate.email} is already the contact ${duplicate.existingContactId}.`;
  if (duplicate.earlierRow !== null) return `Duplicate: ${duplicate.email} is also in row ${duplicate.earlierRow} of this file.`;
  return `Duplicate: ${duplicate.email} is in an earlier row of this file.`;
}

/** The CSV report's columns before the file's own. */
export const REPORT_COLUMNS = ['row', 'kind', 'reason'] as const;

/**
 * A cell a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab, carriage return first)
 * gets a leading `'`, as OWASP's CSV-injection advice and spreadsheet-safe exports do.
 */
export function neutralisedCell(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}
