/**
 * gRPC calls spread over every replica. Records replicas run as real processes (the built
 * `services/records/dist/main.js`, mutual TLS, each on its own SQLite store and loopback port) and a
 * caller, holding the gateway's certificate, balances over all of them: through an `ipv4:` list
 * (what a `dns:///` headless-Service address resolves to) and through a resolver whose answer grows
 * when a replica is added, as a headless Service's DNS answer does when the autoscaler adds a pod.
 * Each replica's share is read from its own `grpc_server_handled_total` metric.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { checkHealth, ensureInternalCertificates, GrpcClient, loadInternalTls, recordsV1, type InternalTls } from '@crm/grpc';
import { freePort, waitUntil } from '../support/sibling-process';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '../..');
const RECORDS_MAIN = join(ROOT, 'services/records/dist/main.js');
/** Short, so the test sees connections turn over in seconds; production's default is 30 s. */
const CONNECTION_AGE_MS = 2_000;
const CALLER = { workspaceId: 'w-spread', actorId: 'u-spread', actorKind: 'user' as const };

interface Replica {
  name: string;
  port: number;
  metricsPort: number;
  child: ChildProcess;
  logFile: string;
}

/**
 * A name resolver for `replicas:///records`: answers with `replicaPorts` on 127.0.0.1, like DNS for
 * a headless Service, and like grpc-js's DNS resolver at most once per RESOLUTION_INTERVAL_MS
 * (round_robin asks again whenever a connection ends).
 */
const replicaPorts: number[] = [];
const RESOLUTION_INTERVAL_MS = 500;
class ReplicaResolver {
  private timer: NodeJS.Timeout | undefined;
  private answeredAt = 0;

  constructor(
    _target: unknown,
    private readonly listener: (...args: unknown[]) => boolean,
  ) {}

  updateResolution(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.answeredAt + RESOLUTION_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.answeredAt = Date.now();
      const endpoints = replicaPorts.map((port) => ({ addresses: [{ host: '127.0.0.1', port }] }));
      this.listener(grpc.experimental.statusOrFromValue(endpoints), {}, null, '');
    }, wait);
  }

  destroy(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  static getDefaultAuthority(): string {
    return 'records';
  }
}
grpc.experimental.registerResolver('replicas', ReplicaResolver as unknown as Parameters<typeof grpc.experimental.registerResolver>[1]);

