#!/usr/bin/env node
// The local-cluster runner: every service as its own process (real gRPC between them), each with
// its own store (SQLite under the cluster's data folder, or MongoDB when MONGO_URL is set), with
// the machine's Redis and RabbitMQ, and N gateway replicas over HTTPS. The cross-service tests in
// tests/ start it through `startLocalCluster`; `npm run cluster` runs it by hand.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { parseArgs } = require('node:util');

const ROOT = path.resolve(__dirname, '..');
const TELEMETRY = path.join(ROOT, 'libs/telemetry/dist/register.js');
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

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

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function reachable(url, timeoutMs = 1500) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('connect', () => done(true));
    socket.on('error', () => done(false));
  });
}

/** Fails with a message saying how to start Redis or RabbitMQ when either is down. */
async function requireBrokers(redisUrl, amqpUrl) {
  const problems = [];
  if (!(await reachable(redisUrl)))
    problems.push(
      `Redis is not reachable at ${redisUrl}. Start it: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`,
    );
  if (!(await reachable(amqpUrl)))
    problems.push(`RabbitMQ is not reachable at ${amqpUrl}. Start it: rabbitmq-server -detached (then wait ~10 s)`);
  if (problems.length) throw new Error(problems.join('\n'));
}

function makeCertificate(dir) {
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  if (!fs.existsSync(certFile)) {
    const selfsigned = require('selfsigned');
    fs.mkdirSync(dir, { recursive: true });
    const attrs = [{ name: 'commonName', value: 'localhost' }];
    const extensions = [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ];
    return Promise.resolve(
      selfsigned.generate(attrs, { notAfterDate: new Date(Date.now() + 30 * 86_400_000), keySize: 2048, algorithm: 'sha256', extensions }),
    ).then((pems) => {
      fs.writeFileSync(certFile, pems.cert);
      fs.writeFileSync(keyFile, pems.private, { mode: 0o600 });
      return { certFile, keyFile };
    });
  }
  return Promise.resolve({ certFile, keyFile });
}

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

async function waitFor(description, check, proc, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (proc && !proc.running) throw new Error(`${proc.name} exited while starting. Its log (${proc.logFile}):\n${proc.tail()}`);
    if (Date.now() > deadline)
      throw new Error(`Timed out waiting for ${description}.${proc ? ` Log of ${proc.name}:\n${proc.tail()}` : ''}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

function httpsReady(url, ca) {
  const https = require('node:https');
  return new Promise((resolve) => {
    const req = https.get(`${url}/readyz`, { ca, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

/**
 * Starts the cluster and resolves once every process is ready.
 * @returns {Promise<{gateways: {url: string, port: number}[], ca: string, dataDir: string, runId: string,
 *   operatorToken: string, authAddress: string, processes: Map<string, ManagedProcess>,
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
    LOG_LEVEL: options.logLevel ?? process.env.CLUSTER_LOG_LEVEL ?? 'info',
    REDIS_URL: redisUrl,
    AMQP_URL: amqpUrl,
    CRM_BUS_EXCHANGE: `crm.events.${runId}`,
    CRM_QUEUE_PREFIX: `run-${runId}.`,
    // The run's queues delete themselves 10 minutes after their last consumer left: hundreds of
    // leftover quorum queues from earlier runs were enough to wedge a shared broker.
    CRM_QUEUE_EXPIRES_MS: String(10 * 60_000),
    RATE_LIMIT_KEY_PREFIX: `crm:${runId}:`,
    AUTH_GRPC_ADDR: address('auth'),
    RECORDS_GRPC_ADDR: address('records'),
    IMPORT_GRPC_ADDR: address('import'),
    AUTOMATION_GRPC_ADDR: address('automation'),
    IMPORT_UPLOAD_URL: `http://127.0.0.1:${ports.upload}`,
    ...options.env,
  };
  const serviceEnv = (name) => ({
    ...common,
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
    add(`import-worker-${i}`, ['services/import/dist/main.js', '--role=worker'], { ...serviceEnv('import'), GRPC_PORT: '0' });
    add(`automation-worker-${i}`, ['services/automation/dist/main.js', '--role=worker'], { ...serviceEnv('automation'), GRPC_PORT: '0' });
  }
  const gateways = [];
  for (let i = 1; i <= gatewayCount; i += 1) {
    const port = options.port ? options.port + i - 1 : await freePort();
    const url = `https://localhost:${port}`;
    gateways.push({ name: `gateway-${i}`, url, port });
    add(`gateway-${i}`, ['gateway/dist/main.js'], {
      ...common,
      CRM_HOST: '127.0.0.1',
      CRM_PORT: String(port),
      CRM_DATA_DIR: path.join(dataDir, `gateway-${i}`),
      TLS_CERT_FILE: tls.certFile,
      TLS_KEY_FILE: tls.keyFile,
      SIGNUP_ENABLED: 'true',
    });
  }
  const ca = fs.readFileSync(tls.certFile, 'utf8');
  const { checkHealth } = require(path.join(ROOT, 'libs/grpc/dist'));

  const readiness = (name) => {
    const proc = processes.get(name);
    if (name.startsWith('gateway-')) {
      const gateway = gateways.find((g) => g.name === name);
      return waitFor(`${name} at ${gateway.url}/readyz`, () => httpsReady(gateway.url, ca), proc);
    }
    if (name.includes('-worker-')) return waitFor(`${name} to start`, async () => true, proc);
    return waitFor(`${name} gRPC health on ${address(name)}`, () => checkHealth(address(name)), proc);
  };

  const cluster = {
    gateways: gateways.map(({ url, port }) => ({ url, port })),
    ca,
    dataDir,
    runId,
    operatorToken,
    authAddress: address('auth'),
    /** The bus settings every process of this run uses, for tests that open the run's bus themselves. */
    busEnv: {
      CRM_BUS_EXCHANGE: common.CRM_BUS_EXCHANGE,
      CRM_QUEUE_PREFIX: common.CRM_QUEUE_PREFIX,
      CRM_QUEUE_EXPIRES_MS: common.CRM_QUEUE_EXPIRES_MS,
    },
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
