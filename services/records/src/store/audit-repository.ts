/**
 * Reads of the audit log: a page newest first by its filters, and every entry about some records
 * (privacy). A bulk write's entries are stored as a group (audit-entry.ts) and expanded here, so
 * callers see entries only, paged and counted as if each were a row of its own.
 */
import {
  findAfter,
  listCursor,
  listPage,
  listPosition,
  listScope,
  type Condition,
  type DocumentStore,
  type KeysPosition,
  type ListPage,
  type ScopedStore,
  type SortKey,
} from '@crm/store';
import {
  GROUP_RECORD_ID,
  groupEntries,
  isGroup,
  type AuditEntryDocument,
  type AuditGroupEntries,
  type AuditRow,
} from '../domain/audit-entry';
import type { Page } from '../domain/list-rules';
import { auditEntries, auditGroupEntries } from './audit-collections';
import type { AuditStaging } from './audit-staging';
import { contacts } from './collections';

export interface AuditFilters {
  recordId?: string;
  recordKind?: string;
  actorType?: string;
  actorId?: string;
  action?: string;
  requestId?: string;
  /** ISO timestamps, exclusive. */
  after?: string;
  before?: string;
}

const EQUALITY = ['recordKind', 'actorType', 'actorId', 'action', 'requestId'] as const;
const NEWEST_FIRST: SortKey = { field: 'occurredAt', direction: 'desc' };

/** Ids per `in` condition, within what the store binds at once. */
const IDS_PER_QUERY = 500;
/** Rows read at a time while a page is filled from groups and entries. */
const ROWS_PER_READ = 100;

/** Every read first moves the workspace's staged entries into the log (audit-staging.ts), so it sees all committed before it. */
export class AuditRepository {
  constructor(
    private readonly store: DocumentStore,
    private readonly staging: AuditStaging,
  ) {}

  async list(workspaceId: string, filters: AuditFilters, page: Page, cursor?: string): Promise<ListPage<AuditEntryDocument>> {
    await this.staging.move(workspaceId);
    const shared = sharedConditions(filters);
    if (filters.recordId === undefined) return this.expandedPage(workspaceId, shared, page, cursor);
    return this.recordPage(workspaceId, filters.recordId, shared, page, cursor);
  }

  /** Every entry about these records, newest first. */
  async about(workspaceId: string, recordIds: string[]): Promise<AuditEntryDocument[]> {
    await this.staging.move(workspaceId);
    const store = this.store.forWorkspace(workspaceId);
    const found: AuditEntryDocument[] = [];
    for (let i = 0; i < recordIds.length; i += IDS_PER_QUERY) {
      const values = recordIds.slice(i, i + IDS_PER_QUERY);
      const rows = await store.find(auditEntries, { where: [{ field: 'recordId', op: 'in', values }], sort: [NEWEST_FIRST] });
      found.push(...(rows as AuditEntryDocument[]));
    }
    const wanted = new Set(recordIds);
    const groups = await this.groupsAbout(workspaceId, recordIds);
    const headers = await store.getMany(
      auditEntries,
      groups.map((g) => g.id),
    );
    const bodies = new Map(groups.map((g) => [g.id, g]));
    for (const header of headers) {
      if (isGroup(header)) found.push(...groupEntries(header, bodies.get(header.id)).filter((e) => wanted.has(e.recordId)));
    }
    return found.sort(newestFirst);
  }

  /** The groups holding an entry about any of these records (an import's), with all their entries. */
  async groupsAbout(workspaceId: string, recordIds: string[]): Promise<AuditGroupEntries[]> {
    await this.staging.move(workspaceId);
    const store = this.store.forWorkspace(workspaceId);
    const groupIds = new Set<string>();
    for (let i = 0; i < recordIds.length; i += IDS_PER_QUERY) {
      const ids = recordIds.slice(i, i + IDS_PER_QUERY);
      for (const group of await this.groupIdsOf(store, ids)) groupIds.add(group);
    }
    return groupIds.size > 0 ? store.getMany(auditGroupEntries, [...groupIds]) : [];
  }

  /**
   * The groups these records' creations are in: a live record names its own; a removed one's last
   * entry (its deletion, merge or erasure) kept the name.
   */
  private async groupIdsOf(store: ScopedStore, recordIds: string[]): Promise<string[]> {
    const [live, last] = await Promise.all([
      store.getMany(contacts, recordIds),
      store.find(auditEntries, {
        where: [
          { field: 'recordId', op: 'in', values: recordIds },
          { field: 'importedIn', op: 'exists', value: true },
        ],
      }),
    ]);
    const named = [...live.map((c) => c.auditGroup), ...last.map((e) => (isGroup(e) ? undefined : e.importedIn))];
    return named.filter((id): id is string => typeof id === 'string');
  }

  /** A page of the log, groups expanded: rows are read until the page (and one entry more) is full. */
  private async expandedPage(workspaceId: string, where: Condition[], page: Page, cursor?: string): Promise<ListPage<AuditEntryDocument>> {
    const store = this.store.forWorkspace(workspaceId);
    const scope = listScope(auditEntries, { owner: workspaceId, sort: NEWEST_FIRST, where });
    const position = cursor === undefined ? undefined : listPosition(scope, cursor, 1);
    let skip = position ? 0 : page.offset;
    const found: AuditEntryDocument[] = [];
    let from = position;
    for (;;) {
      const limit = ROWS_PER_READ + Math.min(skip, 1_000);
      const rows = from
        ? await findAfter(store, auditEntries, { where, sort: [NEWEST_FIRST], limit }, from)
        : await store.find(auditEntries, { where, sort: [NEWEST_FIRST], limit });
      for (const entry of await this.expand(store, rows)) {
        // A cursor inside a group reads the group again: its entries up to the cursor are left out.
        if (position && !sortsAfter(entry, position)) continue;
        if (skip > 0) skip--;
        else found.push(entry);
      }
      if (found.length > page.limit || rows.length < limit) break;
      const last = rows[rows.length - 1]!;
      from = { values: [last.occurredAt], id: last.id };
    }
    const items = found.slice(0, page.limit);
    const nextCursor = found.length > page.limit ? listCursor(scope, [NEWEST_FIRST], items[items.length - 1]!) : null;
    return { total: position ? null : await this.total(store, where), items, nextCursor };
  }

