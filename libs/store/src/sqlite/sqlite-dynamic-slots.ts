/**
 * The values of a workspace's dynamic fields (a collection's `dynamicFields` sub-documents, such
 * as custom fields) copied into typed columns of a side table, so that filters, counts and
 * orderings on them read small rows and per-column indexes instead of parsing each document.
 *
 * The side table `<collection>__dynamic` has one row per document of a workspace that holds a
 * slot (keyed by workspace and `row`, the document's rowid; `rid` its id, which orders ties) and a
 * hundred columns s0…s99. Each workspace gives each indexed dynamic field the lowest free slot (`__dynamic_slots`), so slot 3 is `customFields.plan`
 * in one workspace and `customFields.region` in another; an index (ws, sN) serves them all. A
 * field without a slot (a workspace past a hundred, or one defined before slots existed) is read
 * from the document, as before: slower, never wrong.
 *
 * The copy holds exactly what json_extract reads from the document (text, numbers, 1/0 for
 * booleans, JSON text for lists), so a condition means the same on either side. Every write of a
 * document rewrites its side row in the same transaction; a slot is filled from the documents in
 * the transaction that assigns it, and emptied in the one that releases it.
 */
import type Database from 'better-sqlite3';
import { CollectionDefinition, Condition } from '../port';
import type { StoredRecord } from '../store-adapter';
import { jsonPath, quoteIdentifier, sideTableName, slotColumn, slotIndexName, SqliteColumns } from './sqlite-columns';
import type { SqlValue } from './sqlite-query';

export const DYNAMIC_SLOTS = 100;
const SLOTS_TABLE = '"__dynamic_slots"';
/** sqlite_stat1 of a slot's index (ws, sN): rows in all, per workspace, per workspace and value. */
const SLOT_INDEX_STATISTICS = '10000000 100000 10';
const SLOT_COLUMNS = Array.from({ length: DYNAMIC_SLOTS }, (_, slot) => slotColumn(slot));

type Prepare = (sql: string) => Database.Statement<any[]>;

/** Whether a collection keeps dynamic fields, and so a side table. */
export function hasDynamicFields(definition: CollectionDefinition<any>): boolean {
  return definition.scope === 'workspace' && (definition.dynamicFields ?? []).length > 0;
}

/** Whether `field` lies in one of the collection's dynamic sub-documents. */
export function isDynamicField(definition: CollectionDefinition<any>, field: string): boolean {
  const dot = field.indexOf('.');
  return dot > 0 && (definition.dynamicFields ?? []).includes(field.slice(0, dot));
}

/** The side table, the slot table and the trigger that deletes a side row with its document (idempotent). */
export function createDynamicSlots(db: Database.Database, definition: CollectionDefinition<any>, columns: SqliteColumns): void {
  if (!hasDynamicFields(definition)) return;
  const side = quoteIdentifier(sideTableName(definition.name));
  // Clustered by workspace: a workspace's rows are one range, read in place by a scan of it.
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${side} (ws TEXT NOT NULL, row INTEGER NOT NULL, rid TEXT NOT NULL, ${SLOT_COLUMNS.join(', ')}, PRIMARY KEY (ws, row)) WITHOUT ROWID`,
  );
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${SLOTS_TABLE} (collection TEXT NOT NULL, workspace_id TEXT NOT NULL, field TEXT NOT NULL, slot INTEGER NOT NULL,` +
      ' PRIMARY KEY (collection, workspace_id, field), UNIQUE (collection, workspace_id, slot)) WITHOUT ROWID',
  );
  db.exec(
    `CREATE TRIGGER IF NOT EXISTS ${quoteIdentifier(`${definition.name}__dynamic__delete`)} AFTER DELETE ON ${columns.table}` +
      ` BEGIN DELETE FROM ${side} WHERE ws = old.workspace_id AND row = old.rowid; END`,
  );
}

/** The workspace's slots of the collection, by field. */
export function slotsOf(prepare: Prepare, collection: string, workspaceId: string): Map<string, number> {
  const rows = prepare(`SELECT field, slot FROM ${SLOTS_TABLE} WHERE collection = ? AND workspace_id = ?`)
    .raw(true)
    .all(collection, workspaceId) as [string, number][];
  return new Map(rows);
}

/** The value json_extract reads at `field` (a dotted path) of the document. */
function extracted(document: StoredRecord, field: string): SqlValue {
  let value: unknown = document;
  for (const segment of field.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    value = (value as Record<string, unknown>)[segment];
  }
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'string') return value;
  return JSON.stringify(value);
}

/**
 * Rewrites the side rows of just-written documents (inside the write's transaction). A document
 * of a workspace without slots has none.
 */
