/**
 * How a field name becomes SQL: the id and workspace_id columns, a generated column for an
 * indexed field, json_extract for anything else. Names are re-checked here because they are
 * spliced into SQL text (values never are).
 */
import { CollectionDefinition } from '../port';
import { indexedFields } from '../index-layout';
import { assertCollectionName, assertFieldName } from '../validate-query';
import { textSearchFields } from '../text-search-fields';

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A JSON path literal; safe to splice because the field name passed assertFieldName. */
export function jsonPath(field: string): string {
  assertFieldName(field);
  return `'$.${field}'`;
}

export function generatedColumnName(field: string): string {
  return `f:${field}`;
}

/** The FTS5 table holding a field's trigrams (sqlite-text-index.ts). */
export function textIndexName(collection: string, field: string): string {
  return `${collection}__text__${field}`;
}

export class SqliteColumns {
  /** The collection's name, and its table as SQL. */
  readonly collection: string;
  readonly table: string;
  private readonly indexed: ReadonlySet<string>;
  private readonly workspaceScoped: boolean;
  private readonly textIndexes: ReadonlyMap<string, string>;

  constructor(collection: CollectionDefinition<any>) {
    assertCollectionName(collection.name);
    this.collection = collection.name;
    this.table = quoteIdentifier(collection.name);
    this.indexed = new Set(indexedFields(collection));
    this.workspaceScoped = collection.scope === 'workspace';
    this.textIndexes = new Map(textSearchFields(collection).map((f) => [f, quoteIdentifier(textIndexName(collection.name, f))]));
  }

  /** The field's trigram text index (sqlite-text-index.ts), quoted, when it has one. */
  textIndex(field: string): string | undefined {
    return this.textIndexes.get(field);
  }

  /** The SQL expression for a field's value (NULL when absent). */
  expression(field: string): string {
    if (field === 'id') return 'id';
    if (field === 'workspaceId' && this.workspaceScoped) return 'workspace_id';
    assertFieldName(field);
    if (this.indexed.has(field)) return quoteIdentifier(generatedColumnName(field));
    return `json_extract(doc, ${jsonPath(field)})`;
  }
}
