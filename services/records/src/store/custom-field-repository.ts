/** Reads and writes of custom field definitions, the values records hold of one, and the unique fields' claims. */
import type { Condition, DocumentStore, ScopedStore, StoredDocument, CollectionDefinition } from '@crm/store';
import { CUSTOM_FIELDS_PREFIX, type CustomFieldDefinition, type CustomFieldKind } from '@crm/vocabulary';
import type { Page } from '../domain/list-rules';
import { RECORD_COLLECTIONS } from './collections';
import { customFieldClaims, customFieldDefinitions, type CustomFieldDocument, type FieldDeletion } from './custom-field-collections';

export class CustomFieldRepository {
  constructor(private readonly store: DocumentStore) {}

  private in(workspaceId: string): ScopedStore {
    return this.store.forWorkspace(workspaceId);
  }

  /** The workspace's definitions of one kind (or of every kind), oldest first: the order answers list them in. */
  async definitions(workspaceId: string, kind?: CustomFieldKind): Promise<CustomFieldDefinition[]> {
    const found = await this.in(workspaceId).find(customFieldDefinitions, {
      where: liveDefinitions(kind),
      sort: [{ field: 'createdAt', direction: 'asc' }],
    });
    return found.map(definitionOf);
  }

  async page(
    workspaceId: string,
    kind: CustomFieldKind | undefined,
    page: Page,
  ): Promise<{ total: number; items: CustomFieldDefinition[] }> {
    const result = await this.in(workspaceId).findPage(customFieldDefinitions, {
      where: liveDefinitions(kind),
      sort: [{ field: 'createdAt', direction: 'asc' }],
      offset: page.offset,
      limit: page.limit,
    });
    return { total: result.total, items: result.items.map(definitionOf) };
  }

  async get(workspaceId: string, id: string): Promise<CustomFieldDefinition | null> {
    const found = await this.in(workspaceId).findOne(customFieldDefinitions, [{ field: 'id', op: 'eq', value: id }, ...liveDefinitions()]);
    return found ? definitionOf(found) : null;
  }

  /** The definition, and the index its values are filtered and ordered by. */
  async insert(workspaceId: string, definition: CustomFieldDefinition): Promise<void> {
    await this.in(workspaceId).insert(customFieldDefinitions, { ...definition, workspaceId });
    if (isIndexed(definition)) await this.store.indexField(recordsOf(definition), valuePath(definition), workspaceId);
  }

  async replace(workspaceId: string, definition: CustomFieldDefinition): Promise<void> {
    const { id, ...fields } = definition;
    await this.in(workspaceId).update(customFieldDefinitions, id, { set: fields });
  }

  /**
   * Hides the definition from every reader (answers, filters, writes, the OpenAPI document) and
   * frees its unique values; the records' values go after it (custom-fields-service.ts).
   */
  async markDeleting(workspaceId: string, definition: CustomFieldDefinition, deletion: FieldDeletion): Promise<void> {
    await this.in(workspaceId).commit([
      { kind: 'update', collection: customFieldDefinitions, id: definition.id, change: { set: { deleting: deletion } } },
      {
        kind: 'deleteMany',
        collection: customFieldClaims,
        where: [
          { field: 'kind', op: 'eq', value: definition.kind },
          { field: 'key', op: 'eq', value: definition.key },
        ],
      },
    ]);
  }

  /** Up to `limit` records of the kind that hold a value of the field, with the value. */
  async valuesHeld(workspaceId: string, definition: CustomFieldDefinition, limit: number): Promise<{ recordId: string; value: unknown }[]> {
    const page = await this.in(workspaceId).find(recordsOf(definition), {
      where: [{ field: valuePath(definition), op: 'exists', value: true }],
      sort: [{ field: 'id', direction: 'asc' }],
      limit,
    });
    return page.map((record) => ({
      recordId: record.id,
      value: (record as { customFields?: Record<string, unknown> }).customFields?.[definition.key] ?? null,
    }));
  }

  /** The definition itself and its index, once no record holds a value of it. */
  async remove(workspaceId: string, definition: CustomFieldDefinition): Promise<void> {
    await this.in(workspaceId).delete(customFieldDefinitions, definition.id);
    await this.store.dropFieldIndex(recordsOf(definition), valuePath(definition), workspaceId);
  }

  /**
   * One pass over every workspace's definitions at a start: each live one gets its index if it
   * lacks it (idempotent; fields defined before the store kept custom values in slots are read
   * from the records until this has run), and the deletions a stopped replica left under way are
   * answered, to be finished.
   */
  async everyDefinitionAtStart(): Promise<{ checked: number; underWay: DeletionUnderWay[] }> {
    const underWay: DeletionUnderWay[] = [];
    let checked = 0;
    let after = '';
    for (;;) {
      const where: Condition[] = after ? [{ field: 'id', op: 'gt', value: after }] : [];
      const page = await this.store.findAcrossWorkspaces(customFieldDefinitions, {
        where,
        sort: [{ field: 'id', direction: 'asc' }],
        limit: 500,
      });
      for (const document of page) {
        const definition = definitionOf(document);
        if (document.deleting) underWay.push({ definition, deletion: document.deleting });
        else if (isIndexed(definition)) await this.store.indexField(recordsOf(definition), valuePath(definition), document.workspaceId);
      }
      checked += page.length;
      if (page.length < 500) return { checked, underWay };
      after = page[page.length - 1]!.id;
    }
  }

  /** Which of `options` a record of the kind holds in the field (a select's value, or one of a multiselect's). */
  async optionsInUse(workspaceId: string, definition: CustomFieldDefinition, options: string[]): Promise<Set<string>> {
    const path = valuePath(definition);
    const records = recordsOf(definition);
    const used = new Set<string>();
    for (const option of options) {
      const where: Condition[] = [
        definition.type === 'multiselect' ? { field: path, op: 'has', value: option } : { field: path, op: 'eq', value: option },
      ];
      if (await this.in(workspaceId).findOne(records, where)) used.add(option);
    }
    return used;
  }

  /** Which of these claims a record holds, with the record. */
  async claimHolders(workspaceId: string, claimIds: string[]): Promise<Map<string, string>> {
    if (claimIds.length === 0) return new Map();
    const found = await this.in(workspaceId).getMany(customFieldClaims, claimIds);
    return new Map(found.map((claim) => [claim.id, claim.recordId]));
  }
}

export interface DeletionUnderWay {
  definition: CustomFieldDefinition;
  deletion: FieldDeletion;
}

function valuePath(definition: CustomFieldDefinition): string {
  return `${CUSTOM_FIELDS_PREFIX}${definition.key}`;
}

function recordsOf(definition: CustomFieldDefinition): CollectionDefinition<StoredDocument> {
  return RECORD_COLLECTIONS[definition.kind] as CollectionDefinition<StoredDocument>;
}

/** A multiselect's lists are matched by membership, which an index on the value does not serve. */
function isIndexed(definition: CustomFieldDefinition): boolean {
  return definition.type !== 'multiselect';
}

/** Definitions of the kind (or of every kind) but those being deleted: the one rule every read of definitions keeps. */
function liveDefinitions(kind?: CustomFieldKind): Condition[] {
  const where: Condition[] = [{ field: 'deleting', op: 'exists', value: false }];
  if (kind) where.push({ field: 'kind', op: 'eq', value: kind });
  return where;
}

function definitionOf(document: CustomFieldDocument): CustomFieldDefinition {
  const { workspaceId: _workspace, deleting: _deleting, ...definition } = document as CustomFieldDocument & { version?: number };
  return { ...definition, options: definition.options ?? [], description: definition.description ?? '' };
}
