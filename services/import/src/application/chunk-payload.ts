/**
 * A chunk of rows to its message and back. Only what the splitter cannot give again is sent: each
 * row's cells, the column plan once, and the rows it found to be in-file duplicates or unreadable
 * (they need the whole file up to that row). The worker makes each row's fields from its cells
 * with the same plan and function as the splitter did, so it sees the rows the splitter cut.
 */
import type { CsvChunk } from '../adapters/csv/chunk-splitter';
import type { ColumnPlan, ColumnTarget } from '../domain/column-plan';
import { rowFields, type ChunkRow } from '../domain/contact-row';
import type { ChunkPayload, ReceivedChunkPayload } from './import-messages';

export function chunkPayload(jobUid: string, workspaceId: string, chunk: CsvChunk): ChunkPayload {
  const duplicateOf: Record<number, number> = {};
  const problems: Record<number, string> = {};
  for (const row of chunk.rows) {
    if ('problem' in row) problems[row.row] = row.problem;
    else if (row.duplicateOf !== undefined) duplicateOf[row.row] = row.duplicateOf;
  }
  return {
    jobUid,
    workspaceId,
    index: chunk.index,
    firstRow: chunk.firstRow,
    columns: Object.fromEntries(chunk.plan.fields),
    cells: chunk.rows.map((row) => row.cells),
    duplicateOf,
    problems,
  };
}

/** The chunk's rows as the splitter cut them, from a current message or one with every row's fields. */
export function chunkRows(payload: ReceivedChunkPayload): ChunkRow[] {
  if ('rows' in payload) return payload.rows;
  const plan: Pick<ColumnPlan, 'fields'> = {
    fields: new Map(Object.entries(payload.columns).map(([index, field]) => [Number(index), field as ColumnTarget])),
  };
  return payload.cells.map((cells, offset): ChunkRow => {
    const row = payload.firstRow + offset;
    const problem = payload.problems[row];
    if (problem !== undefined) return { row, cells, problem };
    const fields = rowFields(cells, plan);
    const earlier = payload.duplicateOf[row];
    return earlier === undefined ? { row, cells, fields } : { row, cells, fields, duplicateOf: earlier };
  });
}
