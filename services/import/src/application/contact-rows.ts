/**
 * A file's rows sorted before they go to records, the same way for a chunk of the asynchronous
 * import and for the synchronous import: rows that cannot be a contact are errors, a later row
 * with an earlier row's email is a duplicate, the rest become records' ContactRow messages.
 */
import type { recordsV1 } from '@crm/grpc';
import { normaliseStage, rowProblem, type ChunkRow, type ContactFields } from '../domain/contact-row';
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

export function contactRow(row: number, fields: ContactFields): recordsV1.ContactRow {
  return {
    row,
    firstName: fields.firstName ?? '',
    lastName: fields.lastName ?? '',
    email: fields.email ?? '',
    phone: fields.phone ?? '',
    title: fields.title ?? '',
    stage: fields.stage ? normaliseStage(fields.stage) : '',
    notes: fields.notes ?? '',
    tags: fields.tags ?? [],
    externalId: fields.externalId ?? '',
    customFields: fields.customFields && Object.keys(fields.customFields).length > 0 ? JSON.stringify(fields.customFields) : '',
  };
}
