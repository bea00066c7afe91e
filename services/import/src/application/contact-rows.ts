/**
 * A file's rows sorted before they go to records, the same way for a chunk of the asynchronous
 * import and for the synchronous import: rows that cannot be a contact are errors, a later row
 * with an earlier row's email is a duplicate, the rest become records' ContactRow messages.
 */
import type { recordsV1 } from '@crm/grpc';
import { IMPORT_FIELDS, importedField } from '../domain/contact-fields';
import { normaliseChoice, rowProblem, type ChunkRow, type ContactFields } from '../domain/contact-row';
import type { ReportedDuplicate, ReportedError } from '../domain/import-report';

export interface SortedRows {
  errors: ReportedError[];
  duplicates: ReportedDuplicate[];
  toCreate: recordsV1.ContactRow[];
}

export function sortRows(rows: ChunkRow[]): SortedRows {
  const sorted: SortedRows = { errors: [], duplicates: [], toCreate: [] };
  for (const row of rows) {
    if ('problem' in row) {
      sorted.errors.push({ row: row.row, message: row.problem, cells: row.cells });
      continue;
    }
    const problem = rowProblem(row.fields);
    if (problem) sorted.errors.push({ row: row.row, message: problem, cells: row.cells });
    else if (row.duplicateOf !== undefined)
      sorted.duplicates.push({
        row: row.row,
        email: row.fields.email!,
        existingContactId: null,
        earlierRow: row.duplicateOf,
        cells: row.cells,
      });
    else sorted.toCreate.push(contactRow(row.row, row.fields));
  }
  return sorted;
}

/** A row as records takes it: every imported field (blank as empty), choices as people's spellings normalised. */
export function contactRow(row: number, fields: ContactFields): recordsV1.ContactRow {
  const cells: Record<string, string | string[]> = {};
  for (const field of IMPORT_FIELDS) {
    const value = fields[field];
    if (importedField(field).type === 'tags') cells[field] = (value as string[] | undefined) ?? [];
    else if (importedField(field).choices) cells[field] = value ? normaliseChoice(value as string) : '';
    else cells[field] = (value as string | undefined) ?? '';
  }
  return {
    ...(cells as unknown as Omit<recordsV1.ContactRow, 'row' | 'customFields'>),
    row,
    customFields: fields.customFields && Object.keys(fields.customFields).length > 0 ? JSON.stringify(fields.customFields) : '',
  };
}
