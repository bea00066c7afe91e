/**
 * What inserted rows owe their collection's side tables: their workspace's count
 * (sqlite-workspace-counts.ts) and each text index's trigrams, values and text version
 * (sqlite-text-index.ts). The adapter runs this after each insert statement, in its transaction,
 * once for all the statement's rows.
 *
 * It was an AFTER INSERT trigger per side table, as deletes and updates still are. But a table
 * with an AFTER INSERT trigger pays for it in every index of every row inserted, whatever the
 * trigger does (SQLite 3.53: a trigger that wrote nothing made a 12-index table's inserts about
 * 80 µs a row slower), and records' contacts have 11 indexes. 50,000 realistic contacts in commits
 * of 250: 172-216 µs a row to insert with the two triggers, 48-59 with the same work done here.
 * Every insert into a collection goes through the adapter (its write thread's too), so no row is
 * inserted around this.
 */
import type { StoredRecord } from '../store-adapter';
import type { Prepare, SqliteCollection } from './sqlite-schema';
import { textInsertStatements } from './sqlite-text-index';
import { countInsertsStatement } from './sqlite-workspace-counts';

/** Each collection's statements, built once. */
const statementsOf = new WeakMap<SqliteCollection, { count?: string; text: string[] }>();

/** Brings the side tables up to the rows just inserted (the documents). */
export function keepUpWithInserts(prepare: Prepare, collection: SqliteCollection, documents: readonly StoredRecord[]): void {
  if (documents.length === 0) return;
  let statements = statementsOf.get(collection);
  if (!statements) {
    statements = {
      count: countInsertsStatement(collection.definition),
      text: textInsertStatements(collection.definition, collection.columns),
    };
    statementsOf.set(collection, statements);
  }
  if (statements.count) {
    const inserted = new Map<string, number>();
    for (const { workspaceId } of documents) {
      if (typeof workspaceId === 'string') inserted.set(workspaceId, (inserted.get(workspaceId) ?? 0) + 1);
    }
    const count = prepare(statements.count);
    for (const [workspaceId, n] of inserted) count.run(workspaceId, n);
  }
  if (statements.text.length === 0) return;
  const ids = JSON.stringify(documents.map((document) => document.id));
  for (const sql of statements.text) prepare(sql).run(ids);
}
