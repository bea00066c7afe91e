/**
 * The container runner's kubelet stand-in (scripts/kubelet-probes.js) against a real HTTP listener
 * and a stand-in container: readiness follows the readiness probe's thresholds, a liveness probe
 * failing failureThreshold times in a row restarts the container with the pod's grace, and a
 * container stopped by someone else is not ready again until it is probed in its new run.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PodProber } = require('../../scripts/kubelet-probes.js');

class StandInContainer {
  name = 'gateway-1';
  running = true;
  exits = 0;
  stops: Array<[string, number]> = [];
  async stop(signal: string, graceMs: number) {
    this.stops.push([signal, graceMs]);
    this.running = false;
    this.exits += 1;
  }
  start() {
    this.running = true;
  }
}

const probe = (path: string, overrides: Record<string, number> = {}) => ({
  type: 'httpGet',
  port: 'api',
  path,
  scheme: 'HTTP',
  periodSeconds: 0.05,
  timeoutSeconds: 0.5,
  failureThreshold: 3,
  successThreshold: 1,
  initialDelaySeconds: 0,
  ...overrides,
});

let server: Server;
let healthy = true;
let ready = true;
let port = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const ok = req.url === '/healthz' ? healthy : ready;
    res.writeHead(ok ? 200 : 503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const until = async (what: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

function prober(container: StandInContainer) {
  const pod = {
    terminationGraceMs: 30_000,
    probes: { startup: probe('/healthz'), readiness: probe('/readyz', { failureThreshold: 2 }), liveness: probe('/healthz') },
  };
  return new PodProber({ pod, proc: container, host: '127.0.0.1', portOf: () => port });
}

test('readiness follows its probe, and a failing liveness probe restarts the container with the pod’s grace', async () => {
  healthy = true;
  ready = true;
  const container = new StandInContainer();
  const p = prober(container);
  p.start();
  await p.waitReady(5_000);
  ready = false;
  await until(() => !p.isReady);
  ready = true;
  await until(() => p.isReady);
  healthy = false;
  await until(() => p.restarts === 1);
  expect(container.stops).toEqual([['SIGTERM', 30_000]]);
  expect(p.events).toEqual(['liveness failed 3 times: restarted']);
  healthy = true;
  await p.waitReady(5_000);
  p.stopped = true;
});

test('a container someone else stopped and started is not ready until probed in its new run', async () => {
  healthy = true;
  ready = true;
  const container = new StandInContainer();
  const p = prober(container);
  p.start();
  await p.waitReady(5_000);
  ready = false;
  await container.stop('SIGTERM', 10_000);
  container.start();
  expect(p.isReady).toBe(false);
  await expect(p.waitReady(300)).rejects.toThrow(/not ready within 300 ms/);
  ready = true;
  await p.waitReady(5_000);
  expect(p.restarts).toBe(0);
  p.stopped = true;
});
