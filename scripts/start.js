#!/usr/bin/env node
// `npm start`: the whole CRM in one Node process with the embedded defaults — SQLite stores under
// CRM_DATA_DIR, the in-process bus and memory rate limits (unless MONGO_URL, AMQP_URL or REDIS_URL
// say otherwise) — with the gateway and the four gRPC servers talking real gRPC over Unix sockets in
// a private folder, so the process opens no network port but CRM_PORT (and METRICS_PORT) and two
// instances with their own CRM_PORT and CRM_DATA_DIR run side by side. Every internal call is mutual
// TLS, each service with its own certificate of a CA made on first start under CRM_DATA_DIR/internal-tls.
'use strict';
require('../libs/telemetry/dist/register.js');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');

const HELP = `Usage: npm start

Runs the whole CRM in one process: the HTTPS gateway on https://localhost:8443 (CRM_PORT), and the
auth, records, import and automation services behind it on Unix sockets in a private temporary
folder (no other network port), every call between them mutual TLS. On first start it creates a
self-signed certificate, the internal CA with a certificate per service (internal-tls/) and a demo
workspace under CRM_DATA_DIR (default ./data) and prints the demo login. Ctrl-C stops it cleanly.
The operator CLI (npm run crm -- --help) finds the running instance through CRM_DATA_DIR.

Environment: CRM_PORT, CRM_HOST, CRM_DATA_DIR, METRICS_PORT (default 9464 on 127.0.0.1; when the
default is taken the instance runs without metrics and says so), LOG_LEVEL, and optionally
MONGO_URL, AMQP_URL, REDIS_URL.`;

if (process.argv.includes('--help')) {
  console.log(HELP);
  process.exit(0);
}

const { loadConfig, redactConfig } = require('../libs/config/dist');
const { createLogger, stopOnSignals } = require('../libs/observability/dist');
const { GrpcClient, OPERATOR_TOKEN_HEADER, loadInternalTls } = require('../libs/grpc/dist');
const { makeInternalCertificates } = require('./cluster-support');
const { startProcessMetrics } = require('../libs/telemetry/dist');
const { openBus, busLocationFromEnv } = require('../libs/bus/dist');
const { openInvalidationChannel } = require('../libs/rate-limit/dist');
const auth = require('../services/auth/dist');
const records = require('../services/records/dist');
const importService = require('../services/import/dist');
const automation = require('../services/automation/dist');
const gateway = require('../gateway/dist');

const dataDir = path.resolve(process.env.CRM_DATA_DIR || 'data');
// mkdtemp makes the folder 0700: only this user can reach the sockets. A short path under the
// temporary folder also keeps socket paths within the 107-byte limit whatever CRM_DATA_DIR is.
const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-'));
const socket = (name) => `unix:${path.join(socketDir, `${name}.sock`)}`;
const internal = {
  auth: socket('auth'),
  records: socket('records'),
  import: socket('import'),
  automation: socket('automation'),
};
const shared = {
  ...process.env,
  CRM_DATA_DIR: dataDir,
  AUTH_GRPC_ADDR: internal.auth,
  RECORDS_GRPC_ADDR: internal.records,
  IMPORT_GRPC_ADDR: internal.import,
  AUTOMATION_GRPC_ADDR: internal.automation,
};
/** Each internal identity's certificate folder, made in main() before anything starts. */
let internalTlsDirs = {};
const configFor = (schema, name, extra = {}) =>
  loadConfig(schema, { ...shared, INTERNAL_TLS_DIR: internalTlsDirs[name], GRPC_HOST: socket(name), GRPC_PORT: '0', ...extra });

