/**
 * The contact fields an import can fill, and how a CSV header names them: the fields whose
 * descriptor (@crm/vocabulary CONTACT_FIELDS) has `import`, by their schema names and the
 * spellings people's files use (`First Name`, `first_name`, `E-mail`, `Email Address`, ...).
 */
import { CONTACT_FIELDS, fieldNames, type BuiltInField, type ImportedFieldName } from '@crm/vocabulary';

export type ImportField = ImportedFieldName<typeof CONTACT_FIELDS>;

export const IMPORT_FIELDS = fieldNames(CONTACT_FIELDS, (field) => field.import !== undefined) as readonly ImportField[];

/** An imported field's descriptor. */
export function importedField(field: ImportField): BuiltInField & { import: { label: string; headers: readonly string[] } } {
  return CONTACT_FIELDS[field];
}

/** The field's name as a person reading their spreadsheet would say it (`First name`). */
export function importLabel(field: ImportField): string {
  return importedField(field).import.label;
}

const BY_SPELLING = new Map<string, ImportField>();
for (const field of IMPORT_FIELDS) for (const spelling of importedField(field).import.headers) BY_SPELLING.set(spelling, field);

/** `First Name`, `first_name`, `FIRST-NAME`, ` firstName ` all become `firstname`. */
export function normaliseHeader(header: string): string {
  return header
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** The field a header names, or undefined when it names none. */
export function recogniseHeader(header: string): ImportField | undefined {
  return BY_SPELLING.get(normaliseHeader(header));
}
