import { randomBytes } from 'node:crypto';
import { ApiClient } from './api-client';

type StartCluster = (options?: Record<string, unknown>) => Promise<LocalCluster>;

/**
 * The runners are plain JavaScript so that `npm run cluster` needs no build step of its own.
 * CRM_TEST_CLUSTER=containers runs the suites against the system started from its images
 * (scripts/container-cluster.js, `npm run test:containers`) instead of local processes.
 */
function clusterStarter(): StartCluster {
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (process.env.CRM_TEST_CLUSTER === 'containers')
    return (require('../../scripts/container-cluster.js') as { startContainerCluster: StartCluster }).startContainerCluster;
  return (require('../../scripts/local-cluster.js') as { startLocalCluster: StartCluster }).startLocalCluster;
  /* eslint-enable @typescript-eslint/no-require-imports */
}

export interface LocalCluster {
  gateways: { url: string; port: number }[];
  ca: string;
  dataDir: string;
  runId: string;
  operatorToken: string;
  authAddress: string;
  /** Each internal identity's certificate folder (ca.crt, tls.crt, tls.key): gateway, auth, ..., operator. */
  internalTlsDirs: Record<string, string>;
  /** The bus settings of this run (exchange, queue prefix, queue expiry), for tests that open the run's bus. */
  busEnv: Record<string, string>;
  processes: Map<
    string,
    { name: string; running: boolean; stop(signal?: string): Promise<void>; start(): void; tail(lines?: number): string }
  >;
  restart(name: string, signal?: string): Promise<void>;
  stop(): Promise<void>;
}

export interface TestCluster {
  cluster: LocalCluster;
  /** One client per gateway replica. */
  gateways: ApiClient[];
  api: ApiClient;
  stop(): Promise<void>;
}

/**
 * CRM_TEST_KEEP_DATA=1 keeps each cluster's data directory (its processes' logs under `logs/`)
 * after the suite, for reading a failure afterwards; the path is printed at the stop.
 */
const keepData = process.env.CRM_TEST_KEEP_DATA === '1';

export async function startTestCluster(options: Record<string, unknown> = {}): Promise<TestCluster> {
  const cluster = await startOnceMore({ logLevel: 'warn', ...(keepData && { keepData: true }), ...options });
  const gateways = cluster.gateways.map((g) => new ApiClient(g.url, cluster.ca));
  return {
    cluster,
    gateways,
    api: gateways[0]!,
    async stop() {
      await Promise.all(gateways.map((g) => g.close()));
      await cluster.stop();
      if (keepData) console.log(`CRM_TEST_KEEP_DATA: the cluster's data and logs are kept in ${cluster.dataDir}`);
    },
  };
}

/**
 * Starts the cluster; when a process never reports ready (seen twice in CI: records' health never
 * SERVING within 90 s, its log empty, with nothing wrong in a run of the same suites alone), the
 * partial cluster is stopped (the starter does) and started once more, saying so in the output.
 * Before the second start it waits for the shared RabbitMQ to answer again: in CI the broker has
 * been seen to write nothing for 200 s (its own log silent, then a backlog of quorum-queue
 * deletions), and a start during that time fails the same way.
 */
async function startOnceMore(options: Record<string, unknown>): Promise<LocalCluster> {
  try {
    return await clusterStarter()(options);
  } catch (error) {
    if (!/^Timed out waiting for/.test(error instanceof Error ? error.message : '')) throw error;
    console.warn(`cluster start failed, starting once more: ${(error as Error).message.slice(0, 2000)}`);
    if (process.env.CRM_TEST_CLUSTER !== 'containers') await brokerAnswers((options.amqpUrl as string | undefined) ?? process.env.AMQP_URL);
    return clusterStarter()(options);
  }
}

/** How long the start waits for the shared RabbitMQ to answer again before its second try. */
const BROKER_WAIT_MS = 240_000;
/** How long the starter waits for one process to report ready. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PROCESS_READY_MS } = require('../../scripts/cluster-support.js') as { PROCESS_READY_MS: number };
/**
 * What a start that fails once may add to a suite's set-up: the wait for the broker and the second
 * start. Every hook that starts a cluster adds it to its own budget, or a broker silent for 90 s
 * (seen in CI) fails the hook before the second start has run.
 */
export const CLUSTER_RETRY_MS = BROKER_WAIT_MS + PROCESS_READY_MS;

/** Resolves once the broker completes a connection and a channel operation (at most BROKER_WAIT_MS, then it says so and goes on). */
async function brokerAnswers(url = 'amqp://guest:guest@127.0.0.1:5672'): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const amqp = require('amqplib') as { connect(url: string, options: { timeout: number }): Promise<any> };
  const started = Date.now();
  for (let attempt = 1; Date.now() - started < BROKER_WAIT_MS; attempt++) {
    const answered = await Promise.race([
      (async () => {
        const connection = await amqp.connect(url, { timeout: 10_000 });
        try {
          const channel = await connection.createChannel();
          await channel.checkExchange('amq.direct');
        } finally {
          await connection.close().catch(() => undefined);
        }
        return true;
      })().catch(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000)),
    ]);
    if (answered) {
      if (attempt > 1) console.warn(`RabbitMQ answers again after ${Math.round((Date.now() - started) / 1000)} s`);
      return;
    }
    await new Promise((r) => setTimeout(r, 5_000));
  }
  console.warn(`RabbitMQ still does not answer after ${BROKER_WAIT_MS / 1000} s; starting the cluster anyway`);
}

export interface SignedUp {
  access: string;
  refresh: string;
  user: { id: string; email: string; firstName: string; lastName: string; workspaceId: string };
  password: string;
}

/**
 * A new workspace with its admin, through the public sign-up endpoint. Sign-up hashes a password,
 * which a freshly started cluster on a loaded machine can take past the gateway's deadline: a 503
 * is tried again (a few times), anything else but 201 fails.
 */
export async function signUp(api: ApiClient, overrides: Record<string, string> = {}): Promise<SignedUp> {
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const body = {
    workspaceName: `Acme ${randomBytes(3).toString('hex')}`,
    email: `owner-${randomBytes(6).toString('hex')}@example.com`,
    password,
    firstName: 'Ada',
    lastName: 'Lovelace',
    ...overrides,
  };
  for (let attempt = 1; ; attempt += 1) {
    const response = await api.post('/api/auth/signup/', body);
    if (response.status === 201) return { ...response.body, password: body.password };
    if (response.status !== 503 || attempt === 5) throw new Error(`sign-up failed: ${response.status} ${response.text}`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}
