/**
 * An audit log entry: one change to one record, with the before and after of every field a client
 * can see that it changed (custom fields as `customFields.<key>`; a creation lists the initial values).
 *
 * A bulk creation's entries (an import batch's) are stored as one group: a row with what they share
 * (time, action, kind, actor, request) and each record's id and initial values, expanded into
 * entries when read. One row instead of hundreds is what keeps the import's audit cost within its
 * aim (issue 33).
 */
import { jsonLengthEstimate } from '@crm/vocabulary';
import type { RecordType } from './model';

export const AUDIT_ACTIONS = ['created', 'updated', 'deleted', 'merged', 'converted', 'imported', 'erased'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_ACTOR_TYPES = ['user', 'apiKey', 'system'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

export type FieldChanges = Record<string, { from: unknown; to: unknown }>;

export interface AuditEntryDocument {
  id: string;
  workspaceId: string;
  occurredAt: string;
  action: AuditAction;
  recordKind: RecordType;
  recordId: string;
  actorType: AuditActorType;
  actorId: string;
  requestId: string;
  changes: FieldChanges;
  /**
   * On a record's last entry (its deletion, merge or erasure): the group holding its creation, so
   * its history still finds that entry once the record, which named the group, is gone.
   */
  importedIn?: string;
}

/**
 * The row standing for a bulk creation's entries in the log: what they share, listed, filtered and
 * counted like an entry (its empty recordId marks it), while their records' ids and initial values
 * are kept beside it in one AuditGroupEntries document of the same id.
 */
export interface AuditGroupDocument extends Omit<AuditEntryDocument, 'recordId' | 'changes' | 'importedIn'> {
  recordId: '';
  /** Entries beyond the first: what a count of rows adds up to a count of entries. */
  extra: number;
}

/** A group's entries: each record's id and initial values (its changes, all from null), in the order they were written. */
export interface AuditGroupEntries {
  id: string;
  workspaceId: string;
  /** The group's time, for retention. */
  occurredAt: string;
  entries: { recordId: string; values: InitialValues }[];
  /** Moved by every rewrite (an erasure's blanking), so two rewrites cannot overwrite each other. */
  revision: number;
}

/** What the audit log lists: an entry, or the row of a group of them. */
export type AuditRow = AuditEntryDocument | AuditGroupDocument;

/** The recordId of a group's row: no record has it. */
export const GROUP_RECORD_ID = '';

export function isGroup(row: AuditRow): row is AuditGroupDocument {
  return row.recordId === GROUP_RECORD_ID;
}

/** Entries per group: what the four digits of an entry's index hold. */
export const GROUP_ENTRIES_MAX = 10_000;

/**
 * The JSON characters of a group's values, at most: a batch of long rows makes several groups,
 * each far below MongoDB's 16 MB document (a batch's own rows may add up to several MB).
 */
export const GROUP_BYTES_MAX = 4 * 1024 * 1024;

/**
 * A grouped entry's id: its group's id, a dot and its index. Ids are of one length and '.' sorts
 * below their every character, so a group's entries sort together, right after the group's own id.
 */
export function groupEntryId(groupId: string, index: number): string {
  return `${groupId}.${String(index).padStart(4, '0')}`;
}

/** A creation's changes without their `from` (always null): each visible field that holds something. */
export type InitialValues = Record<string, unknown>;

/**
 * A record's initial values, and about the JSON characters they take (each string's length,
 * escapes aside, and a few for other values and punctuation), counted without serializing them.
 * The same fields, in the same order, as fieldChanges(null, record).
 */
export function initialValues(record: object): { values: InitialValues; size: number } {
  const values: InitialValues = {};
  let size = 2;
  const add = (field: string, value: unknown) => {
    values[field] = value;
    size += field.length + 4 + jsonLengthEstimate(value);
  };
  for (const [field, value] of Object.entries(record)) {
    if (HIDDEN.has(field) || isEmpty(value)) continue;
    if (field === 'customFields' && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value as Record<string, unknown>)) if (!isEmpty(inner)) add(`customFields.${key}`, inner);
    } else add(field, value);
  }
  return { values, size };
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** Whether an entry's id is a grouped entry's (groupEntryId), stored in its group rather than as a row. */
export function isGroupedEntryId(id: string): boolean {
  return id.includes('.');
}

/** A group's entries as entries, newest first (by id, descending, as the log lists ties). */
export function groupEntries(group: AuditGroupDocument, stored: AuditGroupEntries | undefined): AuditEntryDocument[] {
  const { extra: _extra, ...shared } = group;
  const entries = stored?.entries ?? [];
  const out: AuditEntryDocument[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const { recordId, values } = entries[i]!;
    const changes: FieldChanges = {};
    for (const field in values) changes[field] = { from: null, to: values[field] };
    out.push({ ...shared, id: groupEntryId(group.id, i), recordId, changes });
  }
  return out;
}

/** What an erasure leaves of a value that held the person's data. */
export const ERASED = '[erased]';

/** Stored fields no client sees, or that every write sets or derives: never a change in themselves. */
const HIDDEN = new Set([
  'id',
  'workspaceId',
  'version',
  'createdAt',
  'updatedAt',
  'searchText',
  'fullName',
  'emailKey',
  'importEmailKey',
  'emailClaimKey',
  'auditGroup',
]);

/** The visible fields of a record, custom fields flattened to `customFields.<key>`. */
function flatten(record: object | null): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  for (const [field, value] of Object.entries(record ?? {})) {
    if (HIDDEN.has(field) || value === undefined) continue;
    if (field === 'customFields' && value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value as Record<string, unknown>)) fields.set(`customFields.${key}`, inner ?? null);
    } else fields.set(field, value);
  }
  return fields;
}

/**
 * Every visible field whose value differs between `before` and `after` (null for a record that
 * does not exist on that side): a creation's initial values, a deletion's last ones.
 */
export function fieldChanges(before: object | null, after: object | null): FieldChanges {
  const from = flatten(before);
  const to = flatten(after);
  const changes: FieldChanges = {};
  for (const field of new Set([...from.keys(), ...to.keys()])) {
    const a = from.get(field) ?? null;
    const b = to.get(field) ?? null;
    if (before === null && (b === null || b === '' || (Array.isArray(b) && b.length === 0))) continue;
    if (after === null && (a === null || a === '' || (Array.isArray(a) && a.length === 0))) continue;
    if (!same(a, b)) changes[field] = { from: a, to: b };
  }
  return changes;
}

/** Initial values, each replaced by ERASED (every one held something). */
export function erasedValues(values: InitialValues): InitialValues {
  return Object.fromEntries(Object.keys(values).map((field) => [field, ERASED]));
}

/** The same changes with every value replaced by ERASED (null stays null: it held nothing). */
export function erasedChanges(changes: FieldChanges): FieldChanges {
  const blank = (value: unknown) => (value === null ? null : ERASED);
  return Object.fromEntries(Object.entries(changes).map(([field, c]) => [field, { from: blank(c.from), to: blank(c.to) }]));
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
