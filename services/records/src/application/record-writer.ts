/**
 * The one write path of the records service: a commit's changes, the activity each change leaves
 * in the audit log and its outbox events go to the store together, then the relay is poked.
 */
import { DomainError } from '@crm/observability';
import { StoreError } from '@crm/store';
import { captureTraceContext } from '@crm/telemetry';
import { apiTimestamp, CUSTOM_FIELDS_PREFIX, jsonLengthEstimate, type Clock } from '@crm/vocabulary';
import {
  erasedChanges,
  fieldChanges,
  GROUP_BYTES_MAX,
  GROUP_ENTRIES_MAX,
  GROUP_RECORD_ID,
  initialValues,
  type AuditAction,
  type AuditActorType,
  type AuditGroupEntries,
} from '../domain/audit-entry';
import type { DomainEvent } from '../domain/events';
import { ID_PREFIX, type IdGenerator } from '../domain/ids';
import type { ActivityAction, RecordType } from '../domain/model';
import { staleVersion } from '../domain/record-version';
import { HEAVY_EVENT_JSON_LENGTH, type OutboxDocument } from '../store/collections';
import { RecordChanges } from '../store/record-changes';
import type { AuditStaging } from '../store/audit-staging';
import type { RecordsRepository } from '../store/records-repository';
import type { CustomFieldRepository } from '../store/custom-field-repository';
import type { SuppressionList } from './suppression-list';
import type { Caller } from './views';

/** Where committed events go next: the outbox relay. */
export interface EventRelay {
  register(workspaceId: string): Promise<void>;
  poke(workspaceId: string): void;
}

/** A unique custom value another record of the kind holds (a single write's 422, a batch record's error). */
export const UNIQUE_VALUE_TAKEN = 'Another record of this kind in the workspace has this value.';

export class RecordWriter {
  constructor(
    private readonly repo: RecordsRepository,
    private readonly relay: EventRelay,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly suppressions: SuppressionList,
    private readonly customFields: CustomFieldRepository,
    private readonly auditStaging: AuditStaging,
  ) {}

  /** A new, empty commit. */
  changes(): RecordChanges {
    return new RecordChanges();
  }

  /** Adds the audit-log activity of one change to the commit. */
  activity(
    changes: RecordChanges,
    caller: Caller,
    action: ActivityAction,
    recordType: RecordType,
    recordId: string,
    at: string,
    mergedIds?: string[],
  ): RecordChanges {
    return changes.activity({
      id: this.ids(ID_PREFIX.activity),
      workspaceId: caller.workspaceId,
      action,
      recordType,
      recordId,
      actorId: caller.actor.id,
      actorType: caller.actor.type,
      createdAt: at,
      ...(mergedIds ? { mergedIds } : {}),
    });
  }

  /**
   * Adds the audit entry of one change to the commit, with every visible field that differs between
   * `before` and `after` (null: the record does not exist on that side).
   */
  audit(
    changes: RecordChanges,
    caller: Caller,
    action: AuditAction,
    recordKind: RecordType,
    record: { before: object | null; after: object | null; id: string; erased?: boolean },
    at: string,
    /** An id the entry must have (a second commit writing it fails as a duplicate); a new one unless given. */
    entryId?: string,
  ): RecordChanges {
    const importedIn = record.after === null ? auditGroupOf(record.before) : undefined;
    return changes.auditEntry(
      {
        id: entryId ?? this.ids(ID_PREFIX.auditEntry),
        workspaceId: caller.workspaceId,
        occurredAt: at,
        action,
        recordKind,
        recordId: record.id,
        ...auditActor(caller),
        requestId: caller.correlationId,
        changes: record.erased ? erasedChanges(fieldChanges(record.before, record.after)) : fieldChanges(record.before, record.after),
        ...(importedIn ? { importedIn } : {}),
      },
      // An entry given its id must stay unique in the log itself (a replayed step fails on it).
      entryId !== undefined,
    );
  }

