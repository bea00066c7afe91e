/**
 * Substring search without a scan of the documents: each of a collection's `textSearch` fields
 * gets an FTS5 table with the trigram tokenizer (SQLite ≥ 3.34) and a table of its lowered values,
 * both keyed by the collection row's rowid and kept in step with the row: by triggers through
 * updates and deletes, by the adapter after each insert (sqlite-insert-upkeep.ts: an insert
 * trigger slowed every index of the table), whichever process writes. Tables created for an
 * existing file (or of an older shape) are filled from it in the same transaction.
 *
 * The FTS table indexes `lower(value)` with a case-sensitive tokenizer, so a phrase of
 * `lower(needle)`'s trigrams matches exactly the rows where `instr(lower(value), lower(needle)) > 0`
 * (the scan's test; FTS5's own case folding would also fold non-ASCII letters, which lower() does
 * not): a search is answered, and counted, from the index alone. Each row's workspace is in the
 * index too, as one token (`scope`, three private-use characters naming the workspace's number in
 * store_text_scopes), so a workspace's matches are an AND of two index lookups.
 *
 * The values table (`<index>__values`: workspace number, rowid, lowered value, clustered by
 * workspace) answers what trigrams cannot: a needle under three characters, and the count of a
 * needle most rows hold, by a scan of a few MB instead of every JSON document (100,000 contacts:
 * about 7 ms, against 100 for the documents and 21 for FTS5 counting 100,000 phrase matches). It
 * takes the place of the FTS table's own copy of the values (the FTS table is contentless), so a
 * write costs what it did with one copy. A value holding a NUL character is kept under workspace
 * number `-1 - n` (see sqlite-text-values.ts).
 *
 * Each workspace's text version (store_text_versions, by workspace number) moves with every change
 * to its indexed values, bumped by the same triggers: what a workspace's search finds cannot have
 * changed while it stands still, so a search's answer can be kept (see kept-answers.ts)
 * whatever else is written to the file.
 *
 * Rowids of a table without an INTEGER PRIMARY KEY may change under VACUUM, which nothing here
 * runs; a VACUUMed file needs its text tables dropped so that the next open rebuilds them.
 */
import type Database from 'better-sqlite3';
import { CollectionDefinition } from '../port';
import { textSearchFields } from '../text-search-fields';
import { quoteIdentifier, SqliteColumns, textIndexName } from './sqlite-columns';

/** A trigram needs three characters: shorter needles match nothing in the index and keep the scan. */
export const TRIGRAM_CHARACTERS = 3;

/** Workspace numbers for the index's `scope` token; n 0 is never given, so it matches nothing. */
const SCOPES_TABLE = 'store_text_scopes';
const SCOPE_BASE = 6400; // U+E000–U+F8FF, the Basic Multilingual Plane's private use area

/** The scope token of workspace number `n` (an SQL integer expression): three private-use characters. */
function scopeToken(n: string): string {
  return `char(57344 + (${n} / ${SCOPE_BASE * SCOPE_BASE}) % ${SCOPE_BASE}, 57344 + (${n} / ${SCOPE_BASE}) % ${SCOPE_BASE}, 57344 + ${n} % ${SCOPE_BASE})`;
}

/** Each workspace's text version (see above), by its number in store_text_scopes. */
const VERSIONS_TABLE = 'store_text_versions';

/** The text version of the bound workspace id (one parameter): 0 before its first indexed value. */
export const WORKSPACE_TEXT_VERSION = `SELECT coalesce((SELECT version FROM ${VERSIONS_TABLE} WHERE n = (SELECT n FROM ${SCOPES_TABLE} WHERE workspace_id = ?)), 0)`;

/** Moves the text version of a row's workspace (an SQL statement for a trigger). */
function bumpVersion(workspaceId: string): string {
  return `INSERT INTO ${VERSIONS_TABLE} (n, version) SELECT ${rowScope(workspaceId)}, 1 ON CONFLICT (n) DO UPDATE SET version = version + 1;`;
}

/** The workspace number of a row's workspace (an SQL text expression); 0 for a row without one. */
function rowScope(workspaceId: string): string {
  return `coalesce((SELECT n FROM ${SCOPES_TABLE} WHERE workspace_id = ${workspaceId}), 0)`;
}

/**
 * The workspace number of the bound workspace id, as an SQL expression of one parameter: NULL for
 * a workspace that has none yet, which matches no row.
 */
export const WORKSPACE_NUMBER = `(SELECT n FROM ${SCOPES_TABLE} WHERE workspace_id = ?)`;

