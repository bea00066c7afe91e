#!/usr/bin/env node
// The container runner: the CRM from its images (the root Dockerfile's targets), every replica a
// podman container on the host's network with a read-only root filesystem, on the machine's Redis
// and RabbitMQ. What runs, with which program, ports and callees, comes from charts/crm/topology.yaml,
// the table the chart deploys from; each container runs under its pod's memory limit in the chart's
// values.yaml. Several replicas of each server share one address through a
// ServiceProxy, as a Kubernetes Service would give them. `startContainerCluster` returns what
// `startLocalCluster` does, so the cross suites run against it unchanged (CRM_TEST_CLUSTER=containers).
'use strict';
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { promisify } = require('node:util');
const { ContainerProcess } = require('./container-process');
const { ServiceProxy } = require('./service-proxy');
const {
  DEFAULT_AMQP_URL,
  DEFAULT_REDIS_URL,
  busEnvOf,
  httpsReady,
  makeCertificate,
  makeInternalCertificates,
  readTopology,
  requireBrokers,
  runEnv,
  waitFor,
} = require('./cluster-support');

const ROOT = path.resolve(__dirname, '..');
const run = promisify(execFile);
const PORT_ENV = { api: 'CRM_PORT', grpc: 'GRPC_PORT', upload: 'UPLOAD_PORT', health: 'GRPC_HEALTH_PORT' };
/** The uid the images run as (the `node` user); mounted folders must be writable by it. */
const CONTAINER_UID = 1000;
const READY_TIMEOUT_MS = 180_000;

/**
 * A port for a container to listen on, from 20000-31999: below Linux's ephemeral range (32768+),
 * from which outgoing connections and the local-cluster runner's free ports come. A port picked
 * there could be taken by someone else's socket before the container binds it (EADDRINUSE seen
 * with 14 containers and other suites running on the machine).
 */
const picked = new Set();
async function listenPort() {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (picked.has(port)) continue;
    const free = await new Promise((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
    });
    if (free) {
      picked.add(port);
      return port;
    }
  }
}