export function writeSideRows(
  prepare: Prepare,
  c: { definition: CollectionDefinition<any>; columns: SqliteColumns },
  documents: StoredRecord[],
): void {
  if (!hasDynamicFields(c.definition)) return;
  const name = c.definition.name;
  const slotsByWorkspace = new Map<string, Map<string, number>>();
  let write: Database.Statement<any[]> | undefined;
  for (const document of documents) {
    const workspaceId = document.workspaceId as string;
    let slots = slotsByWorkspace.get(workspaceId);
    if (!slots) slotsByWorkspace.set(workspaceId, (slots = slotsOf(prepare, name, workspaceId)));
    if (slots.size === 0) continue;
    write ??= prepare(
      `INSERT OR REPLACE INTO ${quoteIdentifier(sideTableName(name))} (row, rid, ws, ${SLOT_COLUMNS.join(', ')})` +
        ` VALUES ((SELECT rowid FROM ${c.columns.table} WHERE id = ?), ?, ?, ${SLOT_COLUMNS.map(() => '?').join(', ')})`,
    );
    const values = new Array<SqlValue>(DYNAMIC_SLOTS).fill(null);
    for (const [field, slot] of slots) values[slot] = extracted(document, field);
    write.run(document.id, document.id, workspaceId, ...values);
  }
}

/**
 * Gives the workspace's field a slot, if it has none and one is free, filled from its documents
 * (inside a write transaction). Returns the slot, or undefined when all are taken.
 */
export function assignSlot(
  db: Database.Database,
  prepare: Prepare,
  c: { definition: CollectionDefinition<any>; columns: SqliteColumns },
  workspaceId: string,
  field: string,
): number | undefined {
  const name = c.definition.name;
  const slots = slotsOf(prepare, name, workspaceId);
  const held = slots.get(field);
  if (held !== undefined) return held;
  const taken = new Set(slots.values());
  const slot = SLOT_COLUMNS.findIndex((_, n) => !taken.has(n));
  if (slot < 0) return undefined;
  const side = quoteIdentifier(sideTableName(name));
  const column = slotColumn(slot);
  prepare(`INSERT INTO ${SLOTS_TABLE} (collection, workspace_id, field, slot) VALUES (?, ?, ?, ?)`).run(name, workspaceId, field, slot);
  const index = slotIndexName(name, slot);
  db.exec(`CREATE INDEX IF NOT EXISTS ${quoteIdentifier(index)} ON ${side} (ws, ${column})`);
  // What the planner is told of it, as of the collection's own indexes (sqlite-schema.ts): a
  // workspace holds many documents, one value of a slot few.
  prepare('DELETE FROM sqlite_stat1 WHERE tbl = ? AND idx = ?').run(sideTableName(name), index);
  prepare('INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)').run(sideTableName(name), index, SLOT_INDEX_STATISTICS);
  // The workspace's first slot gives each of its documents a side row; every slot is then filled.
  prepare(`INSERT OR IGNORE INTO ${side} (row, rid, ws) SELECT rowid, id, workspace_id FROM ${c.columns.table} WHERE workspace_id = ?`).run(
    workspaceId,
  );
  prepare(
    `UPDATE ${side} SET ${column} = (SELECT json_extract(doc, ${jsonPath(field)}) FROM ${c.columns.table} WHERE rowid = ${side}.row) WHERE ws = ?`,
  ).run(workspaceId);
  return slot;
}

/** Frees the workspace's slot of the field, emptied (inside a write transaction). */
export function releaseSlot(prepare: Prepare, definition: CollectionDefinition<any>, workspaceId: string, field: string): void {
  const name = definition.name;
  const slot = slotsOf(prepare, name, workspaceId).get(field);
  if (slot === undefined) return;
  prepare(`UPDATE ${quoteIdentifier(sideTableName(name))} SET ${slotColumn(slot)} = NULL WHERE ws = ?`).run(workspaceId);
  prepare(`DELETE FROM ${SLOTS_TABLE} WHERE collection = ? AND workspace_id = ? AND field = ?`).run(name, workspaceId, field);
}

/** Whether any workspace still holds a slot for the field. */
export function fieldHasSlots(prepare: Prepare, collection: string, field: string): boolean {
  return prepare(`SELECT 1 FROM ${SLOTS_TABLE} WHERE collection = ? AND field = ? LIMIT 1`).pluck(true).get(collection, field) === 1;
}

/** Every field a condition list names, at any depth. */
export function namedFields(where: Condition[], into: Set<string>): Set<string> {
  for (const c of where) {
    if ('or' in c) for (const group of c.or) namedFields(group, into);
    else if ('not' in c) namedFields(c.not, into);
    else into.add(c.field);
  }
  return into;
}
