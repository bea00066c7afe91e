/**
 * Creates (idempotently, at every start) a collection's table, its generated columns and its
 * indexes, and brings them up to date when the definition gains fields or indexes.
 */
import type Database from 'better-sqlite3';
import { CollectionDefinition } from '../port';
import { indexedFields, indexLayouts, IndexLayout } from '../index-layout';
import { createTextIndexes } from './sqlite-text-index';
import { textSearchFields } from '../text-search-fields';
import { createWorkspaceCounts } from './sqlite-workspace-counts';
import { createDynamicSlots } from './sqlite-dynamic-slots';
import { generatedColumnName, jsonPath, quoteIdentifier, SqliteColumns } from './sqlite-columns';

export interface SqliteCollection {
  definition: CollectionDefinition<any>;
  columns: SqliteColumns;
  /** The declared fields of each unique index, keyed by the columns SQLite names in its error. */
  uniqueFieldsByColumns: Map<string, string[]>;
  uniqueFieldsByIndexName: Map<string, string[]>;
}

function columnsKey(columns: string[]): string {
  return columns.join(',');
}

/** Prepares (or reuses) a statement that is never garbage-collected (see keep-alive.ts). */
export type Prepare = (sql: string) => Database.Statement<any[]>;

/**
 * The collection's indexes on SQLite: the adapters' layouts (index-layout.ts) but the B-tree of a
 * `textSearch` field's whole values. Its text index answers every search of the field (trigrams,
 * and for a short needle its values table), and a B-tree over long, varied values cost each
 * insert more than the trigrams did. Without it, 50,000 realistic contacts in commits of 250 went
 * in 32-54 % faster, and the import in `npm start` 11-14 % (alternating builds).
 */
export function sqliteIndexLayouts(definition: CollectionDefinition<any>): IndexLayout[] {
  const searched = textSearchFields(definition);
  return indexLayouts(definition).filter((layout) => !(layout.forField && searched.includes(layout.declared[0]!)));
}

export function createCollectionSchema(db: Database.Database, definition: CollectionDefinition<any>, prepare: Prepare): SqliteCollection {
  const columns = new SqliteColumns(definition);
  const table = columns.table;
  const layouts = sqliteIndexLayouts(definition);

  // One write transaction, so processes starting together do not race to add the same column.
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, workspace_id TEXT, doc TEXT NOT NULL)`);
    const existing = new Set((prepare(`PRAGMA table_xinfo(${table})`).pluck(false).all() as { name: string }[]).map((c) => c.name));
    for (const field of indexedFields(definition)) {
      const name = generatedColumnName(field);
      if (existing.has(name)) continue;
      // No declared type: the column keeps json_extract's own types (no affinity conversion).
      db.exec(
        `ALTER TABLE ${table} ADD COLUMN ${quoteIdentifier(name)} GENERATED ALWAYS AS (json_extract(doc, ${jsonPath(field)})) VIRTUAL`,
      );
    }
    const wanted = new Set(layouts.map((l) => l.name));
    const current = prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`)
      .pluck(true)
      .all(definition.name) as string[];
    for (const name of current) {
      // Only indexes this module named are ours to drop (a removed or changed definition); the
      // expression indexes earlier versions made for dynamic fields go with their last workspace's
      // slot (SqliteStoreAdapter.dropFieldIndex).
      const dynamic = name.startsWith(dynamicIndexName(definition.name, ''));
      if (name.startsWith(`${definition.name}__`) && !wanted.has(name) && !dynamic) db.exec(`DROP INDEX ${quoteIdentifier(name)}`);
    }
    for (const layout of layouts) db.exec(createIndexSql(layout, columns));
    createTextIndexes(db, definition, columns, prepare);
    createWorkspaceCounts(db, definition, columns, prepare);
    createDynamicSlots(db, definition, columns);
    seedPlannerStatistics(db, prepare, definition.name, layouts, definition.scope === 'workspace');
  }).immediate();
  // Makes the planner read the statistics just written.
  db.exec('ANALYZE sqlite_schema');
  return describeCollection(definition, columns, layouts);
}

