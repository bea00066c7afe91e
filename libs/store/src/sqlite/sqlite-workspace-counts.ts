/**
 * How many documents each workspace holds in each collection, kept by triggers, so the count of
 * an unfiltered list is one lookup instead of a walk over the workspace's whole index (100,000
 * entries for a large workspace: most of what an unfiltered list page cost). Triggers keep it
 * right through every delete and update, the adapter through every insert (sqlite-insert-upkeep.ts),
 * whichever process writes; a file opened for the first time since the counts came in gets them
 * counted at open.
 *
 * Beside each count, the version of the workspace's documents of the collection: every insert,
 * update and delete moves it, so an answer read at one version (a filtered count, an aggregate:
 * kept-answers.ts) stands for as long as the version does.
 *
 * So that a count outlives inserts (kept-counts.ts), two more: `changes`, moved by every update,
 * delete and move between workspaces but not by an insert; and per collection, in
 * TOPS_TABLE, how many times the table's highest row was deleted. While both stand, the workspace's
 * documents are those counted plus those with a rowid above the table's highest at the count: a
 * new row takes a rowid above the table's highest, which can only have dropped below that mark by a
 * delete of the highest row. (SQLite picks a rowid at random only once a table has used 2^63.)
 */
import type Database from 'better-sqlite3';
import { CollectionDefinition, Condition, isFieldCondition } from '../port';
import { quoteIdentifier, SqliteColumns } from './sqlite-columns';

const COUNTS_TABLE = 'store_workspace_counts';
const TOPS_TABLE = 'store_removed_tops';

/** Creates the count triggers of a workspace collection (counting it once, when they are new). Runs inside the schema transaction. */
export function createWorkspaceCounts(
  db: Database.Database,
  definition: CollectionDefinition<any>,
  columns: SqliteColumns,
  prepare: (sql: string) => Database.Statement<any[]>,
): void {
  if (definition.scope !== 'workspace') return;
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${COUNTS_TABLE} (collection TEXT NOT NULL, workspace_id TEXT NOT NULL, n INTEGER NOT NULL,` +
      ' version INTEGER NOT NULL DEFAULT 0, changes INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (collection, workspace_id)) WITHOUT ROWID',
  );
  db.exec(`CREATE TABLE IF NOT EXISTS ${TOPS_TABLE} (collection TEXT NOT NULL PRIMARY KEY, removed INTEGER NOT NULL) WITHOUT ROWID`);
  const held = prepare(`SELECT name FROM pragma_table_info('${COUNTS_TABLE}')`).pluck(true).all() as string[];
  for (const column of ['version', 'changes']) {
    if (!held.includes(column)) db.exec(`ALTER TABLE ${COUNTS_TABLE} ADD COLUMN ${column} INTEGER NOT NULL DEFAULT 0`);
  }
  const trigger = (event: string) => `${definition.name}__count__${event}`;
  // Inserts are counted by the adapter (sqlite-insert-upkeep.ts); an earlier release's trigger goes.
  db.exec(`DROP TRIGGER IF EXISTS ${quoteIdentifier(trigger('insert'))}`);
  const names = ['delete', 'update', 'changed', 'top'].map(trigger);
  const triggers = prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?, ?)`).all(...names) as {
    name: string;
    sql: string;
  }[];
  // This release's triggers move `changes`; earlier ones are made again and the workspaces counted anew.
  if (triggers.length === names.length && triggers.every((t) => t.name !== trigger('delete') || t.sql.includes('changes = changes + 1'))) {
    return;
  }
  for (const { name } of triggers) db.exec(`DROP TRIGGER ${quoteIdentifier(name)}`);
  // The name passed assertCollectionName (SqliteColumns), so it may be spliced as a literal.
  const name = `'${definition.name}'`;
  const table = columns.table;
  const add = `INSERT INTO ${COUNTS_TABLE} (collection, workspace_id, n, version) SELECT ${name}, new.workspace_id, 1, 1 WHERE new.workspace_id IS NOT NULL ON CONFLICT DO UPDATE SET n = n + 1, version = version + 1;`;
  const remove = `UPDATE ${COUNTS_TABLE} SET n = n - 1, version = version + 1, changes = changes + 1 WHERE collection = ${name} AND workspace_id = old.workspace_id;`;
  const changed = `UPDATE ${COUNTS_TABLE} SET version = version + 1, changes = changes + 1 WHERE collection = ${name} AND workspace_id = new.workspace_id;`;
  db.exec(`CREATE TRIGGER ${quoteIdentifier(trigger('delete'))} AFTER DELETE ON ${table} BEGIN ${remove} END`);
  db.exec(
    `CREATE TRIGGER ${quoteIdentifier(trigger('top'))} AFTER DELETE ON ${table} WHEN old.rowid > coalesce((SELECT max(rowid) FROM ${table}), 0)` +
      ` BEGIN UPDATE ${TOPS_TABLE} SET removed = removed + 1 WHERE collection = ${name}; END`,
  );
  // A document moved in keeps its rowid, below the mark of a kept count: a change, not an insert.
  db.exec(
    `CREATE TRIGGER ${quoteIdentifier(trigger('update'))} AFTER UPDATE OF workspace_id ON ${table} WHEN old.workspace_id IS NOT new.workspace_id BEGIN ${remove} ${add} ${changed} END`,
  );
  db.exec(
    `CREATE TRIGGER ${quoteIdentifier(trigger('changed'))} AFTER UPDATE ON ${table} WHEN old.workspace_id IS new.workspace_id BEGIN ${changed} END`,
  );
  // Counted anew, the versions from the clock: past any an earlier answer could have been kept at.
  const clock = `CAST(unixepoch('subsec') * 1000 AS INTEGER)`;
  prepare(`DELETE FROM ${COUNTS_TABLE} WHERE collection = ?`).run(definition.name);
  db.exec(
    `INSERT INTO ${COUNTS_TABLE} (collection, workspace_id, n, version, changes) SELECT ${name}, workspace_id, count(*), ${clock}, ${clock}` +
      ` FROM ${table} WHERE workspace_id IS NOT NULL GROUP BY workspace_id`,
  );
  db.exec(
    `INSERT INTO ${TOPS_TABLE} (collection, removed) VALUES (${name}, ${clock}) ON CONFLICT DO UPDATE SET removed = excluded.removed`,
  );
}

