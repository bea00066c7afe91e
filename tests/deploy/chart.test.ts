// What Helm cannot tell about the deployment artifacts (the Dockerfile, charts/crm, skaffold.yaml):
// the chart's values paths against values.yaml and its schema, the topology against the sources,
// the images against the Dockerfile. Rendering, linting and the Kubernetes schemas are
// helm.test.ts's; what the rendered chart gives each process, against its sources, processes.test.ts's.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import Ajv from 'ajv';
import * as yaml from 'js-yaml';
import * as promClient from 'prom-client';
import { chartDir, filesUnder, read, referencedLibs, root, topology } from './rendered-chart';

const templatesDir = join(chartDir, 'templates');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Schema = JsonObject;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const loadYaml = (path: string): JsonObject => yaml.load(read(path)) as JsonObject;

const componentKeys = Object.keys(topology());
const values = loadYaml(join(chartDir, 'values.yaml'));
const schema = JSON.parse(read(join(chartDir, 'values.schema.json'))) as Schema;
const chart = loadYaml(join(chartDir, 'Chart.yaml'));
const skaffold = loadYaml(join(root, 'skaffold.yaml'));
const templateFiles = filesUnder(templatesDir);
const templates = templateFiles.map((path) => ({ path, name: relative(chartDir, path), text: read(path) }));

// --- Go templates ----------------------------------------------------------------------------------

const withoutComments = (text: string): string => text.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, '');

/** The paths, as lists of keys, the templates read under `.Values` or the range loops' `$component` (a component block). */
const pathsUnder = (prefix: string): { path: string[]; where: string }[] =>
  templates.flatMap(({ name, text }) =>
    [...withoutComments(text).matchAll(new RegExp(`${prefix}((?:\\.[A-Za-z_][A-Za-z0-9_]*)+)`, 'g'))].map((m) => ({
      path: m[1].slice(1).split('.'),
      where: name,
    })),
  );
const valuesPaths = () => pathsUnder('\\.Values');
const componentPaths = () => pathsUnder('\\$component');

// --- values and schema -------------------------------------------------------------------------------

