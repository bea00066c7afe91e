import type { Condition } from '../port';
import { isKeyLookup, KEY_LOOKUP_MAX_IDS } from './key-lookup';

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
