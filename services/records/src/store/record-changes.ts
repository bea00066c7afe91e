/**
 * The writes of one commit, said in the records' words (insert a lead, delete a contact with its
 * notes and tasks, move merged records' dependents) and turned here into the store's operations,
 * so application code never names a collection. RecordsRepository.commit writes them at once.
 */
import type { Condition, WriteOp } from '@crm/store';
import type { AuditEntryDocument, AuditGroupDocument, AuditGroupEntries, FieldChanges } from '../domain/audit-entry';
import type { ActivityDocument, RecordType } from '../domain/model';
import { auditEntries, auditGroupEntries, auditStaged } from './audit-collections';
import { CUSTOM_FIELDS_PREFIX } from '@crm/vocabulary';
import { customFieldClaims } from './custom-field-collections';
import type { UniqueClaim } from '../domain/custom-field-values';
import {
  activities,
  batchResults,
  contacts,
  leads,
  notes,
  opportunities,
  outbox,
  pendingEventsMark,
  RECORD_COLLECTIONS,
  tasks,
  type BatchResultDocument,
  type OutboxDocument,
  type RecordDocuments,
} from './collections';

/** When an update applies; unmet, the commit conflicts. */
export interface UpdateCondition {
  /** If-Match: the version the record must still be at. */
  expectedVersion?: number;
  /** Only while the stored status (a lead's) or stage (an opportunity's) is still the one read. */
  statusIs?: string;
  stageIs?: string;
  /** Only to a lead not converted yet. */
  notConverted?: boolean;
}

export class RecordChanges {
  readonly ops: WriteOp[] = [];
  /** The unique custom values this commit claims: which key a duplicate was about. */
  readonly claimed: UniqueClaim[] = [];
  private hasEvents = false;
  /** Audit entries these changes stage (audit-staging.ts): the writer tells the staging after the commit. */
  stagedAudit = 0;

  /**
   * Each collection's writes of one kind made consecutive (stable: their own order kept), so the
   * store sends runs of inserts as multi-row statements. Only for commits whose writes are
   * independent of each other across collections, such as a batch's records and their activities.
   */
  groupedByCollection(): this {
    const first = new Map<string, number>();
    const key = (op: WriteOp) => `${op.kind}:${op.collection.name}`;
    this.ops.forEach((op, i) => first.has(key(op)) || first.set(key(op), i));
    const order = this.ops.map((op, i) => ({ op, rank: first.get(key(op))!, i }));
    order.sort((a, b) => a.rank - b.rank || a.i - b.i);
    this.ops.splice(0, this.ops.length, ...order.map((o) => o.op));
    return this;
  }

  /** Another set's writes after these (a batch's records, each staged on its own and kept if its checks pass); before any event. */
  append(other: RecordChanges): this {
    if (other.hasEvents) throw new Error('append takes writes without events: events are added by the writer, last');
    this.ops.push(...other.ops);
    this.claimed.push(...other.claimed);
    this.stagedAudit += other.stagedAudit;
    return this;
  }

  insert<T extends RecordType>(type: T, document: RecordDocuments[T]): this {
    this.ops.push({ kind: 'insert', collection: RECORD_COLLECTIONS[type], document: { ...document } });
    return this;
  }

  /** Every update bumps the version; with `expectedVersion` (If-Match) it applies only at that version, in the same operation. */
  update(type: RecordType, id: string, changes: object, condition: UpdateCondition = {}): this {
    const change = { set: { ...changes }, inc: { version: 1 } };
    const where: Condition[] = [];
    if (condition.statusIs !== undefined) where.push({ field: 'status', op: 'eq', value: condition.statusIs });
    if (condition.stageIs !== undefined) where.push({ field: 'stage', op: 'eq', value: condition.stageIs });
    if (condition.notConverted) where.push({ field: 'status', op: 'ne', value: 'converted' });
    where.push(...versionIs(condition.expectedVersion));
    this.ops.push({ kind: 'update', collection: RECORD_COLLECTIONS[type], id, change, where, required: true });
    return this;
  }