/**
 * What inserting n documents of a workspace adds to its count (two parameters: the workspace id,
 * n), for a collection that keeps counts: run by the adapter after each insert statement.
 */
export function countInsertsStatement(definition: CollectionDefinition<any>): string | undefined {
  if (definition.scope !== 'workspace') return undefined;
  return (
    `INSERT INTO ${COUNTS_TABLE} (collection, workspace_id, n, version) VALUES ('${definition.name}', ?, ?, 1)` +
    ' ON CONFLICT DO UPDATE SET n = n + excluded.n, version = version + 1'
  );
}

/** The count of a whole workspace's collection from the kept counts, when `where` asks for exactly that. */
export function workspaceCountSql(where: Condition[], columns: SqliteColumns): { sql: string; params: string[] } | undefined {
  const only = where.length === 1 ? where[0] : undefined;
  if (!only || !isFieldCondition(only) || only.op !== 'eq' || only.field !== 'workspaceId' || typeof only.value !== 'string')
    return undefined;
  if (columns.expression('workspaceId') !== 'workspace_id') return undefined;
  return {
    sql: `SELECT coalesce((SELECT n FROM ${COUNTS_TABLE} WHERE collection = ? AND workspace_id = ?), 0)`,
    params: [columns.collection, only.value],
  };
}

/**
 * The version of the workspace's documents of the collection (0 before its first), when `where`
 * names one workspace: the key under which an answer over exactly these documents may be kept.
 */
export function workspaceVersionSql(where: Condition[], columns: SqliteColumns): { sql: string; params: string[] } | undefined {
  const scope = where.find((c) => isFieldCondition(c) && c.field === 'workspaceId' && c.op === 'eq');
  if (!scope || !isFieldCondition(scope) || scope.op !== 'eq' || typeof scope.value !== 'string') return undefined;
  if (columns.expression('workspaceId') !== 'workspace_id') return undefined;
  return {
    sql: `SELECT coalesce((SELECT version FROM ${COUNTS_TABLE} WHERE collection = ? AND workspace_id = ?), 0)`,
    params: [columns.collection, scope.value],
  };
}

/**
 * The stamp of a kept count (kept-counts.ts) of the one workspace `where` names: its `version` and
 * `changes` (0 before its first document), the collection's removed tops and its highest rowid.
 */
export function workspaceStampSql(where: Condition[], columns: SqliteColumns): { sql: string; params: string[] } | undefined {
  const version = workspaceVersionSql(where, columns);
  if (!version) return undefined;
  return {
    sql:
      `SELECT coalesce(max(version), 0), coalesce(max(changes), 0),` +
      ` (SELECT coalesce(max(removed), 0) FROM ${TOPS_TABLE} WHERE collection = ?), (SELECT coalesce(max(rowid), 0) FROM ${columns.table})` +
      ` FROM ${COUNTS_TABLE} WHERE collection = ? AND workspace_id = ?`,
    params: [version.params[0]!, ...version.params],
  };
}