/** The values table's number for a row's lowered value: its workspace's, or `-1 - n` when the value holds a NUL. */
function valueNumber(workspaceId: string, value: string): string {
  return `CASE WHEN instr(${value}, char(0)) > 0 THEN -1 - ${rowScope(workspaceId)} ELSE ${rowScope(workspaceId)} END`;
}

/** The values table of a text index (see above), by the index's unquoted name. */
export function textValuesName(index: string): string {
  return `${index}__values`;
}

// Contentless: the values table keeps the values, and a phrase match or a count reads only the index.
function createStatement(index: string): string {
  return `CREATE VIRTUAL TABLE ${index} USING fts5(value, scope, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1)`;
}

/** Creates the missing text indexes (filling them), drops the ones no longer declared. Runs inside the schema transaction. */
export function createTextIndexes(
  db: Database.Database,
  definition: CollectionDefinition<any>,
  columns: SqliteColumns,
  prepare: (sql: string) => Database.Statement<any[]>,
): void {
  const current = dropStaleTextIndexes(db, definition, prepare);
  const fields = textSearchFields(definition).filter((field) => !current.includes(textIndexName(definition.name, field)));
  if (fields.length === 0) return;
  db.exec(`CREATE TABLE IF NOT EXISTS ${SCOPES_TABLE} (n INTEGER PRIMARY KEY, workspace_id TEXT NOT NULL UNIQUE)`);
  db.exec(`CREATE TABLE IF NOT EXISTS ${VERSIONS_TABLE} (n INTEGER PRIMARY KEY, version INTEGER NOT NULL)`);
  db.exec(
    `INSERT INTO ${SCOPES_TABLE} (workspace_id) SELECT DISTINCT workspace_id FROM ${columns.table} WHERE workspace_id IS NOT NULL ON CONFLICT DO NOTHING`,
  );
  for (const field of fields) createTextIndex(db, textIndexName(definition.name, field), columns.table, columns.expression(field));
}

/**
 * Drops the collection's text indexes that are no longer declared, and those of an older shape (an
 * unindexed workspace_id, FTS5's own case folding, triggers that do not move the text version),
 * which are made again. Answers the names of those kept.
 */
function dropStaleTextIndexes(
  db: Database.Database,
  definition: CollectionDefinition<any>,
  prepare: (sql: string) => Database.Statement<any[]>,
): string[] {
  const wanted = new Set(textSearchFields(definition).map((field) => textIndexName(definition.name, field)));
  const prefix = textIndexName(definition.name, '');
  const existing = (
    prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`).pluck(false).all() as {
      name: string;
      sql: string;
    }[]
  ).filter((table) => table.name.startsWith(prefix));
  const versioned = new Set(
    prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%${VERSIONS_TABLE}%'`).pluck(true).all() as string[],
  );
  const current = existing
    .filter((table) => table.sql === createStatement(quoteIdentifier(table.name)) && versioned.has(`${table.name}__update`))
    .map((table) => table.name);
  // Inserts are indexed by the adapter (sqlite-insert-upkeep.ts); an earlier release's trigger goes.
  for (const name of current) db.exec(`DROP TRIGGER IF EXISTS ${quoteIdentifier(`${name}__insert`)}`);
  for (const { name } of existing) {
    if (current.includes(name) && wanted.has(name)) continue;
    for (const trigger of ['insert', 'update', 'delete']) db.exec(`DROP TRIGGER IF EXISTS ${quoteIdentifier(`${name}__${trigger}`)}`);
    db.exec(`DROP TABLE ${quoteIdentifier(name)}`);
    db.exec(`DROP TABLE IF EXISTS ${quoteIdentifier(textValuesName(name))}`);
  }
  return current;
}

