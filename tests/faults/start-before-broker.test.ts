/**
 * A process started before its broker waits for it instead of exiting. A records replica (the built
 * `services/records/dist/main.js`) is pointed at a RabbitMQ node of the test's own
 * (support/private-rabbitmq.ts) that is not running yet: it stays alive, keeps its gRPC port open
 * (what the chart's liveness and startup probes read), answers NOT_SERVING on its health port (the
 * readiness probe), logs every attempt, and turns SERVING by itself once the broker is started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureInternalCertificates, GrpcClient } from '@crm/grpc';
import { PrivateRabbitMq, privateRabbitMqUnavailable } from '../support/private-rabbitmq';
import { freePort, waitUntil } from '../support/sibling-process';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '../..');
const unavailable = privateRabbitMqUnavailable();
if (unavailable) console.warn(`SKIPPED start before the broker: ${unavailable}`);
const describeWithBroker = unavailable ? describe.skip : describe;

type HealthMethods = { Check: { request: { service: string }; response: { status: string } } };

/** The whole server's status on a plaintext health-only port; `unreachable` when nothing answers. */
async function healthStatus(port: number): Promise<string> {
  const client = new GrpcClient<HealthMethods>('grpc/health/v1/health.proto', 'grpc.health.v1.Health', `127.0.0.1:${port}`, null);
  try {
    return (await client.call('Check', { service: '' }, {}, { timeoutMs: 2_000 })).status;
  } catch {
    return 'unreachable';
  } finally {
    client.close();
  }
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describeWithBroker('a records replica started before its RabbitMQ', () => {
  let root: string;
  let broker: PrivateRabbitMq;
  let child: ChildProcess;
  let logFile: string;
  let grpcPort: number;
  let healthPort: number;
  const log = () => readFileSync(logFile, 'utf8');

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'crm-start-before-broker-'));
    broker = await PrivateRabbitMq.notStarted();
    const folders = await ensureInternalCertificates(join(root, 'internal-tls'), ['records']);
    [grpcPort, healthPort] = [await freePort(), await freePort()];
    logFile = join(root, 'records.log');
    const out = openSync(logFile, 'a');
    child = spawn(process.execPath, [join(ROOT, 'services/records/dist/main.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: String(grpcPort),
        GRPC_HEALTH_PORT: String(healthPort),
        METRICS_PORT: '0',
        CRM_DATA_DIR: join(root, 'data'),
        INTERNAL_TLS_DIR: folders.records!,
        AMQP_URL: broker.url,
        CRM_BUS_EXCHANGE: `crm.start-before-broker.${process.pid}`,
        MONGO_URL: '',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', out, out],
    });
    closeSync(out);
  });

  afterAll(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await broker.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('stays up, port open, saying NOT_SERVING while it waits', async () => {
    await waitUntil('a second attempt logged', () => log().includes('attempt 2 failed'), 60_000);
    expect(child.exitCode).toBeNull();
    expect(await portAccepts(grpcPort)).toBe(true);
    expect(await healthStatus(healthPort)).toBe('NOT_SERVING');
    expect(log()).toContain(`waiting for RabbitMQ at 127.0.0.1:${broker.port}: attempt 1 failed, next in 1 s`);
  });

  it('turns SERVING by itself once the broker is up', async () => {
    await broker.resume();
    await waitUntil('records SERVING', async () => (await healthStatus(healthPort)) === 'SERVING', 90_000);
    expect(child.exitCode).toBeNull();
    expect(log()).toContain(`reached RabbitMQ at 127.0.0.1:${broker.port}`);
  });
});
