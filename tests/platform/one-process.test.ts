/**
 * `npm start` as a laptop runs it: two instances side by side, each with its own CRM_PORT and
 * CRM_DATA_DIR, each listening on nothing but its HTTPS port (and its metrics port, on loopback);
 * the services behind each talk over Unix sockets only their user can reach.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ApiClient } from '../support/api-client';
import { listeningSockets } from '../support/listening-sockets';
import { npmStart, type RunningNpmStart } from '../support/npm-start';

const run = promisify(execFile);
// The runner is plain JavaScript; the test reuses its free-port finder.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { freePort } = require('../../scripts/cluster-support.js') as { freePort(): Promise<number> };
const ROOT = path.resolve(__dirname, '../..');

interface Instance {
  port: number;
  metricsPort: number | 'off';
  dataDir: string;
  npm: RunningNpmStart;
  api: ApiClient;
}

const instances: Instance[] = [];

function plainEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...extra };
  for (const name of ['REDIS_URL', 'AMQP_URL', 'MONGO_URL', 'AUTH_GRPC_ADDR', 'CRM_HOST']) delete env[name];
  return env;
}

async function startInstance(metrics: 'free' | 'off'): Promise<Instance> {
  const port = await freePort();
  const metricsPort: number | 'off' = metrics === 'free' ? await freePort() : 'off';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-one-process-'));
  const npm = await npmStart(ROOT, plainEnv({ CRM_PORT: String(port), CRM_DATA_DIR: dataDir, METRICS_PORT: String(metricsPort) }), port);
  const instance = {
    port,
    metricsPort,
    dataDir,
    npm,
    api: new ApiClient(`https://localhost:${port}`, fs.readFileSync(path.join(dataDir, 'tls/localhost.crt'), 'utf8')),
  };
  instances.push(instance);
  return instance;
}

async function demoLogin(instance: Instance): Promise<string> {
  const demo = JSON.parse(fs.readFileSync(path.join(instance.dataDir, 'demo-credentials.json'), 'utf8'));
  const login = await instance.api.post('/api/auth/login/', { email: demo.email, password: demo.password });
  expect(login.status).toBe(200);
  return login.body.access as string;
}

beforeAll(async () => {
  // One after the other: the second starts while the first holds its ports.
  await startInstance('free');
  await startInstance('off');
}, 330_000);

afterAll(async () => {
  for (const instance of instances) {
    await instance.api.close();
    await instance.npm.stop();
    fs.rmSync(instance.dataDir, { recursive: true, force: true });
  }
}, 60_000);

describe('two npm start on one machine', () => {
  it('both serve their own workspace', async () => {
    const [first, second] = instances as [Instance, Instance];
    const [a, b] = [await demoLogin(first), await demoLogin(second)];
    const meA = await first.api.get('/api/auth/me/', { token: a });
    const meB = await second.api.get('/api/auth/me/', { token: b });
    expect(meA.status).toBe(200);
    expect(meB.status).toBe(200);
    expect(meA.body.workspaceId).not.toBe(meB.body.workspaceId);
    // A token of one instance means nothing to the other (each made its own signing key).
    expect((await second.api.get('/api/auth/me/', { token: a })).status).toBe(401);
  });

  it('listen on their HTTPS port and their metrics port on loopback, and on nothing else', () => {
    const [first, second] = instances as [Instance, Instance];
    expect(listeningSockets(first.npm.nodePid())).toEqual(
      [
        { address: '127.0.0.1', port: first.metricsPort },
        { address: '0.0.0.0', port: first.port },
      ].sort((x, y) => (x.port as number) - (y.port as number)),
    );
    expect(listeningSockets(second.npm.nodePid())).toEqual([{ address: '0.0.0.0', port: second.port }]);
  });

  it('keep their services behind Unix sockets that only their user can reach', () => {
    for (const instance of instances) {
      const address = fs.readFileSync(path.join(instance.dataDir, 'auth-address'), 'utf8').trim();
      expect(address).toMatch(/^unix:\//);
      const folder = path.dirname(address.slice('unix:'.length));
      expect(fs.statSync(folder).mode & 0o077).toBe(0);
    }
  });

  it('each answer the operator CLI pointed at their data folder', async () => {
    for (const instance of instances) {
      const { stdout } = await run('npm', ['run', '--silent', 'crm', '--', 'list-workspaces', '--json'], {
        cwd: ROOT,
        env: plainEnv({ CRM_DATA_DIR: instance.dataDir }),
      });
      const demo = JSON.parse(fs.readFileSync(path.join(instance.dataDir, 'demo-credentials.json'), 'utf8'));
      expect(JSON.parse(stdout).map((w: { id: string }) => w.id)).toEqual([demo.workspaceId]);
    }
  });

  it('changes a plan of one instance with the CLI and its very next request carries the new limit', async () => {
    const first = instances[0]!;
    const token = await demoLogin(first);
    const demo = JSON.parse(fs.readFileSync(path.join(first.dataDir, 'demo-credentials.json'), 'utf8'));
    expect((await first.api.get('/api/auth/me/', { token })).headers['x-ratelimit-limit']).toBe('300'); // growth
    await run('npm', ['run', '--silent', 'crm', '--', 'change-plan', '--workspace', demo.workspaceId, '--plan', 'business'], {
      cwd: ROOT,
      env: plainEnv({ CRM_DATA_DIR: first.dataDir }),
    });
    expect((await first.api.get('/api/auth/me/', { token })).headers['x-ratelimit-limit']).toBe('600');
  });
});
