/**
 * Merge placeholders (`{{lead.firstName}}`) in step text. Each record type has its own set, plus
 * the workspace's name and the record owner's name; a rule may use only the set of its trigger's
 * record type, so every placeholder it holds has a value to fill (possibly empty) when it runs.
 */
import { RECORD_PLACEHOLDERS, SHARED_PLACEHOLDERS } from '@crm/vocabulary';
import type { RecordType } from './model';

const PATTERN = /\{\{\s*([^{}]*?)\s*\}\}/g;

export function placeholdersFor(recordType: RecordType): string[] {
  return [...RECORD_PLACEHOLDERS[recordType], ...SHARED_PLACEHOLDERS];
}

/** Every placeholder named in `text`, as written between the braces (trimmed). */
export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PATTERN)].map((match) => match[1]!);
}

/** Placeholders in `text` that the record type does not offer. */
export function unknownPlaceholders(text: string, recordType: RecordType): string[] {
  const known = new Set(placeholdersFor(recordType));
  return placeholdersIn(text).filter((name) => !known.has(name));
}

export interface MergeContext {
  recordType: RecordType;
  record: Record<string, unknown>;
  workspace: { name: string };
  owner: { firstName: string; lastName: string; email: string } | null;
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(', ');
  return String(value);
}

/** `text` with each known placeholder filled; an unknown one (which validation refuses) is left as written. */
export function mergePlaceholders(template: string, context: MergeContext): string {
  return template.replace(PATTERN, (whole, name: string) => {
    const [scope, field] = name.split('.', 2);
    if (!field) return whole;
    if (scope === context.recordType && RECORD_PLACEHOLDERS[context.recordType].includes(name)) return text(context.record[field]);
    if (scope === 'workspace' && field === 'name') return context.workspace.name;
    if (scope === 'owner' && SHARED_PLACEHOLDERS.includes(name)) return text(context.owner?.[field as 'firstName' | 'lastName' | 'email']);
    return whole;
  });
}