  /**
   * One record's entries: its own rows, paged by the store, and at most one grouped entry (its
   * import's) put in its place among them.
   */
  private async recordPage(
    workspaceId: string,
    recordId: string,
    shared: Condition[],
    page: Page,
    cursor?: string,
  ): Promise<ListPage<AuditEntryDocument>> {
    const store = this.store.forWorkspace(workspaceId);
    const where: Condition[] = [{ field: 'recordId', op: 'eq', value: recordId }, ...shared];
    const query = { where, sort: NEWEST_FIRST, ...page, cursor, owner: workspaceId };
    const grouped = await this.groupedEntry(store, recordId, shared);
    if (!grouped) return listPage(store, auditEntries, query) as Promise<ListPage<AuditEntryDocument>>;
    const scope = listScope(auditEntries, query);
    const sort = [NEWEST_FIRST];
    if (cursor !== undefined) {
      const position = listPosition(scope, cursor, 1);
      const rows = (await findAfter(store, auditEntries, { where, sort, limit: page.limit + 1 }, position)) as AuditEntryDocument[];
      const found = [...rows, ...(sortsAfter(grouped, position) ? [grouped] : [])].sort(newestFirst);
      const items = found.slice(0, page.limit);
      return { total: null, items, nextCursor: found.length > page.limit ? listCursor(scope, sort, items[items.length - 1]!) : null };
    }
    const newer: Condition = {
      or: [
        [{ field: 'occurredAt', op: 'gt', value: grouped.occurredAt }],
        [
          { field: 'occurredAt', op: 'eq', value: grouped.occurredAt },
          { field: 'id', op: 'gt', value: grouped.id },
        ],
      ],
    };
    const [rowCount, place] = await Promise.all([store.count(auditEntries, where), store.count(auditEntries, [...where, newer])]);
    const offset = page.offset > place ? page.offset - 1 : page.offset;
    const rows = (await store.find(auditEntries, { where, sort, offset, limit: page.limit })) as AuditEntryDocument[];
    const inPage = place >= page.offset && place < page.offset + page.limit;
    const items = [...rows, ...(inPage ? [grouped] : [])].sort(newestFirst).slice(0, page.limit);
    const total = rowCount + 1;
    const more = page.offset + items.length < total;
    return { total, items, nextCursor: more && items.length > 0 ? listCursor(scope, sort, items[items.length - 1]!) : null };
  }

  /** The record's entry in a group (its import's), when the group meets the list's other filters. */
  private async groupedEntry(store: ScopedStore, recordId: string, shared: Condition[]): Promise<AuditEntryDocument | null> {
    const [groupId] = await this.groupIdsOf(store, [recordId]);
    if (!groupId) return null;
    const [header, body] = await Promise.all([
      store.findOne(auditEntries, [{ field: 'id', op: 'eq', value: groupId }, ...shared]),
      store.get(auditGroupEntries, groupId),
    ]);
    if (!header || !isGroup(header)) return null;
    return groupEntries(header, body ?? undefined).find((e) => e.recordId === recordId) ?? null;
  }

  /** The entries of these rows, in their order: a group's from its stored entries. */
  private async expand(store: ScopedStore, rows: AuditRow[]): Promise<AuditEntryDocument[]> {
    const groupIds = rows.filter(isGroup).map((row) => row.id);
    const bodies = new Map(groupIds.length > 0 ? (await store.getMany(auditGroupEntries, groupIds)).map((b) => [b.id, b]) : []);
    return rows.flatMap((row) => (isGroup(row) ? groupEntries(row, bodies.get(row.id)) : [row]));
  }

  /** The entries meeting `where`: its rows, and each group's entries beyond its row. */
  private async total(store: ScopedStore, where: Condition[]): Promise<number> {
    const [rows, groups] = await Promise.all([
      store.count(auditEntries, where),
      store.find(auditEntries, { where: [...where, { field: 'recordId', op: 'eq', value: GROUP_RECORD_ID }] }),
    ]);
    return groups.reduce((sum, row) => sum + (isGroup(row) ? row.extra : 0), rows);
  }
}

/** The conditions of every filter but recordId (which a group's row does not carry). */
function sharedConditions(filters: AuditFilters): Condition[] {
  const where: Condition[] = [];
  for (const field of EQUALITY) {
    const value = filters[field];
    if (value !== undefined) where.push({ field, op: 'eq', value });
  }
  if (filters.after !== undefined) where.push({ field: 'occurredAt', op: 'gt', value: filters.after });
  if (filters.before !== undefined) where.push({ field: 'occurredAt', op: 'lt', value: filters.before });
  return where;
}

/** Whether an entry comes after a cursor's position, newest first. */
function sortsAfter(entry: AuditEntryDocument, position: KeysPosition): boolean {
  const at = position.values[0];
  return entry.occurredAt === at ? entry.id < position.id : typeof at === 'string' && entry.occurredAt < at;
}

function newestFirst(a: AuditEntryDocument, b: AuditEntryDocument): number {
  if (a.occurredAt !== b.occurredAt) return a.occurredAt < b.occurredAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
