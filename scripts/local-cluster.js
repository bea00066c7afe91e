#!/usr/bin/env node
// The local-cluster runner: every service as its own process (real gRPC between them), each with
// its own store (SQLite under the cluster's data folder, or MongoDB when MONGO_URL is set), with
// the machine's Redis and RabbitMQ, and N gateway replicas over HTTPS. The cross-service tests in
// tests/ start it through `startLocalCluster`; `npm run cluster` runs it by hand.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { parseArgs } = require('node:util');
const {
  DEFAULT_AMQP_URL,
  DEFAULT_REDIS_URL,
  busEnvOf,
  freePort,
  httpsReady,
  makeCertificate,
  makeInternalCertificates,
  requireBrokers,
  runEnv,
  waitFor,
} = require('./cluster-support');

const ROOT = path.resolve(__dirname, '..');
const TELEMETRY = path.join(ROOT, 'libs/telemetry/dist/register.js');

const HELP = `Usage: npm run cluster -- [options]

Starts the CRM as a local cluster: auth, records, import (+ workers), automation (+ workers) and
gateway replicas, each its own process, using Redis and RabbitMQ on this machine.

Options:
  --gateways N     gateway replicas (default 2)
  --workers N      workers per worker role (default 2)
  --port P         HTTPS port of the first gateway (default 8443; the next replicas take P+1, ...)
  --data-dir DIR   where stores, certificates and logs go (default .cluster/)
  --help           this text

Environment: REDIS_URL (default ${DEFAULT_REDIS_URL}), AMQP_URL (default ${DEFAULT_AMQP_URL}),
MONGO_URL (optional: use MongoDB instead of SQLite files).`;

class ManagedProcess {
  constructor({ name, args, env, logFile, nodeArgs = [] }) {
    Object.assign(this, { name, args, env, logFile, nodeArgs });
    this.child = undefined;
    this.exits = 0;
  }

  start() {
    const log = fs.openSync(this.logFile, 'a');
    this.child = spawn(process.execPath, [...this.nodeArgs, '--require', TELEMETRY, ...this.args], {
      cwd: ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', log, log],
    });
    fs.closeSync(log);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.exited.then(() => (this.exits += 1));
  }