/** One field's index and values table, the triggers that keep them through updates and deletes, filled from the rows there are. */
function createTextIndex(db: Database.Database, name: string, table: string, column: string): void {
  const index = quoteIdentifier(name);
  const values = quoteIdentifier(textValuesName(name));
  db.exec(createStatement(index));
  db.exec(`DROP TABLE IF EXISTS ${values}`);
  db.exec(
    `CREATE TABLE ${values} (n INTEGER NOT NULL, row_id INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (n, row_id)) WITHOUT ROWID`,
  );
  const scopeOf = (row: string) => `(SELECT ${scopeToken('n')} FROM ${SCOPES_TABLE} WHERE workspace_id = ${row}.workspace_id)`;
  const add = (row: string) =>
    `INSERT INTO ${SCOPES_TABLE} (workspace_id) SELECT ${row}.workspace_id WHERE ${row}.workspace_id IS NOT NULL ON CONFLICT DO NOTHING;` +
    ` INSERT INTO ${index} (rowid, value, scope) SELECT ${row}.rowid, lower(${row}.${column}), ${scopeOf(row)} WHERE typeof(${row}.${column}) = 'text';` +
    ` INSERT INTO ${values} (n, row_id, value) SELECT ${valueNumber(`${row}.workspace_id`, `lower(${row}.${column})`)}, ${row}.rowid, lower(${row}.${column}) WHERE typeof(${row}.${column}) = 'text';` +
    ` ${bumpVersion(`${row}.workspace_id`)}`;
  const remove =
    `DELETE FROM ${index} WHERE rowid = old.rowid;` +
    ` DELETE FROM ${values} WHERE n IN (${rowScope('old.workspace_id')}, -1 - ${rowScope('old.workspace_id')}) AND row_id = old.rowid;` +
    ` ${bumpVersion('old.workspace_id')}`;
  db.exec(`CREATE TRIGGER ${quoteIdentifier(`${name}__delete`)} AFTER DELETE ON ${table} BEGIN ${remove} END`);
  db.exec(
    `CREATE TRIGGER ${quoteIdentifier(`${name}__update`)} AFTER UPDATE ON ${table}` +
      ` WHEN old.${column} IS NOT new.${column} OR old.workspace_id IS NOT new.workspace_id OR old.rowid IS NOT new.rowid BEGIN ${remove} ${add('new')} END`,
  );
  db.exec(
    `INSERT INTO ${index} (rowid, value, scope) SELECT t.rowid, lower(t.${column}), ${scopeOf('t')} FROM ${table} AS t WHERE typeof(t.${column}) = 'text'`,
  );
  db.exec(
    `INSERT INTO ${values} (n, row_id, value) SELECT ${valueNumber('t.workspace_id', `lower(t.${column})`)}, t.rowid, lower(t.${column}) FROM ${table} AS t WHERE typeof(t.${column}) = 'text'`,
  );
}

/**
 * What rows just inserted owe each text index of the collection (its workspaces' numbers, the
 * trigrams, the values, the text versions), as statements of one parameter: the rows' ids as a
 * JSON array. Run in this order by the adapter after each insert (sqlite-insert-upkeep.ts).
 */
export function textInsertStatements(definition: CollectionDefinition<any>, columns: SqliteColumns): string[] {
  return textSearchFields(definition).flatMap((field) => {
    const index = quoteIdentifier(textIndexName(definition.name, field));
    const values = quoteIdentifier(textValuesName(textIndexName(definition.name, field)));
    const column = columns.expression(field);
    const inserted = `FROM ${columns.table} AS t WHERE t.id IN (SELECT value FROM json_each(?))`;
    const text = `${inserted} AND typeof(t.${column}) = 'text'`;
    return [
      `INSERT INTO ${SCOPES_TABLE} (workspace_id) SELECT DISTINCT t.workspace_id ${inserted} AND t.workspace_id IS NOT NULL ON CONFLICT DO NOTHING`,
      `INSERT INTO ${index} (rowid, value, scope) SELECT t.rowid, lower(t.${column}), (SELECT ${scopeToken('n')} FROM ${SCOPES_TABLE} WHERE workspace_id = t.workspace_id) ${text}`,
      `INSERT INTO ${values} (n, row_id, value) SELECT ${valueNumber('t.workspace_id', `lower(t.${column})`)}, t.rowid, lower(t.${column}) ${text}`,
      `INSERT INTO ${VERSIONS_TABLE} (n, version) SELECT DISTINCT ${rowScope('t.workspace_id')}, 1 ${inserted} ON CONFLICT (n) DO UPDATE SET version = version + 1`,
    ];
  });
}

/**
 * The FTS5 query for the rows whose field holds the needle, as an SQL expression of bound
 * parameters: the needle, then (when `scoped`) the workspace id, whose rows alone it then matches.
 * The needle is one literal phrase, whatever characters it holds, lowered as the index's values are.
 */
export function textMatchQuery(scoped: boolean): string {
  const phrase = `'value : "' || replace(lower(?), '"', '""') || '"'`;
  if (!scoped) return phrase;
  const number = `coalesce((SELECT n FROM ${SCOPES_TABLE} WHERE workspace_id = ?), 0)`;
  return `(${phrase} || (SELECT ' AND scope : "' || ${scopeToken('n')} || '"' FROM (SELECT ${number} AS n)))`;
}
