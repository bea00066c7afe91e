/**
 * An audit log entry: one change to one record, with the before and after of every field a client
 * can see that it changed (custom fields as `customFields.<key>`; a creation lists the initial values).
 */
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