  /** With If-Match, a bump conditional on the version goes first, so a stale version fails the commit. */
  delete(type: RecordType, id: string, expectedVersion?: number): this {
    const collection = RECORD_COLLECTIONS[type];
    if (expectedVersion !== undefined)
      this.ops.push({ kind: 'update', collection, id, change: { inc: { version: 1 } }, where: versionIs(expectedVersion), required: true });
    this.ops.push(
      { kind: 'delete', collection, id },
      // Its unique custom values are free again.
      { kind: 'deleteMany', collection: customFieldClaims, where: [{ field: 'recordId', op: 'eq', value: id }] },
    );
    return this;
  }

  /** Notes and tasks about a record go with it; its activities stay. */
  deleteDependents(id: string): this {
    const about: Condition[] = [{ field: 'relatedTo', op: 'eq', value: id }];
    this.ops.push({ kind: 'deleteMany', collection: notes, where: about }, { kind: 'deleteMany', collection: tasks, where: about });
    return this;
  }

  /** An erasure's: the notes, tasks and activities about these records go too (a deletion keeps the activities). */
  deleteAllAbout(recordIds: string[]): this {
    for (let i = 0; i < recordIds.length; i += IDS_PER_WRITE) {
      const values = recordIds.slice(i, i + IDS_PER_WRITE);
      this.ops.push(
        { kind: 'deleteMany', collection: notes, where: [{ field: 'relatedTo', op: 'in', values }] },
        { kind: 'deleteMany', collection: tasks, where: [{ field: 'relatedTo', op: 'in', values }] },
        { kind: 'deleteMany', collection: activities, where: [{ field: 'recordId', op: 'in', values }] },
      );
    }
    return this;
  }

  /** Outbox events dropped before the relay sends them (an erasure's, about the erased person). */
  dropEvents(eventIds: string[]): this {
    for (let i = 0; i < eventIds.length; i += IDS_PER_WRITE)
      this.ops.push({
        kind: 'deleteMany',
        collection: outbox,
        where: [{ field: 'id', op: 'in', values: eventIds.slice(i, i + IDS_PER_WRITE) }],
      });
    return this;
  }

  /** Clears these records' values of a custom field being deleted. */
  clearCustomValues(type: RecordType, recordIds: string[], key: string): this {
    this.ops.push({
      kind: 'updateMany',
      collection: RECORD_COLLECTIONS[type],
      where: [{ field: 'id', op: 'in', values: recordIds }],
      change: { unset: [`${CUSTOM_FIELDS_PREFIX}${key}`] },
    });
    return this;
  }

  /** The unique custom values a record takes (a value another record holds fails the commit as a duplicate) and gives up. */
  claims(type: RecordType, recordId: string, taken: UniqueClaim[], released: UniqueClaim[], workspaceId: string): this {
    const releasedIds = released.filter((r) => !taken.some((t) => t.id === r.id)).map((r) => r.id);
    if (releasedIds.length > 0)
      this.ops.push({ kind: 'deleteMany', collection: customFieldClaims, where: [{ field: 'id', op: 'in', values: releasedIds }] });
    for (const claim of taken) {
      if (released.some((r) => r.id === claim.id)) continue;
      this.claimed.push(claim);
      this.ops.push({
        kind: 'insert',
        collection: customFieldClaims,
        document: { id: claim.id, workspaceId, kind: type, key: claim.key, recordId },
      });
    }
    return this;
  }

  /** The account's contacts and opportunities stay, without it. */
  unlinkAccount(accountId: string): this {
    const linked: Condition[] = [{ field: 'accountId', op: 'eq', value: accountId }];
    const unlink = { set: { accountId: null }, inc: { version: 1 } };
    this.ops.push(
      { kind: 'updateMany', collection: contacts, where: linked, change: unlink },
      { kind: 'updateMany', collection: opportunities, where: linked, change: unlink },
    );
    return this;
  }

  /** An opportunity's contact list, if the opportunity is still there. */
  setOpportunityContacts(opportunityId: string, contactIds: string[]): this {
    this.ops.push({
      kind: 'update',
      collection: opportunities,
      id: opportunityId,
      change: { set: { contactIds }, inc: { version: 1 } },
      required: false,
    });
    return this;
  }

