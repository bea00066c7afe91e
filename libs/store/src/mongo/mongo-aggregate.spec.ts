import { aggregatePipelines, readAggregate } from './mongo-aggregate';

describe('MongoDB aggregate pipelines', () => {
  const query = {
    where: [{ field: 'stage', op: 'eq' as const, value: 'won' }],
    groupBy: [{ field: 'stage' }, { field: 'closeDate', bucket: 'week' as const }],
    metrics: [
      { op: 'sum' as const, field: 'value' },
      { op: 'avg' as const, field: 'value' },
    ],
  };

  it('matches with values under explicit operators, then groups, then sorts unset keys last', () => {
    const { groups } = aggregatePipelines(query);
    expect(groups[0]).toEqual({ $match: { stage: { $eq: 'won' } } });
    expect(Object.keys(groups[1]!)).toEqual(['$group']);
    expect(groups[3]).toEqual({ $sort: { u0: 1, '_id.k0': 1, u1: 1, '_id.k1': 1 } });
  });

  it('makes absent, null and empty keys one null key', () => {
    const group = aggregatePipelines(query).groups[1]!.$group as Record<string, any>;
    expect(group._id.k0).toEqual({ $cond: [{ $in: [{ $ifNull: ['$stage', null] }, [null, '']] }, null, { $ifNull: ['$stage', null] }] });
  });

  it('truncates a stored date string to the Monday of its week in UTC', () => {
    const group = aggregatePipelines(query).groups[1]!.$group as Record<string, any>;
    const truncated = group._id.k1.$dateToString.date.$dateTrunc;
    expect(truncated).toMatchObject({ unit: 'week', startOfWeek: 'monday', timezone: 'UTC' });
    expect(truncated.date.$dateFromString).toMatchObject({ format: '%Y-%m-%d', onError: null, onNull: null });
    expect(group._id.k1.$dateToString.format).toBe('%Y-%m-%d');
  });

  it('accumulates numbers only, and counts the total with the same match', () => {
    const { groups, total } = aggregatePipelines(query);
    const group = groups[1]!.$group as Record<string, any>;
    expect(group.count).toEqual({ $sum: 1 });
    expect(group.m1).toEqual({ $avg: { $cond: [{ $isNumber: '$value' }, '$value', null] } });
    expect(total).toEqual([groups[0], { $group: { _id: null, count: { $sum: 1 }, m0: group.m0, m1: group.m1 } }]);
  });

  it('refuses a field that is not an identifier before building anything', () => {
    expect(() => aggregatePipelines({ groupBy: [{ field: '$where' }], metrics: [] })).toThrow();
  });

  it('reads groups back in order, a sum over nothing as 0 and an average as null', () => {
    const result = readAggregate(query, [{ _id: { k0: 'won', k1: null }, count: 2, m0: 0, m1: null }], []);
    expect(result).toEqual({
      groups: [{ key: ['won', null], count: 2, values: [0, null] }],
      total: { key: [], count: 0, values: [0, null] },
    });
  });
});
