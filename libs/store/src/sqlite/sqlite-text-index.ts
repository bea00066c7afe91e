/**
 * Substring search without a scan: each of a collection's `textSearch` fields gets an FTS5 table
 * with the trigram tokenizer (SQLite ≥ 3.34), keyed by the collection row's rowid and kept in step
 * with the row by triggers, so every write path (and every process sharing the file) maintains
 * it. A table created for an existing file is filled from it in the same transaction.
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

/** Creates the missing text indexes (filling them), drops the ones no longer declared. Runs inside the schema transaction. */
export function createTextIndexes(
  db: Database.Database,
  definition: CollectionDefinition<any>,
  columns: SqliteColumns,
  prepare: (sql: string) => Database.Statement<any[]>,
): void {
  const wanted = new Set(textSearchFields(definition).map((field) => textIndexName(definition.name, field)));
  const prefix = textIndexName(definition.name, '');
  const existing = prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`)
    .pluck(true)
    .all()
    .filter((name) => typeof name === 'string' && name.startsWith(prefix)) as string[];
  // Tables made before they held workspace_id are made again.
  const current = existing.filter((name) =>
    (
      prepare(`PRAGMA table_info(${quoteIdentifier(name)})`)
        .pluck(false)
        .all() as { name: string }[]
    ).some((c) => c.name === 'workspace_id'),
  );
  for (const name of existing) {
    if (current.includes(name) && wanted.has(name)) continue;
    for (const trigger of ['insert', 'update', 'delete']) db.exec(`DROP TRIGGER IF EXISTS ${quoteIdentifier(`${name}__${trigger}`)}`);
    db.exec(`DROP TABLE ${quoteIdentifier(name)}`);
  }
  for (const field of textSearchFields(definition)) {
    const name = textIndexName(definition.name, field);
    if (current.includes(name)) continue;
    const index = quoteIdentifier(name);
    const table = columns.table;
    const column = columns.expression(field);
    // workspace_id is carried (not indexed) so a workspace's matches are found without reading the collection's rows.
    db.exec(`CREATE VIRTUAL TABLE ${index} USING fts5(value, workspace_id UNINDEXED, tokenize = 'trigram')`);
    const add = (row: string) =>
      `INSERT INTO ${index} (rowid, value, workspace_id) SELECT ${row}.rowid, ${row}.${column}, ${row}.workspace_id WHERE typeof(${row}.${column}) = 'text';`;
    const remove = `DELETE FROM ${index} WHERE rowid = old.rowid;`;
    db.exec(`CREATE TRIGGER ${quoteIdentifier(`${name}__insert`)} AFTER INSERT ON ${table} BEGIN ${add('new')} END`);
    db.exec(`CREATE TRIGGER ${quoteIdentifier(`${name}__delete`)} AFTER DELETE ON ${table} BEGIN ${remove} END`);
    db.exec(
      `CREATE TRIGGER ${quoteIdentifier(`${name}__update`)} AFTER UPDATE ON ${table}` +
        ` WHEN old.${column} IS NOT new.${column} OR old.workspace_id IS NOT new.workspace_id OR old.rowid IS NOT new.rowid BEGIN ${remove} ${add('new')} END`,
    );
    db.exec(
      `INSERT INTO ${index} (rowid, value, workspace_id) SELECT rowid, ${column}, workspace_id FROM ${table} WHERE typeof(${column}) = 'text'`,
    );
  }
}

/** An FTS5 string: the needle as one literal phrase, whatever characters it holds. */
export function ftsPhrase(needle: string): string {
  return `"${needle.replace(/"/g, '""')}"`;
}
