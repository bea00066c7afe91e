/**
 * Batches of contacts (the import's rows), created once per idempotency key: the answer is stored
 * in the same commit as the contacts, so a retry (even a concurrent one) gets the first answer and
 * creates nothing.
 *
 * The duplicate rule holds across batches committing at once (two imports of overlapping files, or
 * one import's chunks on several workers): each contact an import creates holds its email in the
 * workspace's unique `importEmailKey` index, so of two batches that both found an address free only
 * the first commit succeeds; the other's fails whole and the batch is checked again, now seeing the
 * winner's contact as the existing one.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '@crm/observability';
import { newContact } from '../domain/contact-rules';
import { contactsCreated } from '../domain/events';
import { NO_REFERENCES } from '../domain/field-rules';
import { cellValues } from '../domain/custom-field-values';
import type { CustomFieldDefinition } from '@crm/vocabulary';
import { ID_PREFIX } from '../domain/ids';
import { SUPPRESSED_EMAIL } from '../domain/suppression';
import type { ContactDocument } from '../domain/model';
import type { BatchResultDocument } from '../store/collections';
import type { BulkLane } from './bulk-lane';
import { isDuplicate } from './record-writer';
import { found, nowOf, type RecordsContext } from './records-context';
import type { Caller } from './views';

export interface ContactRowInput {
  row: number;
  body: Record<string, unknown>;
}

export interface BatchCreateInput {
  idempotencyKey: string;
  rows: ContactRowInput[];
  sourceUid?: string;
  importJobId?: string;
  /** Checked as a real run, nothing written or stored: created rows have no contact id. */
  dryRun?: boolean;
}

export type BatchCreateResult = BatchResultDocument['result'] & { replayed: boolean };

const EXTERNAL_ID_TAKEN = 'Another contact in the workspace (or an earlier row) has this externalId.';
const UNIQUE_VALUE_TAKEN = 'Another contact in the workspace (or an earlier row) has this value.';
/** Checks of one batch against the workspace; each lost race adds one, so this is many racing batches with the same emails. */
const MAX_ATTEMPTS = 8;

export class ContactBatches {
  constructor(
    private readonly context: RecordsContext,
    /** Bulk work waits here behind interactive calls (bulk-lane.ts). */
    private readonly lane: BulkLane,
  ) {}

  /**
   * A row whose email (case-insensitive) already belongs to a contact of the workspace, or to an
   * earlier row of the batch, is reported as a duplicate and not created.
   */
  create(caller: Caller, input: BatchCreateInput): Promise<BatchCreateResult> {
    // Background work: it keeps the lane through its commit (no BulkCall.commit), so other
    // workspaces' calls have the event loop meanwhile. Overlapping the next batch's checks with the
    // commit made the import faster, and another workspace's list p99 during it a quarter slower
    // (bench bulk-isolation).
    return this.lane.run(() => this.createInLane(caller, input));
  }