  /** What pointed at a merged record points at the survivor: notes, tasks, activities and, by kind, links. */
  moveToSurvivor(type: RecordType, mergedIds: string[], survivorId: string): this {
    const move = (collection: WriteOp['collection'], field: string, bump: boolean): WriteOp => ({
      kind: 'updateMany',
      collection,
      where: [{ field, op: 'in', values: mergedIds }],
      change: { set: { [field]: survivorId }, ...(bump ? { inc: { version: 1 } } : {}) },
    });
    this.ops.push(move(notes, 'relatedTo', false), move(tasks, 'relatedTo', false), move(activities, 'recordId', false));
    if (type === 'account') this.ops.push(move(contacts, 'accountId', true), move(opportunities, 'accountId', true));
    if (type === 'contact') this.ops.push(move(leads, 'convertedContactId', true));
    return this;
  }

  /** The emails this commit gives contacts and leads (inserted, or set by an update): what the suppression list checks. */
  writtenEmails(): string[] {
    const people = new Set<WriteOp['collection']>([contacts, leads]);
    const emails: string[] = [];
    for (const op of this.ops) {
      if (!people.has(op.collection)) continue;
      const email =
        op.kind === 'insert' ? op.document.email : op.kind === 'update' || op.kind === 'updateMany' ? op.change.set?.email : undefined;
      if (typeof email === 'string' && email) emails.push(email);
    }
    return emails;
  }

  activity(document: ActivityDocument): this {
    this.ops.push({ kind: 'insert', collection: activities, document: { ...document } });
    return this;
  }

  /**
   * An audit log entry: it commits with the change it describes, or not at all. Staged
   * (audit-staging.ts), unless `direct`: an entry whose id must stay unique forever, or one of a
   * batch's many, whose commit shares each index page among them anyway.
   */
  auditEntry(document: AuditEntryDocument, direct = false): this {
    if (!direct) this.stagedAudit += 1;
    this.ops.push({ kind: 'insert', collection: direct ? auditEntries : auditStaged, document: { ...document } });
    return this;
  }

  /** The staged entries of these changes written straight into the log instead (a batch's). */
  auditDirectly(): this {
    for (const op of this.ops) if (op.kind === 'insert' && op.collection === auditStaged) op.collection = auditEntries;
    this.stagedAudit = 0;
    return this;
  }

  /** A bulk write's audit entries, as one group: it commits with the changes it describes, or not at all. */
  auditGroup(group: AuditGroupDocument, entries: AuditGroupEntries): this {
    this.ops.push(
      { kind: 'insert', collection: auditEntries, document: { ...group } },
      { kind: 'insert', collection: auditGroupEntries, document: { ...entries } },
    );
    return this;
  }

  /** A group's entries replaced (an erasure's blanking), if no other rewrite came first (else the commit conflicts). */
  rewriteAuditGroup(group: AuditGroupEntries, entries: AuditGroupEntries['entries']): this {
    this.ops.push({
      kind: 'update',
      collection: auditGroupEntries,
      id: group.id,
      change: { set: { entries }, inc: { revision: 1 } },
      where: [{ field: 'revision', op: 'eq', value: group.revision }],
      required: true,
    });
    return this;
  }

  /** An audit entry's values replaced (an erasure's blanking); its id and the rest stay. */
  rewriteAuditChanges(id: string, changes: FieldChanges): this {
    this.ops.push({ kind: 'update', collection: auditEntries, id, change: { set: { changes } }, required: false });
    return this;
  }

  batchResult(document: BatchResultDocument): this {
    this.ops.push({ kind: 'insert', collection: batchResults, document: { ...document } });
    return this;
  }

  /** An outbox event; the first of a commit also marks its workspace as having events to relay. */
  event(document: OutboxDocument): this {
    // A flag, not a scan of the ops: a batch's commit holds thousands of them.
    if (!this.hasEvents) this.ops.push(pendingEventsMark(document.workspaceId, document.id));
    this.hasEvents = true;
    this.ops.push({ kind: 'insert', collection: outbox, document: { ...document } });
    return this;
  }
}

/** Ids per `in` condition of one write, within what the store binds at once. */
const IDS_PER_WRITE = 500;

function versionIs(expected: number | undefined): Condition[] {
  if (expected === undefined) return [];
  return [expected === 0 ? { field: 'version', op: 'exists', value: false } : { field: 'version', op: 'eq', value: expected }];
}