async function ensureDemoWorkspace(operatorToken, logger) {
  const file = path.join(dataDir, 'demo-credentials.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
  const client = new GrpcClient(
    'auth/v1/auth.proto',
    'auth.v1.AuthOperatorService',
    internal.auth,
    loadInternalTls(internalTlsDirs.operator),
  );
  const demo = { email: 'demo@example.com', password: randomBytes(12).toString('base64url') };
  try {
    const created = await client.call(
      'CreateWorkspace',
      {
        name: 'Demo workspace',
        plan: 'growth',
        adminEmail: demo.email,
        adminPassword: demo.password,
        adminFirstName: 'Demo',
        adminLastName: 'User',
      },
      {},
      { metadata: { [OPERATOR_TOKEN_HEADER]: operatorToken } },
    );
    demo.workspaceId = created.workspace.id;
  } finally {
    client.close();
  }
  fs.writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  logger.info({ file }, 'created the demo workspace');
  return demo;
}

async function main() {
  fs.mkdirSync(dataDir, { recursive: true });
  internalTlsDirs = await makeInternalCertificates(dataDir);
  const level = process.env.LOG_LEVEL || 'info';
  const logger = createLogger('crm', { level });
  const serviceLogger = (name) => createLogger(name, { level });
  const running = [];
  // One bus for the whole process, so records' events reach automation and import's chunks reach
  // its worker role (RabbitMQ when AMQP_URL is set, the in-process bus otherwise).
  const bus = await openBus(busLocationFromEnv(process.env.AMQP_URL), serviceLogger('bus'));
  running.push({ stop: () => bus.close() });
  // The gateway's invalidation channel, shared with auth so a plan change reaches the gateway
  // before `crm change-plan` returns (Redis when REDIS_URL is set, this process otherwise).
  const invalidation = await openInvalidationChannel(
    process.env.REDIS_URL
      ? { kind: 'redis', url: process.env.REDIS_URL, keyPrefix: process.env.RATE_LIMIT_KEY_PREFIX }
      : { kind: 'memory' },
    serviceLogger('invalidation'),
  );
  running.push({ stop: () => invalidation.close() });
  const authService = await auth.startAuthService(configFor(auth.authConfigSchema, 'auth'), {
    logger: serviceLogger('auth'),
    invalidation,
  });
  running.push(authService);
  fs.writeFileSync(auth.authAddressPath(dataDir), `${internal.auth}\n`, { mode: 0o600 });
  running.push({ stop: () => fs.rmSync(auth.authAddressPath(dataDir), { force: true }) });
  running.push(
    await records.startRecordsService(configFor(records.recordsConfigSchema, 'records'), { logger: serviceLogger('records'), bus }),
  );
  const uploadSocket = socket('upload');
  const uploadSecret = randomBytes(24).toString('base64url');
  running.push(
    await importService.startImportService(
      configFor(importService.importConfigSchema, 'import', { UPLOAD_HOST: uploadSocket, UPLOAD_SECRET: uploadSecret }),
      { logger: serviceLogger('import'), bus, withWorker: true },
    ),
  );
  const automationConfig = configFor(automation.automationConfigSchema, 'automation');
  running.push(await automation.startAutomationService(automationConfig, { logger: serviceLogger('automation'), bus }));
  running.push(
    await automation.startAutomationWorker(configFor(automation.automationConfigSchema, 'automation-worker'), {
      logger: serviceLogger('automation-worker'),
      bus,
    }),
  );
  const gatewayConfig = loadConfig(gateway.gatewayConfigSchema, {
    ...shared,
    INTERNAL_TLS_DIR: internalTlsDirs.gateway,
    IMPORT_UPLOAD_URL: uploadSocket,
    IMPORT_UPLOAD_SECRET: uploadSecret,
  });
  const edge = await gateway.startGateway(gatewayConfig, { logger: serviceLogger('gateway'), invalidation });
  running.push(edge);
  const metrics = await startMetrics(logger);
  if (metrics) running.push({ stop: () => metrics.close() });
  logger.info({ config: redactConfig(gatewayConfig) }, 'gateway configuration');

  const demo = await ensureDemoWorkspace(authService.operatorToken, logger);
  const url = edge.url.replace('0.0.0.0', 'localhost');
  process.stdout.write(
    [
      '',
      `CRM listening on ${url} (self-signed certificate in ${path.join(dataDir, 'tls')}; curl needs -k)`,
      `Demo login: ${demo.email} / ${demo.password}`,
      `Try: curl -sk ${url}/api/auth/login/ -H 'content-type: application/json' -d '{"email":"${demo.email}","password":"${demo.password}"}'`,
      `API reference: ${url}/api/docs/ (paste the login's "access" token under Authorize to try calls)`,
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  stopOnSignals(logger, async () => {
    for (const service of running.reverse()) await service.stop();
    fs.rmSync(socketDir, { recursive: true, force: true });
  });
}

/**
 * Metrics on loopback (this is the laptop mode). Two instances on one machine both default to
 * 9464: the second runs without metrics and says so, unless METRICS_PORT was set on purpose.
 */
function startMetrics(logger) {
  return startProcessMetrics(process.env, {
    host: '127.0.0.1',
    onDefaultPortTaken: (port) =>
      logger.warn({ port }, 'metrics port in use (another instance?); running without metrics: set METRICS_PORT to serve them'),
  });
}

main().catch((error) => {
  fs.rmSync(socketDir, { recursive: true, force: true });
  console.error(`npm start failed: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});
