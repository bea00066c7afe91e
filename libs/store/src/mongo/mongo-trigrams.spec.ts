import { defineCollection, type StoredDocument } from '../port';
import { mongoIndexes } from './mongo-indexes';
import { escapeRegex, sortToMongo, whereToFilter } from './mongo-query';
import { trigrams, trigramsOf, withTrigrams } from './mongo-trigrams';

const people = defineCollection<StoredDocument>({
  name: 'people',
  scope: 'workspace',
  textSearch: ['searchText'],
  fields: { createdAt: 'string', searchText: 'string', stage: 'string' },
});
const searched = new Set(['searchText']);

describe('MongoDB substring search through trigrams', () => {
  it('takes the distinct trigrams of the lowered text, by code point', () => {
    expect(trigrams('Lovelace')).toEqual(['lov', 'ove', 'vel', 'ela', 'lac', 'ace']);
    expect(trigrams('aaaa')).toEqual(['aaa']);
    expect(trigrams('ab')).toEqual([]);
    expect(trigrams('😀ab')).toEqual(['😀ab']);
  });

  it('narrows a searched field’s contains_text by its trigrams before the regex, and keeps the regex alone otherwise', () => {
    expect(whereToFilter([{ field: 'searchText', op: 'contains_text', value: 'Ovela' }], searched)).toEqual({
      $and: [{ '__trigrams.searchText': { $all: ['ove', 'vel', 'ela'] } }, { searchText: { $regex: 'Ovela', $options: 'i' } }],
    });
    // Under three characters there is no trigram: the regex alone, as SQLite scans then.
    expect(whereToFilter([{ field: 'searchText', op: 'contains_text', value: 'ov' }], searched)).toEqual({
      searchText: { $regex: 'ov', $options: 'i' },
    });
    // A field the collection does not search keeps no trigrams.
    expect(whereToFilter([{ field: 'notes', op: 'contains_text', value: 'ovela' }], searched)).toEqual({
      notes: { $regex: 'ovela', $options: 'i' },
    });
    // Inside or and not as well.
    expect(
      whereToFilter(
        [{ or: [[{ field: 'searchText', op: 'contains_text', value: 'abc' }], [{ field: 'stage', op: 'eq', value: 'lead' }]] }],
        searched,
      ),
    ).toEqual({
      $or: [
        { $and: [{ '__trigrams.searchText': { $all: ['abc'] } }, { searchText: { $regex: 'abc', $options: 'i' } }] },
        { stage: { $eq: 'lead' } },
      ],
    });
  });

  it('never drops a document the regex matches: the needle’s trigrams are among the value’s', () => {
    const alphabet = ['a', 'B', 'c', 'É', 'é', 'ß', ' ', '.', '😀', '-', 'Z'];
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const text = (length: number) => Array.from({ length }, () => alphabet[random(alphabet.length)]).join('');
    let matched = 0;
    for (let i = 0; i < 3000; i += 1) {
      const value = text(3 + random(20));
      const start = random(value.length);
      // A needle cut from the value with its case changed, or a random one.
      const needle =
        i % 2 === 0
          ? Array.from(value)
              .slice(start, start + 3 + random(5))
              .join('')
              .toUpperCase()
          : text(3 + random(3));
      if (!new RegExp(escapeRegex(needle), 'i').test(value)) continue;
      matched += 1;
      const have = new Set(trigramsOf({ searchText: value }, searched)?.searchText ?? []);
      expect(trigrams(needle).filter((gram) => !have.has(gram))).toEqual([]);
    }
    expect(matched).toBeGreaterThan(500);
  });

  it('keeps a document’s trigrams with its value: set with a string, removed with null or an unset', () => {
    expect(trigramsOf({ searchText: 'Ada', stage: 'lead' }, searched)).toEqual({ searchText: ['ada'] });
    expect(trigramsOf({ stage: 'lead' }, searched)).toBeUndefined();
    expect(withTrigrams({ set: { searchText: 'Grace', stage: 'won' } }, searched)).toEqual({
      set: { searchText: 'Grace', stage: 'won', '__trigrams.searchText': ['gra', 'rac', 'ace'] },
    });
    expect(withTrigrams({ set: { searchText: null } }, searched)).toEqual({ set: { searchText: null }, unset: ['__trigrams.searchText'] });
    expect(withTrigrams({ unset: ['searchText'] }, searched)).toEqual({ set: {}, unset: ['searchText', '__trigrams.searchText'] });
    const untouched = { set: { stage: 'won' }, inc: { n: 1 } };
    expect(withTrigrams(untouched, searched)).toBe(untouched);
  });

  it('indexes the trigrams behind the workspace, so a search reads one trigram’s keys of one workspace', () => {
    const index = mongoIndexes(people).find((i) => i.options.name === 'people__searchText__trigrams');
    expect(index).toEqual({
      keys: { workspaceId: 1, '__trigrams.searchText': 1 },
      options: { name: 'people__searchText__trigrams', unique: false },
    });
    // The path the search's $all names is the index's key after workspaceId.
    const filter = whereToFilter(
      [
        { field: 'workspaceId', op: 'eq', value: 'ws_1' },
        { field: 'searchText', op: 'contains_text', value: 'lovelace' },
      ],
      searched,
    ) as { $and: [unknown, { $and: Record<string, unknown>[] }] };
    expect(Object.keys(filter.$and[1].$and[0]!)).toEqual([Object.keys(index!.keys)[1]]);
  });

  it('reads a list’s order and a declared field’s filter off an index behind the workspace (libs/store/README.md)', () => {
    const keyLists = mongoIndexes(people).map((index) => Object.keys(index.keys).join(','));
    // The list newest first: (workspaceId, createdAt, _id) walked backwards, the sort's keys in the index's order.
    expect(keyLists).toContain(['workspaceId', ...Object.keys(sortToMongo([{ field: 'createdAt', direction: 'desc' }]))].join(','));
    // An equality on a declared field: (workspaceId, stage, _id), its matches in id order.
    expect(keyLists).toContain('workspaceId,stage,_id');
  });
});
