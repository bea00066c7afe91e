#!/usr/bin/env node
// `npm start`: the whole CRM in one Node process with the embedded defaults — SQLite stores under
// CRM_DATA_DIR, the in-process bus and memory rate limits (unless MONGO_URL, AMQP_URL or REDIS_URL
// say otherwise) — with the gateway and the four gRPC servers on loopback ports, talking real gRPC.
'use strict';
require('../libs/telemetry/dist/register.js');
const fs = require('node:fs');
const path = require('node:path');
const { randomBytes } = require('node:crypto');

const HELP = `Usage: npm start

Runs the whole CRM in one process: HTTPS gateway on https://localhost:8443 (CRM_PORT) and the
auth, records, import and automation gRPC servers on 127.0.0.1:50051-50054. On first start it
creates a self-signed certificate and a demo workspace under CRM_DATA_DIR (default ./data) and
prints the demo login. Ctrl-C stops it cleanly.

Environment: CRM_PORT, CRM_DATA_DIR, LOG_LEVEL, and optionally MONGO_URL, AMQP_URL, REDIS_URL.`;

if (process.argv.includes('--help')) {
  console.log(HELP);
  process.exit(0);
}

const { loadConfig, redactConfig } = require('../libs/config/dist');
const { createLogger, stopOnSignals } = require('../libs/observability/dist');
const { GrpcClient, OPERATOR_TOKEN_HEADER } = require('../libs/grpc/dist');
const { startProcessMetrics } = require('../libs/telemetry/dist');
const { openBus, busLocationFromEnv } = require('../libs/bus/dist');
const auth = require('../services/auth/dist');
const records = require('../services/records/dist');
const importService = require('../services/import/dist');
const automation = require('../services/automation/dist');
const gateway = require('../gateway/dist');

const dataDir = path.resolve(process.env.CRM_DATA_DIR || 'data');
const loopback = {
  auth: '127.0.0.1:50051',
  records: '127.0.0.1:50052',
  import: '127.0.0.1:50053',
  automation: '127.0.0.1:50054',
};
const shared = {
  ...process.env,
  CRM_DATA_DIR: dataDir,
  GRPC_HOST: '127.0.0.1',
  AUTH_GRPC_ADDR: loopback.auth,
  RECORDS_GRPC_ADDR: loopback.records,
  IMPORT_GRPC_ADDR: loopback.import,
  AUTOMATION_GRPC_ADDR: loopback.automation,
};
const configFor = (schema, port) => loadConfig(schema, { ...shared, GRPC_PORT: String(port) });

async function ensureDemoWorkspace(operatorToken, logger) {
  const file = path.join(dataDir, 'demo-credentials.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
  const client = new GrpcClient('auth/v1/auth.proto', 'auth.v1.AuthOperatorService', loopback.auth);
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
  const level = process.env.LOG_LEVEL || 'info';
  const logger = createLogger('crm', { level });
  const serviceLogger = (name) => createLogger(name, { level });
  const running = [];
  // One bus for the whole process, so records' events reach automation and import's chunks reach
  // its worker role (RabbitMQ when AMQP_URL is set, the in-process bus otherwise).
  const bus = await openBus(busLocationFromEnv(process.env.AMQP_URL), serviceLogger('bus'));
  running.push({ stop: () => bus.close() });
  const authService = await auth.startAuthService(configFor(auth.authConfigSchema, 50051), { logger: serviceLogger('auth') });
  running.push(authService);
  running.push(await records.startRecordsService(configFor(records.recordsConfigSchema, 50052), { logger: serviceLogger('records'), bus }));
  running.push(
    await importService.startImportService(configFor(importService.importConfigSchema, 50053), {
      logger: serviceLogger('import'),
      bus,
      withWorker: true,
    }),
  );
  const automationConfig = configFor(automation.automationConfigSchema, 50054);
  running.push(await automation.startAutomationService(automationConfig, { logger: serviceLogger('automation') }));
  running.push(
    await automation.startAutomationWorker({ ...automationConfig, GRPC_PORT: 0 }, { logger: serviceLogger('automation-worker'), bus }),
  );
  const gatewayConfig = loadConfig(gateway.gatewayConfigSchema, shared);
  const edge = await gateway.startGateway(gatewayConfig, { logger: serviceLogger('gateway') });
  running.push(edge);
  const metrics = await startProcessMetrics();
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
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  stopOnSignals(logger, async () => {
    for (const service of running.reverse()) await service.stop();
  });
}

main().catch((error) => {
  console.error(`npm start failed: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});