  /**
   * Adds the entries of a bulk creation (an import batch's records) to the commit as one group
   * (audit-entry.ts), and names the group on each record: call before the records are staged.
   */
  auditCreations(
    changes: RecordChanges,
    caller: Caller,
    action: AuditAction,
    recordKind: RecordType,
    records: (object & { id: string; auditGroup?: string })[],
    at: string,
  ): RecordChanges {
    const { workspaceId, correlationId: requestId } = caller;
    let part: (object & { id: string; auditGroup?: string })[] = [];
    let entries: AuditGroupEntries['entries'] = [];
    let bytes = 0;
    const close = () => {
      if (entries.length === 0) return;
      const id = this.ids(ID_PREFIX.auditEntry);
      for (const record of part) record.auditGroup = id;
      changes.auditGroup(
        {
          id,
          workspaceId,
          occurredAt: at,
          action,
          recordKind,
          ...auditActor(caller),
          requestId,
          recordId: GROUP_RECORD_ID,
          extra: entries.length - 1,
        },
        { id, workspaceId, occurredAt: at, entries, revision: 0 },
      );
      [part, entries, bytes] = [[], [], 0];
    };
    for (const record of records) {
      const { values, size } = initialValues(record);
      const entry = { recordId: record.id, values };
      if (entries.length >= GROUP_ENTRIES_MAX || bytes + size > GROUP_BYTES_MAX) close();
      part.push(record);
      entries.push(entry);
      bytes += size;
    }
    close();
    return changes;
  }

  /** Commits the changes and their outbox events together, then pokes the relay; an email on the suppression list is refused first. */
  async write(caller: Caller, changes: RecordChanges, events: DomainEvent[]): Promise<void> {
    // Every path that writes a contact's or lead's email (create, update, merge, conversion, batches) comes through here.
    await this.suppressions.refuse(caller.workspaceId, changes.writtenEmails());
    const now = apiTimestamp(this.clock());
    const traceHeaders = captureTraceContext();
    for (const event of events) {
      const document: OutboxDocument = {
        id: this.ids(ID_PREFIX.event),
        workspaceId: caller.workspaceId,
        type: event.type,
        correlationId: caller.correlationId,
        occurredAt: now,
        payload: event.payload,
        status: 'pending',
        createdAt: now,
        publishedAt: null,
        ...(traceHeaders.traceparent ? { traceHeaders } : {}),
        ...(caller.cause ? { cause: caller.cause } : {}),
        ...((event.jsonLength ?? jsonLengthEstimate(event.payload)) >= HEAVY_EVENT_JSON_LENGTH ? { heavy: true as const } : {}),
      };
      changes.event(document);
    }
    if (events.length > 0) await this.relay.register(caller.workspaceId);
    try {
      await this.repo.commit(caller.workspaceId, changes);
    } catch (error) {
      if (isDuplicate(error) && (error as StoreError).fields?.includes('externalId')) {
        throw DomainError.validation({ externalId: ['Another record of this kind in the workspace has this externalId.'] });
      }
      if (isDuplicate(error) && changes.claimed.length > 0) throw await this.uniqueValueTaken(caller.workspaceId, changes, error);
      throw error;
    }
    if (events.length > 0) this.relay.poke(caller.workspaceId);
    if (changes.stagedAudit > 0) this.auditStaging.staged(caller.workspaceId, changes.stagedAudit);
  }

  /** The 422 for a commit that claimed a unique custom value another record holds (or the store's error, when none is held). */
  private async uniqueValueTaken(workspaceId: string, changes: RecordChanges, error: unknown): Promise<unknown> {
    const holders = await this.customFields.claimHolders(
      workspaceId,
      changes.claimed.map((claim) => claim.id),
    );
    const taken = changes.claimed.filter((claim) => holders.has(claim.id));
    if (taken.length === 0) return error;
    return DomainError.validation(Object.fromEntries(taken.map((claim) => [`${CUSTOM_FIELDS_PREFIX}${claim.key}`, [UNIQUE_VALUE_TAKEN]])));
  }

  /** A write under If-Match: a conflict in its commit means the version moved on since it was read. */
  async conditional(expectedVersion: number | undefined, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (expectedVersion !== undefined && isConflict(error)) throw staleVersion();
      throw error;
    }
  }
}

/** The audit group a stored record names (a record an import created). */
function auditGroupOf(record: object | null): string | undefined {
  const group = (record as { auditGroup?: unknown } | null)?.auditGroup;
  return typeof group === 'string' ? group : undefined;
}

/** Who the audit log names: a key's writes name the key, not the system user its activities name. */
export function auditActor(caller: Caller): { actorType: AuditActorType; actorId: string } {
  if (caller.actor.type === 'api_key') return { actorType: 'apiKey', actorId: caller.apiKeyId ?? caller.actor.id };
  return { actorType: caller.actor.type, actorId: caller.actor.id };
}

/** How often an update whose status or stage changed under it is read again and retried. */
export const CONFLICT_RETRIES = 3;

/** The commit failed because a condition on a stored record no longer held. */
export function isConflict(error: unknown): boolean {
  return error instanceof StoreError && error.code === 'conflict';
}

/** The commit failed because a document with that id exists already. */
export function isDuplicate(error: unknown): boolean {
  return error instanceof StoreError && error.code === 'duplicate';
}
