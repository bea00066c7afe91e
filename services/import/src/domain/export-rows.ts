/**
 * How records become the lines of an export file: a list item's fields (or the columns asked
 * for), as CSV (RFC 4180, CRLF, a header line of field names) or as one JSON object per line.
 * CSV cells that a spreadsheet would run as a formula (starting with =, +, -, @, tab or CR) get a
 * leading apostrophe; numbers and booleans are written as they are, never as formulas.
 */
import { CUSTOM_FIELDS_PREFIX, LINKED_NAME_FIELDS } from '@crm/vocabulary';
import type { ExportFormat } from './export-job';

/** A record message of any kind (records' Contact, Lead, Account or Opportunity), read by field name. */
export type RecordMessage = object;

/** The message's value of a field by its name (undefined when it has none). */
const valueOf = (record: RecordMessage, field: string): unknown => Reflect.get(record, field);

/** A record message's custom values: the message carries them as JSON text (records' `custom_fields`). */
function customValues(record: RecordMessage): Record<string, unknown> {
  const custom = valueOf(record, 'customFields');
  if (typeof custom !== 'string') return (custom as Record<string, unknown> | undefined) ?? {};
  try {
    return custom ? (JSON.parse(custom) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The public value of one field of a record message, as the gateway's list item has it. */
export function fieldValue(record: RecordMessage, field: string, custom?: Record<string, unknown>): unknown {
  if (field.startsWith(CUSTOM_FIELDS_PREFIX)) return (custom ?? customValues(record))[field.slice(CUSTOM_FIELDS_PREFIX.length)] ?? null;
  const idField = LINKED_NAME_FIELDS[field];
  const value = valueOf(record, field);
  if (idField && (valueOf(record, idField) === undefined || valueOf(record, idField) === null || !value)) return null;
  return value ?? null;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text: string;
  if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
  else {
    text = Array.isArray(value) ? value.map(String).join(',') : typeof value === 'object' ? JSON.stringify(value) : String(value);
    if (FORMULA_START.test(text)) text = `'${text}`;
  }
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: unknown[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** What the file starts with: the header line of a CSV, nothing for JSON lines. */
export function fileHeader(format: ExportFormat, fields: readonly string[]): string {
  return format === 'csv' ? `${fields.map((field) => csvCell(field)).join(',')}\r\n` : '';
}

export function recordLine(format: ExportFormat, fields: readonly string[], record: RecordMessage): string {
  const custom = fields.some((field) => field.startsWith(CUSTOM_FIELDS_PREFIX)) ? customValues(record) : undefined;
  if (format === 'csv') return csvLine(fields.map((field) => fieldValue(record, field, custom)));
  const object: Record<string, unknown> = {};
  for (const field of fields) object[field] = fieldValue(record, field, custom);
  return `${JSON.stringify(object)}\n`;
}
