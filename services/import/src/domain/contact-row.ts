/**
 * One data row of a file as a contact to create, and the checks a worker makes before asking the
 * records service (which checks again and has the last word). Messages name the column the way a
 * person reading their spreadsheet would.
 *
 * Cells are kept as plain text: a formula-like cell (`=HYPERLINK(...)`) is stored as typed, never
 * evaluated. Whatever exports contacts to a spreadsheet must escape such values (prefix `'`).
 */
import { FIELD_LIMITS, isEmail, characterCount } from '@crm/vocabulary';
import type { ColumnPlan } from './column-plan';
import { IMPORT_FIELDS, importedField, importLabel, type ImportField } from './contact-fields';
import { customKey, isCustomTarget } from './custom-fields';

// The records service's stages, limits and email rule (libs/vocabulary), so both agree.
const LIMITS = FIELD_LIMITS;

/** A row's contact fields: text, tags as a list. */
export type ContactFields = { [F in ImportField]?: F extends 'tags' ? string[] : string } & {
  /**
   * Custom field key → the cell's text (trimmed), blank cells left out. Records reads each by its
   * field's type and reports a bad one as a row error; the import does not check them.
   */
  customFields?: Record<string, string>;
};

/** What the splitter puts in a chunk for one data row; `cells` as in the file, for the report. */
export type ChunkRow =
  /** `duplicateOf`: the earlier row of the file with the same email. */
  | { row: number; cells: string[]; fields: ContactFields; duplicateOf?: number }
  /** A row the parser could not read as the header's columns. */
  | { row: number; cells: string[]; problem: string };

/** `vip; partner,  2024` → ['vip', 'partner', '2024']. */
export function splitTags(value: string): string[] {
  return [
    ...new Set(
      value
        .split(/[;,]/)
        .map((tag) => tag.trim())
        .filter((tag) => tag.length > 0),
    ),
  ];
}

/** The row's cells as contact fields, per the column plan. Blank cells are left out. */
export function rowFields(cells: string[], plan: Pick<ColumnPlan, 'fields'>): ContactFields {
  const fields: ContactFields = {};
  for (const [index, field] of plan.fields) {
    const raw = cells[index];
    if (raw === undefined) continue;
    const value = raw.trim();
    if (value === '') continue;
    if (isCustomTarget(field)) (fields.customFields ??= {})[customKey(field)] = value;
    else (fields as Record<ImportField, string | string[]>)[field] = importedField(field).type === 'tags' ? splitTags(value) : value;
  }
  return fields;
}

/** The key two rows share when they are the same person (records compares emails case-insensitively). */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** Every problem of a row, in one message; undefined when the row can go to records. */
export function rowProblem(fields: ContactFields): string | undefined {
  const problems: string[] = [];
  if (!fields.email) problems.push('Email is missing.');
  else if (!isEmail(fields.email)) problems.push(`Email "${clip(fields.email)}" is not a valid email address.`);
  if (!fields.firstName && !fields.lastName) problems.push('A first name or a last name is required.');
  for (const field of IMPORT_FIELDS) {
    const { type, maxLength, choices } = importedField(field);
    const value = fields[field];
    if (typeof value !== 'string') continue;
    if (type !== 'email' && maxLength !== undefined && characterCount(value) > maxLength)
      problems.push(`${importLabel(field)} is longer than ${maxLength} characters.`);
    if (choices && !choices.includes(normaliseChoice(value)))
      problems.push(`${importLabel(field)} "${clip(value)}" is not one of ${choices.join(', ')}.`);
  }
  if (fields.tags) {
    if (fields.tags.length > LIMITS.tagCount) problems.push(`More than ${LIMITS.tagCount} tags.`);
    if (fields.tags.some((tag) => characterCount(tag) > LIMITS.tagLength))
      problems.push(`A tag is longer than ${LIMITS.tagLength} characters.`);
  }
  return problems.length > 0 ? problems.join(' ') : undefined;
}

/** `Proposal Sent` → `proposal_sent`: choice values (stages) as people type them. */
export function normaliseChoice(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** A field named at the start of one of the records service's problems. */
const RECORDS_FIELD = new RegExp(`(^|; )(${IMPORT_FIELDS.join('|')}): `, 'g');

/** The message the records service gave for a row, in the file's words (`email: ...` → `Email: ...`). */
export function recordsProblem(message: string): string {
  return message.replace(RECORDS_FIELD, (_m, sep: string, field: ImportField) => `${sep}${importLabel(field)}: `);
}

function clip(value: string): string {
  return value.length > 60 ? `${value.slice(0, 60)}…` : value;
}
