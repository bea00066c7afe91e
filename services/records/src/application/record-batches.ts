/**
 * POST /api/{kind}/batch/: up to 1,000 creates, updates or upserts of one kind in one commit, each
 * record built and changed by the kind's own rules and staged with its activity and events exactly
 * as a single write is (record-writes.ts). Records are matched by id, email, externalId (or a
 * unique custom field) in one look-up per batch.
 *
 * Racing batches on one match value make one record: a record created by matching on email claims
 * its address in a unique index (contacts' importEmailKey, shared with the import; leads'
 * emailClaimKey), and externalId is unique per workspace and kind, so of two batches that both
 * found a value free only the first commit succeeds; the other's fails whole and the batch is
 * matched again, now finding the winner's record to update (or leave unchanged). Updates land only
 * at the version read, so a record changed meanwhile is read again the same way.
 *
 * Contacts may share an email (only imported and batch-created ones claim theirs): a match on email
 * takes the oldest contact or lead with it, as the import's duplicate check does.
 */
import { DomainError, type FieldErrors } from '@crm/observability';
import { CUSTOM_FIELDS_PREFIX, type BatchResultStatus } from '@crm/vocabulary';
import { batchPlan, matchFieldName, type BatchPlan, type BatchRecordKind, type UniqueCustomFields } from '../domain/batch-request';
import { recordsWritten, type DomainEvent } from '../domain/events';
import type { KnownReferences } from '../domain/field-rules';
import { versionOf } from '../domain/record-version';
import { isConflict, isDuplicate, UNIQUE_VALUE_TAKEN } from './record-writer';
import { changesAnything, RECORD_WRITES, stageCreate, stageUpdate, type KindWrites, type WritableDocuments } from './record-writes';
import type { BulkCall, BulkLane } from './bulk-lane';
import { referencesOfAll, type RecordsContext } from './records-context';
import type { RecordChanges } from '../store/record-changes';
import type { Caller, WriteInput } from './views';

export interface BatchRecordInput extends WriteInput {
  /** The `id` the client sent with the record (matchOn id); empty when none. */
  id: string;
}

export interface BatchWriteInput {
  kind: BatchRecordKind;
  operation: string;
  matchOn: string;
  atomic: boolean;
  records: BatchRecordInput[];
}

export interface BatchRecordResult {
  index: number;
  status: BatchResultStatus;
  id: string | null;
  errors: FieldErrors | null;
}

export interface BatchWriteResult {
  results: BatchRecordResult[];
  /** Atomic, with an error: nothing was written. */
  rolledBack: boolean;
}

type AnyDocument = WritableDocuments[BatchRecordKind];

/** A record staged on its own changes, waiting for its unique custom values to be checked. */
/** Marks one record failed with these errors. */
type Fail = (index: number, errors: FieldErrors) => void;

interface Staged {
  index: number;
  own: RecordChanges;
  status: BatchResultStatus;
  id: string;
  events: DomainEvent[];
}

/** Matches of one batch against the workspace; each lost race adds one, so this is many racing batches on the same values. */
const MAX_ATTEMPTS = 8;

const SAME_IN_BATCH = (field: string) => `Another record of this batch has the same ${field}; send it once.`;
const TAKEN_EXTERNAL_ID = 'Another record of this kind in the workspace has this externalId.';

export class RecordBatches {
  constructor(
    private readonly context: RecordsContext,
    /** Bulk work waits here behind interactive calls (bulk-lane.ts). */
    private readonly lane: BulkLane,
  ) {}

  /** Creates, updates or upserts of one kind, each as a single write would, in one commit. */
  write(caller: Caller, input: BatchWriteInput): Promise<BatchWriteResult> {
    // A client waits on the answer: the next batch's checks run during this one's commit (call.commit).
    return this.lane.run((call) => this.writeInLane(caller, input, call));
  }

