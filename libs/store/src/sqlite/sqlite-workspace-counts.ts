/**
 * How many documents each workspace holds in each collection, kept by triggers, so the count of
 * an unfiltered list is one lookup instead of a walk over the workspace's whole index (100,000
 * entries for a large workspace: most of what an unfiltered list page cost). Triggers keep it
 * right for every write path and every process sharing the file; a file opened for the first
 * time since the counts came in gets them counted at open.
 */
import type Database from 'better-sqlite3';
import { CollectionDefinition, Condition, isFieldCondition } from '../port';
import { SqliteColumns } from './sqlite-columns';

const COUNTS_TABLE = 'store_workspace_counts';

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
      ' PRIMARY KEY (collection, workspace_id)) WITHOUT ROWID',
  );
  const trigger = (event: string) => `"${definition.name}__count__${event}"`;
  const exists = prepare(`SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?`)
    .pluck(true)
    .get(`${definition.name}__count__insert`);
  if (exists) return;
  // The name passed assertCollectionName (SqliteColumns), so it may be spliced as a literal.
  const name = `'${definition.name}'`;
  const table = columns.table;
  const add = `INSERT INTO ${COUNTS_TABLE} (collection, workspace_id, n) SELECT ${name}, new.workspace_id, 1 WHERE new.workspace_id IS NOT NULL ON CONFLICT DO UPDATE SET n = n + 1;`;
  const remove = `UPDATE ${COUNTS_TABLE} SET n = n - 1 WHERE collection = ${name} AND workspace_id = old.workspace_id;`;
  db.exec(`CREATE TRIGGER ${trigger('insert')} AFTER INSERT ON ${table} BEGIN ${add} END`);
  db.exec(`CREATE TRIGGER ${trigger('delete')} AFTER DELETE ON ${table} BEGIN ${remove} END`);
  db.exec(
    `CREATE TRIGGER ${trigger('update')} AFTER UPDATE OF workspace_id ON ${table} WHEN old.workspace_id IS NOT new.workspace_id BEGIN ${remove} ${add} END`,
  );
  prepare(`DELETE FROM ${COUNTS_TABLE} WHERE collection = ?`).run(definition.name);
  db.exec(
    `INSERT INTO ${COUNTS_TABLE} (collection, workspace_id, n) SELECT ${name}, workspace_id, count(*) FROM ${table} WHERE workspace_id IS NOT NULL GROUP BY workspace_id`,
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
