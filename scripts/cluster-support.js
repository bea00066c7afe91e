// What the local-cluster and container-cluster runners share: free ports, the broker check, the
// run's TLS certificate, readiness polling and the environment that isolates one run on the
// machine's Redis and RabbitMQ.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

// Ports handed out come from below Linux's ephemeral range (32768-60999): a port the kernel picks
// for listen(0) may be taken as the source port of any outgoing connection before the service
// binds it (seen in CI as EADDRINUSE at a cluster's start); these are only ever taken by a listener.
const LISTEN_PORTS = { low: 20000, high: 32767 };
const handedOut = new Set();

function canListen(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function kernelPickedPort() {
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

/** A TCP port free on 127.0.0.1 now, not handed out before in this process. */
async function freePort() {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = LISTEN_PORTS.low + Math.floor(Math.random() * (LISTEN_PORTS.high - LISTEN_PORTS.low + 1));
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  return kernelPickedPort();
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

// A process that has not answered in 90 s is stuck; on a busy 2-core machine a healthy auth can
// take 30 s to answer its first health check while seven other processes start beside it.
const PROCESS_READY_MS = 90_000;

async function waitFor(description, check, proc, timeoutMs = PROCESS_READY_MS) {
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

/** The environment every process of one run shares: its brokers and the names that keep it apart from other runs. */
function runEnv({ runId, redisUrl, amqpUrl, logLevel }) {
  return {
    LOG_LEVEL: logLevel,
    REDIS_URL: redisUrl,
    AMQP_URL: amqpUrl,
    CRM_BUS_EXCHANGE: `crm.events.${runId}`,
    CRM_QUEUE_PREFIX: `run-${runId}.`,
    // The run's queues delete themselves 10 minutes after their last consumer left: hundreds of
    // leftover quorum queues from earlier runs were enough to wedge a shared broker.
    CRM_QUEUE_EXPIRES_MS: String(10 * 60_000),
    RATE_LIMIT_KEY_PREFIX: `crm:${runId}:`,
  };
}

/** The bus settings of a run's environment, for tests that open the run's bus themselves. */
const ROOT = path.resolve(__dirname, '..');
const TOPOLOGY_FILE = path.join(ROOT, 'charts/crm/topology.yaml');

/** charts/crm/topology.yaml: every deployable, the one description the chart and the runners share. */
function readTopology() {
  return require('js-yaml').load(fs.readFileSync(TOPOLOGY_FILE, 'utf8'));
}

/**
 * The internal CA and a certificate per internal identity (every deployable of the topology, and
 * `operator` for the CLI) under `<dataDir>/internal-tls/`, made once and kept.
 * @returns {Promise<Record<string, string>>} each identity's folder (ca.crt, tls.crt, tls.key)
 */
function makeInternalCertificates(dataDir) {
  const { ensureInternalCertificates, internalTlsRoot } = require(path.join(ROOT, 'libs/grpc/dist'));
  const identities = [...Object.values(readTopology()).map((spec) => spec.name), 'operator'];
  return ensureInternalCertificates(internalTlsRoot(dataDir), identities);
}

function busEnvOf(env) {
  return { CRM_BUS_EXCHANGE: env.CRM_BUS_EXCHANGE, CRM_QUEUE_PREFIX: env.CRM_QUEUE_PREFIX, CRM_QUEUE_EXPIRES_MS: env.CRM_QUEUE_EXPIRES_MS };
}

module.exports = {
  DEFAULT_REDIS_URL,
  DEFAULT_AMQP_URL,
  freePort,
  requireBrokers,
  makeCertificate,
  makeInternalCertificates,
  readTopology,
  PROCESS_READY_MS,
  waitFor,
  httpsReady,
  runEnv,
  busEnvOf,
};
