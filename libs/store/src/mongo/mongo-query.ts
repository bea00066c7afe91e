/**
 * Translates the Query model and Change into MongoDB filters and updates. Every value sits
 * under an explicit operator (`{ $eq: value }`, never `{ field: value }`), so even a value that
 * slipped past validation could only ever be compared, never run as an operator.
 */
import { Change, Condition, Scalar, SortKey, StoreError } from '../port';
import { assertChangePath, assertFieldName, isScalar } from '../validate-query';
import { trigrams, trigramsPath } from './mongo-trigrams';

export type MongoFilter = Record<string, unknown>;

/** The MongoDB path of a field; documents keep their id in `_id`. */
export function mongoPath(field: string): string {
  if (field === 'id') return '_id';
  assertFieldName(field);
  return field;
}

function checkedScalar(value: unknown): Scalar {
  if (!isScalar(value)) throw new StoreError('invalid_query', 'A condition value must be a scalar');
  return value;
}

export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

const NONE: ReadonlySet<string> = new Set();

/** `searched`: the collection's textSearch fields, whose contains_text goes through their trigrams first. */
function conditionToFilter(c: Condition, searched: ReadonlySet<string>): MongoFilter {
  if ('or' in c) {
    if (!Array.isArray(c.or) || c.or.length === 0) throw new StoreError('invalid_query', 'or needs at least one group');
    return { $or: c.or.map((group) => (group.length === 0 ? { _id: { $exists: true } } : whereToFilter(group, searched))) };
  }
  if ('not' in c) {
    if (!Array.isArray(c.not) || c.not.length === 0) throw new StoreError('invalid_query', 'not needs a non-empty group');
    // $nor keeps a document that does not match, a document without the field included.
    return { $nor: [whereToFilter(c.not, searched)] };
  }
  const path = mongoPath(c.field);
  switch (c.op) {
    case 'eq':
      return { [path]: { $eq: checkedScalar(c.value) } };
    case 'ne':
      return { [path]: { $ne: checkedScalar(c.value) } };
    case 'in':
    case 'nin':
      if (!Array.isArray(c.values)) throw new StoreError('invalid_query', `${c.op} needs a list of values`);
      return { [path]: { [`$${c.op}`]: c.values.map(checkedScalar) } };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (typeof c.value !== 'string' && !(typeof c.value === 'number' && Number.isFinite(c.value))) {
        throw new StoreError('invalid_query', `${c.op} needs a string or a finite number`);
      }
      return { [path]: { [`$${c.op}`]: c.value } };
    case 'contains_text': {
      if (typeof c.value !== 'string') throw new StoreError('invalid_query', 'contains_text needs a string');
      const regex = { [path]: { $regex: escapeRegex(c.value), $options: 'i' } };
      const grams = searched.has(c.field) ? trigrams(c.value) : [];
      return grams.length > 0 ? { $and: [{ [trigramsPath(c.field)]: { $all: grams } }, regex] } : regex;
    }
    case 'has':
      return { [path]: { $elemMatch: { $eq: checkedScalar(c.value) } } };
    case 'exists':
      if (typeof c.value !== 'boolean') throw new StoreError('invalid_query', 'exists needs true or false');
      return c.value ? { [path]: { $exists: true, $ne: null } } : { [path]: { $eq: null } };
    case 'empty': {
      if (typeof c.value !== 'boolean') throw new StoreError('invalid_query', 'empty needs true or false');
      // `$eq: null` also matches an absent field.
      const empty = { $or: [{ [path]: { $eq: null } }, { [path]: { $eq: '' } }, { [path]: { $size: 0 } }] };
      return c.value ? empty : { $nor: [empty] };
    }
    default:
      throw new StoreError('invalid_query', `Unknown operator: ${JSON.stringify((c as { op?: unknown }).op)}`);
  }
}

export function whereToFilter(where: Condition[], searched: ReadonlySet<string> = NONE): MongoFilter {
  if (where.length === 0) return {};
  if (where.length === 1) return conditionToFilter(where[0] as Condition, searched);
  return { $and: where.map((c) => conditionToFilter(c, searched)) };
}

/**
 * Ties are broken by id in the direction of the last key, as the port promises. A key whose unset
 * values sort high is preceded by its computed unset flag (see unsetFlags): MongoDB, like SQLite,
 * sorts absent and null below every value.
 */
export function sortToMongo(sort: SortKey[]): Record<string, 1 | -1> {
  const result: Record<string, 1 | -1> = {};
  sort.forEach((key, i) => {
    const direction = key.direction === 'desc' ? -1 : 1;
    if (key.unset === 'high') {
      result[unsetFlag(i)] = direction;
      result[setValue(i)] = direction;
    } else {
      result[mongoPath(key.field)] = direction;
    }
  });
  const last = sort[sort.length - 1];
  if (!('_id' in result)) result._id = last?.direction === 'desc' ? -1 : 1;
  return result;
}

/** The computed field that is 1 when a sort key's value is unset (absent, null or ''), else 0. */
function unsetFlag(index: number): string {
  return `__unset${index}`;
}

/** The computed field holding a sort key's value, null when unset, so unset values tie (then by id). */
function setValue(index: number): string {
  return `__value${index}`;
}

/**
 * The `$addFields` stage a sort with unset-high keys needs before its `$sort` (an aggregation, as
 * find() cannot sort on a computed value), or null when the sort has none.
 */
export function unsetFlags(sort: SortKey[]): MongoFilter | null {
  const flags: MongoFilter = {};
  sort.forEach((key, i) => {
    if (key.unset !== 'high') return;
    const unset = { $in: [{ $ifNull: [`$${mongoPath(key.field)}`, null] }, [null, '']] };
    flags[unsetFlag(i)] = { $cond: [unset, 1, 0] };
    flags[setValue(i)] = { $cond: [unset, null, `$${mongoPath(key.field)}`] };
  });
  return Object.keys(flags).length > 0 ? { $addFields: flags } : null;
}

/** The aggregation of a query whose sort has unset-high keys: match, flag, sort, page, drop the flags. */
export function sortedPipeline(
  where: Condition[],
  sort: SortKey[],
  offset: number | undefined,
  limit: number | undefined,
  searched: ReadonlySet<string> = NONE,
): MongoFilter[] {
  const flags = unsetFlags(sort);
  const stages: MongoFilter[] = [{ $match: whereToFilter(where, searched) }];
  if (flags) stages.push(flags);
  stages.push({ $sort: sortToMongo(sort) });
  if (offset) stages.push({ $skip: offset });
  if (limit !== undefined) stages.push({ $limit: limit });
  if (flags) stages.push({ $project: Object.fromEntries(Object.keys(flags.$addFields as MongoFilter).map((name) => [name, 0])) });
  return stages;
}

/** The update document for a change, or null when the change does nothing. */
export function changeToUpdate(change: Change<unknown>): MongoFilter | null {
  const update: MongoFilter = {};
  const set = Object.entries(change.set ?? {});
  if (set.length > 0) {
    set.forEach(([path]) => assertChangePath(path));
    update.$set = Object.fromEntries(set);
  }
  if (change.unset && change.unset.length > 0) {
    change.unset.forEach(assertChangePath);
    update.$unset = Object.fromEntries(change.unset.map((path) => [path, '']));
  }
  const inc = Object.entries(change.inc ?? {});
  if (inc.length > 0) {
    inc.forEach(([path]) => assertChangePath(path));
    update.$inc = Object.fromEntries(inc);
  }
  return Object.keys(update).length > 0 ? update : null;
}