  private async writeInLane(caller: Caller, input: BatchWriteInput, call: BulkCall): Promise<BatchWriteResult> {
    const definitions = await this.context.customFields.definitions(caller.workspaceId, input.kind);
    const unique = new Set(definitions.filter((d) => d.unique).map((d) => d.key));
    const uniqueCustomFields: UniqueCustomFields = () => unique;
    const plan = batchPlan(
      { kind: input.kind, operation: input.operation, matchOn: input.matchOn, atomic: input.atomic, recordCount: input.records.length },
      uniqueCustomFields,
    );
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.writeOnce(caller, input, plan, call);
      } catch (error) {
        if (!lostRace(error) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  private async writeOnce(caller: Caller, input: BatchWriteInput, plan: BatchPlan, call: BulkCall): Promise<BatchWriteResult> {
    const results: BatchRecordResult[] = input.records.map((_, index) => ({ index, status: 'error', id: null, errors: null }));
    const fail: Fail = (index, errors) => Object.assign(results[index]!, { status: 'error', id: null, errors });
    // A record that is not an object at all is nothing else: its one error says so.
    input.records.forEach((record, index) => record.earlierErrors?.nonFieldErrors && fail(index, record.earlierErrors));
    const staged = await this.stageRecords(caller, input, plan, (index) => results[index]!.errors !== null, fail);
    const { changes, events } = await this.keepFreeClaims(caller, staged, fail);
    for (const { index, status, id } of staged) if (!results[index]!.errors) results[index] = { index, status, id, errors: null };

    if (plan.atomic && results.some((r) => r.status === 'error')) return { results: skipWritten(results), rolledBack: true };
    if (changes.ops.length > 0) {
      const commit = changes.auditDirectly().groupedByCollection();
      await call.commit(() => this.context.writer.write(caller, commit, recordsWritten(caller.workspaceId, events)));
    }
    return { results, rolledBack: false };
  }

  /** Each record's changes on its own, after its match, its externalId and its rules are checked (a failing record is left out). */
  private async stageRecords(
    caller: Caller,
    input: BatchWriteInput,
    plan: BatchPlan,
    failed: (index: number) => boolean,
    fail: Fail,
  ): Promise<Staged[]> {
    const { writer, clock } = this.context;
    const writes = RECORD_WRITES[input.kind] as KindWrites<AnyDocument>;
    const now = clock();
    const matchValues = this.matchValues(input, plan, fail);
    const [targets, references] = await Promise.all([
      this.targets(caller.workspaceId, input.kind, plan, matchValues),
      referencesOfAll(
        this.context,
        caller,
        input.records.map((r) => r.body),
        writes.fields,
      ),
    ]);
    const externalIdHolders = await this.externalIdHolders(caller.workspaceId, input, plan);
    const claimedExternalIds = new Set<string>();
    const staged: Staged[] = [];
    input.records.forEach((record, index) => {
      if (failed(index)) return;
      const value = matchValues[index];
      const target = value === null || value === undefined ? undefined : targets.get(value);
      const externalId = externalIdOf(record.body);
      if (externalId !== null) {
        const holder = externalIdHolders.get(externalId);
        if ((holder !== undefined && holder !== target?.id) || claimedExternalIds.has(externalId))
          return fail(index, { externalId: [claimedExternalIds.has(externalId) ? SAME_IN_BATCH('externalId') : TAKEN_EXTERNAL_ID] });
        claimedExternalIds.add(externalId);
      }
      if (plan.operation === 'update' && !target) {
        const field = matchFieldName(plan.match!);
        return fail(index, { [field]: [`No ${input.kind} of the workspace has this ${field}.`] });
      }
      // Each record on its own changes, kept below once its unique custom values are known to be free.
      const own = writer.changes();
      try {
        const done = target
          ? this.stageChange(caller, own, input.kind, target, { ...record, references }, now)
          : this.stageNew(caller, own, input.kind, plan, { ...record, references }, now);
        staged.push({ index, own, ...done });
      } catch (error) {
        if (!(error instanceof DomainError) || error.kind !== 'validation_failed' || !error.fields) throw error;
        fail(index, error.fields);
      }
    });
    return staged;
  }

  /**
   * The staged records' changes and events, each kept only if its unique custom values are free: a
   * value another record holds (or an earlier record of the batch claims) fails only its record, as
   * a taken externalId does; the commit would otherwise fail the whole batch.
   */
  private async keepFreeClaims(caller: Caller, staged: Staged[], fail: Fail): Promise<{ changes: RecordChanges; events: DomainEvent[] }> {
    const changes = this.context.writer.changes();
    const events: DomainEvent[] = [];
    const holders = await this.context.customFields.claimHolders(
      caller.workspaceId,
      staged.flatMap((s) => s.own.claimed.map((claim) => claim.id)),
    );
    const claimedValues = new Set<string>();
    for (const { index, own, id, events: recordEvents } of staged) {
      const clashes = own.claimed.filter((claim) => claimedValues.has(claim.id) || (holders.get(claim.id) ?? id) !== id);
      if (clashes.length > 0) {
        fail(
          index,
          Object.fromEntries(
            clashes.map((claim) => {
              const field = `${CUSTOM_FIELDS_PREFIX}${claim.key}`;
              return [field, [claimedValues.has(claim.id) ? SAME_IN_BATCH(field) : UNIQUE_VALUE_TAKEN]];
            }),
          ),
        );
        continue;
      }
      for (const claim of own.claimed) claimedValues.add(claim.id);
      changes.append(own);
      events.push(...recordEvents);
    }
    return { changes, events };
  }

  /** Each record's match value (lower-cased for email), null for a create; a missing or repeated one fails that record. */
  private matchValues(input: BatchWriteInput, plan: BatchPlan, fail: Fail): (string | null)[] {
    if (!plan.match) return input.records.map(() => null);
    const field = matchFieldName(plan.match);
    const seen = new Set<string>();
    return input.records.map((record, index) => {
      if (record.earlierErrors?.nonFieldErrors) return null;
      const value = matchValueOf(plan, record);
      if (value === null) {
        fail(index, { [field]: [`This field is required to match on ${field}.`] });
        return null;
      }
      if (seen.has(value)) {
        fail(index, { [field]: [SAME_IN_BATCH(field)] });
        return null;
      }
      seen.add(value);
      return value;
    });
  }

  /** The stored records the match values name, by value (the oldest where several share an email). */
  private async targets(
    workspaceId: string,
    kind: BatchRecordKind,
    plan: BatchPlan,
    values: (string | null)[],
  ): Promise<Map<string, AnyDocument>> {
    const wanted = [...new Set(values.filter((v): v is string => v !== null))];
    const byValue = new Map<string, AnyDocument>();
    if (!plan.match || wanted.length === 0) return byValue;
    const { repo } = this.context;
    switch (plan.match.field) {
      case 'id':
        for (const record of await repo.recordsByIds(workspaceId, kind, wanted)) byValue.set(record.id, record);
        return byValue;
      case 'externalId':
        for (const record of await repo.recordsWhereIn(workspaceId, kind, 'externalId', wanted)) byValue.set(record.externalId!, record);
        return byValue;
      case 'email': {
        const found = await repo.recordsWhereIn(workspaceId, kind, 'emailKey', wanted);
        // Leads stored before they had an emailKey are found by the address as sent.
        if (kind === 'lead') found.push(...(await repo.recordsWhereIn(workspaceId, kind, 'email', wanted)));
        found.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
        for (const record of found) {
          const key = (record as { email: string }).email.toLowerCase();
          if (!byValue.has(key)) byValue.set(key, record);
        }
        return byValue;
      }
      case 'customField': {
        // Integer fields hold numbers; the match values travel as text.
        const field = `${CUSTOM_FIELDS_PREFIX}${plan.match.key}`;
        const asNumbers = wanted.filter((v) => /^-?\d+$/.test(v)).map(Number);
        const found = await repo.recordsWhereIn(workspaceId, kind, field, wanted);
        if (asNumbers.length > 0) found.push(...(await repo.recordsWhereIn(workspaceId, kind, field, asNumbers as unknown as string[])));
        for (const record of found) {
          const value = (record as { customFields?: Record<string, unknown> }).customFields?.[plan.match.key];
          if (value !== undefined) byValue.set(String(value), record);
        }
        return byValue;
      }
    }
  }

  /** Which stored record holds each externalId the records set (to tell a record's own from another's). */
  private async externalIdHolders(workspaceId: string, input: BatchWriteInput, plan: BatchPlan): Promise<Map<string, string>> {
    const wanted = [...new Set(input.records.map((r) => externalIdOf(r.body)).filter((v): v is string => v !== null))];
    const holders = new Map<string, string>();
    if (wanted.length === 0) return holders;
    for (const record of await this.context.repo.recordsWhereIn(workspaceId, input.kind, 'externalId', wanted))
      holders.set(record.externalId!, record.id);
    // Matching on externalId, a holder is the record matched: fine.
    if (plan.match?.field === 'externalId') holders.clear();
    return holders;
  }

  private stageNew(
    caller: Caller,
    changes: ReturnType<RecordsContext['writer']['changes']>,
    kind: BatchRecordKind,
    plan: BatchPlan,
    input: WriteInput & { references: KnownReferences },
    now: Date,
  ): { status: BatchResultStatus; id: string; events: DomainEvent[] } {
    const writes = RECORD_WRITES[kind] as KindWrites<AnyDocument>;
    const record = writes.build(input, this.context.ids(writes.idPrefix), caller.workspaceId, now);
    if (plan.match?.field === 'email') claimEmail(kind, record);
    return { status: 'created', id: record.id, events: stageCreate(this.context.writer, changes, caller, kind, record, now) };
  }

  /** An update of the matched record; `unchanged`, with nothing staged, when it would change nothing. */
  private stageChange(
    caller: Caller,
    changes: ReturnType<RecordsContext['writer']['changes']>,
    kind: BatchRecordKind,
    current: AnyDocument,
    input: WriteInput & { references: KnownReferences },
    now: Date,
  ): { status: BatchResultStatus; id: string; events: DomainEvent[] } {
    const writes = RECORD_WRITES[kind] as KindWrites<AnyDocument>;
    const fields = writes.change(current, input, now);
    if (!changesAnything(current, fields)) return { status: 'unchanged', id: current.id, events: [] };
    const staged = stageUpdate(this.context.writer, changes, caller, kind, current, fields, now, versionOf(current));
    return { status: 'updated', id: current.id, events: staged.events };
  }
}

function matchValueOf(plan: BatchPlan, record: BatchRecordInput): string | null {
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  switch (plan.match!.field) {
    case 'id':
      return text(record.id);
    case 'email':
      return text(record.body.email)?.toLowerCase() ?? null;
    case 'externalId':
      return text(record.body.externalId);
    case 'customField': {
      const custom = record.body.customFields as Record<string, unknown> | undefined;
      const value = custom?.[plan.match!.key];
      return typeof value === 'number' ? String(value) : text(value);
    }
  }
}

function externalIdOf(body: Record<string, unknown>): string | null {
  return typeof body.externalId === 'string' && body.externalId.trim() !== '' ? body.externalId.trim() : null;
}

/** A record a batch created by its email holds it in the kind's unique claim index (see the top of this file). */
function claimEmail(kind: BatchRecordKind, record: AnyDocument): void {
  if (kind === 'contact') {
    const contact = record as WritableDocuments['contact'];
    contact.importEmailKey = contact.emailKey;
  } else if (kind === 'lead') {
    const lead = record as WritableDocuments['lead'];
    lead.emailClaimKey = lead.email.toLowerCase();
  }
}

/** Atomic, with an error: what would have been written is `skipped` (no id for a record never made). */
function skipWritten(results: BatchRecordResult[]): BatchRecordResult[] {
  return results.map((r) =>
    r.status === 'created' ? { ...r, status: 'skipped', id: null } : r.status === 'updated' ? { ...r, status: 'skipped' } : r,
  );
}

/** The commit failed because another write took a match value (or moved a record) since this batch read them. */
function lostRace(error: unknown): boolean {
  if (isDuplicate(error) || isConflict(error)) return true;
  // The writer reads a clash on externalId or a unique custom field as the single write's 422; in a batch it is a lost race.
  if (!(error instanceof DomainError) || error.kind !== 'validation_failed' || !error.fields) return false;
  return Object.keys(error.fields).some((field) => field === 'externalId' || field.startsWith(CUSTOM_FIELDS_PREFIX));
}
