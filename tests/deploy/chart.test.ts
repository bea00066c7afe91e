// What Helm cannot tell about the deployment artifacts (the Dockerfile, charts/crm, skaffold.yaml):
// the chart's values paths against values.yaml and its schema, the environment against what each
// process reads, the topology against the sources, the images against the Dockerfile. Rendering,
// linting and the Kubernetes schemas are tests/deploy/helm.test.ts's, with the real Helm 3 and 4.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import Ajv from 'ajv';
import * as yaml from 'js-yaml';
import * as promClient from 'prom-client';

const root = join(__dirname, '..', '..');
const chartDir = join(root, 'charts', 'crm');
const templatesDir = join(chartDir, 'templates');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Schema = JsonObject;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const read = (path: string): string => readFileSync(path, 'utf8');
const loadYaml = (path: string): JsonObject => yaml.load(read(path)) as JsonObject;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

// The deployables of ARCHITECTURE.md, each with the values block that must run it and its role.
const deployables = [
  { process: 'gateway', block: 'gateway', role: undefined },
  { process: 'auth service', block: 'auth', role: undefined },
  { process: 'records service', block: 'records', role: undefined },
  { process: 'import service', block: 'import', role: undefined },
  { process: 'import worker', block: 'importWorker', role: 'worker' },
  { process: 'automation service', block: 'automation', role: undefined },
  { process: 'automation worker', block: 'automationWorker', role: 'worker' },
] as const;
const componentKeys = deployables.map((d) => d.block);

const values = loadYaml(join(chartDir, 'values.yaml'));
const schema = JSON.parse(read(join(chartDir, 'values.schema.json'))) as Schema;
const chart = loadYaml(join(chartDir, 'Chart.yaml'));
const skaffold = loadYaml(join(root, 'skaffold.yaml'));
const templateFiles = filesUnder(templatesDir);
const templates = templateFiles.map((path) => ({ path, name: relative(chartDir, path), text: read(path) }));

// --- Go templates ----------------------------------------------------------------------------------

const withoutComments = (text: string): string => text.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, '');

