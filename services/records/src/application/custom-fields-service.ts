/** Custom field definitions (/api/settings/custom-fields/): list, read, create, change and delete. */
import { DomainError, type Logger } from '@crm/observability';
import { StoreError } from '@crm/store';
import { CUSTOM_FIELD_KINDS, type CustomFieldDefinition, type CustomFieldKind } from '@crm/vocabulary';
import { changedCustomField, newCustomField, removedOptions } from '../domain/custom-field-rules';
import { derivedId, ID_PREFIX } from '../domain/ids';
import * as lists from '../domain/list-rules';
import type { FieldDeletion } from '../store/custom-field-collections';
import type { ListResult } from '../store/records-repository';
import { BackgroundWork } from './background-work';
import type { BulkLane } from './bulk-lane';
import { isConflict, isDuplicate } from './record-writer';
import { found, nowOf, type RecordsContext } from './records-context';
import type { Caller, Paging, WriteInput } from './views';

/** Records whose values of a deleted field one commit clears: about 55 ms of SQLite's time here (100,000 values: 400 commits, the longest 114 ms). */
export const VALUES_PER_COMMIT = 250;

export class CustomFieldsService {
  private readonly underWay: BackgroundWork;

  constructor(
    private readonly context: RecordsContext,
    private readonly lane: BulkLane,
    logger: Logger,
  ) {
    this.underWay = new BackgroundWork(logger, 'could not finish a custom field deletion; the next start of a records replica resumes it');
  }

  async list(caller: Caller, kind: string | undefined, paging: Paging): Promise<ListResult<CustomFieldDefinition>> {
    if (kind && !(CUSTOM_FIELD_KINDS as readonly string[]).includes(kind)) {
      throw new DomainError('invalid_argument', `kind: "${kind}" is not a valid choice.`, { kind: [`"${kind}" is not a valid choice.`] });
    }
    const page = await this.context.customFields.page(
      caller.workspaceId,
      kind as CustomFieldKind | undefined,
      lists.page(paging.offset, paging.limit),
    );
    return { total: page.total, items: page.items, nextCursor: null };
  }

  get(caller: Caller, id: string): Promise<CustomFieldDefinition> {
    return found(this.context.customFields.get(caller.workspaceId, id));
  }

  async create(caller: Caller, input: WriteInput): Promise<CustomFieldDefinition> {
    const { customFields, ids } = this.context;
    const existing = await customFields.definitions(caller.workspaceId);
    const definition = newCustomField(input.body, existing, ids(ID_PREFIX.customField), nowOf(this.context), input.earlierErrors);
    try {
      await customFields.insert(caller.workspaceId, definition);
    } catch (error) {
      // Two admins adding the same key at once: the second meets the (kind, key) index. So does a
      // key whose field is still being deleted (its values are being cleared).
      if (error instanceof StoreError && error.code === 'duplicate') {
        throw DomainError.validation({
          key: [`A ${definition.kind} field with the key "${definition.key}" exists already, or is still being deleted.`],
        });
      }
      throw error;
    }
    return definition;
  }

  async update(caller: Caller, id: string, input: WriteInput): Promise<CustomFieldDefinition> {
    const { customFields } = this.context;
    const current = await found(customFields.get(caller.workspaceId, id));
    const inUse = await customFields.optionsInUse(caller.workspaceId, current, removedOptions(current, input.body));
    const next = changedCustomField(current, input.body, inUse, nowOf(this.context), input.earlierErrors);
    await customFields.replace(caller.workspaceId, next);
    return next;
  }

  /**
   * The field is hidden at once (answers, filters, writes) and its unique values freed; then each
   * record's value goes, VALUES_PER_COMMIT records per commit in the bulk lane, each with an audit
   * entry (`updated`, the value to null, the deleting caller and request id); then the definition
   * itself. A field fewer records hold is gone before the answer; a larger one's values go after
   * it, so one deletion never holds the event loop for long (100,000 values in one commit held it
   * for 13-18 s). A deletion a replica left unfinished is finished at the next start (`atStart`).
   */
  async delete(caller: Caller, id: string): Promise<void> {
    const { customFields } = this.context;
    const current = await found(customFields.get(caller.workspaceId, id));
    const deletion: FieldDeletion = { at: nowOf(this.context), startedMs: this.context.clock().getTime(), caller };
    try {
      await customFields.markDeleting(caller.workspaceId, current, deletion);
    } catch (error) {
      if (isConflict(error)) throw DomainError.notFound();
      throw error;
    }
    if (await this.clearSomeValues(current, deletion)) this.underWay.track(this.clearValues(current, deletion));
    else await customFields.remove(caller.workspaceId, current);
  }

  /**
   * At a start: every field has its index, and the deletions a stopped replica left under way are
   * finished; answers how many definitions it checked and how many deletions it finished.
   */
  async atStart(): Promise<{ checked: number; resumed: number }> {
    const { checked, underWay } = await this.context.customFields.everyDefinitionAtStart();
    for (const { definition, deletion } of underWay) await this.clearValues(definition, deletion);
    return { checked, resumed: underWay.length };
  }

  /** Deletions still clearing values in the background have finished (tests; a stop does not wait). */
  settled(): Promise<void> {
    return this.underWay.settled();
  }

  private async clearValues(definition: CustomFieldDefinition, deletion: FieldDeletion): Promise<void> {
    while (await this.clearSomeValues(definition, deletion));
    await this.context.customFields.remove(deletion.caller.workspaceId, definition);
  }

  /** Clears up to VALUES_PER_COMMIT records' values in one commit, in the bulk lane; answers whether some may remain. */
  private clearSomeValues(definition: CustomFieldDefinition, deletion: FieldDeletion): Promise<boolean> {
    const { caller } = deletion;
    return this.lane.run(async () => {
      const { customFields, writer } = this.context;
      const held = await customFields.valuesHeld(caller.workspaceId, definition, VALUES_PER_COMMIT);
      if (held.length === 0) return false;
      const changes = writer.changes().clearCustomValues(
        definition.kind,
        held.map((h) => h.recordId),
        definition.key,
      );
      const now = nowOf(this.context);
      for (const { recordId, value } of held) {
        const before = { customFields: { [definition.key]: value } };
        const entry = { id: recordId, before, after: { customFields: {} } };
        writer.audit(changes, caller, 'updated', definition.kind, entry, now, clearedValueEntryId(definition, deletion, recordId));
      }
      try {
        await writer.write(caller, changes, []);
      } catch (error) {
        // Another replica finishing the same deletion wrote one of these entries first: read again.
        if (isDuplicate(error)) return true;
        throw error;
      }
      return held.length === VALUES_PER_COMMIT;
    });
  }
}

/**
 * One audit entry per record and deleted field, whichever replica clears the value (a second one
 * is a duplicate), sorting by the deletion's start among entries made in the same second.
 */
function clearedValueEntryId(definition: CustomFieldDefinition, deletion: FieldDeletion, recordId: string): string {
  return derivedId(ID_PREFIX.auditEntry, deletion.startedMs, `${definition.id}:${recordId}`);
}
