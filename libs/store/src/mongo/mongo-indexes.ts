/**
 * The MongoDB index specifications of a collection, from the layouts both adapters share.
 */
import { CollectionDefinition, FieldType } from '../port';
import { IndexLayout, indexLayouts } from '../index-layout';
import { mongoPath, MongoFilter } from './mongo-query';
import { trigramsPath } from './mongo-trigrams';

export interface MongoIndex {
  keys: Record<string, 1>;
  options: { name: string; unique: boolean; partialFilterExpression?: MongoFilter };
}

export function mongoIndexes(definition: CollectionDefinition<any>): MongoIndex[] {
  const declared = indexLayouts(definition).map((layout): MongoIndex => {
    const keys: Record<string, 1> = Object.fromEntries(layout.keys.map((key) => [mongoPath(key), 1 as const]));
    const partialFilterExpression = sparseFilter(layout, definition.fields ?? {});
    return { keys, options: { name: layout.name, unique: layout.unique, ...(partialFilterExpression ? { partialFilterExpression } : {}) } };
  });
  // Every field of a dynamic sub-document, in one compound wildcard index (MongoDB 7.0+): no index
  // per custom field, so no index is made or dropped while the service runs.
  const dynamic = (definition.dynamicFields ?? []).map((field): MongoIndex => ({
    keys: { ...(definition.scope === 'workspace' ? { workspaceId: 1 as const } : {}), [`${mongoPath(field)}.$**`]: 1 },
    options: { name: `${definition.name}__${field}__wildcard`, unique: false },
  }));
  // Each searched field's trigrams (mongo-trigrams.ts): a multikey index behind contains_text.
  const searched = (definition.textSearch ?? []).map((field): MongoIndex => ({
    keys: { ...(definition.scope === 'workspace' ? { workspaceId: 1 as const } : {}), [trigramsPath(field)]: 1 },
    options: { name: `${definition.name}__${field}__trigrams`, unique: false },
  }));
  return [...declared, ...dynamic, ...searched];
}

const BSON_TYPES: Record<FieldType, string> = { string: 'string', number: 'number', boolean: 'bool' };

/**
 * Documents where a sparse index's field is absent or null stay out of the index. `$type` is
 * used because partial filters cannot say `$ne: null`; without a declared type, `$exists` keeps
 * absent documents out (null values then still collide).
 */
function sparseFilter(layout: IndexLayout, fields: Record<string, FieldType>): MongoFilter | undefined {
  if (layout.sparseFields.length === 0) return undefined;
  return Object.fromEntries(
    layout.sparseFields.map((field) => {
      const type = fields[field];
      return [mongoPath(field), type ? { $type: BSON_TYPES[type] } : { $exists: true }];
    }),
  );
}
