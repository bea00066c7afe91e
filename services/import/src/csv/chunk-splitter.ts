/**
 * Reads a CSV text stream with fast-csv and cuts its data rows into chunks: the header is planned
 * once (recognised names, field_mappings, ignored columns), every row becomes contact fields, and
 * a row whose email already appeared in a valid earlier row of the file is marked as an in-file
 * duplicate. Deterministic: the same file always gives the same chunks, so a chunk can be cut
 * again after a crash and mean the same rows.
 */
import { parse } from 'fast-csv';
import type { Readable } from 'node:stream';
import { DomainError } from '@crm/observability';
import { planColumns, type ColumnPlan, type FieldMappings } from '../domain/column-plan';
import { emailKey, rowFields, rowProblem, type ChunkRow } from '../domain/contact-row';

export interface CsvChunk {
  index: number;
  /** Data-row number of the first row (from 1). */
  firstRow: number;
  rows: ChunkRow[];
}

export interface SplitOptions {
  chunkRows: number;
  mappings: FieldMappings;
  onHeader?(plan: ColumnPlan): Promise<void> | void;
  /** Awaited before the next chunk is cut, so a slow consumer slows the reader (back-pressure). */
  onChunk(chunk: CsvChunk): Promise<void> | void;
}

export interface SplitSummary {
  totalRows: number;
  chunkCount: number;
  ignoredColumns: string[];
}

/** A failure that is the file's fault: the job fails with this message. */
export class UnreadableFileError extends DomainError {
  constructor(message: string) {
    super('invalid_argument', message);
  }
}

export async function splitCsv(text: Readable, options: SplitOptions): Promise<SplitSummary> {
  const parser = parse({ headers: false, ignoreEmpty: true, trim: false });
  text.on('error', (error) => parser.destroy(error));
  text.pipe(parser);
  let plan: ColumnPlan | undefined;
  let headerWidth = 0;
  let rowNumber = 0;
  let chunkCount = 0;
  let rows: ChunkRow[] = [];
  const seenEmails = new Set<string>();

  const flush = async () => {
    if (rows.length === 0) return;
    const chunk: CsvChunk = { index: chunkCount, firstRow: rows[0]!.row, rows };
    chunkCount += 1;
    rows = [];
    await options.onChunk(chunk);
  };

  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      if (!plan) {
        plan = planColumns(cells, options.mappings);
        headerWidth = cells.length;
        await options.onHeader?.(plan);
        continue;
      }
      rowNumber += 1;
      rows.push(chunkRow(rowNumber, cells, plan, headerWidth, seenEmails));
      if (rows.length >= options.chunkRows) await flush();
    }
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new UnreadableFileError(`The file could not be read as CSV: ${(error as Error).message}`);
  }
  if (!plan) throw new UnreadableFileError('The file is empty: it has no header row.');
  await flush();
  return { totalRows: rowNumber, chunkCount, ignoredColumns: plan.ignoredColumns };
}

function chunkRow(row: number, cells: string[], plan: ColumnPlan, headerWidth: number, seenEmails: Set<string>): ChunkRow {
  if (cells.length > headerWidth && cells.slice(headerWidth).some((cell) => cell.trim() !== '')) {
    return { row, problem: `The row has ${cells.length} values but the header has ${headerWidth} columns (check for an unquoted comma).` };
  }
  const fields = rowFields(cells, plan);
  if (rowProblem(fields) !== undefined) return { row, fields };
  const key = emailKey(fields.email!);
  if (seenEmails.has(key)) return { row, fields, duplicateInFile: true };
  seenEmails.add(key);
  return { row, fields };
}
