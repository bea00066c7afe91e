/**
 * The MongoDB index specifications of a collection, from the layouts both adapters share.
 */
import { CollectionDefinition, FieldType } from '../port';
import { IndexLayout, indexLayouts } from '../index-layout';
import { mongoPath, MongoFilter } from './mongo-query';

export interface MongoIndex {
  keys: Record<string, 1>;
  options: { name: string; unique: boolean; partialFilterExpression?: MongoFilter };
}

export function mongoIndexes(definition: CollectionDefinition<any>): MongoIndex[] {
  return indexLayouts(definition).map((layout) => {
    const keys: Record<string, 1> = Object.fromEntries(layout.keys.map((key) => [mongoPath(key), 1 as const]));
    const partialFilterExpression = sparseFilter(layout, definition.fields ?? {});
    return { keys, options: { name: layout.name, unique: layout.unique, ...(partialFilterExpression ? { partialFilterExpression } : {}) } };
  });
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
