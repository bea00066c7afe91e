import { defineCollection, type StoredDocument } from '../port';
import { mongoIndexes } from './mongo-indexes';

describe('MongoDB indexes of a collection', () => {
  it('cover a dynamic sub-document with one compound wildcard index after the declared ones', () => {
    const people = defineCollection<StoredDocument>({
      name: 'people',
      scope: 'workspace',
      fields: { name: 'string' },
      dynamicFields: ['customFields'],
    });
    const indexes = mongoIndexes(people);
    expect(indexes.at(-1)).toEqual({
      keys: { workspaceId: 1, 'customFields.$**': 1 },
      options: { name: 'people__customFields__wildcard', unique: false },
    });
    expect(indexes.slice(0, -1).every((index) => !Object.keys(index.keys).some((key) => key.includes('$**')))).toBe(true);
  });
});
