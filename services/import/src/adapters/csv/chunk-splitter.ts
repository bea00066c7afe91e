/**
 * Reads a CSV text stream with fast-csv and cuts its data rows into chunks: the header is planned
 * once (recognised names, custom fields' keys and labels, field_mappings, ignored columns), every row becomes contact fields, and
 * a row whose email already appeared in a valid earlier row of the file is marked as an in-file
 * duplicate. Deterministic: the same file always gives the same chunks, so a chunk can be cut
 * again after a crash and mean the same rows.
 */
import { parse } from 'fast-csv';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { DomainError } from '@crm/observability';
import { planColumns, type ColumnPlan, type FieldMappings } from '../../domain/column-plan';
import { emailKey, rowFields, rowProblem, type ChunkRow } from '../../domain/contact-row';
import type { CustomFieldCatalog } from '../../domain/custom-fields';

export interface CsvChunk {
  index: number;
  /** Data-row number of the first row (from 1); the rows follow it without gaps. */
  firstRow: number;
  rows: ChunkRow[];
  /** The file's column plan, which made each row's fields from its cells. */
  plan: ColumnPlan;
}

export interface SplitOptions {
  chunkRows: number;
  mappings: FieldMappings;
  /**
   * The workspace's contact custom fields, which headers may name: read when the header row is
   * known (so a file of built-in columns never asks for them); default none.
   */
  customFields?: CustomFieldCatalog | ((headers: string[]) => Promise<CustomFieldCatalog>);
  /** Default MAX_LINE_CHARS. */
  maxLineChars?: number;
  /**
   * A chunk is cut before a row that would take its cells past this many bytes as JSON, so that its
   * message stays under the bus's MAX_MESSAGE_BYTES; a row alone is at most MAX_LINE_CHARS
   * characters. Default MAX_CHUNK_BYTES; Infinity: rows only.
   */
  maxChunkBytes?: number;
  /** With the header row's cells. */
  onHeader?(plan: ColumnPlan, cells: string[]): Promise<void> | void;
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

/** No contact row is anywhere near this long; fast-csv slows down badly on giant lines, so stop early. */
export const MAX_LINE_CHARS = 1_000_000;
/** Columns a file's header may have: contact exports have tens, a few hundred at most. */
export const MAX_COLUMNS = 1_000;
/**
 * Bytes of cells (as JSON) one chunk of several rows carries at most; a chunk of one row may carry
 * more, but a row is at most MAX_LINE_CHARS characters (at most ~6 MB as JSON), so a chunk's
 * message stays under the bus's MAX_MESSAGE_BYTES (8 MiB), itself under RabbitMQ's 16 MiB. A
 * 500-row chunk of 4 KB rows (2 MB) is not cut.
 */
export const MAX_CHUNK_BYTES = 4 * 1024 * 1024;

/** The cells' size in a chunk message. */
function cellsBytes(cells: string[]): number {
  return Buffer.byteLength(JSON.stringify(cells));
}

/** Passes text through, failing once a line (text between line breaks) grows past `max` characters. */
function lineLengthGuard(max: number): Transform {
  let sinceBreak = 0;
  return new Transform({
    decodeStrings: false,
    transform(chunk: string | Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      const firstBreak = firstLineBreak(text);
      // Lines wholly inside one chunk are shorter than the chunk, which is far below `max`.
      const longest = firstBreak === -1 ? sinceBreak + text.length : sinceBreak + firstBreak;
      sinceBreak = firstBreak === -1 ? longest : text.length - Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r')) - 1;
      if (longest > max || sinceBreak > max) {
        callback(
          new UnreadableFileError(
            `The file has a line longer than ${max.toLocaleString('en')} characters; it does not look like a contact CSV.`,
          ),
        );
        return;
      }
      callback(null, text);
    },
  });
}

function firstLineBreak(text: string): number {
  const n = text.indexOf('\n');
  const r = text.indexOf('\r');
  if (n === -1) return r;
  if (r === -1) return n;
  return Math.min(n, r);
}

/** A failure of the caller's own work (publishing a chunk, reading its fields), not of the file: passed on as it is. */
class CallerFailed extends Error {}

async function ours<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new CallerFailed('the caller failed', { cause: error });
  }
}