  get running() {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `signal` and waits for the process to end (SIGKILL after `graceMs`). */
  async stop(signal = 'SIGTERM', graceMs = 10_000) {
    if (!this.running) return;
    this.child.kill(signal);
    const timer = setTimeout(() => this.running && this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  tail(lines = 30) {
    try {
      return fs.readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }
}

/**
 * Starts the cluster and resolves once every process is ready.
 * @returns {Promise<{gateways: {url: string, port: number}[], ca: string, dataDir: string, runId: string,
 *   operatorToken: string, authAddress: string, internalTlsDirs: Record<string, string>, processes: Map<string, ManagedProcess>,
 *   restart(name: string, signal?: string): Promise<void>, stop(): Promise<void>}>}
 */
async function startLocalCluster(options = {}) {
  const gatewayCount = options.gateways ?? 2;
  const workerCount = options.workers ?? 2;
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  const amqpUrl = options.amqpUrl ?? process.env.AMQP_URL ?? DEFAULT_AMQP_URL;
  const mongoUrl = options.mongoUrl ?? process.env.MONGO_URL;
  const runId = randomBytes(4).toString('hex');
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'crm-cluster-'));
  await requireBrokers(redisUrl, amqpUrl);
  for (const entry of ['gateway/dist/main.js', 'services/auth/dist/main.js']) {
    if (!fs.existsSync(path.join(ROOT, entry))) throw new Error(`${entry} is missing: run npm run build first.`);
  }
  fs.mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
  const tls = await makeCertificate(path.join(dataDir, 'tls'));
  // Every process proves who it is to the others with its own certificate of one CA (mutual TLS).
  const internalTlsDirs = await makeInternalCertificates(dataDir);
  const operatorToken = randomBytes(24).toString('base64url');
  const ports = {
    auth: await freePort(),
    records: await freePort(),
    import: await freePort(),
    automation: await freePort(),
    upload: await freePort(),
  };
  const address = (name) => `127.0.0.1:${ports[name]}`;
  const common = {
    METRICS_PORT: '0',
    ...runEnv({ runId, redisUrl, amqpUrl, logLevel: options.logLevel ?? process.env.CLUSTER_LOG_LEVEL ?? 'info' }),
    AUTH_GRPC_ADDR: address('auth'),
    RECORDS_GRPC_ADDR: address('records'),
    IMPORT_GRPC_ADDR: address('import'),
    AUTOMATION_GRPC_ADDR: address('automation'),
    IMPORT_UPLOAD_URL: `https://127.0.0.1:${ports.upload}`,
    ...options.env,
  };
  const serviceEnv = (name, identity = name) => ({
    ...common,
    INTERNAL_TLS_DIR: internalTlsDirs[identity],
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(ports[name]),
    CRM_DATA_DIR: path.join(dataDir, name),
    ...(mongoUrl ? { MONGO_URL: mongoUrl, MONGO_DATABASE: `crm_${name}_${runId}` } : {}),
  });
  const processes = new Map();
  const add = (name, args, env) => {
    const proc = new ManagedProcess({ name, args, env, logFile: path.join(dataDir, 'logs', `${name}.log`), nodeArgs: options.nodeArgs });
    processes.set(name, proc);
    return proc;
  };

  add('auth', ['services/auth/dist/main.js'], { ...serviceEnv('auth'), AUTH_OPERATOR_TOKEN: operatorToken });
  add('records', ['services/records/dist/main.js'], serviceEnv('records'));
  add('import', ['services/import/dist/main.js', '--role=server'], { ...serviceEnv('import'), UPLOAD_PORT: String(ports.upload) });
  add('automation', ['services/automation/dist/main.js', '--role=server'], serviceEnv('automation'));
  for (let i = 1; i <= workerCount && options.withWorkers !== false; i += 1) {
    add(`import-worker-${i}`, ['services/import/dist/main.js', '--role=worker'], {
      ...serviceEnv('import', 'import-worker'),
      GRPC_PORT: '0',
    });
    add(`automation-worker-${i}`, ['services/automation/dist/main.js', '--role=worker'], {
      ...serviceEnv('automation', 'automation-worker'),
      GRPC_PORT: '0',
    });
  }
  const gateways = [];
  for (let i = 1; i <= gatewayCount; i += 1) {
    const port = options.port ? options.port + i - 1 : await freePort();
    const url = `https://localhost:${port}`;
    gateways.push({ name: `gateway-${i}`, url, port });
    add(`gateway-${i}`, ['gateway/dist/main.js'], {
      ...common,
      INTERNAL_TLS_DIR: internalTlsDirs.gateway,
      CRM_HOST: '127.0.0.1',
      CRM_PORT: String(port),
      CRM_DATA_DIR: path.join(dataDir, `gateway-${i}`),
      TLS_CERT_FILE: tls.certFile,
      TLS_KEY_FILE: tls.keyFile,
      SIGNUP_ENABLED: 'true',
      // Stop at once, as before the gateway learned to keep serving while its readiness fails.
      DRAIN_DELAY_MS: '0',
    });
  }
  const ca = fs.readFileSync(tls.certFile, 'utf8');
  const { checkHealth, loadInternalTls } = require(path.join(ROOT, 'libs/grpc/dist'));
  const asGateway = loadInternalTls(internalTlsDirs.gateway);

  const readiness = (name) => {
    const proc = processes.get(name);
    if (name.startsWith('gateway-')) {
      const gateway = gateways.find((g) => g.name === name);
      return waitFor(`${name} at ${gateway.url}/readyz`, () => httpsReady(gateway.url, ca), proc);
    }
    if (name.includes('-worker-')) return waitFor(`${name} to start`, async () => true, proc);
    const target = { address: address(name), tls: asGateway, serverIdentity: name };
    return waitFor(`${name} gRPC health on ${address(name)}`, () => checkHealth(target), proc);
  };

  const cluster = {
    gateways: gateways.map(({ url, port }) => ({ url, port })),
    ca,
    dataDir,
    runId,
    operatorToken,
    /** Each internal identity's certificate folder (the CLI's is `operator`), for tests that call services directly. */
    internalTlsDirs,
    authAddress: address('auth'),
    /** The bus settings every process of this run uses, for tests that open the run's bus themselves. */
    busEnv: busEnvOf(common),
    recordsAddress: address('records'),
    processes,
    async restart(name, signal = 'SIGTERM') {
      const proc = processes.get(name);
      if (!proc) throw new Error(`No process ${name}`);
      await proc.stop(signal);
      proc.start();
      await readiness(name);
    },
    async stop() {
      const order = [...processes.values()].reverse();
      await Promise.all(order.filter((p) => p.name.startsWith('gateway-')).map((p) => p.stop()));
      await Promise.all(order.filter((p) => !p.name.startsWith('gateway-')).map((p) => p.stop()));
      if (!options.dataDir && !options.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };

  try {
    for (const proc of processes.values()) if (!proc.name.startsWith('gateway-')) proc.start();
    await Promise.all([...processes.keys()].filter((n) => !n.startsWith('gateway-')).map(readiness));
    for (const proc of processes.values()) if (proc.name.startsWith('gateway-')) proc.start();
    await Promise.all(gateways.map((g) => readiness(g.name)));
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    throw error;
  }
  return cluster;
}

module.exports = { startLocalCluster, requireBrokers };

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      gateways: { type: 'string' },
      workers: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const dataDir = path.resolve(values['data-dir'] ?? path.join(ROOT, '.cluster'));
  fs.mkdirSync(dataDir, { recursive: true });
  startLocalCluster({
    gateways: values.gateways ? Number(values.gateways) : 2,
    workers: values.workers ? Number(values.workers) : 2,
    port: values.port ? Number(values.port) : 8443,
    dataDir,
  }).then(
    (cluster) => {
      console.log(`Local cluster up (${cluster.processes.size} processes; logs in ${path.join(dataDir, 'logs')}).`);
      for (const g of cluster.gateways) console.log(`  gateway: ${g.url}`);
      console.log(`  auth gRPC: ${cluster.authAddress} (operator token: CRM_OPERATOR_TOKEN=${cluster.operatorToken})`);
      console.log(`  operator certificate: CRM_OPERATOR_TLS_DIR=${cluster.internalTlsDirs.operator}`);
      console.log('Ctrl-C stops every process.');
      const stop = () => cluster.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