/** charts/crm/topology.yaml, which the chart's "crm.topology" reads: what each component runs, its ports, calls, stores. */
type Spec = {
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
function topology(): Record<string, Spec> {
  return yaml.load(read(join(chartDir, 'topology.yaml'))) as Record<string, Spec>;
}

/** `.Values.a.b` paths, as lists of keys, that the templates read. */
function valuesPaths(): { path: string[]; where: string }[] {
  return templates.flatMap(({ name, text }) =>
    [...withoutComments(text).matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((m) => ({
      path: m[1].slice(1).split('.'),
      where: name,
    })),
  );
}

/** Paths read from a component block through the range loops' `$component` variable. */
function componentPaths(): { path: string[]; where: string }[] {
  return templates.flatMap(({ name, text }) =>
    [...withoutComments(text).matchAll(/\$component((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((m) => ({
      path: m[1].slice(1).split('.'),
      where: name,
    })),
  );
}

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

/** The libs a package's tsconfig references, transitively, by folder name. */
function referencedLibs(pkg: string, seen = new Set<string>()): Set<string> {
  const tsconfig = JSON.parse(read(join(root, pkg, 'tsconfig.json'))) as { references?: { path: string }[] };
  for (const { path } of tsconfig.references ?? []) {
    const lib = relative(root, join(root, pkg, path));
    if (!seen.has(lib)) {
      seen.add(lib);
      referencedLibs(lib, seen);
    }
  }
  return seen;
}

/** `<pkg>/dist/<name>.js` → `<pkg>/src/<name>.ts`. */
const sourceOf = (built: string): string => built.replace(/\/dist\//, '/src/').replace(/\.js$/, '.ts');

// --- the tests ---------------------------------------------------------------------------------------

describe('the YAML files under charts/', () => {
  const plain = filesUnder(join(root, 'charts')).filter((path) => /\.ya?ml$/.test(path) && !path.startsWith(templatesDir + '/'));

  test.each(plain.map((path) => [relative(root, path), path]))('%s parses as YAML', (_name, path) => {
    expect(() => yaml.loadAll(read(path))).not.toThrow();
  });
  // The templates themselves are rendered by Helm 3 and 4 over a matrix of values (helm.test.ts).
});

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

  test.each(deployables.map((d) => [d.process, d.block, d.role]))(
    'runs the %s as a workload from values block %s',
    (_process, block, role) => {
      const spec = topology()[block];
      expect(values[block]).toBeDefined();
      expect(spec).toBeDefined();
      expect(spec.role).toBe(role);
    },
  );

  test('runs every process the local-cluster runner starts, with the same program and role', () => {
    const runner = join(root, 'scripts', 'local-cluster.js');
    const started = [...read(runner).matchAll(/add\([^,]+,\s*\[\s*'([^']+\.js)'(?:\s*,\s*'--role=(\w+)')?/g)].map(
      (m) => `${m[1]} ${m[2] === 'worker' ? 'worker' : 'server'}`,
    );
    const deployed = Object.values(topology()).map((spec) => `${spec.entry} ${spec.role ?? 'server'}`);
    expect(started.length).toBeGreaterThan(0);
    expect([...new Set(started)].filter((process) => !deployed.includes(process))).toEqual([]);
  });

  test('reads its topology from charts/crm/topology.yaml, as the container runner does', () => {
    expect(read(join(templatesDir, '_helpers.tpl'))).toMatch(/define "crm\.topology" -\}\}\s*\{\{ \.Files\.Get "topology\.yaml" \}\}/);
    expect(read(join(root, 'scripts', 'cluster-support.js'))).toContain("'charts/crm/topology.yaml'");
    expect(read(join(root, 'scripts', 'container-cluster.js'))).toMatch(/readTopology,[\s\S]*\} = require\('\.\/cluster-support'\)/);
  });

  test('runs no workload that is not a deployable', () => {
    expect(Object.keys(topology()).sort()).toEqual([...componentKeys].sort());
    const loop = /define "crm\.componentKeys" -?\}\}\s*([^{]*)\{\{/.exec(read(join(templatesDir, '_helpers.tpl')));
    expect(loop?.[1].trim().split(/\s+/).sort()).toEqual([...componentKeys].sort());
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

  test('the stop periods nest: the pod grace > the process grace > the drains it runs', () => {
    const ms = (file: string, pattern: RegExp): number => Number((pattern.exec(read(join(root, file)))?.[1] ?? 'NaN').replace(/_/g, ''));
    const shutdown = 'libs/observability/src/shutdown.ts';
    const processGrace = ms(shutdown, /PROCESS_GRACE_MS = ([\d_]+)/);
    const consumerDrain = ms(shutdown, /CONSUMER_DRAIN_MS = ([\d_]+)/);
    const callDrain = ms(shutdown, /CALL_DRAIN_MS = ([\d_]+)/);
    const gatewayDelay = ms('gateway/src/config.ts', /DRAIN_DELAY_MS: [^\n]*\.default\(([\d_]+)\)/);
    const gatewayDrain = ms('gateway/src/index.ts', /options\.drainGraceMs \?\? ([\d_]+)/);
    const podGraces = [
      .../terminationGracePeriodSeconds: (.*)$/m.exec(read(join(templatesDir, 'deployments.yaml')))![1].matchAll(/\b(\d+)\b/g),
    ];
    const podGrace = Math.min(...podGraces.map((m) => Number(m[1]) * 1000));
    expect(podGraces.length).toBeGreaterThan(0);
    expect(podGrace).toBeGreaterThan(processGrace);
    expect(processGrace).toBeGreaterThan(consumerDrain + callDrain);
    expect(processGrace).toBeGreaterThan(gatewayDelay + gatewayDrain);
    // The bus and the gRPC server take their defaults from those constants.
    for (const file of ['libs/bus/src/amqp/amqp-bus.ts', 'libs/bus/src/in-process/in-process-bus.ts'])
      expect(read(join(root, file))).toContain('options.stopGraceMs ?? CONSUMER_DRAIN_MS');
    expect(read(join(root, 'libs/grpc/src/server.ts'))).toContain('shutdown(graceMs = CALL_DRAIN_MS)');
    expect(read(join(root, shutdown))).toContain('graceMs = PROCESS_GRACE_MS');
  });

  test('has a helm test hook that GETs /readyz through the gateway Service', () => {
    const hook = read(join(templatesDir, 'tests', 'gateway-readyz.yaml'));
    expect(hook).toMatch(/helm\.sh\/hook: test$/m);
    expect(hook).toContain(
      'printf "%s://%s:%v/readyz" $scheme (include "crm.componentFullname" (list $ "gateway")) .Values.gatewayService.port',
    );
    expect(hook).toContain('process.exit(res.statusCode === 200 ? 0 : 1)');
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
  const serverOf = (target: string): Spec => Object.values(topology()).find((spec) => spec.target === target && !spec.role) as Spec;

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
    'target %s: its CMD runs the program of its server component, whose source exists',
    (target) => {
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

  test("the workers, which replace the image's CMD to add their role, keep its ENTRYPOINT; the container runner runs the chart's", () => {
    const chart = read(join(templatesDir, 'deployments.yaml'));
    // `args` alone replaces the CMD and keeps the ENTRYPOINT (Kubernetes and podman alike); a `command` would drop the Node options.
    expect(/^\s*args: \[\{\{ \$spec\.entry \| quote \}\}, "--role=\{\{ \$spec\.role \}\}"\]$/m.test(chart)).toBe(true);
    expect(chart).not.toMatch(/^\s*command:/m);
    expect(chart).not.toContain('--max-semi-space-size');
    // The runner takes args from `helm template` (scripts/rendered-pods.js), never its own copy.
    const runner = read(join(root, 'scripts/container-cluster.js'));
    expect(runner).toContain('args: pod.command');
    expect(runner).not.toContain('--max-semi-space-size');
  });

  test.each(targets.map((target) => [target]))('target %s: built on the runtime stage, which the others share', (target) => {
    expect(stages().get(target)?.from).toBe('runtime');
  });

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

// --- the environment the chart sets, against what each process reads ---------------------------------
//
// templates/_env.tpl defines each component's container environment ("crm.env" and the
// "crm.env.<component>" it includes); configmap.yaml holds what every process gets. Both are read
// here textually: `- name: NAME` lines, with the parts under `if`/`with` on a `$spec.<path>` of the
// topology counted only for the components where that path is set (`else` for the others).

const helperTexts = templates
  .filter((t) => t.name.endsWith('.tpl'))
  .map((t) => withoutComments(t.text))
  .join('\n');

/** The bodies of every `define`, by name (nesting-aware). */
function defines(text: string): Map<string, string> {
  const found = new Map<string, string>();
  const pattern = /\{\{-?\s*([\s\S]*?)\s*-?\}\}/g;
  const open: { name: string | undefined; bodyStart: number }[] = [];
  for (const match of text.matchAll(pattern)) {
    const action = match[1];
    const word = /^(\w+)/.exec(action)?.[1];
    const end = (match.index ?? 0) + match[0].length;
    if (word === 'define') open.push({ name: /^define\s+"([^"]+)"/.exec(action)?.[1], bodyStart: end });
    else if (word === 'if' || word === 'range' || word === 'with' || word === 'block') open.push({ name: undefined, bodyStart: end });
    else if (word === 'end') {
      const block = open.pop();
      if (block?.name) found.set(block.name, text.slice(block.bodyStart, match.index));
    }
  }
  return found;
}

const envDefines = defines(helperTexts);

/** Whether a path of the topology entry (`metrics`, `ports.grpc`) is set (truthy, non-empty). */
function specHas(spec: Spec, path: string[]): boolean {
  const value = path.reduce<unknown>((at, key) => (isObject(at as Json) ? (at as JsonObject)[key] : undefined), spec as unknown);
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

/** Per store, the variables "crm.storeEnv" sets (URL and the password it expands). */
function storeEnvNames(): Record<string, string[]> {
  const body = envDefines.get('crm.storeEnv') ?? '';
  const names: Record<string, string[]> = {};
  for (const segment of body.split(/eq \$store "/).slice(1)) {
    const store = /^(\w+)"/.exec(segment)?.[1] as string;
    names[store] = [
      ...[...segment.matchAll(/^- name: ([A-Z][A-Z0-9_]*)\s*$/gm)].map((m) => m[1]),
      ...[...segment.matchAll(/include "crm\.externalUrlEnv" \(list \$root "([A-Z][A-Z0-9_]*)"/g)].map((m) => m[1]),
    ];
  }
  return names;
}

interface SetVariable {
  name: string;
  /** The literal value, when the template writes one (`value: "x"` or `value: x`). */
  value?: string;
  /** The generated Secret's key, for `include "crm.generatedSecretEnv"`. */
  generatedKey?: string;
}

/** The variables a define sets for one component; problems collects names the test cannot read. */
function envOf(defineName: string, key: string, spec: Spec, problems: string[]): SetVariable[] {
  const body = envDefines.get(defineName);
  if (body === undefined) {
    problems.push(`no define "${defineName}"`);
    return [];
  }
  const out: SetVariable[] = [];
  const guards: ({ path: string[]; negate: boolean } | null)[] = [];
  const active = (): boolean => guards.every((g) => g === null || specHas(spec, g.path) !== g.negate);
  const pieces = body.split(/(\{\{-?\s*[\s\S]*?\s*-?\}\})/);
  let computedName = false;
  for (const piece of pieces) {
    const action = /^\{\{-?\s*([\s\S]*?)\s*-?\}\}$/.exec(piece)?.[1];
    if (computedName && !/^printf "%s_GRPC_ADDR" \(upper \$callee\)$/.test(action ?? ''))
      problems.push(`${defineName}: a computed variable name: {{ ${action ?? ''} }}`);
    computedName = false;
    if (action === undefined) {
      if (!active()) continue;
      const lines = piece.split('\n');
      lines.forEach((line, i) => {
        const name = /^- name: ([A-Z][A-Z0-9_]*)\s*$/.exec(line)?.[1];
        if (name) {
          // A literal value: the whole next line, not one a template action continues.
          const literal = i + 1 < lines.length - 1 ? /^ {2}value: "?([^"]+?)"?\s*$/.exec(lines[i + 1])?.[1] : undefined;
          out.push({ name, ...(literal !== undefined ? { value: literal } : {}) });
        } else if (/^- name:/.test(line) && line.trim() !== '- name:')
          problems.push(`${defineName}: a name the test cannot read: ${line.trim()}`);
      });
      computedName = /^- name:\s*$/.test(lines[lines.length - 1]);
      continue;
    }
    const word = /^(\w+)/.exec(action)?.[1];
    const guard = /^(?:if|with)\s+\$spec((?:\.\w+)+)\s*$/.exec(action);
    if (word === 'if' || word === 'with') guards.push(guard ? { path: guard[1].slice(1).split('.'), negate: false } : null);
    else if (word === 'range') guards.push(null);
    else if (word === 'else') {
      const top = guards[guards.length - 1];
      guards[guards.length - 1] = top && action === 'else' ? { path: top.path, negate: !top.negate } : null;
    } else if (word === 'end') guards.pop();
    if (!active()) continue;
    const generated = /include "crm\.generatedSecretEnv" \(list \$root "([A-Z][A-Z0-9_]*)" "(\w+)"\)/.exec(action);
    if (generated) out.push({ name: generated[1], generatedKey: generated[2] });
    const included = /include "(crm\.env\.[\w.]+)"/.exec(action);
    if (included) out.push(...envOf(included[1], key, spec, problems));
    if (/include \(printf "crm\.env\.%s" \$key\)/.test(action)) out.push(...envOf(`crm.env.${key}`, key, spec, problems));
    if (/include "crm\.storeEnv"/.test(action))
      for (const store of spec.stores) out.push(...(storeEnvNames()[store] ?? []).map((name) => ({ name })));
    if (/^printf "%s_GRPC_ADDR" \(upper \$callee\)$/.test(action))
      out.push(...spec.calls.map((callee) => ({ name: `${callee.toUpperCase()}_GRPC_ADDR` })));
  }
  return out;
}

/** Keys of the shared ConfigMap's data, set for every component. */
function configMapNames(): string[] {
  const text = withoutComments(read(join(templatesDir, 'configmap.yaml')));
  return [...text.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
}

/** Everything the chart sets in a component's container: ConfigMap, "crm.env", and its values `env`. */
function chartEnv(key: string, problems: string[] = []): SetVariable[] {
  const spec = topology()[key];
  const userEnv = Object.keys(((values[key] as JsonObject).env as JsonObject | undefined) ?? {});
  return [...configMapNames().map((name) => ({ name })), ...envOf('crm.env', key, spec, problems), ...userEnv.map((name) => ({ name }))];
}

const packageOf = (spec: Spec): string => spec.entry.replace(/\/dist\/.*$/, '');
const sourcesOf = (folder: string): string[] =>
  filesUnder(join(root, folder, 'src')).filter(
    (path) => /\.ts$/.test(path) && !/\.(spec|test)\.ts$/.test(path) && !/\/(testing|generated)\//.test(path),
  );

/** The keys of the zod object in a config.ts, read textually (`  NAME: z…` or `  NAME: env.…`). */
function zodEntries(path: string): { name: string; expression: string }[] {
  const text = read(path);
  const lines = text.split('\n');
  const entries: { name: string; expression: string }[] = [];
  lines.forEach((line, i) => {
    const m = /^(\s+)([A-Z][A-Z0-9_]*):\s*(.*)$/.exec(line);
    if (!m) return;
    const indent = m[1].length;
    let expression = m[3];
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j];
      const nextIndent = /^(\s*)/.exec(next)?.[1].length ?? 0;
      if (next.trim() === '' || next.trim().startsWith('/**') || next.trim().startsWith('*') || next.trim().startsWith('//')) {
        if (nextIndent <= indent && !next.trim().startsWith('*')) break;
        continue;
      }
      if (nextIndent <= indent) break;
      expression += ` ${next.trim()}`;
    }
    entries.push({ name: m[2], expression });
  });
  return entries;
}

/** The `env.*` helpers of @crm/config that give a default or allow absence. */
function lenientHelpers(): Set<string> {
  const text = read(join(root, 'libs', 'config', 'src', 'load-config.ts'));
  const block = /export const env = \{([\s\S]*?)\n\};/.exec(text)?.[1] ?? '';
  const lenient = new Set<string>();
  for (const part of block.split(/\n(?= {2}\w+:)/)) {
    const name = /^\s*(\w+):/.exec(part)?.[1];
    if (name && /\.default\(|\.optional\(/.test(part)) lenient.add(name);
  }
  return lenient;
}

/** A variable the process refuses to start without: no default, not optional. */
function isRequired(expression: string, lenient: Set<string>, file?: string): boolean {
  if (/\.default\(|\.optional\(/.test(expression)) return false;
  // A schema kept in a constant of the same file (`BODY_LIMIT: byteSize`, `hostPort('…')`).
  const constant = /^([a-zA-Z_]\w*)\b/.exec(expression)?.[1];
  if (file && constant && constant !== 'z' && constant !== 'env') {
    const definition = new RegExp(`const ${constant}\\s*=([\\s\\S]*?);\\n`).exec(read(file))?.[1];
    if (definition !== undefined) return isRequired(definition.trim(), lenient);
  }
  const helper = /^env\.(\w+)\(/.exec(expression)?.[1];
  return !(helper && lenient.has(helper));
}

const envReads = (path: string): string[] => [...read(path).matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]);

/** Whether a package's sources start the Prometheus endpoint (METRICS_PORT). */
const servesMetrics = (pkg: string): boolean =>
  sourcesOf(pkg).some((path) => /\bstart(Process)?Metrics(Server)?\(/.test(read(path)) && !path.includes('libs/telemetry'));

/** Variables read outside config.ts, each checked to be read where it says. */
const readElsewhere: Record<string, { file: string; names: string[] }[]> = {
  // The operator CLI, run in the auth pod with kubectl exec (NOTES.txt).
  auth: [
    { file: 'services/auth/src/cli.ts', names: ['CRM_OPERATOR_TOKEN', 'CRM_OPERATOR_TLS_DIR'] },
    { file: 'services/auth/src/adapters/auth-address.ts', names: ['AUTH_GRPC_ADDR'] },
  ],
};

/** The keys of `export const <name> = { ... }` setting groups of libs/config that a config.ts spreads (`...internalTlsSettings`). */
function spreadSettings(configFile: string): string[] {
  const libConfig = sourcesOf('libs/config');
  return [...read(configFile).matchAll(/^\s+\.\.\.(\w+Settings),/gm)].flatMap(([, group]) => {
    const file = libConfig.find((path) => read(path).includes(`export const ${group} = {`));
    const block = file ? new RegExp(`export const ${group} = \\{([\\s\\S]*?)\\n\\};`).exec(read(file))?.[1] : undefined;
    return [...(block ?? '').matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
  });
}

/** What a component's process reads: its config.ts (with the setting groups it spreads), the libs it links, the reads listed above. */
function readsOf(key: string): Set<string> {
  const spec = topology()[key];
  const pkg = packageOf(spec);
  const configFile = join(root, pkg, 'src', 'config.ts');
  const names = new Set([...zodEntries(configFile).map((e) => e.name), ...spreadSettings(configFile)]);
  for (const lib of referencedLibs(pkg))
    for (const path of sourcesOf(lib)) for (const name of envReads(path)) if (name !== 'METRICS_PORT') names.add(name);
  if (servesMetrics(pkg) && envReads(join(root, 'libs', 'telemetry', 'src', 'metrics.ts')).includes('METRICS_PORT'))
    names.add('METRICS_PORT');
  for (const { file, names: extra } of readElsewhere[key] ?? [])
    for (const name of extra) if (envReads(join(root, file)).includes(name)) names.add(name);
  names.add('NODE_ENV'); // production mode of express and other dependencies
  return names;
}

/** Variables set only to be expanded into another's value, `$(NAME)`. */
const expansionOnly = new Set([...helperTexts.matchAll(/\$\(([A-Z][A-Z0-9_]*)\)/g)].map((m) => m[1]));

describe('the environment the chart sets', () => {
  test('deployments.yaml sets container variables only through "crm.env" and the values env block', () => {
    const text = withoutComments(read(join(templatesDir, 'deployments.yaml')));
    expect(text).toContain('include "crm.env" (list $ $key)');
    expect([...text.matchAll(/^\s*- name: ([A-Z][A-Z0-9_]*)\s*$/gm)].map((m) => m[1])).toEqual([]);
  });

  test.each(componentKeys)('%s: every variable name is one the test can read', (key) => {
    const problems: string[] = [];
    expect(chartEnv(key, problems).length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  test.each(componentKeys)('%s: every variable the chart sets is read by that process', (key) => {
    const reads = readsOf(key);
    const unread = chartEnv(key)
      .map((v) => v.name)
      .filter((name) => !reads.has(name) && !name.startsWith('OTEL_') && !expansionOnly.has(name));
    expect([...new Set(unread)]).toEqual([]);
  });

  test.each(componentKeys)('%s: every variable its config.ts requires (no default, not optional) is set', (key) => {
    const spec = topology()[key];
    const lenient = lenientHelpers();
    expect(lenient.has('url') && lenient.has('port')).toBe(true);
    const set = new Set(chartEnv(key).map((v) => v.name));
    const file = join(root, packageOf(spec), 'src', 'config.ts');
    const required = zodEntries(file).filter((e) => isRequired(e.expression, lenient, file));
    expect(required.map((e) => e.name).filter((name) => !set.has(name))).toEqual([]);
  });

  test('the config.ts parser finds defaults, optional values and required ones', () => {
    const lenient = lenientHelpers();
    expect(isRequired("z.string().default('x')", lenient)).toBe(false);
    expect(isRequired("env.url(['https'])", lenient)).toBe(false);
    expect(isRequired('z.string().min(16).optional()', lenient)).toBe(false);
    expect(isRequired('z.string().min(1)', lenient)).toBe(true);
    const gatewayConfig = join(root, 'gateway', 'src', 'config.ts');
    expect(zodEntries(gatewayConfig).filter((e) => isRequired(e.expression, lenient, gatewayConfig))).toEqual([]);
    const entries = zodEntries(join(root, 'services', 'import', 'src', 'config.ts'));
    expect(entries.map((e) => e.name)).toEqual(
      expect.arrayContaining(['UPLOAD_HOST', 'UPLOAD_SECRET', 'MONGO_URL', 'CHUNK_ROWS', 'IMPORT_STALL_MS']),
    );
  });

  test.each(componentKeys)('%s: a variable its config.ts requires only in some cases is set in those cases', (key) => {
    const spec = topology()[key];
    const text = read(join(root, packageOf(spec), 'src', 'config.ts'));
    const loopback = new Set([...(/LOOPBACK = new Set\(\[([^\]]*)\]\)/.exec(text)?.[1] ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]));
    const env = chartEnv(key);
    const problems: string[] = [];
    // `if (!config.SECRET && !LOOPBACK.has(config.HOST))`: SECRET is needed when HOST is not loopback.
    for (const [, needed, host] of text.matchAll(/!config\.(\w+) && !LOOPBACK\.has\(config\.(\w+)\)/g)) {
      const setHost = env.find((v) => v.name === host);
      const defaultHost = /\.default\('([^']*)'\)/.exec(
        zodEntries(join(root, packageOf(spec), 'src', 'config.ts')).find((e) => e.name === host)?.expression ?? '',
      )?.[1];
      const effective = setHost ? setHost.value : defaultHost;
      if (effective === undefined || !loopback.has(effective))
        if (!env.some((v) => v.name === needed)) problems.push(`${needed} unset while ${host} is ${effective ?? 'computed'}`);
    }
    expect(problems).toEqual([]);
  });

  test('the import server listens for uploads on the pod address, with the secret the gateway sends', () => {
    const importEnv = chartEnv('import');
    const gatewayEnv = chartEnv('gateway');
    expect(importEnv.find((v) => v.name === 'UPLOAD_HOST')?.value).toBe('0.0.0.0');
    const secretKey = importEnv.find((v) => v.name === 'UPLOAD_SECRET')?.generatedKey;
    expect(secretKey).toBeDefined();
    expect(gatewayEnv.find((v) => v.name === 'IMPORT_UPLOAD_SECRET')?.generatedKey).toBe(secretKey);
    expect(gatewayEnv.some((v) => v.name === 'IMPORT_UPLOAD_URL')).toBe(true);
    // Generated once, then kept across upgrades (looked up), at least 16 characters.
    const secret = read(join(templatesDir, 'secret.yaml'));
    expect(secret).toMatch(new RegExp(`${secretKey}: \\{\\{ get \\$data "${secretKey}" \\| default \\(randAlphaNum (\\d+) \\| b64enc\\)`));
    expect(Number(new RegExp(`${secretKey}:[^\\n]*randAlphaNum (\\d+)`).exec(secret)?.[1])).toBeGreaterThanOrEqual(16);
    // The workers serve no upload endpoint: UPLOAD_HOST stays on loopback, so they need no secret.
    expect(chartEnv('importWorker').some((v) => v.name === 'UPLOAD_HOST' || v.name === 'UPLOAD_SECRET')).toBe(false);
  });

  test('only the components that stream uploads may reach the upload port', () => {
    const table = topology();
    expect(
      Object.entries(table)
        .filter(([, spec]) => spec.uploads)
        .map(([key]) => key),
    ).toEqual(['gateway']);
    expect(table.import.ports.upload).toBeDefined();
    const policies = read(join(templatesDir, 'networkpolicies.yaml'));
    expect(policies).toContain('ternary $caller.uploads (has $key $caller.calls) (eq $portName "upload")');
  });

  test('the import service keeps uploads in GridFS when MONGO_URL is set, and the chart always sets it', () => {
    expect(read(join(root, 'services', 'import', 'src', 'index.ts'))).toMatch(
      /location\.kind === 'mongo'\s*\?\s*await (?:GridFsFileStorage|gridFs\(\))\.open\(/,
    );
    for (const key of ['import', 'importWorker']) expect(chartEnv(key).some((v) => v.name === 'MONGO_URL')).toBe(true);
  });

  test.each(componentKeys)('%s: the topology says it serves metrics exactly when its sources start the metrics server', (key) => {
    const spec = topology()[key];
    expect({ key, metrics: Boolean(spec.metrics) }).toEqual({ key, metrics: servesMetrics(packageOf(spec)) });
    expect(chartEnv(key).some((v) => v.name === 'METRICS_PORT')).toBe(Boolean(spec.metrics));
  });

  test.each(deployables.filter((d) => d.role === 'worker').map((d) => d.block))(
    '%s: the worker serves gRPC health on GRPC_PORT (mutual TLS) and GRPC_HEALTH_PORT (plaintext, where its probe asks)',
    (key) => {
      const spec = topology()[key];
      const index = read(join(root, packageOf(spec), 'src', 'index.ts'));
      const worker = /export async function start\w*Worker\([\s\S]*?\n\}\n/.exec(index)?.[0] ?? '';
      expect(worker).toMatch(/new GrpcServer\(\{ logger, tls\b/);
      expect(worker).toMatch(
        /\.listen\(listenAddress\(config\.GRPC_HOST, config\.GRPC_PORT\), \{ healthAddress: healthListenAddress\(config\) \}\)/,
      );
      expect(spec.ports.health).toBeDefined();
      expect(chartEnv(key).some((v) => v.name === 'GRPC_HEALTH_PORT')).toBe(true);
      // Serving once its stores answer: set directly, or kept in step with them by serveWhileReady.
      expect(worker).toMatch(/setServing\(true\)|\.serveWhileReady\(/);
      expect(chartEnv(key).some((v) => v.name === 'GRPC_PORT')).toBe(true);
    },
  );

  test('SMTP and AI settings reach the automation workers, the secrets from Secrets', () => {
    const body = envDefines.get('crm.env.automationWorker') ?? '';
    for (const name of ['SMTP_URL', 'AI_API_KEY']) {
      expect(body).toMatch(new RegExp(`- name: ${name}\\n {2}valueFrom:\\n {4}secretKeyRef:`));
      expect(body).toMatch(new RegExp(`include "crm\\.generatedSecretEnv" \\(list \\$root "${name}"`));
    }
    const reads = readsOf('automationWorker');
    for (const name of ['SMTP_URL', 'EMAIL_FROM', 'AI_PROVIDER_URL', 'AI_MODEL', 'AI_API_KEY']) expect(reads.has(name)).toBe(true);
  });
});

describe('mutual TLS inside the release', () => {
  const internalTls = read(join(templatesDir, 'internal-tls.yaml'));
  const helpers = read(join(templatesDir, '_helpers.tpl'));
  const deployments = read(join(templatesDir, 'deployments.yaml'));
  const volumeHelper = /define "crm\.internalTlsVolume" -\}\}([\s\S]*?)\{\{- end \}\}\n/.exec(helpers)?.[1] ?? '';
  const libTls = read(join(root, 'libs', 'grpc', 'src', 'internal-tls.ts'));
  const fileName = (constant: string): string | undefined => new RegExp(`export const ${constant} = '([^']+)'`).exec(libTls)?.[1];

  test('makes a certificate for every deployable of the topology and the operator CLI, named by it', () => {
    expect(internalTls).toMatch(/range \$key := splitList " " \(include "crm\.componentKeys" \.\)/);
    expect(internalTls).toContain('$identities = append $identities (index $topology $key).name');
    expect(internalTls).toContain('$identities = append $identities "operator"');
    // Common name and DNS name are the identity: what the servers read and the clients check.
    expect(internalTls).toContain('genSignedCert $identity nil (list $identity) $days $ca');
    expect(internalTls).toMatch(/commonName: \{\{ \$identity \}\}\n\s+dnsNames: \[\{\{ \$identity \}\}\]/);
    expect(internalTls).toContain('usages: [digital signature, key encipherment, server auth, client auth]');
  });

  test('generates the CA and the certificates once and keeps them across upgrades', () => {
    expect(internalTls).toContain('lookup "v1" "Secret" .Release.Namespace $name');
    expect(internalTls).toContain('buildCustomCert (index $caData "ca.crt") (index $caData "ca.key")');
    expect(internalTls).toMatch(
      /if and \(hasKey \$data \$crt\) \(hasKey \$data \$key\) \}\}\n\s+\{\{ \$crt \}\}: \{\{ get \$data \$crt \| quote \}\}/,
    );
    // A new CA (none kept) makes every certificate again, so no pod is left with another CA's.
    expect(internalTls).toMatch(/genCA [^\n]*\n\{\{- \$data = dict \}\}/);
  });

  test("keeps the CA's key in a Secret of its own that no pod mounts, moving it there from an older release's", () => {
    const secrets = internalTls.split(/^---$/m).filter((doc) => /kind: Secret/.test(doc));
    const caSecret = secrets.find((doc) => doc.includes('name: {{ $caName }}')) ?? '';
    const certificates = secrets.find((doc) => doc.includes('name: {{ $name }}')) ?? '';
    expect(internalTls).toContain('{{- $caName := printf "%s-internal-ca-key" $fullname }}');
    expect(caSecret).toContain('ca.key: {{ index $caData "ca.key" | quote }}');
    expect(certificates).not.toContain('ca.key');
    expect(internalTls).toMatch(
      /if and \(not \(hasKey \$caData "ca\.key"\)\) \(hasKey \$data "ca\.key"\) \}\}\n\{\{- \$caData = dict "ca\.crt" \(index \$data "ca\.crt"\) "ca\.key" \(index \$data "ca\.key"\) \}\}/,
    );
    expect(`${helpers}\n${deployments}`).not.toContain('internal-ca-key');
  });

  test('issues them with cert-manager when asked, into the Secrets the pods mount', () => {
    expect(internalTls).toContain('if not .Values.internalTls.certManager.enabled');
    expect(internalTls).toContain('secretName: {{ $fullname }}-internal-tls-{{ $identity }}');
    expect(volumeHelper).toContain('secretName: {{ printf "%s-internal-tls-%s" (include "crm.fullname" $root) $identity }}');
    expect(volumeHelper).toContain('secretName: {{ printf "%s-internal-tls" (include "crm.fullname" $root) }}');
  });

  test('each pod mounts only its own certificate and key, with the CA, under the names the processes read', () => {
    const names = [fileName('CA_FILE'), fileName('CERT_FILE'), fileName('KEY_FILE')];
    expect(names).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
    // Generated Secret: the identity's own keys mapped to tls.crt and tls.key, and nothing else.
    expect(volumeHelper).toContain(
      'items: [{ key: ca.crt, path: ca.crt }, { key: {{ $identity }}.crt, path: tls.crt }, { key: {{ $identity }}.key, path: tls.key }]',
    );
    expect([...volumeHelper.matchAll(/\{ key: ([^,]+), path: ([^ ]+) \}/g)].every((m) => names.includes(m[2]))).toBe(true);
    expect(deployments).toContain('include "crm.internalTlsVolume" (list $ $spec.name)');
    expect(deployments).toContain('include "crm.internalTlsVolume" (list $ "operator")');
    // Only the pod where the operator runs the CLI (topology's operatorCli: auth's) also gets the operator's.
    expect(deployments).toMatch(/\{\{- if \$spec\.operatorCli \}\}\n\s+- name: operator-tls/);
    expect(
      Object.entries(topology())
        .filter(([, spec]) => spec.operatorCli)
        .map(([key]) => key),
    ).toEqual(['auth']);
  });

  test.each(componentKeys)('%s: INTERNAL_TLS_DIR is where its certificate is mounted', (key) => {
    const mount = /- \{ name: internal-tls, mountPath: ([^,]+), readOnly: true \}/.exec(deployments)?.[1];
    expect(mount).toBeDefined();
    const set = chartEnv(key).find((v) => v.name === 'INTERNAL_TLS_DIR');
    expect(set?.value).toBe(mount);
    expect(readsOf(key).has('INTERNAL_TLS_DIR')).toBe(true);
  });

  test('the ingress ranges the operator trusts name clients to the gateway and are all that may reach it', () => {
    expect(chartEnv('gateway').some((v) => v.name === 'TRUSTED_PROXIES')).toBe(true);
    expect(envDefines.get('crm.env.gateway')).toMatch(
      /with \$root\.Values\.ingress\.trustedProxies \}\}\s*#[^\n]*\n- name: TRUSTED_PROXIES\n  value: \{\{ join "," \. \| quote \}\}/,
    );
    expect(read(join(templatesDir, 'networkpolicies.yaml'))).toMatch(
      /if or \$\.Values\.ingress\.trustedProxies \$\.Values\.networkPolicies\.gatewayFrom \}\}\s*from:\s*\{\{- range \$\.Values\.ingress\.trustedProxies \}\}\s*- ipBlock: \{ cidr: \{\{ \. \| quote \}\} \}/,
    );
    expect((values.ingress as JsonObject).trustedProxies).toEqual([]);
  });

  test("the auth pod's CLI finds the operator's certificate", () => {
    const mount = /- \{ name: operator-tls, mountPath: ([^,]+), readOnly: true \}/.exec(deployments)?.[1];
    expect(chartEnv('auth').find((v) => v.name === 'CRM_OPERATOR_TLS_DIR')?.value).toBe(mount);
  });

  test('the gateway streams uploads over TLS, and the probes use the plaintext health port', () => {
    expect(envDefines.get('crm.env.gateway')).toContain('printf "https://%s:%v"');
    expect(deployments).toContain('grpc: { port: {{ $spec.ports.health }} }');
    for (const [key, spec] of Object.entries(topology()))
      if (spec.ports.grpc) expect({ key, health: chartEnv(key).some((v) => v.name === 'GRPC_HEALTH_PORT') }).toEqual({ key, health: true });
    expect(read(join(templatesDir, 'services.yaml'))).toContain('if ne $portName "health"');
  });

  test('every identity a caller table names is one the chart makes a certificate for', () => {
    const known = new Set([...Object.values(topology()).map((spec) => spec.name), 'operator']);
    const tables = filesUnder(join(root, 'services')).filter((path) => /\/src\/grpc\/[\w-]+-callers\.ts$/.test(path));
    // Each service's own table, plus the privacy service records, import and automation each serve.
    expect(tables.length).toBe(7);
    const named = tables.flatMap((path) =>
      [...read(path).matchAll(/^ {2}'?([a-z][\w-]*)'?: \{\s*methods:/gm)].map((m) => `${relative(root, path)}: ${m[1]}`),
    );
    expect(named.length).toBe(14);
    expect(named.filter((entry) => !known.has(entry.split(': ')[1]))).toEqual([]);
  });

  test('the container harness runs the environment the chart renders, changing only what one host must', () => {
    const harness = read(join(root, 'scripts', 'container-cluster.js'));
    expect(harness).toContain('const pods = renderedPods()');
    expect(harness).toMatch(/const env = resolveEnv\(pod, /);
    expect(harness).toContain("health: 'GRPC_HEALTH_PORT'");
    // The chart's settings are not restated: a path or flag the chart sets appears nowhere in the runner.
    expect(harness).not.toMatch(/INTERNAL_TLS_DIR|\/etc\/crm\/internal-tls|SIGNUP_ENABLED|TLS_CERT_FILE/);
    expect(harness).toMatch(/IMPORT_UPLOAD_URL = `https:\/\//);
    expect(harness).toContain('makeInternalCertificates(');
  });
});
