/** What every resource of the records service shares: its repository, writer, views and clock, and the lookups they all make. */
import { apiTimestamp } from '@crm/vocabulary';
import { DomainError } from '@crm/observability';
import { type Clock } from '@crm/vocabulary';
import { referencedIds, type FieldTable, type KnownReferences } from '../domain/field-rules';
import type { IdGenerator } from '../domain/ids';
import * as lists from '../domain/list-rules';
import { searchNeedle } from '../domain/search-text';
import { workspaceMembers, type UserDirectory } from '../adapters/user-directory';
import type { RecordsRepository } from '../store/records-repository';
import type { CustomFieldRepository } from '../store/custom-field-repository';
import type { RecordViews } from './record-views';
import type { AuditStaging } from '../store/audit-staging';
import type { RecordWriter } from './record-writer';
import type { SuppressionList } from './suppression-list';
import type { Caller } from './views';

export interface RecordsContext {
  repo: RecordsRepository;
  /** The workspace's custom field definitions (read at every write and list: a new field applies at once on every replica). */
  customFields: CustomFieldRepository;
  users: UserDirectory;
  /** Erased emails, refused by every write (record-writer.ts) and per row by the import's batches. */
  suppressions: SuppressionList;
  writer: RecordWriter;
  /** Where single writes' audit entries wait to be moved into the log (store/audit-staging.ts). */
  auditStaging: AuditStaging;
  views: RecordViews;
  clock: Clock;
  ids: IdGenerator;
}

export function nowOf(context: RecordsContext): string {
  return apiTimestamp(context.clock());
}

export async function found<T>(lookup: Promise<T | null>): Promise<T> {
  const document = await lookup;
  if (!document) throw DomainError.notFound();
  return document;
}

/** The literal the stored `searchText` must contain (see domain/search-text.ts). */
export function searchFor(value: string | undefined): string | undefined {
  const text = lists.search(value);
  return text ? searchNeedle(text) : undefined;
}

/** Which referenced accounts, contacts and users exist in the caller's workspace. */
export function referencesOf(
  context: RecordsContext,
  caller: Caller,
  body: Record<string, unknown>,
  table: FieldTable,
): Promise<KnownReferences> {
  return referencesOfAll(context, caller, [body], table);
}

/** The same for many bodies at once (a batch's records): one look-up per kind of reference. */
export async function referencesOfAll(
  context: RecordsContext,
  caller: Caller,
  bodies: Record<string, unknown>[],
  table: FieldTable,
): Promise<KnownReferences> {
  const ids = { account: new Set<string>(), contact: new Set<string>(), user: new Set<string>() };
  for (const body of bodies) {
    const referenced = referencedIds(body, table);
    for (const target of ['account', 'contact', 'user'] as const) for (const id of referenced[target]) ids[target].add(id);
  }
  const custom = table.customFields?.kind === 'customFields' ? table.customFields.recordKind : undefined;
  const [account, contact, users, customFields] = await Promise.all([
    context.repo.existing(caller.workspaceId, 'account', [...ids.account]),
    context.repo.existing(caller.workspaceId, 'contact', [...ids.contact]),
    ids.user.size > 0 ? workspaceMembers(context.users, caller.workspaceId, [...ids.user]) : Promise.resolve(new Map()),
    custom ? context.customFields.definitions(caller.workspaceId, custom) : Promise.resolve([]),
  ]);
  return { account, contact, user: new Set(users.keys()), customFields };
}
