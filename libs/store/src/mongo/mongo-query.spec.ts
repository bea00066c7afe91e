import { defineCollection, StoredDocument } from '../port';
import { mongoIndexes } from './mongo-indexes';
import { changeToUpdate, escapeRegex, sortedPipeline, sortToMongo, whereToFilter } from './mongo-query';

describe('MongoDB translation', () => {
  it('puts every value under an explicit operator', () => {
    expect(
      whereToFilter([
        { field: 'stage', op: 'eq', value: 'lead' },
        { field: 'score', op: 'gte', value: 3 },
        { field: 'tags', op: 'has', value: 'vip' },
        { field: 'id', op: 'in', values: ['a', 'b'] },
      ]),
    ).toEqual({
      $and: [{ stage: { $eq: 'lead' } }, { score: { $gte: 3 } }, { tags: { $elemMatch: { $eq: 'vip' } } }, { _id: { $in: ['a', 'b'] } }],
    });
  });

  it('keeps an operator-looking string a plain compared value', () => {
    expect(whereToFilter([{ field: 'name', op: 'eq', value: '$where' }])).toEqual({ name: { $eq: '$where' } });
  });

  it('refuses an operator object as a value even when validation was skipped', () => {
    expect(() => whereToFilter([{ field: 'name', op: 'eq', value: { $gt: '' } as never }])).toThrow(
      expect.objectContaining({ code: 'invalid_query' }),
    );
    expect(() => whereToFilter([{ field: '$where', op: 'eq', value: 'x' }])).toThrow(expect.objectContaining({ code: 'invalid_query' }));
  });

  it('translates exists to present-and-not-null, and its negation to absent-or-null', () => {
    expect(whereToFilter([{ field: 'email', op: 'exists', value: true }])).toEqual({ email: { $exists: true, $ne: null } });
    expect(whereToFilter([{ field: 'email', op: 'exists', value: false }])).toEqual({ email: { $eq: null } });
  });

  it('nests or-groups', () => {
    expect(whereToFilter([{ or: [[{ field: 'a', op: 'eq', value: 1 }], [{ field: 'b', op: 'ne', value: null }]] }])).toEqual({
      $or: [{ a: { $eq: 1 } }, { b: { $ne: null } }],
    });
  });

  it.each(['%', '_', '.*', '(', '\\', "'", '[a-z]', '^a$', 'a|b', '{2}', '+?'])(
    'escapes %j so contains_text matches it literally',
    (text) => {
      const pattern = new RegExp(escapeRegex(text), 'i');
      expect(pattern.test(`before${text}after`)).toBe(true);
      if (text.length > 1) expect(pattern.test(text.slice(1))).toBe(false);
    },
  );

  it('translates contains_text to a case-insensitive regex of the escaped text', () => {
    expect(whereToFilter([{ field: 'name', op: 'contains_text', value: 'a.b' }])).toEqual({ name: { $regex: 'a\\.b', $options: 'i' } });
  });

  it('breaks sort ties by _id in the direction of the last key', () => {
    expect(sortToMongo([{ field: 'createdAt', direction: 'desc' }])).toEqual({ createdAt: -1, _id: -1 });
    expect(sortToMongo([])).toEqual({ _id: 1 });
  });

  it('translates a change to $set, $unset and $inc, and nothing to null', () => {
    expect(changeToUpdate({ set: { 'usage.2026-01-01': 1 }, unset: ['old'], inc: { n: 2 } })).toEqual({
      $set: { 'usage.2026-01-01': 1 },
      $unset: { old: '' },
      $inc: { n: 2 },
    });
    expect(changeToUpdate({})).toBeNull();
  });

  it('indexes workspace collections by workspaceId first, with a partial filter for sparse unique indexes', () => {
    const contacts = defineCollection<StoredDocument>({
      name: 'contacts',
      scope: 'workspace',
      fields: { email: 'string', stage: 'string' },
      indexes: [{ fields: ['email'], unique: true, sparse: true }],
    });
    expect(mongoIndexes(contacts)).toEqual([
      { keys: { workspaceId: 1, _id: 1 }, options: { name: 'contacts__workspaceId__id', unique: false } },
      {
        keys: { workspaceId: 1, email: 1 },
        options: {
          name: 'contacts__workspaceId__email__unique__sparse',
          unique: true,
          partialFilterExpression: { email: { $type: 'string' } },
        },
      },
      { keys: { workspaceId: 1, stage: 1, _id: 1 }, options: { name: 'contacts__workspaceId__stage__id', unique: false } },
    ]);
  });

  it('indexes without the workspaceId prefix what a collection declares across workspaces (a purge)', () => {
    const sent = defineCollection<StoredDocument>({
      name: 'sent',
      scope: 'workspace',
      indexes: [{ fields: ['createdAt'] }, { fields: ['createdAt'], acrossWorkspaces: true }],
    });
    expect(mongoIndexes(sent).map((index) => index.keys)).toEqual([
      { workspaceId: 1, _id: 1 },
      { workspaceId: 1, createdAt: 1, _id: 1 },
      { createdAt: 1, _id: 1 },
    ]);
  });

  describe('the filter language constructs', () => {
    it('negates a group with $nor, so documents without the field are kept', () => {
      expect(
        whereToFilter([
          {
            not: [
              { field: 'score', op: 'gt', value: 5 },
              { field: 'stage', op: 'eq', value: 'new' },
            ],
          },
        ]),
      ).toEqual({
        $nor: [{ $and: [{ score: { $gt: 5 } }, { stage: { $eq: 'new' } }] }],
      });
    });

    it('reads empty as absent, null, an empty string or an empty list, and its negation with $nor', () => {
      const empty = { $or: [{ title: { $eq: null } }, { title: { $eq: '' } }, { title: { $size: 0 } }] };
      expect(whereToFilter([{ field: 'title', op: 'empty', value: true }])).toEqual(empty);
      expect(whereToFilter([{ field: 'title', op: 'empty', value: false }])).toEqual({ $nor: [empty] });
    });

    it('keeps ne and nin matching documents without the field (MongoDB $ne and $nin do)', () => {
      expect(whereToFilter([{ field: 'title', op: 'ne', value: 'x' }])).toEqual({ title: { $ne: 'x' } });
      expect(whereToFilter([{ field: 'title', op: 'nin', values: ['x'] }])).toEqual({ title: { $nin: ['x'] } });
    });

    it('sorts unset values high through computed flags in an aggregation, never a $where', () => {
      const sort = [
        { field: 'firstName', direction: 'asc' as const, unset: 'high' as const },
        { field: 'stage', direction: 'desc' as const },
      ];
      const unset = { $in: [{ $ifNull: ['$firstName', null] }, [null, '']] };
      expect(sortedPipeline([{ field: 'workspaceId', op: 'eq', value: 'w' }], sort, 20, 10)).toEqual([
        { $match: { workspaceId: { $eq: 'w' } } },
        { $addFields: { __unset0: { $cond: [unset, 1, 0] }, __value0: { $cond: [unset, null, '$firstName'] } } },
        { $sort: { __unset0: 1, __value0: 1, stage: -1, _id: -1 } },
        { $skip: 20 },
        { $limit: 10 },
        { $project: { __unset0: 0, __value0: 0 } },
      ]);
      expect(sortToMongo([{ field: 'stage', direction: 'asc' }])).toEqual({ stage: 1, _id: 1 });
    });
  });
});
