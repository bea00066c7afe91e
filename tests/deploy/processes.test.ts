// What the rendered chart gives each process, against what the process's sources read and expect:
// its program, its environment (every variable set is read, every required one is set, in every
// value set), its mounts and its internal certificate. The chart is rendered by the real Helm 4
// (./rendered-chart.ts); the sources are read textually.
import { X509Certificate } from 'node:crypto';
import { join, relative } from 'node:path';
import * as yaml from 'js-yaml';
import {
  K8sObject,
  allSets,
  chartDir,
  ciDir,
  containersOf,
  filesUnder,
  packageOf,
  read,
  referencedLibs,
  render,
  root,
  topology,
  useChartTools,
} from './rendered-chart';

useChartTools();
const table = topology();
const keys = Object.keys(table);
const workers = keys.filter((key) => table[key].role === 'worker');
const values = yaml.load(read(join(chartDir, 'values.yaml'))) as any;

const withCiValues = (file: string, ...sets: string[]) => ['-f', join(ciDir, file), ...sets.flatMap((set) => ['--set', set])];
/** Every value set, plus the settings none of them makes (trusted proxies, the outbound secrets as existing Secrets). */
const renderedSets = () =>
  [
    ...allSets(),
    ['trusted-proxies', trustedProxies],
    ['outbound-secrets', withCiValues('everything-values.yaml', 'email.smtp.existingSecret=smtp', 'ai.apiKey.existingSecret=ai')],
  ].map(([name, args]) => [name, render('helm4', args as string[])] as [string, K8sObject[]]);
const trustedProxies = withCiValues('external-values.yaml', 'ingress.trustedProxies={192.0.2.0/24,198.51.100.7/32}');
const external = () => render('helm4', withCiValues('external-values.yaml'));
const certManager = () => render('helm4', withCiValues('everything-values.yaml'));

type EnvVar = { name: string; value?: string; valueFrom?: any };
const deploymentOf = (objects: K8sObject[], key: string) =>
  objects.find((o) => o.kind === 'Deployment' && o.metadata.name === `crm-${table[key].name}`)!;
const containerOf = (objects: K8sObject[], key: string) => containersOf(deploymentOf(objects, key))[0];
/** A component's variables in one render: its ConfigMaps' keys (envFrom) and its own env. */
function envOf(objects: K8sObject[], key: string): Map<string, EnvVar> {
  const container = containerOf(objects, key);
  const fromMaps = (container.envFrom ?? [])
    .filter((source: any) => source.configMapRef)
    .flatMap((source: any) =>
      Object.entries(objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === source.configMapRef.name)?.data ?? {}),
    )
    .map(([name, value]: [string, string]) => ({ name, value }));
  return new Map([...fromMaps, ...(container.env as EnvVar[])].map((v) => [v.name, v]));
}
const mountOf = (objects: K8sObject[], key: string, volume: string): string | undefined =>
  containerOf(objects, key).volumeMounts.find((m: { name: string }) => m.name === volume)?.mountPath;

// --- what each process reads -------------------------------------------------------------------------

const sourcesOf = (folder: string): string[] =>
  filesUnder(join(root, folder, 'src')).filter(
    (path) => /\.ts$/.test(path) && !/\.(spec|test)\.ts$/.test(path) && !/\/(testing|generated)\//.test(path),
  );
const configFileOf = (key: string) => join(root, packageOf(table[key]), 'src', 'config.ts');

/** The keys of the zod object in a config.ts, read textually (`  NAME: z…` or `  NAME: env.…`), with their expression. */
function zodEntries(path: string): { name: string; expression: string }[] {
  const lines = read(path).split('\n');
  return lines.flatMap((line, i) => {
    const m = /^(\s+)([A-Z][A-Z0-9_]*):\s*(.*)$/.exec(line);
    if (!m) return [];
    let expression = m[3];
    for (const next of lines.slice(i + 1)) {
      const indent = /^(\s*)/.exec(next)![1].length;
      const comment = /^\s*(\/\*\*|\*|\/\/)/.test(next) || next.trim() === '';
      if (comment && (indent > m[1].length || next.trim().startsWith('*'))) continue;
      if (comment || indent <= m[1].length) break;
      expression += ` ${next.trim()}`;
    }
    return [{ name: m[2], expression }];
  });
}