function resolve(node: Schema): Schema {
  let current = node;
  while (typeof current.$ref === 'string') {
    const pointer = current.$ref.replace(/^#\//, '').split('/');
    current = pointer.reduce<Json>((at, key) => (isObject(at) ? at[key] : null), schema) as Schema;
    if (!isObject(current)) throw new Error(`unresolvable $ref ${String(node.$ref)}`);
  }
  return current;
}

function hasValue(tree: Json, path: string[]): boolean {
  let at: Json = tree;
  for (const key of path) {
    if (!isObject(at) || !(key in at)) return false;
    at = at[key];
  }
  return true;
}

/** Whether the schema declares the path, or reaches an object it leaves open (a subchart's, a free map). */
function schemaAllows(path: string[]): boolean {
  let at = resolve(schema);
  for (const key of path) {
    const properties = isObject(at.properties) ? at.properties : {};
    if (isObject(properties[key])) at = resolve(properties[key] as Schema);
    else return at.additionalProperties !== false && at.additionalProperties !== undefined;
  }
  return true;
}

/** Every object schema, with where it is; $refs are visited once, where they are defined. */
function objectSchemas(node: Json = schema, at = '(root)'): { at: string; node: Schema }[] {
  if (!isObject(node)) return [];
  const here = node.type === 'object' || isObject(node.properties) ? [{ at, node }] : [];
  const children = Object.entries(node).flatMap(([key, child]) => {
    if (key === 'properties' && isObject(child)) return Object.entries(child).flatMap(([name, sub]) => objectSchemas(sub, `${at}.${name}`));
    if (key === 'definitions' && isObject(child))
      return Object.entries(child).flatMap(([name, sub]) => objectSchemas(sub, `#/definitions/${name}`));
    if (key === 'items' || key === 'additionalProperties') return objectSchemas(child, `${at}[${key}]`);
    return [];
  });
  return [...here, ...children];
}

// --- Dockerfiles -------------------------------------------------------------------------------------

type Artifact = { image: string; context?: string; docker?: { dockerfile?: string; target?: string } };
const artifacts = ((skaffold.build as JsonObject).artifacts ?? []) as unknown as Artifact[];
const dockerfile = read(join(root, 'Dockerfile'));

/** The root Dockerfile's stages by name (`FROM … AS name`), each with its lines. */
function stages(): Map<string, { from: string; lines: string[] }> {
  const found = new Map<string, { from: string; lines: string[] }>();
  let current: string[] = [];
  for (const line of dockerfile.split('\n')) {
    const from = /^FROM\s+(\S+)\s+AS\s+(\S+)/i.exec(line);
    if (from) {
      current = [];
      found.set(from[2], { from: from[1], lines: current });
    } else current.push(line);
  }
  return found;
}

/** A stage's own CMD or ENTRYPOINT as a list (exec form only; a shell form is a failure here); undefined when it sets none. */
function instructionOf(target: string, instruction: 'CMD' | 'ENTRYPOINT'): string[] | undefined {
  const stage = stages().get(target);
  if (!stage) throw new Error(`the Dockerfile has no stage ${target}`);
  const lines = stage.lines.filter((line) => new RegExp(`^${instruction}\\s`).test(line));
  return lines.length === 0 ? undefined : (JSON.parse(lines[lines.length - 1].replace(/^\w+\s+/, '')) as string[]);
}

function cmdOf(target: string): string[] {
  const cmd = instructionOf(target, 'CMD');
  if (!cmd) throw new Error(`stage ${target} has no CMD`);
  return cmd;
}

/** `<pkg>/dist/<name>.js` → `<pkg>/src/<name>.ts`. */
const sourceOf = (built: string): string => built.replace(/\/dist\//, '/src/').replace(/\.js$/, '.ts');

// --- the tests ---------------------------------------------------------------------------------------

describe('values.yaml and values.schema.json', () => {
  test('every .Values path a template reads is in values.yaml', () => {
    const missing = valuesPaths()
      .filter(({ path }) => !hasValue(values, path))
      .map(({ path, where }) => `${where}: .Values.${path.join('.')}`);
    expect([...new Set(missing)]).toEqual([]);
  });

  test('every .Values path a template reads is declared in the schema', () => {
    const missing = valuesPaths()
      .filter(({ path }) => !schemaAllows(path))
      .map(({ path, where }) => `${where}: .Values.${path.join('.')}`);
    expect([...new Set(missing)]).toEqual([]);
  });

  test('every $component path a loop reads is in each component block and in the schema', () => {
    const missing = componentPaths().flatMap(({ path, where }) =>
      componentKeys
        .filter((key) => !hasValue(values, [key, ...path]) || !schemaAllows([key, ...path]))
        .map((key) => `${where}: ${key}.${path.join('.')}`),
    );
    expect(componentPaths().length).toBeGreaterThan(0);
    expect([...new Set(missing)]).toEqual([]);
  });

  test('every object level of the schema rejects unknown keys, unless it says why it is open', () => {
    const open = objectSchemas()
      .filter(({ node }) => node.additionalProperties !== false && typeof node.description !== 'string')
      .map(({ at }) => at);
    expect(open).toEqual([]);
  });

  // helm lint checks values.yaml against the schema (helm.test.ts); this injects an unknown key at
  // every level, too many Helm runs, so ajv (draft-07, as Helm reads the schema) does it here.
  test('an unknown key at any closed level of values.yaml fails validation', () => {
    const validateValues = new Ajv({ strict: false, allErrors: false }).compile(schema);
    expect(validateValues(values)).toBe(true);
    const accepted: string[] = [];
    const visit = (path: string[]): void => {
      const node = path.reduce<Json>((at, key) => (isObject(at) ? at[key] : null), values);
      // Free maps (env, annotations) and the subcharts' blocks are open on purpose; skip them.
      if (!isObject(node) || schemaAllows([...path, 'surelyNotAKey'])) return;
      const copy = JSON.parse(JSON.stringify(values)) as JsonObject;
      (path.reduce<Json>((at, key) => (at as JsonObject)[key], copy) as JsonObject).surelyNotAKey = 'x';
      if (validateValues(copy)) accepted.push(path.join('.') || '(root)');
      for (const key of Object.keys(node)) visit([...path, key]);
    };
    visit([]);
    expect(accepted).toEqual([]);
  });

  test('signup is off by default', () => {
    expect((values.signup as JsonObject).enabled).toBe(false);
  });
});

describe('the chart', () => {
  test('has no chart dependencies (its stores are its own templates), so no Chart.lock to keep', () => {
    expect(chart.dependencies).toBeUndefined();
    expect(existsSync(join(chartDir, 'charts'))).toBe(false);
  });

  test('runs every process the local-cluster runner starts, and only those, with the same program and role', () => {
    const runner = join(root, 'scripts', 'local-cluster.js');
    const started = [...read(runner).matchAll(/add\([^,]+,\s*\[\s*'([^']+\.js)'(?:\s*,\s*'--role=(\w+)')?/g)].map(
      (m) => `${m[1]} ${m[2] === 'worker' ? 'worker' : 'server'}`,
    );
    const deployed = Object.values(topology()).map((spec) => `${spec.entry} ${spec.role ?? 'server'}`);
    expect([...new Set(started)].sort()).toEqual([...new Set(deployed)].sort());
  });

  test('reads its topology from charts/crm/topology.yaml, as the container runner does', () => {
    expect(read(join(templatesDir, '_helpers.tpl'))).toMatch(/define "crm\.topology" -\}\}\s*\{\{ \.Files\.Get "topology\.yaml" \}\}/);
    expect(read(join(root, 'scripts', 'cluster-support.js'))).toContain("'charts/crm/topology.yaml'");
    expect(read(join(root, 'scripts', 'container-cluster.js'))).toMatch(/readTopology,[\s\S]*\} = require\('\.\/cluster-support'\)/);
  });

  test('calls only services that exist, on ports they serve', () => {
    const table = topology();
    const problems = Object.entries(table).flatMap(([key, spec]) =>
      spec.calls
        .filter((callee) => !table[callee] || table[callee].role || !table[callee].ports.grpc)
        .map((callee) => `${key} → ${callee}`),
    );
    expect(problems).toEqual([]);
  });

  test('the dashboard and the alerts use only metrics the processes export, and the alerts the issue asks for', () => {
    const exported = new Set(
      ['libs', 'services', 'gateway'].flatMap((dir) =>
        filesUnder(join(root, dir))
          .filter((path) => /\/src\/.*\.ts$/.test(path) && !path.endsWith('.spec.ts') && !path.includes('node_modules'))
          .flatMap((path) => [...read(path).matchAll(/\b(?:counter|gauge|histogram)\(\s*'([a-z_]+)'/g)].map((m) => m[1])),
      ),
    );
    // And prom-client's default metrics, which every process's metrics server collects (startMetricsServer).
    const defaults = new promClient.Registry();
    promClient.collectDefaultMetrics({ register: defaults });
    for (const metric of defaults.getMetricsAsArray()) exported.add(metric.name);
    const dashboard = JSON.parse(read(join(chartDir, 'dashboards', 'crm.json'))) as { panels: { targets: { expr: string }[] }[] };
    const rules = read(join(templatesDir, 'monitoring.yaml'));
    const expressions = [
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
      ...[...rules.matchAll(/expr: (.*)$/gm)].map((m) => m[1]),
    ];
    const used = expressions.flatMap((expr) => [...expr.matchAll(/\b([a-z_]+)\{/g)].map((m) => m[1].replace(/_bucket$/, '')));
    expect(used.length).toBeGreaterThan(10);
    expect([...new Set(used)].filter((name) => !exported.has(name))).toEqual([]);
    expect([...rules.matchAll(/alert: (\w+)/g)].map((m) => m[1]).sort()).toEqual(
      [
        'CrmAutomationLate',
        'CrmDeadLetters',
        'CrmEventLoopHeld',
        'CrmHttp5xxRate',
        'CrmImportLag',
        'CrmMessagesDeadLettered',
        'CrmOutboxUnroutable',
        'CrmRateLimitFallback',
        'CrmStoreReadsQueued',
        'CrmWebhooksFailing',
      ].sort(),
    );
    expect(rules).toContain('.Files.Get "dashboards/crm.json"');
  });

  test('tells the operator how to run the CLI, which has a source', () => {
    const notes = read(join(templatesDir, 'NOTES.txt'));
    const cli = /node (services\/auth\/dist\/[\w-]+\.js)/.exec(notes)?.[1];
    expect(cli).toBeDefined();
    const source = sourceOf(cli as string);
    expect({ cli, sourceExists: existsSync(join(root, source)) }).toEqual({ cli, sourceExists: true });
  });
});

describe('skaffold.yaml and the Dockerfiles', () => {
  test('uses a v4 schema', () => {
    expect(String(skaffold.apiVersion)).toMatch(/^skaffold\/v4beta\d+$/);
  });

  // skaffold's own JSON schema for the apiVersion in use (a trimmed copy, tests/deploy/schemas/README.md).
  const skaffoldSchemaErrors = (config: Json): string[] => {
    const file = join(__dirname, 'schemas', `skaffold-${String(skaffold.apiVersion).split('/')[1]}.json`);
    const validate = new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(read(file)));
    if (validate(config)) return [];
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || '/'} ${e.message}${e.params?.additionalProperty ? `: ${e.params.additionalProperty}` : ''}`,
    );
  };

  test("satisfies skaffold's JSON schema for its apiVersion", () => {
    expect(skaffoldSchemaErrors(skaffold)).toEqual([]);
  });

  test("satisfies it with each profile's patches applied, and the schema check catches a misspelt key", () => {
    for (const profile of skaffold.profiles as JsonObject[]) {
      const patched = structuredClone(skaffold) as JsonObject;
      for (const patch of (profile.patches as JsonObject[]) ?? []) {
        expect(patch.op).toBe('add');
        const keys = String(patch.path).split('/').slice(1);
        const parent = keys.slice(0, -1).reduce<Json>((at, key) => (at as JsonObject)[key], patched) as JsonObject;
        parent[keys[keys.length - 1]] = patch.value as Json;
      }
      expect(skaffoldSchemaErrors(patched)).toEqual([]);
    }
    const misspelt = structuredClone(skaffold) as JsonObject;
    (misspelt.deploy as JsonObject).statusCheckDeadline = 600;
    expect(skaffoldSchemaErrors(misspelt).length).toBeGreaterThan(0);
  });

  const targets = [...new Set(Object.values(topology()).map((spec) => spec.target))];
  // Node 24's default heap sizing let a service's heap reserve several times its live data (bench
  // memory --target containers); every image starts Node with these options, written once as the
  // runtime stage's ENTRYPOINT (docs/containers.md says why npm start's growing factor is larger).
  const NODE_PREFIX = ['node', '--max-semi-space-size=16', '--heap-growing-percent=50', '--require', './libs/telemetry/dist/register.js'];
  /** The server (not worker) component each target's image runs by default. */
  const serverOf = (target: string) => Object.values(topology()).find((spec) => spec.target === target && !spec.role)!;

  test('builds one artifact per Dockerfile target the topology names, from the root Dockerfile', () => {
    expect(artifacts.map((a) => a.docker?.target).sort()).toEqual([...targets].sort());
    for (const artifact of artifacts) {
      expect(artifact.context ?? '.').toBe('.');
      expect(artifact.docker?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
      expect(artifact.image).toBe(`crm-${artifact.docker?.target}`);
    }
  });

  test('no per-package Dockerfile remains beside the root one', () => {
    const others = ['gateway', ...readdirSync(join(root, 'services')).map((s) => `services/${s}`)]
      .map((dir) => `${dir}/Dockerfile`)
      .filter((path) => existsSync(join(root, path)));
    expect(others).toEqual([]);
  });

  test.each(targets.map((target) => [target]))(
    'target %s: built on the runtime stage, which the others share; its CMD runs the program of its server component, whose source exists',
    (target) => {
      expect(stages().get(target)?.from).toBe('runtime');
      // The runtime's ENTRYPOINT starts Node; the target names only its program.
      expect(instructionOf('runtime', 'ENTRYPOINT')).toEqual(NODE_PREFIX);
      expect(instructionOf(target, 'ENTRYPOINT')).toBeUndefined();
      const [entry, ...rest] = cmdOf(target);
      expect(rest).toEqual([]);
      expect(entry).toBe(serverOf(target).entry);
      const sources = [sourceOf('libs/telemetry/dist/register.js'), sourceOf(entry)];
      expect(sources.filter((source) => !existsSync(join(root, source))).map((source) => `missing source ${source}`)).toEqual([]);
    },
  );

  test('compiles once in a build stage and ships only production dependencies, built there, in the runtime', () => {
    const all = stages();
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
    expect(all.get('build')?.lines.join('\n')).toMatch(/npx tsc --build tsconfig\.build\.json/);
    expect(all.get('production')?.from).toBe('build');
    expect(all.get('production')?.lines.join('\n')).toContain('npm prune --omit=dev');
    const runtime = all.get('runtime')!;
    // The runtime starts from the plain Node image (no compiler) and takes only the production tree.
    expect(runtime.from).toBe('${NODE_IMAGE}');
    expect(runtime.lines.filter((line) => /^COPY --from=/.test(line))).toEqual(['COPY --from=production /out ./']);
    expect(runtime.lines).toContain('USER node');
    expect(runtime.lines).toContain('WORKDIR /app');
    expect(dockerfile).not.toMatch(/^HEALTHCHECK/m);
    // Every package the topology runs, and the libs it references, ship their dist/.
    const shipped = /for pkg in ([^;]+); do/.exec(all.get('production')!.lines.join('\n'))?.[1].trim().split(/\s+/) ?? [];
    const packages = Object.values(topology()).map((spec) => spec.entry.replace(/\/dist\/.*$/, ''));
    const needed = [...new Set(packages.flatMap((pkg) => [pkg, ...referencedLibs(pkg)]))];
    const covered = (pkg: string) => shipped.some((glob) => glob === pkg || (glob.endsWith('/*') && pkg.startsWith(glob.slice(0, -1))));
    expect(needed.filter((pkg) => !covered(pkg))).toEqual([]);
  });

  test('deploys every component with an image skaffold builds, and the program that image runs', () => {
    const release = ((skaffold.deploy as JsonObject).helm as JsonObject).releases as JsonObject[];
    expect(release[0].chartPath).toBe('charts/crm');
    const templatesOfValues = release[0].setValueTemplates as Record<string, string>;
    const table = topology();
    const problems: string[] = [];
    for (const key of componentKeys) {
      const repository = templatesOfValues[`${key}.image.repository`];
      const tag = templatesOfValues[`${key}.image.tag`];
      const artifactName = /IMAGE_REPO_(\w+)/.exec(repository ?? '')?.[1];
      const artifact = artifacts.find((a) => a.image.replace(/[/-]/g, '_') === artifactName);
      if (!artifact) {
        problems.push(`${key}: no built image in setValueTemplates`);
        continue;
      }
      if (!tag?.includes(`IMAGE_TAG_${artifactName}`)) problems.push(`${key}: tag not from ${artifact.image}`);
      const entry = cmdOf(artifact.docker?.target ?? '').at(-1);
      if (table[key].entry !== entry) problems.push(`${key}: the chart runs ${table[key].entry}, ${artifact.image} runs ${entry}`);
      if (artifact.docker?.target !== table[key].target)
        problems.push(`${key}: the topology's target is ${table[key].target}, not ${artifact.docker?.target}`);
      if ((values[key] as JsonObject & { image: JsonObject }).image.repository !== artifact.image)
        problems.push(`${key}: values.yaml image is not ${artifact.image}`);
    }
    expect(problems).toEqual([]);
  });

  test('the local profile brings up the stores in the cluster and opens signup', () => {
    const local = (skaffold.profiles as JsonObject[]).find((p) => p.name === 'local') as JsonObject;
    const patch = (local.patches as JsonObject[]).find((p) => p.path === '/deploy/helm/releases/0/setValues') as JsonObject;
    expect(patch.value).toMatchObject({
      'mongodb.enabled': 'true',
      'rabbitmq.enabled': 'true',
      'redis.enabled': 'true',
      'signup.enabled': 'true',
    });
  });

  test('.dockerignore keeps build outputs and dependencies out of the context', () => {
    const ignored = read(join(root, '.dockerignore')).split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '**/*.tsbuildinfo', '.git']));
  });
});