  private async createInLane(caller: Caller, input: BatchCreateInput): Promise<BatchCreateResult> {
    const { repo } = this.context;
    if (!input.idempotencyKey) throw DomainError.invalid('idempotency_key is required.');
    const batchId = batchIdOf(caller.workspaceId, input.idempotencyKey);
    // Looked up once, and not for a replay (its source may have gone since).
    let sourceName: Promise<string | null> | undefined;
    const source = () => (sourceName ??= this.sourceNameOf(caller.workspaceId, input.sourceUid));
    if (input.dryRun) return this.createOnce(caller, input, batchId, await source());
    for (let attempt = 1; ; attempt++) {
      const stored = await repo.batchResult(caller.workspaceId, batchId);
      if (stored) return { ...stored.result, replayed: true };
      try {
        return await this.createOnce(caller, input, batchId, await source());
      } catch (error) {
        // A concurrent run of the same batch committed first (the loop answers what it stored), or
        // another batch took one of our emails first (the next check finds its contact).
        if (!isDuplicate(error) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  /** The import source's name the batch's contacts take (404 for an unknown one). */
  private async sourceNameOf(workspaceId: string, sourceUid: string | undefined): Promise<string | null> {
    return sourceUid ? (await found(this.context.repo.source(workspaceId, sourceUid))).name : null;
  }

  /** Checks the rows against the workspace's contacts and commits the new ones with the batch's answer. */
  private async createOnce(
    caller: Caller,
    input: BatchCreateInput,
    batchId: string,
    sourceName: string | null,
  ): Promise<BatchCreateResult> {
    const { writer } = this.context;

    const now = nowOf(this.context);
    const result: BatchResultDocument['result'] = { created: [], duplicates: [], errors: [] };
    const definitions = await this.context.customFields.definitions(caller.workspaceId, 'contact');
    const rows = this.validRows(caller, input, sourceName, now, result, definitions);
    const valid = await this.unsuppressed(caller.workspaceId, rows, result);
    const existing = await this.existingByEmail(
      caller.workspaceId,
      valid.map((v) => v.contact.emailKey),
    );
    const seen = new Set<string>();
    const takenExternalIds = await this.takenExternalIds(caller.workspaceId, valid);
    const takenClaims = await this.takenClaims(caller.workspaceId, valid);
    const changes = writer.changes();
    const createdContacts: ContactDocument[] = [];
    for (const { row, contact } of valid) {
      const match = existing.get(contact.emailKey);
      const claimed = (contact.uniqueClaims ?? []).find((claim) => takenClaims.has(claim.id));
      if (contact.externalId && takenExternalIds.has(contact.externalId)) {
        result.errors.push({ row, message: `externalId: ${EXTERNAL_ID_TAKEN}` });
      } else if (claimed) {
        result.errors.push({ row, message: `customFields.${claimed.key}: ${UNIQUE_VALUE_TAKEN}` });
      } else if (match) {
        const sameImport = Boolean(input.importJobId) && match.importJobId === input.importJobId;
        result.duplicates.push({ row, email: contact.email, existingContactId: match.id, sameImport });
      } else if (seen.has(contact.emailKey)) {
        result.duplicates.push({ row, email: contact.email, existingContactId: '', sameImport: true });
      } else {
        seen.add(contact.emailKey);
        if (contact.externalId) takenExternalIds.add(contact.externalId);
        for (const claim of contact.uniqueClaims ?? []) takenClaims.add(claim.id);
        result.created.push({ row, contactId: contact.id });
        createdContacts.push(contact);
      }
    }
    if (input.dryRun) return { ...result, created: result.created.map(({ row }) => ({ row, contactId: '' })), replayed: false };
    // The batch's audit entries are one group, which each contact names (so first). An imported
    // contact has no `created` activity of its own: its `imported` audit entry and its
    // `importJobId` say where it came from (issue 34). Each collection's inserts are consecutive,
    // so they go to the store as multi-row statements.
    writer.auditCreations(changes, caller, 'imported', 'contact', createdContacts, now);
    for (const contact of createdContacts) {
      changes.insert('contact', contact);
      changes.claims('contact', contact.id, contact.uniqueClaims ?? [], [], caller.workspaceId);
    }
    const events = createdContacts.length > 0 ? [contactsCreated(caller.workspaceId, createdContacts)] : [];
    changes.batchResult({ id: batchId, workspaceId: caller.workspaceId, idempotencyKey: input.idempotencyKey, result, createdAt: now });
    await writer.write(caller, changes, events);
    return { ...result, replayed: false };
  }

  /** The stored answer of the batch create with this key; not_found when none has committed (so nothing of it exists). */
  async get(caller: Caller, idempotencyKey: string): Promise<BatchResultDocument['result']> {
    if (!idempotencyKey) throw DomainError.invalid('idempotency_key is required.');
    const stored = await this.context.repo.batchResult(caller.workspaceId, batchIdOf(caller.workspaceId, idempotencyKey));
    if (!stored) throw DomainError.notFound();
    return stored.result;
  }

  /** The rows that make a valid contact; the others land in `result.errors`. */
  private validRows(
    caller: Caller,
    input: BatchCreateInput,
    sourceName: string | null,
    now: string,
    result: BatchResultDocument['result'],
    definitions: readonly CustomFieldDefinition[],
  ): { row: number; contact: ContactDocument }[] {
    const valid: { row: number; contact: ContactDocument }[] = [];
    const references = { ...NO_REFERENCES, customFields: definitions };
    for (const row of input.rows) {
      try {
        const body =
          typeof row.body.customFields === 'string'
            ? { ...row.body, customFields: cellValues(row.body.customFields, definitions) }
            : row.body;
        const contact = newContact({ body, references }, this.context.ids(ID_PREFIX.contact), caller.workspaceId, now);
        contact.source = sourceName;
        contact.importJobId = input.importJobId || null;
        if (contact.emailKey) contact.importEmailKey = contact.emailKey;
        valid.push({ row: row.row, contact });
      } catch (error) {
        if (!(error instanceof DomainError) || !error.fields) throw error;
        const message = Object.entries(error.fields)
          .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
          .join('; ');
        result.errors.push({ row: row.row, message });
      }
    }
    return valid;
  }

  /** The rows whose email is not on the suppression list; the others land in `result.errors`. */
  private async unsuppressed(
    workspaceId: string,
    rows: { row: number; contact: ContactDocument }[],
    result: BatchResultDocument['result'],
  ): Promise<{ row: number; contact: ContactDocument }[]> {
    const suppressed = await this.context.suppressions.suppressed(
      workspaceId,
      rows.map((r) => r.contact.email),
    );
    if (suppressed.size === 0) return rows;
    for (const { row, contact } of rows)
      if (suppressed.has(contact.emailKey)) result.errors.push({ row, message: `email: ${SUPPRESSED_EMAIL}` });
    return rows.filter(({ contact }) => !suppressed.has(contact.emailKey));
  }

  /** The externalIds of the rows that contacts of the workspace already hold. */
  private async takenExternalIds(workspaceId: string, rows: { contact: ContactDocument }[]): Promise<Set<string>> {
    const wanted = [...new Set(rows.flatMap(({ contact }) => (contact.externalId ? [contact.externalId] : [])))];
    if (wanted.length === 0) return new Set();
    const holders = await this.context.repo.contactsByExternalIds(workspaceId, wanted);
    return new Set(holders.map((c) => c.externalId!));
  }

  /** The unique custom values of the rows that records of the workspace already hold (claim ids). */
  private async takenClaims(workspaceId: string, rows: { contact: ContactDocument }[]): Promise<Set<string>> {
    const wanted = rows.flatMap(({ contact }) => (contact.uniqueClaims ?? []).map((claim) => claim.id));
    return new Set((await this.context.customFields.claimHolders(workspaceId, wanted)).keys());
  }

  /** The workspace's oldest contact for each lower-cased email. */
  private async existingByEmail(workspaceId: string, emailKeys: string[]): Promise<Map<string, ContactDocument>> {
    const existing = new Map<string, ContactDocument>();
    for (const contact of await this.context.repo.contactsByEmailKeys(workspaceId, [...new Set(emailKeys)])) {
      if (!existing.has(contact.emailKey)) existing.set(contact.emailKey, contact);
    }
    return existing;
  }
}

/** A batch's id: its idempotency key hashed within the workspace. */
function batchIdOf(workspaceId: string, idempotencyKey: string): string {
  return `bat_${createHash('sha256').update(`${workspaceId}\n${idempotencyKey}`).digest('hex')}`;
}