export async function splitCsv(text: Readable, options: SplitOptions): Promise<SplitSummary> {
  const parser = parse({ headers: false, ignoreEmpty: true, trim: false });
  const guard = lineLengthGuard(options.maxLineChars ?? MAX_LINE_CHARS);
  text.on('error', (error) => guard.destroy(error));
  guard.on('error', (error) => parser.destroy(error));
  text.pipe(guard).pipe(parser);
  let plan: ColumnPlan | undefined;
  let headerWidth = 0;
  let rowNumber = 0;
  let chunkCount = 0;
  let rows: ChunkRow[] = [];
  let chunkBytes = 0;
  const maxChunkBytes = options.maxChunkBytes ?? MAX_CHUNK_BYTES;
  /** Email key → the first valid row that has it. */
  const seenEmails = new Map<string, number>();

  const flush = async () => {
    if (rows.length === 0 || !plan) return;
    const chunk: CsvChunk = { index: chunkCount, firstRow: rows[0]!.row, rows, plan };
    chunkCount += 1;
    rows = [];
    chunkBytes = 0;
    await ours(() => options.onChunk(chunk));
  };

  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      if (!plan) {
        if (cells.length > MAX_COLUMNS) {
          throw new UnreadableFileError(
            `The header has ${cells.length.toLocaleString('en')} columns; at most ${MAX_COLUMNS.toLocaleString('en')} can be imported.`,
          );
        }
        const fields = options.customFields;
        const custom = typeof fields === 'function' ? await ours(() => fields(cells)) : fields;
        const planned = planColumns(cells, options.mappings, custom);
        plan = planned;
        headerWidth = cells.length;
        await ours(() => options.onHeader?.(planned, cells));
        continue;
      }
      rowNumber += 1;
      const row = chunkRow(rowNumber, cells, plan, headerWidth, seenEmails);
      const bytes = Number.isFinite(maxChunkBytes) ? cellsBytes(row.cells) : 0;
      if (rows.length > 0 && chunkBytes + bytes > maxChunkBytes) await flush();
      rows.push(row);
      chunkBytes += bytes;
      if (rows.length >= options.chunkRows) await flush();
    }
  } catch (error) {
    if (error instanceof CallerFailed) throw error.cause;
    if (error instanceof DomainError) throw error;
    throw new UnreadableFileError(`The file could not be read as CSV: ${(error as Error).message}`);
  }
  if (!plan) throw new UnreadableFileError('The file is empty: it has no header row.');
  await flush();
  return { totalRows: rowNumber, chunkCount, ignoredColumns: plan.ignoredColumns };
}

/**
 * A data row; a row with a value past the header's columns is a problem. At most MAX_COLUMNS of its
 * cells are kept (for the report): a line of a million commas would otherwise carry a million cells
 * to the bus.
 */
function chunkRow(row: number, all: string[], plan: ColumnPlan, headerWidth: number, seenEmails: Map<string, number>): ChunkRow {
  const cells = all.length > MAX_COLUMNS ? all.slice(0, MAX_COLUMNS) : all;
  if (all.length > headerWidth && hasValueFrom(all, headerWidth)) {
    return {
      row,
      cells,
      problem: `The row has ${all.length} values but the header has ${headerWidth} columns (check for an unquoted comma).`,
    };
  }
  const fields = rowFields(cells, plan);
  if (rowProblem(fields) !== undefined) return { row, cells, fields };
  const key = emailKey(fields.email!);
  const earlier = seenEmails.get(key);
  if (earlier !== undefined) return { row, cells, fields, duplicateOf: earlier };
  seenEmails.set(key, row);
  return { row, cells, fields };
}

function hasValueFrom(cells: string[], from: number): boolean {
  for (let i = from; i < cells.length; i++) if (cells[i]!.trim() !== '') return true;
  return false;
}
