/** Custom field definitions (/api/settings/custom-fields/): list, read, create, change and delete. */
import { DomainError } from '@crm/observability';
import { StoreError } from '@crm/store';
import { CUSTOM_FIELD_KINDS, type CustomFieldDefinition, type CustomFieldKind } from '@crm/vocabulary';
import { changedCustomField, newCustomField, removedOptions } from '../domain/custom-field-rules';
import { ID_PREFIX } from '../domain/ids';
import * as lists from '../domain/list-rules';
import type { ListResult } from '../store/records-repository';
import { found, nowOf, type RecordsContext } from './records-context';
import type { Caller, Paging, WriteInput } from './views';

export class CustomFieldsService {
  constructor(private readonly context: RecordsContext) {}

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
      // Two admins adding the same key at once: the second meets the (kind, key) index.
      if (error instanceof StoreError && error.code === 'duplicate') {
        throw DomainError.validation({ key: [`A ${definition.kind} field with the key "${definition.key}" exists already.`] });
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
   * The definition goes with every record's value of it, in one commit that also writes an audit
   * entry (`updated`, the value to null) for each record that held one.
   */
  async delete(caller: Caller, id: string): Promise<void> {
    const { customFields, writer } = this.context;
    const current = await found(customFields.get(caller.workspaceId, id));
    const held = await customFields.valuesHeld(caller.workspaceId, current);
    const changes = writer.changes().removeCustomField(current);
    const now = nowOf(this.context);
    for (const { recordId, value } of held) {
      const before = { customFields: { [current.key]: value } };
      writer.audit(changes, caller, 'updated', current.kind, { id: recordId, before, after: { customFields: {} } }, now);
    }
    await writer.write(caller, changes, []);
    await customFields.dropIndex(caller.workspaceId, current);
  }
}
