// The house's shape: no source file reaches itself through its relative imports (type imports
// count: a cycle of types still ties two files into one unit to read and change).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const SOURCE_ROOTS = ['gateway/src', 'services', 'libs'];

function sources(dir: string, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['node_modules', 'dist', 'generated'].includes(entry.name)) sources(path, into);
    } else if (/\.ts$/.test(entry.name) && !/\.(spec|test|d)\.ts$/.test(entry.name)) into.push(path);
  }
  return into;
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of SOURCE_ROOTS.flatMap((folder) => sources(join(root, folder)))) {
    const imports: string[] = [];
    for (const [, target] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)) {
      const base = resolve(dirname(file), target!);
      const found = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
      if (found) imports.push(found);
    }
    graph.set(file, imports);
  }
  return graph;
}

function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next].map((f) => relative(root, f)).join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('source imports', () => {
  it('read every service and library source', () => {
    expect(importGraph().size).toBeGreaterThan(300);
  });

  it('form no cycle', () => {
    expect(cycles(importGraph())).toEqual([]);
  });

  it('would name a cycle', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/a.ts']],
    ]);
    expect(cycles(graph)).toHaveLength(1);
  });
});