/** What the adapter needs to know of a collection whose schema is in place (a reader's connection makes none). */
export function describeCollection(
  definition: CollectionDefinition<any>,
  columns = new SqliteColumns(definition),
  layouts: readonly IndexLayout[] = sqliteIndexLayouts(definition),
): SqliteCollection {
  const uniqueFieldsByColumns = new Map<string, string[]>([[columnsKey(['id']), ['id']]]);
  const uniqueFieldsByIndexName = new Map<string, string[]>();
  for (const layout of layouts.filter((l) => l.unique)) {
    const names = layout.keys.map((key) => physicalColumnName(key, columns));
    uniqueFieldsByColumns.set(columnsKey(names), layout.declared);
    uniqueFieldsByIndexName.set(layout.name, layout.declared);
  }
  return { definition, columns, uniqueFieldsByColumns, uniqueFieldsByIndexName };
}

/** The name of a dynamic field's index (`contacts__field__customFields_plan`). */
export function dynamicIndexName(collection: string, field: string): string {
  return `${collection}__field__${field.replace(/\./g, '_')}`;
}

/** Rows the planner is told a collection, a workspace and one value of a further key column hold. */
const PLANNED_ROWS = { collection: 10_000_000, workspace: 100_000, perStep: 10_000 };
const ENTRY_BYTES_PER_KEY = 20;

/**
 * Without statistics SQLite guesses that `workspace_id = ?` matches about ten rows, so it scans a
 * whole workspace through (workspaceId, id) rather than make 500 lookups for `emailKey IN (...)`:
 * a scan that grows with the workspace. Statistics for the shape every collection has (many rows
 * per workspace, few per further key) are written at every start instead of measured by ANALYZE,
 * whose figures from a small table would mislead the planner once that table grows.
 */
function seedPlannerStatistics(db: Database.Database, prepare: Prepare, table: string, layouts: IndexLayout[], inWorkspace: boolean): void {
  const hasStatistics =
    prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'`).pluck(true).get() !== undefined;
  // Only ANALYZE creates sqlite_stat1; it runs once per database, on whichever collection comes first.
  if (!hasStatistics) db.exec(`ANALYZE ${quoteIdentifier(table)}`);
  prepare('DELETE FROM sqlite_stat1 WHERE tbl = ?').run(table);
  const insert = prepare('INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)');
  for (const layout of layouts) {
    let rows: number = PLANNED_ROWS.collection;
    const perPrefix = layout.keys.map((key, i) => {
      const last = i === layout.keys.length - 1;
      if (last && (layout.unique || key === 'id')) rows = 1;
      else if (i === 0 && inWorkspace && key === 'workspaceId') rows = PLANNED_ROWS.workspace;
      else rows = Math.max(1, Math.floor(rows / PLANNED_ROWS.perStep));
      return rows;
    });
    // sz: relative entry size. Without it every index looks as wide as every other, and a count
    // over a workspace could walk the widest one (searchText) instead of (workspaceId, id).
    insert.run(table, layout.name, `${[PLANNED_ROWS.collection, ...perPrefix].join(' ')} sz=${layout.keys.length * ENTRY_BYTES_PER_KEY}`);
  }
}

/** The column name as SQLite reports it in a constraint error (unquoted). */
function physicalColumnName(field: string, columns: SqliteColumns): string {
  const expression = columns.expression(field);
  return expression.startsWith('"') ? expression.slice(1, -1).replace(/""/g, '"') : expression;
}

function createIndexSql(layout: IndexLayout, columns: SqliteColumns): string {
  const keys = layout.keys.map((key) => columns.expression(key)).join(', ');
  const partial =
    layout.sparseFields.length > 0 ? ` WHERE ${layout.sparseFields.map((f) => `${columns.expression(f)} IS NOT NULL`).join(' AND ')}` : '';
  return `CREATE ${layout.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${quoteIdentifier(layout.name)} ON ${columns.table} (${keys})${partial}`;
}

/** The declared fields behind a SQLite unique-constraint message, when they can be told. */
export function duplicateFields(collection: SqliteCollection, message: string): string[] | undefined {
  const indexName = /index '([^']+)'/.exec(message)?.[1];
  if (indexName) return collection.uniqueFieldsByIndexName.get(indexName);
  const listed = /constraint failed: (.*)$/.exec(message)?.[1];
  if (!listed) return undefined;
  const prefix = `${collection.definition.name}.`;
  const names = listed.split(', ').map((item) => (item.startsWith(prefix) ? item.slice(prefix.length) : item));
  return collection.uniqueFieldsByColumns.get(columnsKey(names));
}
