/**
 * One data row of a file as a contact to create, and the checks a worker makes before asking the
 * records service (which checks again and has the last word). Messages name the column the way a
 * person reading their spreadsheet would.
 *
 * Cells are kept as plain text: a formula-like cell (`=HYPERLINK(...)`) is stored as typed, never
 * evaluated. Whatever exports contacts to a spreadsheet must escape such values (prefix `'`).
 */
import { CONTACT_STAGES, FIELD_LIMITS, isEmail, characterCount } from '@crm/vocabulary';
import type { ColumnPlan } from './column-plan';
import type { ImportField } from './contact-fields';
import { customKey, isCustomTarget } from './custom-fields';

// The records service's stages, limits and email rule (libs/vocabulary), so both agree.
const LIMITS = FIELD_LIMITS;

export interface ContactFields {
  firstName?: string;
  lastName?: string;
  email?: string;
  phone?: string;
  title?: string;
  stage?: string;
  notes?: string;
  tags?: string[];
  externalId?: string;
  /**
   * Custom field key → the cell's text (trimmed), blank cells left out. Records reads each by its
   * field's type and reports a bad one as a row error; the import does not check them.
   */
  customFields?: Record<string, string>;
}

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
    else if (field === 'tags') fields.tags = splitTags(value);
    else (fields as Record<Exclude<ImportField, 'tags'>, string>)[field] = value;
  }
  return fields;
}

/** The key two rows share when they are the same person (records compares emails case-insensitively). */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

const LABEL: Record<ImportField, string> = {
  firstName: 'First name',
  lastName: 'Last name',
  email: 'Email',
  phone: 'Phone',
  title: 'Title',
  stage: 'Stage',
  notes: 'Notes',
  tags: 'Tags',
  externalId: 'External ID',
};

/** Every problem of a row, in one message; undefined when the row can go to records. */
export function rowProblem(fields: ContactFields): string | undefined {
  const problems: string[] = [];
  if (!fields.email) problems.push('Email is missing.');
  else if (!isEmail(fields.email)) problems.push(`Email "${clip(fields.email)}" is not a valid email address.`);
  if (!fields.firstName && !fields.lastName) problems.push('A first name or a last name is required.');
  for (const [field, max] of [
    ['firstName', LIMITS.name],
    ['lastName', LIMITS.name],
    ['phone', LIMITS.shortText],
    ['title', LIMITS.shortText],
    ['notes', LIMITS.longText],
    ['externalId', LIMITS.externalId],
  ] as const) {
    const value = fields[field];
    if (value !== undefined && characterCount(value) > max) problems.push(`${LABEL[field]} is longer than ${max} characters.`);
  }
  if (fields.stage !== undefined && !(CONTACT_STAGES as readonly string[]).includes(normaliseStage(fields.stage))) {
    problems.push(`Stage "${clip(fields.stage)}" is not one of ${CONTACT_STAGES.join(', ')}.`);
  }
  if (fields.tags) {
    if (fields.tags.length > LIMITS.tagCount) problems.push(`More than ${LIMITS.tagCount} tags.`);
    if (fields.tags.some((tag) => characterCount(tag) > LIMITS.tagLength))
      problems.push(`A tag is longer than ${LIMITS.tagLength} characters.`);
  }
  return problems.length > 0 ? problems.join(' ') : undefined;
}

/** `Proposal Sent` → `proposal_sent`: stages as people type them. */
export function normaliseStage(stage: string): string {
  return stage
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** The message the records service gave for a row, in the file's words (`email: ...` → `Email: ...`). */
export function recordsProblem(message: string): string {
  return message.replace(
    /(^|; )(firstName|lastName|email|phone|title|stage|notes|tags|externalId): /g,
    (_m, sep: string, field: ImportField) => `${sep}${LABEL[field]}: `,
  );
}

function clip(value: string): string {
  return value.length > 60 ? `${value.slice(0, 60)}…` : value;
}
