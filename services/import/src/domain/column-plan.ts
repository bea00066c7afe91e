/**
 * Which column of a file fills which contact field: recognised headers, then the caller's
 * `field_mappings` (which win), and the columns left over, which are ignored and reported.
 */
import { DomainError } from '@crm/observability';
import { IMPORT_FIELDS, normaliseHeader, recogniseHeader, type ImportField } from './contact-fields';

/** CSV header → contact field, or null to ignore the column on purpose. */
export type FieldMappings = Record<string, ImportField | null>;

export interface ColumnPlan {
  /** Column index → field; columns not in the map are ignored. */
  fields: Map<number, ImportField>;
  /**
   * Headers of the ignored columns, as written in the file (blank ones as `(column N)`): the first
   * MAX_LISTED_IGNORED, then `(and N more)`, so that a file of thousands of columns keeps its job small.
   */
  ignoredColumns: string[];
}

const MAPPINGS_HELP = `field_mappings must be a JSON object mapping CSV column headers to contact fields (${IMPORT_FIELDS.join(', ')}), e.g. {"E-mail 2": "email"}.`;

/** Reads the `field_mappings` form field; any problem is a 400 that says what is expected. */
export function parseFieldMappings(raw: string | undefined): FieldMappings {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw DomainError.invalid(`field_mappings is not valid JSON. ${MAPPINGS_HELP}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw DomainError.invalid(MAPPINGS_HELP);
  const mappings: FieldMappings = {};
  for (const [header, target] of Object.entries(parsed as Record<string, unknown>)) {
    if (target === null || target === '') {
      mappings[header] = null;
      continue;
    }
    if (typeof target !== 'string') throw DomainError.invalid(`field_mappings["${header}"] must be a field name. ${MAPPINGS_HELP}`);
    const field = (IMPORT_FIELDS as readonly string[]).includes(target) ? (target as ImportField) : recogniseHeader(target);
    if (!field) throw DomainError.invalid(`field_mappings["${header}"]: "${target}" is not a contact field. ${MAPPINGS_HELP}`);
    mappings[header] = field;
  }
  return mappings;
}

const MAX_REPORTED_HEADER = 100;
export const MAX_LISTED_IGNORED = 10;

function shown(header: string, index: number): string {
  const trimmed = header.trim();
  if (!trimmed) return `(column ${index + 1})`;
  return trimmed.length > MAX_REPORTED_HEADER ? `${trimmed.slice(0, MAX_REPORTED_HEADER)}…` : trimmed;
}

/**
 * Plans the columns of a header row. A field claimed by two columns goes to the first; the
 * second is ignored and reported. Throws a DomainError with a message for the job's errorMessage
 * when no column gives the email.
 */
export function planColumns(headers: string[], mappings: FieldMappings): ColumnPlan {
  const mappingByNormalised = new Map<string, ImportField | null>();
  for (const [header, field] of Object.entries(mappings)) {
    mappingByNormalised.set(header.trim(), field);
    mappingByNormalised.set(`~${normaliseHeader(header)}`, field);
  }
  const fields = new Map<number, ImportField>();
  const taken = new Set<ImportField>();
  const ignoredColumns: string[] = [];
  headers.forEach((header, index) => {
    const exact = mappingByNormalised.get(header.trim());
    const loose = mappingByNormalised.get(`~${normaliseHeader(header)}`);
    const mapped = exact !== undefined ? exact : loose;
    const field = mapped !== undefined ? mapped : recogniseHeader(header);
    if (field && !taken.has(field)) {
      taken.add(field);
      fields.set(index, field);
    } else {
      ignoredColumns.push(shown(header, index));
    }
  });
  if (!taken.has('email')) {
    const listed = headers.slice(0, 20).map(shown).join(', ');
    throw DomainError.invalid(
      `The file has no email column. Name a column "Email" (or "E-mail", "Email Address"), or map one with field_mappings, e.g. {"Your column": "email"}. Columns found: ${listed || '(none)'}${headers.length > 20 ? ', …' : ''}.`,
    );
  }
  const unlisted = ignoredColumns.length - MAX_LISTED_IGNORED;
  if (unlisted > 0) ignoredColumns.splice(MAX_LISTED_IGNORED, unlisted, `(and ${unlisted.toLocaleString('en')} more)`);
  return { fields, ignoredColumns };
}
