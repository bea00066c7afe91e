import { defineCollection, type Condition } from '../port';
import { isKeyLookup, isSmallRead, KEY_LOOKUP_MAX_IDS, readsOnLoop, SMALL_READ_MAX_ROWS } from './loop-reads';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `id${i}`);
const inWorkspace = (...where: Condition[]): Condition[] => [{ field: 'workspaceId', op: 'eq', value: 'ws_a' }, ...where];

describe('a read by key', () => {
  it.each<[string, Condition[], boolean]>([
    ['a get', inWorkspace({ field: 'id', op: 'eq', value: 'id1' }), true],
    ['a get across workspaces', [{ field: 'id', op: 'eq', value: 'id1' }], true],
    ['a few ids', inWorkspace({ field: 'id', op: 'in', values: ids(KEY_LOOKUP_MAX_IDS) }), true],
    ['more ids than a lookup takes', inWorkspace({ field: 'id', op: 'in', values: ids(KEY_LOOKUP_MAX_IDS + 1) }), false],
    ['the workspace alone', inWorkspace(), false],
    ['no condition', [], false],
    ['an id and another field', inWorkspace({ field: 'id', op: 'eq', value: 'id1' }, { field: 'rank', op: 'eq', value: 1 }), false],
    ['ids not equal', inWorkspace({ field: 'id', op: 'ne', value: 'id1' }), false],
    ['an id range', inWorkspace({ field: 'id', op: 'gt', value: 'id1' }), false],
    [
      'workspaces other than one',
      [
        { field: 'workspaceId', op: 'in', values: ['a', 'b'] },
        { field: 'id', op: 'eq', value: 'x' },
      ],
      false,
    ],
    ['a group', inWorkspace({ or: [[{ field: 'id', op: 'eq', value: 'id1' }]] }), false],
  ])('%s: %s', (_, where, expected) => {
    expect(isKeyLookup({ where })).toBe(expected);
  });
});

describe('a read of a collection kept small in a workspace', () => {
  const small = defineCollection({ name: 'definitions', scope: 'workspace', maxPerWorkspace: SMALL_READ_MAX_ROWS });
  const large = defineCollection({ name: 'many', scope: 'workspace', maxPerWorkspace: SMALL_READ_MAX_ROWS + 1 });
  const unbounded = defineCollection({ name: 'contacts', scope: 'workspace' });
  const ofKind = inWorkspace({ field: 'kind', op: 'eq', value: 'contact' });

  it.each<[string, typeof small, Condition[], boolean]>([
    ['one workspace of a small collection', small, ofKind, true],
    ['the workspace alone', small, inWorkspace(), true],
    ['every workspace of a small collection', small, [{ field: 'kind', op: 'eq', value: 'contact' }], false],
    ['workspaces other than one', small, [{ field: 'workspaceId', op: 'in', values: ['a', 'b'] }], false],
    ['a collection over the bound', large, ofKind, false],
    ['a collection with no bound', unbounded, ofKind, false],
  ])('%s', (_, collection, where, expected) => {
    expect(isSmallRead(collection, { where })).toBe(expected);
    expect(readsOnLoop(collection, { where })).toBe(expected);
  });

  it('a key lookup stays on the loop in any collection', () => {
    expect(readsOnLoop(unbounded, { where: inWorkspace({ field: 'id', op: 'eq', value: 'id1' }) })).toBe(true);
  });
});