async function handledBy(replica: Replica): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${replica.metricsPort}/metrics`);
  const text = await response.text();
  const line = text
    .split('\n')
    .find((row) => row.startsWith('grpc_server_handled_total{') && row.includes('method="ListContacts"') && row.includes('code="OK"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

async function handledByEach(replicas: Replica[]): Promise<number[]> {
  return Promise.all(replicas.map(handledBy));
}

/** Calls ListContacts `total` times, `concurrency` at a time. */
async function load(client: GrpcClient<recordsV1.RecordsServiceMethods>, total: number, concurrency = 8): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        await client.call('ListContacts', { limit: 1 }, CALLER);
      }
    }),
  );
}

describe('gRPC load over records replicas', () => {
  let root: string;
  let records: string;
  let gateway: InternalTls;
  const replicas: Replica[] = [];

  async function startReplica(name: string): Promise<Replica> {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const dataDir = join(root, name);
    mkdirSync(dataDir, { recursive: true });
    const logFile = join(root, `${name}.log`);
    const log = openSync(logFile, 'a');
    const child = spawn(process.execPath, [RECORDS_MAIN], {
      cwd: ROOT,
      env: {
        ...process.env,
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: String(port),
        METRICS_PORT: String(metricsPort),
        CRM_DATA_DIR: dataDir,
        INTERNAL_TLS_DIR: records,
        AUTH_GRPC_ADDR: '127.0.0.1:9',
        GRPC_MAX_CONNECTION_AGE_MS: String(CONNECTION_AGE_MS),
        LOG_LEVEL: 'warn',
        MONGO_URL: '',
        AMQP_URL: '',
      },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    const replica = { name, port, metricsPort, child, logFile };
    replicas.push(replica);
    await waitUntil(`${name} serving`, async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited: ${readFileSync(logFile, 'utf8')}`);
      return checkHealth({ address: `127.0.0.1:${port}`, tls: gateway, serverIdentity: 'records' }, '', 1_000);
    });
    return replica;
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'crm-spread-'));
    const folders = await ensureInternalCertificates(join(root, 'internal-tls'), ['records', 'gateway']);
    records = folders.records!;
    gateway = loadInternalTls(folders.gateway!);
    for (const name of ['records-1', 'records-2', 'records-3']) await startReplica(name);
  });

  afterAll(async () => {
    await Promise.all(
      replicas.map(
        (replica) =>
          new Promise<void>((resolve) => {
            if (replica.child.exitCode !== null || replica.child.signalCode !== null) return resolve();
            replica.child.once('exit', () => resolve());
            replica.child.kill('SIGTERM');
          }),
      ),
    );
    rmSync(root, { recursive: true, force: true });
  });

  it('gives each of three replicas a fair share of a caller’s calls', async () => {
    const target = `ipv4:${replicas.map((replica) => `127.0.0.1:${replica.port}`).join(',')}`;
    const client = new GrpcClient<recordsV1.RecordsServiceMethods>(recordsV1.protoPath, recordsV1.RecordsServiceName, target, gateway);
    const before = await handledByEach(replicas);
    try {
      await load(client, 1_500);
    } finally {
      client.close();
    }
    const after = await handledByEach(replicas);
    const served = after.map((count, index) => count - before[index]!);
    const total = served.reduce((sum, count) => sum + count, 0);
    console.log(
      `1,500 calls over 3 replicas (ipv4: target): ${served.join(' / ')} (${served.map((count) => `${Math.round((100 * count) / total)}%`).join(' / ')})`,
    );
    expect(total).toBe(1_500);
    for (const count of served) {
      expect(count / total).toBeGreaterThanOrEqual(0.2);
      expect(count / total).toBeLessThanOrEqual(0.45);
    }
  });

  it('sends calls to a replica added under load once connections age out', async () => {
    replicaPorts.splice(0, replicaPorts.length, ...replicas.map((replica) => replica.port));
    const client = new GrpcClient<recordsV1.RecordsServiceMethods>(
      recordsV1.protoPath,
      recordsV1.RecordsServiceName,
      'replicas:///records',
      gateway,
      'records',
      'round_robin',
    );
    let loading = true;
    const traffic = (async () => {
      while (loading) await load(client, 200);
    })();
    try {
      await load(client, 300);
      const added = await startReplica('records-4');
      const before = await handledByEach(replicas);
      replicaPorts.push(added.port);
      const addedAt = Date.now();
      await waitUntil('records-4 taking calls', async () => (await handledBy(added)) > before[3]!, 20_000);
      const firstCallAfterMs = Date.now() - addedAt;
      // Another round of connection ages: every caller connection has moved by then.
      await new Promise((resolve) => setTimeout(resolve, 2 * CONNECTION_AGE_MS));
      const settled = await handledByEach(replicas);
      await load(client, 1_200);
      const after = await handledByEach(replicas);
      const served = after.map((count, index) => count - settled[index]!);
      const total = served.reduce((sum, count) => sum + count, 0);
      console.log(
        `records-4 took its first call ${(firstCallAfterMs / 1000).toFixed(1)} s after it was added (connection age ${CONNECTION_AGE_MS / 1000} s); ` +
          `then ${total} calls over 4 replicas: ${served.join(' / ')} (${served.map((count) => `${Math.round((100 * count) / total)}%`).join(' / ')})`,
      );
      expect(served[3]! / total).toBeGreaterThanOrEqual(0.15);
    } finally {
      loading = false;
      await traffic;
      client.close();
    }
  });
});
