// charts/crm rendered by the real tools: Helm 3 and Helm 4 (`helm lint --strict`, `helm template`)
// over every value set in charts/crm/ci/ plus the skaffold `local` profile's, and every rendered
// object validated against the Kubernetes API schemas of 1.27 and 1.36, custom resources against
// their CRDs (charts/crm/ci/validate-manifests.mjs). A helm run takes 1-4 s, so the tests that run
// many have their own timeout.
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import {
  allSets,
  chartDir,
  ciDir,
  containersOf,
  helm,
  helms,
  localArgs,
  render,
  renderNow,
  topology,
  useChartTools,
} from './rendered-chart';

const toolsDir = useChartTools();

describe.each(helms)('%s', (which) => {
  test('lints the chart strictly with every value set', () => {
    const failures = allSets()
      .map(([name, args]) => [name, helm(which, ['lint', '--strict', chartDir, ...args])] as const)
      .filter(([, result]) => result.status !== 0)
      .map(([name, result]) => `${name}: ${result.stdout}${result.stderr}`);
    expect(failures).toEqual([]);
  }, 300_000);

  test('renders every value set into objects the Kubernetes 1.27 and 1.36 schemas and the CRDs accept', () => {
    const objects = allSets().flatMap(([name, args]) =>
      render(which, args).map((object) => ({ ...object, metadata: { ...object.metadata, name: `${object.metadata.name} (${name})` } })),
    );
    const validation = spawnSync(process.execPath, [join(ciDir, 'validate-manifests.mjs'), toolsDir()], {
      input: JSON.stringify(objects),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(validation.stderr).toBe('');
    expect(JSON.parse(validation.stdout)).toEqual([]);
  }, 300_000);
});

describe('what the rendered chart must and must not contain', () => {
  const rendered = () => allSets().map(([name, args]) => [name, render('helm4', args)] as const);

  test('no value set runs a Bitnami image', () => {
    const images = rendered().flatMap(([name, objects]) =>
      objects
        .flatMap((o) => [...containersOf(o).map((c) => c.image as string), ...(o.kind === 'RabbitmqCluster' ? [o.spec.image] : [])])
        .map((image) => `${name}: ${image}`),
    );
    expect(images.length).toBeGreaterThan(0);
    expect(images.filter((image) => /bitnami/i.test(image))).toEqual([]);
  });

  test('no container lists a variable twice, and a values `env` entry replaces the chart’s own', () => {
    const duplicates = rendered().flatMap(([name, objects]) =>
      objects.flatMap((o) =>
        containersOf(o).flatMap((c) => {
          const names: string[] = (c.env ?? []).map((e: { name: string }) => e.name);
          return names.filter((n, i) => names.indexOf(n) !== i).map((n) => `${name}: ${o.kind}/${o.metadata.name} ${c.name} ${n}`);
        }),
      ),
    );
    expect(duplicates).toEqual([]);
    const gateway = render('helm4', ['-f', join(ciDir, 'everything-values.yaml')]).find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'crm-gateway',
    )!;
    expect(containersOf(gateway)[0].env.filter((e: { name: string }) => e.name === 'LOG_LEVEL')).toEqual([
      { name: 'LOG_LEVEL', value: 'debug' },
    ]);
  });

  test('the stores the local profile runs are StatefulSets of official images, MongoDB a replica set with auth and a keyfile', () => {
    const objects = render('helm4', localArgs());
    const sets = objects.filter((o) => o.kind === 'StatefulSet');
    expect(sets.map((s) => containersOf(s).at(-1).image).sort()).toEqual(['mongo:8.0.12', 'rabbitmq:4.1.4', 'valkey/valkey:8.1.3']);
    const mongo = containersOf(sets.find((s) => s.metadata.name === 'crm-mongodb')!).at(-1);
    expect(mongo.args).toEqual(expect.arrayContaining(['--replSet', '--keyFile']));
    expect(mongo.readinessProbe.exec.command.join(' ')).toContain('db.hello().isWritablePrimary');
  });

  // No MongoDB, RabbitMQ or Valkey runs here: what the stores' pods execute is at least checked to
  // parse, the shell with `sh -n`, the mongosh scripts as JavaScript.
  test('every shell script and mongosh --eval script the stores run parses', () => {
    const scripts = render('helm4', localArgs())
      .filter((o) => o.kind === 'StatefulSet')
      .flatMap((o) => containersOf(o))
      .flatMap((c) => [
        c.command,
        c.args,
        c.readinessProbe?.exec?.command,
        c.livenessProbe?.exec?.command,
        c.lifecycle?.postStart?.exec?.command,
      ])
      .filter((argv): argv is string[] => Array.isArray(argv));
    const shell = scripts.filter((argv) => argv[0] === 'sh' && argv[1] === '-c').map((argv) => argv[2]);
    const mongosh = [
      ...scripts.filter((argv) => argv[0] === 'mongosh').map((argv) => argv[argv.indexOf('--eval') + 1]),
      ...shell.flatMap((script) => [...script.matchAll(/--eval '([^']*)'/g)].map((m) => m[1])),
    ];
    expect(shell.length).toBeGreaterThanOrEqual(4);
    expect(mongosh.length).toBe(3);
    for (const script of shell) expect(spawnSync('sh', ['-n', '-c', script], { encoding: 'utf8' }).stderr).toBe('');
    for (const script of mongosh) expect(() => new Function(script)).not.toThrow();
  });

  test('the local profile fixes the stores’ passwords, so a second `skaffold dev` meets its volumes with the same ones', () => {
    // Rendered twice, as two `skaffold dev` runs on a fresh release would (no Secret to look up).
    const secret = () => renderNow('helm4', localArgs()).find((o) => o.kind === 'Secret' && o.metadata.name === 'crm-stores') as any;
    expect(Object.keys(secret().data).sort()).toEqual([
      'mongodb-crm-auth-password',
      'mongodb-crm-automation-password',
      'mongodb-crm-import-password',
      'mongodb-crm-records-password',
      'mongodb-replica-set-key',
      'mongodb-root-password',
      'rabbitmq-password',
      'redis-password',
    ]);
    expect(secret().data).toEqual(secret().data);
    expect(secret().metadata.annotations['helm.sh/resource-policy']).toBe('keep');
  });

  test('each service connects to the chart’s MongoDB as its own user, with rights on its own database only, never as root', () => {
    const objects = render('helm4', localArgs());
    const urls = objects
      .filter((o) => o.kind === 'Deployment')
      .flatMap((o) =>
        containersOf(o).map((c) => [o.metadata.name, c.env?.find((e: { name: string }) => e.name === 'MONGO_URL')?.value] as const),
      )
      .filter(([, url]) => url !== undefined);
    expect(urls.length).toBe(6);
    for (const [name, url] of urls) {
      const database = /^mongodb:\/\/([a-z_]+):\$\(MONGODB_PASSWORD\)@[^/]+\/([a-z_]+)\?.*authSource=([a-z_]+)/.exec(url as string);
      expect({ name, user: database?.[1], database: database?.[2], authSource: database?.[3] }).toEqual({
        name,
        user: database?.[2],
        database: expect.stringMatching(/^crm_(auth|records|import|automation)$/),
        authSource: database?.[2],
      });
    }
    const mongo = containersOf(objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'crm-mongodb')!).at(-1);
    const hook = mongo.lifecycle.postStart.exec.command[2] as string;
    expect(hook).toContain('["crm_auth","crm_automation","crm_import","crm_records"]');
    expect(hook).toContain('{ role: "readWrite", db: name }, { role: "dbAdmin", db: name }');
    const passwords = mongo.env.map((e: { name: string }) => e.name).filter((n: string) => /^MONGODB_CRM_.*_PASSWORD$/.test(n));
    expect(passwords.sort()).toEqual([
      'MONGODB_CRM_AUTH_PASSWORD',
      'MONGODB_CRM_AUTOMATION_PASSWORD',
      'MONGODB_CRM_IMPORT_PASSWORD',
      'MONGODB_CRM_RECORDS_PASSWORD',
    ]);
  });

  test('a component takes extra variables from Secrets, extra volumes, pod annotations and the priority class', () => {
    const gateway = render('helm4', ['-f', join(ciDir, 'everything-values.yaml')]).find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'crm-gateway',
    )!;
    const pod = gateway.spec.template;
    expect(pod.spec.containers[0].envFrom).toEqual([
      { configMapRef: { name: 'crm-config' } },
      { secretRef: { name: 'crm-gateway-extra' } },
    ]);
    expect(pod.spec.volumes).toContainEqual({ name: 'extra-ca', configMap: { name: 'corporate-ca' } });
    expect(pod.spec.containers[0].volumeMounts).toContainEqual({ name: 'extra-ca', mountPath: '/etc/ssl/extra', readOnly: true });
    expect(pod.metadata.annotations['example.com/team']).toBe('crm');
    expect(pod.spec.priorityClassName).toBe('crm');
  });

  test('with the Prometheus Operator, a ServiceMonitor or a PodMonitor scrapes every component that serves metrics', () => {
    const withMetrics = Object.values(topology())
      .filter((spec) => spec.metrics)
      .map((spec) => spec.name)
      .sort();
    for (const args of [
      ['-f', join(ciDir, 'everything-values.yaml')],
      ['-f', join(ciDir, 'everything-values.yaml'), '--set', 'gatewayService.type=LoadBalancer'],
    ]) {
      const objects = render('helm4', args);
      const selected = objects
        .filter((o) => o.kind === 'ServiceMonitor' || o.kind === 'PodMonitor')
        .flatMap(
          (o) => o.spec.selector.matchExpressions.find((e: { key: string }) => e.key === 'app.kubernetes.io/component').values as string[],
        );
      expect([...selected].sort()).toEqual(withMetrics);
    }
  });

  test('the workers reach SMTP and the AI provider only at their egressCidrs, else at public addresses, never the private ranges', () => {
    const workerEgress = (args: string[]) =>
      render('helm4', ['-f', join(ciDir, 'everything-values.yaml'), ...args])
        .find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'crm-automation-worker')!
        .spec.egress.filter((rule: any) => rule.ports?.some((port: any) => [587, 8443].includes(port.port)));
    const publicOnly = [
      {
        ipBlock: {
          cidr: '0.0.0.0/0',
          except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'],
        },
      },
      { ipBlock: { cidr: '::/0', except: ['fc00::/7', 'fe80::/10', '::1/128'] } },
    ];
    // everything-values.yaml configures both, on ports 587 (SMTP) and 8443 (ai.providerUrl).
    expect(workerEgress([]).map((rule: any) => rule.to)).toEqual([publicOnly, publicOnly]);
    const listed = workerEgress(['--set', 'email.smtp.egressCidrs={203.0.113.25/32}', '--set', 'ai.egressCidrs={198.51.100.0/24}']);
    expect(listed.map((rule: any) => rule.to)).toEqual([
      [{ ipBlock: { cidr: '203.0.113.25/32' } }],
      [{ ipBlock: { cidr: '198.51.100.0/24' } }],
    ]);
  });

  test('every component may reach the OpenTelemetry collector on the port of telemetry.otlpEndpoint, and only where it runs', () => {
    const collectorRules = (args: string[]) => {
      const policies = render('helm4', ['-f', join(ciDir, 'everything-values.yaml'), ...args]).filter(
        (o) => o.kind === 'NetworkPolicy' && !['mongodb', 'rabbitmq', 'redis'].some((store) => o.metadata.name.endsWith(`-${store}`)),
      );
      expect(policies.length).toBe(7);
      return policies.map((p) => p.spec.egress.filter((rule: any) => rule.ports?.some((port: any) => port.port === 4318)));
    };
    // everything-values.yaml: http://otel-collector.monitoring:4318, the monitoring namespace's pods.
    const inMonitoring = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }];
    for (const rules of collectorRules([])) expect(rules.map((rule: any) => rule.to)).toEqual([inMonitoring]);
    const at = (endpoint: string) => collectorRules(['--set', `telemetry.otlpEndpoint=${endpoint}`])[0].map((rule: any) => rule.to);
    expect(at('http://otel.tracing.svc.cluster.local:4318')).toEqual([
      [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'tracing' } } }],
    ]);
    expect(at('http://otel-collector:4318')).toEqual([[{ podSelector: {} }]]);
    expect(at('http://10.1.2.3:4318')).toEqual([[{ ipBlock: { cidr: '10.1.2.3/32' } }]]);
    // A public host: never the private ranges, where the cluster's own services live.
    const [publicHost] = at('https://otlp.example.com:4318');
    expect(publicHost.map((peer: any) => peer.ipBlock.except.includes('10.0.0.0/8'))).toEqual([true, false]);
    const listed = collectorRules(['--set', 'telemetry.egressTo[0].ipBlock.cidr=192.0.2.10/32'])[0];
    expect(listed.map((rule: any) => rule.to)).toEqual([[{ ipBlock: { cidr: '192.0.2.10/32' } }]]);
  });

  test('the generated identity certificates are short-lived, their end is recorded, and the pods roll with it', () => {
    const objects = render('helm4', ['-f', join(ciDir, 'external-values.yaml')]);
    const tls = objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'crm-internal-tls') as any;
    const caSecret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'crm-internal-ca-key') as any;
    const notAfter = Number(tls.metadata.annotations['crm/not-after']);
    const startOfToday = Math.floor(Date.now() / 86_400_000) * 86_400;
    expect([startOfToday, startOfToday - 86_400]).toContain(notAfter - 90 * 86_400); // rendered just now (or before midnight)
    const days = (pem: string) => {
      const cert = new X509Certificate(Buffer.from(pem, 'base64'));
      return (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
    };
    const leaves = Object.keys(tls.data).filter((key) => key.endsWith('.crt') && key !== 'ca.crt');
    expect(leaves.length).toBeGreaterThanOrEqual(6);
    for (const leaf of leaves) expect(Math.round(days(tls.data[leaf]))).toBe(90);
    expect(Math.round(days(caSecret.data['ca.crt']))).toBe(3650);
    const rolled = objects
      .filter((o) => o.kind === 'Deployment')
      .map((o: any) => o.spec.template.metadata.annotations['crm/internal-tls-not-after']);
    expect(rolled.length).toBe(7);
    expect(new Set(rolled)).toEqual(new Set([String(notAfter)]));
  });

  test('the ingress routes the API only: the probes are not reachable from outside the cluster', () => {
    const ingress = render('helm4', ['-f', join(ciDir, 'everything-values.yaml')]).find((o) => o.kind === 'Ingress')!;
    const paths = ingress.spec.rules.flatMap((rule: any) => rule.http.paths.map((p: any) => `${p.pathType} ${p.path}`));
    expect(paths).toEqual(['Prefix /api']);
  });

  test('the operators’ connection Secrets feed MONGO_URL and AMQP_URL', () => {
    const objects = render('helm4', ['-f', join(ciDir, 'operators-values.yaml')]);
    const records = containersOf(objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'crm-records')!)[0];
    const env = Object.fromEntries(records.env.map((e: any) => [e.name, e.valueFrom?.secretKeyRef]));
    const mongo = objects.find((o) => o.kind === 'MongoDBCommunity')!;
    expect(env.MONGO_URL).toEqual({ name: mongo.spec.users[0].connectionStringSecretName, key: 'connectionString.standard' });
    expect(env.AMQP_URL).toEqual({
      name: `${objects.find((o) => o.kind === 'RabbitmqCluster')!.metadata.name}-default-user`,
      key: 'connection_string',
    });
  });

  test.each([
    [
      'autoscaling minReplicas above maxReplicas',
      ['--set', 'gateway.autoscaling.minReplicas=5,gateway.autoscaling.maxReplicas=2', '--set', 'externalUrls.existingSecret=s'],
      'minReplicas (5) is above maxReplicas (2)',
    ],
    [
      'an empty ingress host',
      ['--set', 'ingress.enabled=true,ingress.host=', '--set', 'externalUrls.existingSecret=s'],
      /ingress[.\/]host/,
    ],
    ['a store with no source', [], 'has no source'],
    [
      'a store both run by the chart and by its operator',
      [
        '--set',
        'mongodb.enabled=true,mongodb.community.enabled=true,mongodb.community.passwordSecretName=p',
        '--set',
        'externalUrls.existingSecret=s',
      ],
      'mongodb',
    ],
    [
      'a Bitnami store image',
      ['--set', 'redis.enabled=true,redis.image.repository=bitnami/redis', '--set', 'externalUrls.existingSecret=s'],
      /redis[.\/]image[.\/]repository/,
    ],
    ['the removed auth.enabled switch', ['--set', 'redis.auth.enabled=false', '--set', 'externalUrls.existingSecret=s'], 'enabled'],
    [
      'renewing internal certificates no sooner than they are made',
      ['--set', 'internalTls.validityDays=30,internalTls.renewBeforeDays=30', '--set', 'externalUrls.existingSecret=s'],
      'internalTls.renewBeforeDays (30) must be below internalTls.validityDays (30)',
    ],
  ])('refuses %s', (_, args, message: string | RegExp) => {
    // Helm 4 only: each run takes seconds, and both versions read the same schema and templates.
    const result = helm('helm4', ['template', 'crm', chartDir, ...args]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });
});
