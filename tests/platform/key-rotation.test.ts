/**
 * Signing keys rotate with no gap: two auth replicas on one store, each with a gateway of its own,
 * serve a steady stream of authenticated requests with tokens of both replicas while an operator
 * rotates the key; no valid token gets a 401. A key two rotations old is refused.
 */
import { join } from 'node:path';
import { checkHealth } from '@crm/grpc';
import { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { liftRateLimit, operatorCli } from '../support/operator-cli';
import { healthOf } from '../support/internal-tls';
import { freePort, SiblingProcess, waitUntil } from '../support/sibling-process';

let t: TestCluster;
let auth2: SiblingProcess;
let gateway2: SiblingProcess;
let g1: ApiClient;
let g2: ApiClient;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, withWorkers: false });
  const authPort = await freePort();
  auth2 = SiblingProcess.start(t.cluster, 'auth', 'auth-2', { GRPC_PORT: String(authPort) });
  await waitUntil('auth-2 gRPC health', () => checkHealth(healthOf(t.cluster, `127.0.0.1:${authPort}`, 'auth')), 60_000);
  const gatewayPort = await freePort();
  gateway2 = SiblingProcess.start(t.cluster, 'gateway-1', 'gateway-auth-2', {
    CRM_PORT: String(gatewayPort),
    CRM_DATA_DIR: join(t.cluster.dataDir, 'gateway-auth-2'),
    AUTH_GRPC_ADDR: `127.0.0.1:${authPort}`,
  });
  g1 = t.api;
  g2 = new ApiClient(`https://localhost:${gatewayPort}`, t.cluster.ca);
  await waitUntil('the gateway of auth-2', async () => (await g2.get('/readyz')).status === 200, 60_000);
}, 480_000 + CLUSTER_RETRY_MS); // a start that waits out a silent broker (tests/support/cluster.ts) takes up to ~6 minutes

afterAll(async () => {
  await g2?.close();
  await gateway2?.stop();
  await auth2?.stop();
  await t?.stop();
});

const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid as string;
const me = async (gateway: ApiClient, token: string) => (await gateway.get('/api/auth/me/', { token })).status;

async function rotate(): Promise<{ currentKid: string; previousKid: string }> {
  const rotated = await operatorCli(t.cluster, ['rotate-signing-key', '--json']);
  expect(rotated).toMatchObject({ code: 0 });
  return JSON.parse(rotated.stdout);
}

/** Requests with random tokens of the pool through random gateways until stopped; every answer recorded. */
function steadyLoad(pool: string[], workers = 4) {
  const answers: { status: number; kid: string; gateway: number }[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const token = pool[Math.floor(Math.random() * pool.length)]!;
      const gateway = Math.floor(Math.random() * 2);
      answers.push({ status: await me(gateway === 0 ? g1 : g2, token), kid: kidOf(token), gateway });
    }
  });
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

it('rotates while two auth replicas and two gateways serve: no valid token gets a 401', async () => {
  const owner = await signUp(g1);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  const fromAuth2 = await g2.post('/api/auth/login/', { email: owner.user.email, password: owner.password });
  expect(fromAuth2.status).toBe(200);
  const first = [owner.access, fromAuth2.body.access as string];
  for (const token of first) for (const gateway of [g1, g2]) expect(await me(gateway, token)).toBe(200);
  const firstKid = kidOf(owner.access);
  expect(kidOf(fromAuth2.body.access)).toBe(firstKid);

  const pool = [...first];
  const load = steadyLoad(pool);
  await waitUntil('some requests before the rotation', () => load.answers.length >= 20);
  const rotated = await rotate();
  expect(rotated.previousKid).toBe(firstKid);

  // Both replicas sign with the new key at once, and both gateways accept it at once (they have never seen it).
  const login2 = await g2.post('/api/auth/login/', { email: owner.user.email, password: owner.password });
  const refreshed1 = await g1.post('/api/auth/token/refresh/', { refresh: owner.refresh });
  const second = [login2.body.access as string, refreshed1.body.access as string];
  for (const token of second) expect(kidOf(token)).toBe(rotated.currentKid);
  pool.push(...second);
  for (const token of second) for (const gateway of [g1, g2]) expect(await me(gateway, token)).toBe(200);
  const before = load.answers.length;
  await waitUntil('more requests after the rotation', () => load.answers.length >= before + 40);
  await load.stop();

  const refused = load.answers.filter((a) => a.status !== 200);
  console.log(`${load.answers.length} requests across the rotation, ${refused.length} not 200`);
  expect(refused).toEqual([]);
  expect(load.answers.filter((a) => a.kid === rotated.currentKid).length).toBeGreaterThan(0);

  // A second rotation drops the first key: its tokens are refused, the previous key's still serve.
  const again = await rotate();
  expect(again.previousKid).toBe(rotated.currentKid);
  const latest = await g1.post('/api/auth/login/', { email: owner.user.email, password: owner.password });
  expect(kidOf(latest.body.access)).toBe(again.currentKid);
  for (const gateway of [g1, g2]) {
    expect(await me(gateway, latest.body.access)).toBe(200);
    for (const token of second) expect(await me(gateway, token)).toBe(200);
    for (const token of first) expect(await me(gateway, token)).toBe(401);
  }
}, 120_000);

it('refuses rotation without the operator token', async () => {
  const denied = await operatorCli({ ...t.cluster, operatorToken: 'not-the-operator-token-at-all' }, ['rotate-signing-key']);
  expect(denied.code).not.toBe(0);
  expect(denied.stderr).toMatch(/operator token/i);
});
