/**
 * Which column of a file fills which contact field: recognised headers, then the workspace's
 * custom fields named by their key or label, then the caller's `field_mappings` (which win over
 * both), and the columns left over, which are ignored and reported.
 */
import { DomainError } from '@crm/observability';
import { IMPORT_FIELDS, normaliseHeader, recogniseHeader, type ImportField } from './contact-fields';
import { CUSTOM_FIELDS_PREFIX } from '@crm/vocabulary';
import { customTarget, isCustomTarget, NO_CUSTOM_FIELDS, type CustomFieldCatalog, type CustomFieldTarget } from './custom-fields';

/** What a column fills: a built-in contact field or a custom field (`customFields.<key>`). */
export type ColumnTarget = ImportField | CustomFieldTarget;

/** CSV header → contact field (built-in or `customFields.<key>`), or null to ignore the column on purpose. */
export type FieldMappings = Record<string, ColumnTarget | null>;

export interface ColumnPlan {
  /** Column index → field; columns not in the map are ignored. */
  fields: Map<number, ColumnTarget>;
  /**
   * Headers of the ignored columns, as written in the file (blank ones as `(column N)`): the first
   * MAX_LISTED_IGNORED, then `(and N more)`, so that a file of thousands of columns keeps its job small.
   */
  ignoredColumns: string[];
}

const MAX_REPORTED_HEADER = 100;

const MAPPINGS_HELP = `field_mappings must be a JSON object mapping CSV column headers to contact fields (${IMPORT_FIELDS.join(', ')}, or ${CUSTOM_FIELDS_PREFIX}<key> for a custom field), e.g. {"E-mail 2": "email"}.`;

/**
 * Reads the `field_mappings` form field; any problem is a 400 that says what is expected. A
 * `customFields.<key>` target is kept as written: `resolveCustomTargets` checks it against the
 * workspace's fields (only callers that map custom fields need to read them).
 */
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
    const trimmed = target.trim();
    if (trimmed.toLowerCase().startsWith(CUSTOM_FIELDS_PREFIX.toLowerCase())) {
      const key = trimmed.slice(CUSTOM_FIELDS_PREFIX.length).trim();
      if (key === '') throw notAField(header, target);
      mappings[header] = customTarget(key);
      continue;
    }
    const field = (IMPORT_FIELDS as readonly string[]).includes(target) ? (target as ImportField) : recogniseHeader(target);
    if (!field) throw notAField(header, target);
    mappings[header] = field;
  }
  return mappings;
}

function notAField(header: string, target: string): DomainError {
  return DomainError.invalid(`field_mappings["${header}"]: "${clipped(target)}" is not a contact field. ${MAPPINGS_HELP}`);
}

function clipped(text: string): string {
  return text.length > MAX_REPORTED_HEADER ? `${text.slice(0, MAX_REPORTED_HEADER)}…` : text;
}

/** Whether any mapping names a custom field (so the workspace's fields must be read to check it). */
export function mapsCustomFields(mappings: FieldMappings): boolean {
  return Object.values(mappings).some((target) => target !== null && isCustomTarget(target));
}

/**
 * The mappings with each `customFields.<key>` target checked against the workspace's custom fields
 * (a key differing only in case is taken as the field's own); an unknown one is refused like an
 * unknown built-in target.
 */
export function resolveCustomTargets(mappings: FieldMappings, customFields: CustomFieldCatalog): FieldMappings {
  const resolved: FieldMappings = {};
  for (const [header, target] of Object.entries(mappings)) {
    if (target === null || !isCustomTarget(target)) {
      resolved[header] = target;
      continue;
    }
    const known = customFields.target(target);
    if (!known) throw notAField(header, target);
    resolved[header] = known;
  }
  return resolved;
}

export const MAX_LISTED_IGNORED = 10;

function shown(header: string, index: number): string {
  const trimmed = header.trim();
  if (!trimmed) return `(column ${index + 1})`;
  return trimmed.length > MAX_REPORTED_HEADER ? `${trimmed.slice(0, MAX_REPORTED_HEADER)}…` : trimmed;
}

/**
 * Plans the columns of a header row. A column is what `field_mappings` says, else the built-in
 * field its header names (built-in names win over a custom field's key or label), else the custom
 * field whose key or label the header is (trimmed, case-insensitive). A field that field_mappings
 * gives to a column of the file is that column's alone; a field two headers name goes to the first,
 * and the second is ignored and reported, unless its header also names a custom field, which it
 * then fills (`Email`, then `Work Email` with a custom field labelled so).
 * Throws a DomainError with a message for the job's errorMessage when no column gives the email,
 * or when `field_mappings` names a custom field the workspace does not have (any more).
 */
/**
 * Whether planning these headers may need the workspace's custom fields: a mapping to one, a
 * header no built-in field or mapping takes, or a built-in field named twice (the second header
 * may be a custom field's label). A file of built-in columns is planned without them.
 */
export function needsCustomFields(headers: string[], mappings: FieldMappings): boolean {
  if (Object.values(mappings).some((target) => typeof target === 'string' && isCustomTarget(target))) return true;
  const mapped = new Set(Object.keys(mappings).map((header) => normaliseHeader(header)));
  const named = new Set<string>();
  for (const header of headers) {
    if (mapped.has(normaliseHeader(header))) continue;
    const field = recogniseHeader(header);
    if (!field || named.has(field)) return true;
    named.add(field);
  }
  return false;
}

export function planColumns(headers: string[], mappings: FieldMappings, customFields: CustomFieldCatalog = NO_CUSTOM_FIELDS): ColumnPlan {
  const mappingByNormalised = new Map<string, ColumnTarget | null>();
  for (const [header, field] of Object.entries(mappings)) {
    mappingByNormalised.set(header.trim(), field);
    mappingByNormalised.set(`~${normaliseHeader(header)}`, field);
  }
  const fields = new Map<number, ColumnTarget>();
  const taken = new Set<ColumnTarget>();
  const ignoredColumns: string[] = [];
  const named = (header: string): ColumnTarget | undefined => {
    const custom = customFields.byHeader(header);
    return custom ? customTarget(custom.key) : undefined;
  };
  const mappingOf = (header: string): ColumnTarget | null | undefined => {
    const exact = mappingByNormalised.get(header.trim());
    return exact !== undefined ? exact : mappingByNormalised.get(`~${normaliseHeader(header)}`);
  };
  // Fields field_mappings gives to a column of this file: a header merely named like one does not take it.
  const mappedHere = new Set<string>();
  for (const header of headers) {
    const mapped = mappingOf(header);
    if (mapped) mappedHere.add(mapped);
  }
  const free = (field: ColumnTarget | undefined) => (field && !taken.has(field) && !mappedHere.has(field) ? field : undefined);
  headers.forEach((header, index) => {
    const mapped = mappingOf(header);
    let field: ColumnTarget | null | undefined;
    if (mapped === undefined) field = free(recogniseHeader(header)) ?? free(named(header));
    else if (mapped !== null && isCustomTarget(mapped)) {
      field = customFields.target(mapped);
      if (!field) {
        throw DomainError.invalid(
          `field_mappings maps the column "${shown(header, index)}" to "${clipped(mapped)}", but this workspace has no such contact custom field (any more).`,
        );
      }
    } else field = mapped;
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
