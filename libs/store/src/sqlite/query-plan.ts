/**
 * How SQLite would answer a query of a collection (EXPLAIN QUERY PLAN), on an empty in-memory
 * database with the collection's schema and the planner statistics the adapter seeds: for specs
 * that check a background read (a purge, a sweep across workspaces) walks an index.
 */
import Database from 'better-sqlite3';
import type { CollectionDefinition, Query } from '../port';
import { keepAlive } from './keep-alive';
import { createCollectionSchema } from './sqlite-schema';
import { selectToSql } from './sqlite-query';

export function sqliteQueryPlan(collection: CollectionDefinition<any>, query: Query): string {
  const db = keepAlive(new Database(':memory:'));
  try {
    const prepare = (sql: string) => keepAlive(db.prepare(sql));
    const { columns } = createCollectionSchema(db, collection, prepare);
    const { sql, params } = selectToSql(query, columns);
    return (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('; ');
  } finally {
    db.close();
  }
}
