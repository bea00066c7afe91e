/**
 * How a field name becomes SQL: the id and workspace_id columns, a generated column for an
 * indexed field, json_extract for anything else. Names are re-checked here because they are
 * spliced into SQL text (values never are).
 */
import { Condition, CollectionDefinition, isFieldCondition, SortKey } from '../port';
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

/** The side table holding a collection's dynamic field values in slots (sqlite-dynamic-slots.ts). */
export function sideTableName(collection: string): string {
  return `${collection}__dynamic`;
}

/** The index (ws, sN) of a slot of the side table. */
export function slotIndexName(collection: string, slot: number): string {
  return `${sideTableName(collection)}__s${slot}`;
}

export function slotColumn(slot: number): string {
  return quoteIdentifier(`s${slot}`);
}

/** The side table's alias in a query's FROM clause. */
const SIDE = '"dyn"';

export class SqliteColumns {
  /** The collection's name, and its table as SQL. */
  readonly collection: string;
  readonly table: string;
  private readonly indexed: ReadonlySet<string>;
  private readonly workspaceScoped: boolean;
  private readonly textIndexes: ReadonlyMap<string, string>;
  /** What a query reads from: the table, joined to its side table when the query reads slots. */
  readonly source: string;
  /** The workspace's slots of the fields this query reads (sqlite-dynamic-slots.ts). */
  private slots: ReadonlyMap<string, number> = new Map();
  /** Whether this reads the side table alone (see sideOnly). */
  private onlySide = false;

  constructor(collection: CollectionDefinition<any>) {
    assertCollectionName(collection.name);
    this.collection = collection.name;
    this.table = quoteIdentifier(collection.name);
    this.indexed = new Set(indexedFields(collection));
    this.workspaceScoped = collection.scope === 'workspace';
    this.textIndexes = new Map(textSearchFields(collection).map((f) => [f, quoteIdentifier(textIndexName(collection.name, f))]));
    this.source = this.table;
  }

  /** These columns, reading the given fields from their slots in the side table (joined). */
  withSlots(slots: ReadonlyMap<string, number>): SqliteColumns {
    if (slots.size === 0) return this;
    const side = quoteIdentifier(sideTableName(this.collection));
    // The workspace in the join too: with the query's `workspace_id = ?` the planner then reads a
    // slot's index (ws, sN) first when the slot's condition is the narrower one.
    const source = `${this.table} LEFT JOIN ${side} AS ${SIDE} ON ${SIDE}.row = ${this.table}.rowid AND ${SIDE}.ws = ${this.table}.workspace_id`;
    return Object.assign(Object.create(SqliteColumns.prototype) as SqliteColumns, this, { slots, source });
  }

  /**
   * These columns over the side table alone, when every condition reads a slot, the workspace or
   * the id with an operator the side table answers, and so does every sort key: a count or a
   * page's order then reads no document. Undefined otherwise.
   */
  sideOnly(where: Condition[], sort: SortKey[] = []): SqliteColumns | undefined {
    const inWorkspace = where.some((c) => isFieldCondition(c) && c.field === 'workspaceId' && c.op === 'eq');
    if (this.slots.size === 0 || !inWorkspace || !where.every((c) => this.sideAnswers(c))) return undefined;
    if (!sort.every((key) => key.field === 'id' || this.slots.has(key.field))) return undefined;
    const source = `${quoteIdentifier(sideTableName(this.collection))} AS ${SIDE}`;
    return Object.assign(Object.create(SqliteColumns.prototype) as SqliteColumns, this, { source, onlySide: true });
  }

  private sideAnswers(c: Condition): boolean {
    if ('or' in c) return c.or.every((group) => group.every((inner) => this.sideAnswers(inner)));
    if ('not' in c) return c.not.every((inner) => this.sideAnswers(inner));
    if (c.field === 'workspaceId') return this.workspaceScoped && c.op === 'eq';
    if (c.field === 'id') return c.op !== 'contains_text' && c.op !== 'has' && c.op !== 'empty';
    return this.slots.has(c.field) && c.op !== 'has' && c.op !== 'empty';
  }

  /** The field's trigram text index (sqlite-text-index.ts), quoted, when it has one. */
  textIndex(field: string): string | undefined {
    return this.textIndexes.get(field);
  }

  /** The index of the field's slot (quoted), when the field is read from one. */
  slotIndex(field: string): string | undefined {
    const slot = this.slots.get(field);
    return slot === undefined ? undefined : quoteIdentifier(slotIndexName(this.collection, slot));
  }

  /** The side table's document rowid, in a query of these columns. */
  get sideRow(): string {
    return `${SIDE}.row`;
  }

  /** The SQL expression for a field's value (NULL when absent). */
  expression(field: string): string {
    if (field === 'id') return this.onlySide ? `${SIDE}.rid` : 'id';
    if (field === 'workspaceId' && this.workspaceScoped) return this.onlySide ? `${SIDE}.ws` : 'workspace_id';
    assertFieldName(field);
    const slot = this.slots.get(field);
    if (slot !== undefined) return `${SIDE}.${slotColumn(slot)}`;
    if (this.indexed.has(field)) return quoteIdentifier(generatedColumnName(field));
    return `json_extract(doc, ${jsonPath(field)})`;
  }
}
