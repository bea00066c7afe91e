/**
 * One more replica of a cluster process, started by the test with that process's command and
 * environment (plus overrides): a second records replica on the same store, a gateway in front of
 * it, a worker on a known health port. The test owns it and stops it by its pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { LocalCluster } from './cluster';

const ROOT = join(__dirname, '../..');
const TELEMETRY = join(ROOT, 'libs/telemetry/dist/register.js');

interface ClusterProcess {
  args?: string[];
  env?: Record<string, string>;
  nodeArgs?: string[];
}

export class SiblingProcess {
  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly logFile: string,
    readonly exited: Promise<void>,
  ) {}

  /** Starts `name` as a copy of the cluster's process `like`, with `env` over its environment. */
  static start(cluster: LocalCluster, like: string, name: string, env: Record<string, string>): SiblingProcess {
    const original = cluster.processes.get(like) as ClusterProcess | undefined;
    if (!original?.args || !original.env) throw new Error(`the cluster has no local process ${like} to copy (local-process clusters only)`);
    const logFile = join(cluster.dataDir, 'logs', `${name}.log`);
    const log = openSync(logFile, 'a');
    const child = spawn(process.execPath, [...(original.nodeArgs ?? []), '--require', TELEMETRY, ...original.args], {
      cwd: ROOT,
      env: { ...process.env, ...original.env, ...env },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return new SiblingProcess(name, child, logFile, exited);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `signal` to this process (by its pid) and waits for it to end. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.running) return;
    this.child.kill(signal);
    await this.exited;
  }

  tail(lines = 30): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }
}

/** Polls `check` every 100 ms until it holds; fails after `timeoutMs` with `description`. */
export async function waitUntil(description: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await Promise.resolve(check()).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