/** A Kubernetes memory quantity in binary units (512Mi, 1Gi) in MB. */
function mebibytes(quantity) {
  const match = /^(\d+)(Mi|Gi)$/.exec(String(quantity));
  if (!match) throw new Error(`memory limit ${quantity}: expected Mi or Gi`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

/** Each component's memory limit in the chart's values.yaml, in MB, by topology key. */
function podMemoryLimitsMb(topology) {
  const values = require('js-yaml').load(fs.readFileSync(path.join(ROOT, 'charts/crm/values.yaml'), 'utf8'));
  return Object.fromEntries(Object.keys(topology).map((key) => [key, mebibytes(values[key].resources.limits.memory)]));
}

/** The image a component runs: crm-<its Dockerfile target>, tagged `tag`. */
const imageOf = (spec, tag) => `localhost/crm-${spec.target}:${tag}`;

function ownedByContainerUser(dir) {
  fs.mkdirSync(dir, { recursive: true });
  if (process.getuid?.() === 0) fs.chownSync(dir, CONTAINER_UID, CONTAINER_UID);
  else fs.chmodSync(dir, 0o777);
  return dir;
}

/**
 * How many replicas of each component, by topology key, from the options the cross suites pass:
 * `gateways`, `workers` (per worker role), `withWorkers`, and `replicas` for every other server
 * (default CRM_TEST_REPLICAS, else 2).
 */
function replicaCounts(topology, options) {
  const counts = {};
  for (const [key, spec] of Object.entries(topology)) {
    if (key === 'gateway') counts[key] = options.gateways ?? 2;
    else if (spec.role === 'worker') counts[key] = options.withWorkers === false ? 0 : (options.workers ?? 2);
    else counts[key] = options.replicas ?? Number(process.env.CRM_TEST_REPLICAS ?? 2);
  }
  return counts;
}

/** Replica names as the local-cluster runner gives them: records, records-2; import-worker-1; gateway-1. */
function replicaName(spec, index) {
  if (spec.role === 'worker' || spec.name === 'gateway') return `${spec.name}-${index}`;
  return index === 1 ? spec.name : `${spec.name}-${index}`;
}

/**
 * Starts the system from its images and resolves once every replica is ready.
 * Options as startLocalCluster's, plus `replicas` (per server, default 2) and `imageTag` (latest).
 */
async function startContainerCluster(options = {}) {
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  const amqpUrl = options.amqpUrl ?? process.env.AMQP_URL ?? DEFAULT_AMQP_URL;
  const mongoUrl = options.mongoUrl ?? process.env.MONGO_URL;
  const imageTag = options.imageTag ?? process.env.CRM_IMAGE_TAG ?? 'latest';
  const runId = randomBytes(4).toString('hex');
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'crm-containers-'));
  fs.chmodSync(dataDir, 0o755);
  await requireBrokers(redisUrl, amqpUrl);
  const topology = readTopology();
  const counts = replicaCounts(topology, options);
  const memoryLimitsMb = podMemoryLimitsMb(topology);
  fs.mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
  const tlsDir = ownedByContainerUser(path.join(dataDir, 'tls'));
  const tls = await makeCertificate(tlsDir);
  for (const file of [tls.certFile, tls.keyFile]) fs.chownSync(file, CONTAINER_UID, CONTAINER_UID);
  const operatorToken = randomBytes(24).toString('base64url');
  // The internal CA and a certificate per deployable, each container mounting only its own folder
  // (ca.crt, tls.crt, tls.key), as the chart mounts its Secret.
  const internalTlsDirs = await makeInternalCertificates(dataDir);
  for (const dir of Object.values(internalTlsDirs)) {
    fs.chmodSync(dir, 0o755);
    for (const file of fs.readdirSync(dir)) if (process.getuid?.() === 0) fs.chownSync(path.join(dir, file), CONTAINER_UID, CONTAINER_UID);
    if (process.getuid?.() !== 0) fs.chmodSync(path.join(dir, 'tls.key'), 0o644);
  }

  // One Service per listener that has callers: grpc of every server, upload of import.
  const replicas = [];
  for (const [key, spec] of Object.entries(topology)) {
    for (let i = 1; i <= counts[key]; i += 1) {
      const ports = {};
      for (const portName of Object.keys(spec.ports ?? {}))
        ports[portName] = options.port && key === 'gateway' ? options.port + i - 1 : await listenPort();
      replicas.push({ key, spec, name: replicaName(spec, i), ports, metricsPort: await listenPort() });
    }
  }
  const services = {};
  const serviceOf = async (key, portName) => {
    const id = `${key}/${portName}`;
    if (!services[id]) {
      const proxy = new ServiceProxy(id, () => replicas.filter((r) => r.key === key && r.proc?.serving).map((r) => r.ports[portName]));
      await proxy.listen();
      services[id] = proxy;
    }
    return services[id];
  };
  for (const [key, spec] of Object.entries(topology)) {
    if (!spec.role && spec.ports?.grpc) await serviceOf(key, 'grpc');
    if (!spec.role && spec.ports?.upload) await serviceOf(key, 'upload');
  }

  const shared = {
    ...runEnv({ runId, redisUrl, amqpUrl, logLevel: options.logLevel ?? process.env.CLUSTER_LOG_LEVEL ?? 'info' }),
    CRM_DATA_DIR: '/app/data',
    ...options.env,
  };
  const processes = new Map();
  for (const replica of replicas) {
    const { key, spec, name, ports } = replica;
    const env = { ...shared, METRICS_PORT: String(replica.metricsPort) };
    for (const [portName, port] of Object.entries(ports)) env[PORT_ENV[portName]] = String(port);
    for (const callee of spec.calls ?? []) env[`${callee.toUpperCase()}_GRPC_ADDR`] = services[`${callee}/grpc`].address;
    if (spec.uploads) env.IMPORT_UPLOAD_URL = `https://${services['import/upload'].address}`;
    env.INTERNAL_TLS_DIR = '/etc/crm/internal-tls';
    const mounts = [{ host: internalTlsDirs[spec.name], container: '/etc/crm/internal-tls', readOnly: true }];
    if (key === 'gateway') {
      Object.assign(env, {
        CRM_HOST: '127.0.0.1',
        SIGNUP_ENABLED: 'true',
        TLS_CERT_FILE: '/etc/crm/tls/cert.pem',
        TLS_KEY_FILE: '/etc/crm/tls/key.pem',
        // Shorter than the chart's 5 s (the proxies here skip a closed listener at once), still long enough to observe.
        DRAIN_DELAY_MS: '3000',
      });
      mounts.push({ host: tlsDir, container: '/etc/crm/tls', readOnly: true });
      mounts.push({ host: ownedByContainerUser(path.join(dataDir, name)), container: '/app/data' });
    } else {
      env.GRPC_HOST = '127.0.0.1';
      // A server and its workers share one store folder, as they share one database in the chart.
      mounts.push({ host: ownedByContainerUser(path.join(dataDir, spec.target)), container: '/app/data' });
      if (mongoUrl) Object.assign(env, { MONGO_URL: mongoUrl, MONGO_DATABASE: `crm_${spec.target}_${runId}` });
    }
    if (key === 'auth') env.AUTH_OPERATOR_TOKEN = operatorToken;
    const proc = new ContainerProcess({
      name,
      container: `crm-${runId}-${name}`,
      image: imageOf(spec, imageTag),
      args: spec.role
        ? [
            'node',
            '--max-semi-space-size=16',
            '--heap-growing-percent=50',
            '--require',
            './libs/telemetry/dist/register.js',
            spec.entry,
            `--role=${spec.role}`,
          ]
        : [],
      env,
      mounts,
      labels: { 'crm.run': runId },
      logFile: path.join(dataDir, 'logs', `${name}.log`),
      memoryMb: memoryLimitsMb[key],
    });
    replica.proc = proc;
    processes.set(name, proc);
  }

  const ca = fs.readFileSync(tls.certFile, 'utf8');
  const { checkHealth } = require(path.join(ROOT, 'libs/grpc/dist'));
  const gateways = replicas
    .filter((r) => r.key === 'gateway')
    .map((r) => ({ name: r.name, url: `https://localhost:${r.ports.api}`, port: r.ports.api }));
  const readiness = (name) => {
    const replica = replicas.find((r) => r.name === name);
    if (replica.key === 'gateway') {
      const url = `https://localhost:${replica.ports.api}`;
      return waitFor(`${name} at ${url}/readyz`, () => httpsReady(url, ca), replica.proc, READY_TIMEOUT_MS);
    }
    // The plaintext health-only listener, as the chart's readiness probe asks it.
    const address = `127.0.0.1:${replica.ports.health}`;
    return waitFor(`${name} gRPC health on ${address}`, () => checkHealth(address), replica.proc, READY_TIMEOUT_MS);
  };
  const gatewayService = new ServiceProxy('gateway/api', () =>
    replicas.filter((r) => r.key === 'gateway' && r.proc.serving).map((r) => r.ports.api),
  );
  await gatewayService.listen();

  const cluster = {
    gateways: gateways.map(({ url, port }) => ({ url, port })),
    /** One HTTPS address in front of every gateway replica, as the chart's gateway Service is. */
    serviceUrl: `https://localhost:${gatewayService.port}`,
    /** Connections the Service stand-ins cut (a replica's side failed or reset), newest last. */
    serviceCuts: () => [gatewayService, ...Object.values(services)].flatMap((s) => s.cuts).sort(),
    ca,
    dataDir,
    runId,
    operatorToken,
    internalTlsDirs,
    authAddress: services['auth/grpc'].address,
    recordsAddress: services['records/grpc'].address,
    busEnv: busEnvOf(shared),
    processes,
    /** Topology key of each replica (records-2 → records), for tests that stop one of each kind. */
    kinds: new Map(replicas.map((r) => [r.name, r.key])),
    async restart(name, signal = 'SIGTERM') {
      const proc = processes.get(name);
      if (!proc) throw new Error(`No process ${name}`);
      await proc.stop(signal);
      proc.start();
      await readiness(name);
    },
    ready: readiness,
    /** Each replica's host pid, metrics address and its pod's memory limit in the chart's values (MB), for the memory bench. */
    async measuredProcesses() {
      return Promise.all(
        replicas.map(async (r) => ({
          name: r.name,
          pid: Number((await run('podman', ['inspect', '--format', '{{.State.Pid}}', r.proc.container])).stdout.trim()),
          metricsUrl: `http://127.0.0.1:${r.metricsPort}/metrics`,
          limitMb: memoryLimitsMb[r.key],
        })),
      );
    },
    async stop() {
      const order = [...processes.values()].reverse();
      const stopAll = (list) => Promise.all(list.map((p) => p.stop('SIGTERM', 15_000).catch(() => undefined)));
      await stopAll(order.filter((p) => p.name.startsWith('gateway-')));
      await stopAll(order.filter((p) => !p.name.startsWith('gateway-')));
      await Promise.all(order.map((p) => p.remove()));
      await Promise.all([gatewayService, ...Object.values(services)].map((s) => s.close()));
      if (!options.dataDir && !options.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };

  try {
    // All at once: a gateway is ready once auth answers, and a server's callees are dialled lazily.
    for (const r of replicas) r.proc.start();
    await Promise.all(replicas.map((r) => readiness(r.name)));
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    throw error;
  }
  return cluster;
}

/** Sizes of the images the cluster runs, in bytes, by image name. */
async function imageSizes(tag = 'latest') {
  const targets = [...new Set(Object.values(readTopology()).map((spec) => spec.target))];
  const sizes = {};
  for (const target of targets) {
    const image = imageOf({ target }, tag);
    const { stdout } = await run('podman', ['image', 'inspect', '--format', '{{.Size}}', image]);
    sizes[image] = Number(stdout.trim());
  }
  return sizes;
}

module.exports = { startContainerCluster, imageSizes, readTopology, podMemoryLimitsMb };
