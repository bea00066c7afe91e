/**
 * The physical indexes both adapters build for a collection, derived from its definition in one
 * place so SQLite and MongoDB index (and report duplicates) the same way.
 */
import { CollectionDefinition } from './port';
import { assertCollectionName, assertFieldName } from './validate-query';

export interface IndexLayout {
  /** Stable name derived from the layout, so re-creating at every start is a no-op. */
  name: string;
  /** Physical key order: workspaceId first for workspace collections, id last for non-unique ones. */
  keys: string[];
  /** The fields as the collection declared them, reported with a duplicate. */
  declared: string[];
  unique: boolean;
  /** For a sparse unique index: documents where any of these is absent or null are not indexed. */
  sparseFields: string[];
  /** Made for a declared field no index leads (the port's promise), not declared as an index itself. */
  forField: boolean;
}

/**
 * The indexes of a collection: a workspace collection's (workspaceId, id); each declared index
 * (workspaceId first unless it is `acrossWorkspaces`);
 * one per declared field not already leading an index. Non-unique indexes end with id so that
 * "sort by a field, ties by id" reads straight off the index instead of sorting every match.
 */
export function indexLayouts(collection: CollectionDefinition<any>): IndexLayout[] {
  assertCollectionName(collection.name);
  const inWorkspace = collection.scope === 'workspace';
  const prefix = inWorkspace ? ['workspaceId'] : [];
  const layouts: IndexLayout[] = [];
  if (inWorkspace) layouts.push(layout(collection.name, ['workspaceId', 'id'], [], false, false));
  for (const index of collection.indexes ?? []) {
    for (const field of index.fields) assertFieldName(field);
    const across = inWorkspace && index.acrossWorkspaces === true;
    const declared = inWorkspace && !across ? index.fields.filter((f) => f !== 'workspaceId') : [...index.fields];
    const unique = index.unique === true || index.sparse === true;
    if (across && unique) throw new Error(`${collection.name}: an index across workspaces cannot be unique`);
    const keys = [...(across ? [] : prefix), ...declared, ...(unique || declared.includes('id') ? [] : ['id'])];
    layouts.push(layout(collection.name, keys, declared, unique, index.sparse === true));
  }
  // The port promises that declared fields are indexed; a field that already leads an index is
  // served by it. Besides filters and sorts, such an index lets a contains_text scan read the
  // values from the index instead of parsing every document.
  for (const field of Object.keys(collection.fields ?? {})) {
    assertFieldName(field);
    if (field === 'id' || (inWorkspace && field === 'workspaceId')) continue;
    if (layouts.some((l) => l.keys[prefix.length] === field)) continue;
    layouts.push({ ...layout(collection.name, [...prefix, field, 'id'], [field], false, false), forField: true });
  }
  const seen = new Set<string>();
  return layouts.filter((l) => (seen.has(l.name) ? false : (seen.add(l.name), true)));
}

function layout(collection: string, keys: string[], declared: string[], unique: boolean, sparse: boolean): IndexLayout {
  const suffix = `${unique ? '__unique' : ''}${sparse ? '__sparse' : ''}`;
  const name = `${collection}__${keys.map((k) => k.replace(/\./g, '_')).join('__')}${suffix}`;
  return { name, keys, declared, unique, sparseFields: sparse ? declared : [], forField: false };
}

/** Fields that get their own indexed column (SQLite): the declared fields and every index key. */
export function indexedFields(collection: CollectionDefinition<any>): string[] {
  const fields = new Set<string>(Object.keys(collection.fields ?? {}));
  for (const index of collection.indexes ?? []) for (const field of index.fields) fields.add(field);
  for (const field of fields) assertFieldName(field);
  fields.delete('id');
  if (collection.scope === 'workspace') fields.delete('workspaceId');
  return [...fields];
}