/** The `env.*` helpers of @crm/config that give a default or allow absence. */
function lenientHelpers(): Set<string> {
  const block = /export const env = \{([\s\S]*?)\n\};/.exec(read(join(root, 'libs', 'config', 'src', 'load-config.ts')))?.[1] ?? '';
  return new Set(
    block
      .split(/\n(?= {2}\w+:)/)
      .filter((part) => /\.default\(|\.optional\(/.test(part))
      .map((part) => /^\s*(\w+):/.exec(part)?.[1] ?? ''),
  );
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
  return [...read(configFile).matchAll(/^\s+\.\.\.(\w+Settings),/gm)].flatMap(([, group]) => {
    const file = sourcesOf('libs/config').find((path) => read(path).includes(`export const ${group} = {`));
    const block = file ? new RegExp(`export const ${group} = \\{([\\s\\S]*?)\\n\\};`).exec(read(file))?.[1] : undefined;
    return [...(block ?? '').matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
  });
}

/** What a component's process reads: its config.ts (with the setting groups it spreads), the libs it links, the reads listed above. */
function readsOf(key: string): Set<string> {
  const pkg = packageOf(table[key]);
  const names = new Set([...zodEntries(configFileOf(key)).map((e) => e.name), ...spreadSettings(configFileOf(key))]);
  for (const lib of referencedLibs(pkg))
    for (const path of sourcesOf(lib)) for (const name of envReads(path)) if (name !== 'METRICS_PORT') names.add(name);
  if (servesMetrics(pkg) && envReads(join(root, 'libs', 'telemetry', 'src', 'metrics.ts')).includes('METRICS_PORT'))
    names.add('METRICS_PORT');
  for (const { file, names: extra } of readElsewhere[key] ?? [])
    for (const name of extra) if (envReads(join(root, file)).includes(name)) names.add(name);
  names.add('NODE_ENV'); // production mode of express and other dependencies
  return names;
}

// --- the tests ---------------------------------------------------------------------------------------

test('every component of the topology runs as its own Deployment: its image, its program, its role, the image’s ENTRYPOINT kept', () => {
  const objects = external();
  const deployed = objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name);
  expect(deployed.sort()).toEqual(keys.map((key) => `crm-${table[key].name}`).sort());
  for (const key of keys) {
    const container = containerOf(objects, key);
    expect({ key, image: container.image }).toEqual({ key, image: expect.stringMatching(`^${values[key].image.repository}:`) });
    // `args` alone replaces the image's CMD and keeps its ENTRYPOINT (Node and its options); a `command` would drop them.
    expect({ key, command: container.command, args: container.args }).toEqual({
      key,
      command: undefined,
      args: table[key].role ? [table[key].entry, `--role=${table[key].role}`] : undefined,
    });
  }
  // The container runner takes args from `helm template` (scripts/rendered-pods.js), never its own copy.
  const runner = read(join(root, 'scripts/container-cluster.js'));
  expect(runner).toContain('args: pod.command');
  expect(runner).not.toContain('--max-semi-space-size');
});

test('the stop periods nest: the pod grace > the process grace > the drains it runs', () => {
  const ms = (file: string, pattern: RegExp): number => Number((pattern.exec(read(join(root, file)))?.[1] ?? 'NaN').replace(/_/g, ''));
  const shutdown = 'libs/observability/src/shutdown.ts';
  const processGrace = ms(shutdown, /PROCESS_GRACE_MS = ([\d_]+)/);
  const podGraces = external()
    .filter((o) => o.kind === 'Deployment')
    .map((o) => o.spec.template.spec.terminationGracePeriodSeconds * 1000);
  expect(podGraces.length).toBe(keys.length);
  expect(Math.min(...podGraces)).toBeGreaterThan(processGrace);
  expect(processGrace).toBeGreaterThan(ms(shutdown, /CONSUMER_DRAIN_MS = ([\d_]+)/) + ms(shutdown, /CALL_DRAIN_MS = ([\d_]+)/));
  expect(processGrace).toBeGreaterThan(
    ms('gateway/src/config.ts', /DRAIN_DELAY_MS: [^\n]*\.default\(([\d_]+)\)/) +
      ms('gateway/src/index.ts', /options\.drainGraceMs \?\? ([\d_]+)/),
  );
  // The bus and the gRPC server take their defaults from those constants.
  for (const file of ['libs/bus/src/amqp/amqp-bus.ts', 'libs/bus/src/in-process/in-process-bus.ts'])
    expect(read(join(root, file))).toContain('options.stopGraceMs ?? CONSUMER_DRAIN_MS');
  expect(read(join(root, 'libs/grpc/src/server.ts'))).toContain('shutdown(graceMs = CALL_DRAIN_MS)');
  expect(read(join(root, shutdown))).toContain('graceMs = PROCESS_GRACE_MS');
});

test('the helm test hook GETs /readyz through the gateway Service, in the scheme the gateway serves', () => {
  for (const [file, scheme] of [
    ['external-values.yaml', 'https'],
    ['ingress-tls-values.yaml', 'http'],
  ]) {
    const objects = render('helm4', withCiValues(file));
    const hook = objects.find((o) => o.kind === 'Pod' && o.metadata.annotations?.['helm.sh/hook'] === 'test')!;
    const port = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'crm-gateway')!.spec.ports[0].port;
    expect(hook.spec.containers[0].command.at(-1)).toBe(`${scheme}://crm-gateway:${port}/readyz`);
    expect(hook.spec.containers[0].command[2]).toContain('process.exit(res.statusCode === 200 ? 0 : 1)');
  }
});

describe('the environment the chart sets', () => {
  test.each(keys)('%s: every variable the chart sets, in any value set, is read by that process', (key) => {
    const reads = readsOf(key);
    const unread = renderedSets().flatMap(([set, objects]) => {
      const env = [...envOf(objects, key).values()];
      // Variables set only to be expanded into another's value, `$(NAME)`.
      const expanded = env.flatMap((v) => [...(v.value ?? '').matchAll(/\$\(([A-Z][A-Z0-9_]*)\)/g)].map((m) => m[1]));
      return env
        .map((v) => v.name)
        .filter((name) => !reads.has(name) && !name.startsWith('OTEL_') && !expanded.includes(name))
        .map((name) => `${set}: ${name}`);
    });
    expect(unread).toEqual([]);
  });

  test.each(keys)('%s: every variable its config.ts requires (no default, not optional) is set in every value set', (key) => {
    const lenient = lenientHelpers();
    expect(lenient.has('url') && lenient.has('port')).toBe(true);
    const required = zodEntries(configFileOf(key)).filter((e) => isRequired(e.expression, lenient, configFileOf(key)));
    const unset = renderedSets().flatMap(([set, objects]) =>
      required.filter((e) => !envOf(objects, key).has(e.name)).map((e) => `${set}: ${e.name}`),
    );
    expect(unset).toEqual([]);
  });

  test('the config.ts parser finds defaults, optional values and required ones', () => {
    const lenient = lenientHelpers();
    expect(isRequired("z.string().default('x')", lenient)).toBe(false);
    expect(isRequired("env.url(['https'])", lenient)).toBe(false);
    expect(isRequired('z.string().min(16).optional()', lenient)).toBe(false);
    expect(isRequired('z.string().min(1)', lenient)).toBe(true);
    const gatewayConfig = join(root, 'gateway', 'src', 'config.ts');
    expect(zodEntries(gatewayConfig).filter((e) => isRequired(e.expression, lenient, gatewayConfig))).toEqual([]);
    expect(zodEntries(join(root, 'services', 'import', 'src', 'config.ts')).map((e) => e.name)).toEqual(
      expect.arrayContaining(['UPLOAD_HOST', 'UPLOAD_SECRET', 'MONGO_URL', 'CHUNK_ROWS', 'IMPORT_STALL_MS']),
    );
  });

  test.each(keys)('%s: a variable its config.ts requires only in some cases is set in those cases', (key) => {
    const text = read(configFileOf(key));
    const loopback = new Set([...(/LOOPBACK = new Set\(\[([^\]]*)\]\)/.exec(text)?.[1] ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]));
    const problems = renderedSets().flatMap(([set, objects]) => {
      const env = envOf(objects, key);
      // `if (!config.SECRET && !LOOPBACK.has(config.HOST))`: SECRET is needed when HOST is not loopback.
      return [...text.matchAll(/!config\.(\w+) && !LOOPBACK\.has\(config\.(\w+)\)/g)].flatMap(([, needed, host]) => {
        const defaultHost = /\.default\('([^']*)'\)/.exec(
          zodEntries(configFileOf(key)).find((e) => e.name === host)?.expression ?? '',
        )?.[1];
        const effective = env.has(host) ? env.get(host)!.value : defaultHost;
        const unsafe = effective === undefined || !loopback.has(effective);
        return unsafe && !env.has(needed) ? [`${set}: ${needed} unset while ${host} is ${effective ?? 'computed'}`] : [];
      });
    });
    expect(problems).toEqual([]);
  });

  test('the import server listens for uploads on the pod address, with the secret the gateway sends, over TLS', () => {
    const objects = external();
    const [importEnv, gatewayEnv] = [envOf(objects, 'import'), envOf(objects, 'gateway')];
    expect(importEnv.get('UPLOAD_HOST')?.value).toBe('0.0.0.0');
    expect(importEnv.get('UPLOAD_SECRET')?.valueFrom).toEqual({ secretKeyRef: { name: 'crm-generated', key: 'importUploadSecret' } });
    expect(gatewayEnv.get('IMPORT_UPLOAD_SECRET')?.valueFrom).toEqual(importEnv.get('UPLOAD_SECRET')?.valueFrom);
    expect(gatewayEnv.get('IMPORT_UPLOAD_URL')?.value).toBe(`https://crm-import:${table.import.ports.upload}`);
    // Generated once, then kept across upgrades (looked up), at least 16 characters.
    const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'crm-generated') as any;
    expect(Buffer.from(secret.data.importUploadSecret, 'base64').length).toBeGreaterThanOrEqual(16);
    expect(read(join(chartDir, 'templates', 'secret.yaml'))).toContain('importUploadSecret: {{ get $data "importUploadSecret" | default (');
    // The workers serve no upload endpoint: UPLOAD_HOST stays on loopback, so they need no secret.
    for (const key of workers) expect(['UPLOAD_HOST', 'UPLOAD_SECRET'].filter((name) => envOf(objects, key).has(name))).toEqual([]);
  });

  test('only the components that stream uploads may reach the upload port', () => {
    const uploaders = keys.filter((key) => table[key].uploads).map((key) => table[key].name);
    expect(uploaders).toEqual(['gateway']);
    const ingress = external().find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'crm-import')!.spec.ingress;
    const upload = ingress.filter((rule: any) => rule.ports.some((port: any) => port.port === 'upload'));
    expect(
      upload.flatMap((rule: any) => rule.from.map((peer: any) => peer.podSelector.matchLabels['app.kubernetes.io/component'])),
    ).toEqual(uploaders);
  });

  test('the import service keeps uploads in GridFS when MONGO_URL is set, and the chart always sets it', () => {
    expect(read(join(root, 'services', 'import', 'src', 'index.ts'))).toMatch(
      /location\.kind === 'mongo'\s*\?\s*await (?:GridFsFileStorage|gridFs\(\))\.open\(/,
    );
    for (const [set, objects] of renderedSets())
      for (const key of ['import', 'importWorker'])
        expect({ set, key, mongo: envOf(objects, key).has('MONGO_URL') }).toMatchObject({ mongo: true });
  });

  test.each(keys)('%s: the topology says it serves metrics exactly when its sources start the metrics server', (key) => {
    expect({ key, metrics: Boolean(table[key].metrics) }).toEqual({ key, metrics: servesMetrics(packageOf(table[key])) });
    expect(envOf(external(), key).has('METRICS_PORT')).toBe(Boolean(table[key].metrics));
  });

  test.each(workers)(
    '%s: the worker serves gRPC health on GRPC_PORT (mutual TLS) and GRPC_HEALTH_PORT (plaintext, where its probe asks)',
    (key) => {
      const index = read(join(root, packageOf(table[key]), 'src', 'index.ts'));
      const worker = /export async function start\w*Worker\([\s\S]*?\n\}\n/.exec(index)?.[0] ?? '';
      expect(worker).toMatch(/new GrpcServer\(\{ logger, tls\b/);
      expect(worker).toMatch(
        /\.listen\(listenAddress\(config\.GRPC_HOST, config\.GRPC_PORT\), \{ healthAddress: healthListenAddress\(config\) \}\)/,
      );
      // Serving once its stores answer: set directly, or kept in step with them by serveWhileReady.
      expect(worker).toMatch(/setServing\(true\)|\.serveWhileReady\(/);
      // The chart sets both ports for every component with a gRPC port (mutual TLS, below).
      expect(table[key].ports.grpc && table[key].ports.health).toBeTruthy();
    },
  );

  test('SMTP and AI settings reach the automation workers, the secrets from Secrets', () => {
    const names = ['SMTP_URL', 'EMAIL_FROM', 'AI_PROVIDER_URL', 'AI_MODEL', 'AI_API_KEY'];
    // everything-values.yaml gives the secrets as values (the generated Secret), outbound-secrets as existing Secrets.
    for (const [set, objects] of renderedSets().filter(([set]) => ['everything', 'outbound-secrets'].includes(set)))
      for (const key of keys.filter((k) => table[k].outbound?.length)) {
        const env = envOf(objects, key);
        expect({
          set,
          key,
          unset: names.filter((name) => !env.has(name)),
          unread: names.filter((name) => !readsOf(key).has(name)),
        }).toEqual({ set, key, unset: [], unread: [] });
        expect([env.get('SMTP_URL')?.valueFrom?.secretKeyRef, env.get('AI_API_KEY')?.valueFrom?.secretKeyRef]).not.toContain(undefined);
      }
  });
});

describe('mutual TLS inside the release', () => {
  const internalTls = read(join(chartDir, 'templates', 'internal-tls.yaml'));
  const libTls = read(join(root, 'libs', 'grpc', 'src', 'internal-tls.ts'));
  const fileName = (constant: string): string | undefined => new RegExp(`export const ${constant} = '([^']+)'`).exec(libTls)?.[1];
  const identities = [...keys.map((key) => table[key].name), 'operator'];

  test('makes a certificate for every component of the topology and the operator CLI, named by it, for server and client', () => {
    const tls = external().find((o) => o.kind === 'Secret' && o.metadata.name === 'crm-internal-tls') as any;
    expect(Object.keys(tls.data).sort()).toEqual(['ca.crt', ...identities.flatMap((id) => [`${id}.crt`, `${id}.key`])].sort());
    for (const identity of identities) {
      const cert = new X509Certificate(Buffer.from(tls.data[`${identity}.crt`], 'base64'));
      // Common name and DNS name are the identity: what the servers read and the clients check.
      expect([cert.subject, cert.subjectAltName, cert.keyUsage]).toEqual([
        `CN=${identity}`,
        `DNS:${identity}`,
        ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'],
      ]);
    }
    const certificates = certManager().filter((o) => o.kind === 'Certificate' && !o.spec.isCA);
    // Issued into the Secrets the pods mount (below).
    expect(certificates.map((c) => [c.spec.commonName, c.spec.dnsNames, c.spec.usages, c.spec.secretName])).toEqual(
      identities.map((id) => [id, [id], ['digital signature', 'key encipherment', 'server auth', 'client auth'], `crm-internal-tls-${id}`]),
    );
  });

  // Nothing renders an upgrade (lookup finds no Secret in `helm template`): these read the template.
  test('generates the CA and the certificates once and keeps them across upgrades', () => {
    expect(internalTls).toContain('lookup "v1" "Secret" .Release.Namespace $name');
    expect(internalTls).toContain('buildCustomCert (index $caData "ca.crt") (index $caData "ca.key")');
    expect(internalTls).toMatch(
      /if and \(hasKey \$data \$crt\) \(hasKey \$data \$key\) \}\}\n\s+\{\{ \$crt \}\}: \{\{ get \$data \$crt \| quote \}\}/,
    );
    // A new CA (none kept) makes every certificate again, so no pod is left with another CA's.
    expect(internalTls).toMatch(/genCA [^\n]*\n\{\{- \$data = dict \}\}/);
    // A release from before the CA key had its own Secret has it moved there.
    expect(internalTls).toMatch(
      /if and \(not \(hasKey \$caData "ca\.key"\)\) \(hasKey \$data "ca\.key"\) \}\}\n\{\{- \$caData = dict "ca\.crt" \(index \$data "ca\.crt"\) "ca\.key" \(index \$data "ca\.key"\) \}\}/,
    );
  });

  test("keeps the CA's key in a Secret of its own that no pod mounts", () => {
    const objects = external();
    const secret = (name: string) => (objects.find((o) => o.kind === 'Secret' && o.metadata.name === name) as any).data;
    expect(Object.keys(secret('crm-internal-ca-key')).sort()).toEqual(['ca.crt', 'ca.key']);
    expect(secret('crm-internal-tls')['ca.key']).toBeUndefined();
    const mounted = renderedSets().flatMap(([, all]) => all.flatMap((o) => (o.spec?.template?.spec ?? o.spec)?.volumes ?? []));
    expect(mounted.length).toBeGreaterThan(0);
    expect(mounted.filter((volume: any) => JSON.stringify(volume).includes('internal-ca-key'))).toEqual([]);
  });

  test.each([
    ['generated', external, (id: string) => ['crm-internal-tls', `${id}.crt`, `${id}.key`]],
    ['cert-manager', certManager, (id: string) => [`crm-internal-tls-${id}`, 'tls.crt', 'tls.key']],
  ])('%s: each pod mounts only its own certificate and key, with the CA, under the names the processes read', (_, objects, source) => {
    expect([fileName('CA_FILE'), fileName('CERT_FILE'), fileName('KEY_FILE')]).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
    const volume = (id: string) => {
      const [secretName, crt, key] = source(id);
      return {
        secretName,
        defaultMode: expect.anything(), // 0440 in the template, which js-yaml reads as decimal: not checked here
        items: [
          { key: 'ca.crt', path: 'ca.crt' },
          { key: crt, path: 'tls.crt' },
          { key, path: 'tls.key' },
        ],
      };
    };
    for (const key of keys) {
      const volumes = deploymentOf(objects(), key).spec.template.spec.volumes.filter((v: any) => v.secret?.items);
      // Only the pod where the operator runs the CLI (topology's operatorCli) also gets the operator's.
      expect(volumes).toEqual([
        { name: 'internal-tls', secret: volume(table[key].name) },
        ...(table[key].operatorCli ? [{ name: 'operator-tls', secret: volume('operator') }] : []),
      ]);
    }
  });

  test.each(keys)('%s: INTERNAL_TLS_DIR is where its certificate is mounted, CRM_OPERATOR_TLS_DIR the operator’s', (key) => {
    const objects = external();
    expect(envOf(objects, key).get('INTERNAL_TLS_DIR')?.value).toBe(mountOf(objects, key, 'internal-tls'));
    expect(readsOf(key).has('INTERNAL_TLS_DIR')).toBe(true);
    expect(envOf(objects, key).get('CRM_OPERATOR_TLS_DIR')?.value).toBe(mountOf(objects, key, 'operator-tls'));
    expect(readsOf(key).has('CRM_OPERATOR_TLS_DIR')).toBe(Boolean(table[key].operatorCli));
  });

  test('the ingress ranges the operator trusts name clients to the gateway and are all that may reach it', () => {
    expect(values.ingress.trustedProxies).toEqual([]);
    const objects = render('helm4', trustedProxies);
    expect(envOf(objects, 'gateway').get('TRUSTED_PROXIES')?.value).toBe('192.0.2.0/24,198.51.100.7/32');
    const policy = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'crm-gateway')!;
    const api = policy.spec.ingress.find((rule: any) => rule.ports.some((port: any) => port.port === 'api'));
    expect(api.from).toEqual([{ ipBlock: { cidr: '192.0.2.0/24' } }, { ipBlock: { cidr: '198.51.100.7/32' } }]);
  });

  test('callers dial the mutual-TLS gRPC port; the probes use the plaintext health port, which no Service exposes', () => {
    const objects = external();
    for (const key of keys) {
      const addresses = table[key].calls.map((callee) => envOf(objects, key).get(`${callee.toUpperCase()}_GRPC_ADDR`)?.value);
      expect(addresses).toEqual(table[key].calls.map((callee) => `dns:///crm-${table[callee].name}-headless:${table[callee].ports.grpc}`));
      if (!table[key].ports.grpc) continue;
      const container = containerOf(objects, key);
      const env = envOf(objects, key);
      expect([key, env.get('GRPC_PORT')?.value, env.get('GRPC_HEALTH_PORT')?.value]).toEqual([
        key,
        ...[table[key].ports.grpc, table[key].ports.health].map(String),
      ]);
      // Live while the event loop answers (gRPC `liveness`), ready while the stores are (the whole server, '').
      const probes = [container.livenessProbe, container.startupProbe, container.readinessProbe].map((probe) => probe.grpc);
      const port = table[key].ports.health;
      expect(probes).toEqual([{ port, service: 'liveness' }, { port, service: 'liveness' }, { port }]);
    }
    const servicePorts = objects.filter((o) => o.kind === 'Service').flatMap((s) => s.spec.ports.map((p: any) => p.name));
    expect(servicePorts).toContain('grpc');
    expect(servicePorts).not.toContain('health');
  });

  test('every identity a caller table names is one the chart makes a certificate for', () => {
    const tables = filesUnder(join(root, 'services')).filter((path) => /\/src\/grpc\/[\w-]+-callers\.ts$/.test(path));
    // Each service's own table, plus the privacy service records, import and automation each serve.
    expect(tables.length).toBe(7);
    const named = tables.flatMap((path) =>
      [...read(path).matchAll(/^ {2}'?([a-z][\w-]*)'?: \{\s*methods:/gm)].map((m) => `${relative(root, path)}: ${m[1]}`),
    );
    expect(named.length).toBe(14);
    expect(named.filter((entry) => !identities.includes(entry.split(': ')[1]))).toEqual([]);
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
