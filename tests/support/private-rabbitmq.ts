import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect } from 'amqplib';

/** Debian's package puts the real start script here; /usr/sbin/rabbitmq-server would switch to the rabbitmq user. */
const SERVER_SCRIPT = '/usr/lib/rabbitmq/bin/rabbitmq-server';
const START_TIMEOUT_MS = 60_000;

/** Why a broker of the test's own cannot run on this machine, or undefined when it can. */
export function privateRabbitMqUnavailable(): string | undefined {
  return existsSync(SERVER_SCRIPT) ? undefined : `${SERVER_SCRIPT} is missing (it comes with the rabbitmq-server package)`;
}

async function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as { port: number };
      server.close(() => resolve(address.port));
    });
  });
}

/**
 * A RabbitMQ node of the test's own: its own node name, ports and data directory, so a test can
 * kill and restart it without touching the machine's shared broker. Its data directory survives a
 * restart, as a real broker's disk would; `stop()` removes it.
 */
export class PrivateRabbitMq {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly distPort: number,
    private readonly dir: string,
    private readonly nodeName: string,
  ) {}

  static async start(): Promise<PrivateRabbitMq> {
    const broker = await PrivateRabbitMq.notStarted();
    await broker.resume();
    return broker;
  }

  /** A node with its ports and data directory chosen but not running yet (`resume()` starts it): for a process started before its broker. */
  static async notStarted(): Promise<PrivateRabbitMq> {
    const unavailable = privateRabbitMqUnavailable();
    if (unavailable) throw new Error(unavailable);
    const dir = mkdtempSync(join(tmpdir(), 'crm-rabbitmq-'));
    writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
    return new PrivateRabbitMq(await freePort(), await freePort(), dir, `crmtest${randomBytes(4).toString('hex')}@localhost`);
  }

  get url(): string {
    return `amqp://guest:guest@127.0.0.1:${this.port}`;
  }

  /** Starts (or restarts) the node on the same ports and data, and waits until it completes an AMQP handshake. */
  async resume(): Promise<void> {
    const dir = this.dir;
    this.child = spawn(SERVER_SCRIPT, [], {
      cwd: dir,
      detached: true, // its own process group, so a kill reaches beam.smp and not just the script
      stdio: 'ignore',
      env: {
        ...process.env,
        HOME: dir,
        RABBITMQ_NODENAME: this.nodeName,
        RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
        RABBITMQ_NODE_PORT: String(this.port),
        RABBITMQ_DIST_PORT: String(this.distPort),
        RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
        RABBITMQ_LOG_BASE: join(dir, 'log'),
        RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
        RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq'),
        RABBITMQ_ADVANCED_CONFIG_FILE: join(dir, 'advanced.config'),
        RABBITMQ_PID_FILE: join(dir, 'rabbitmq.pid'),
      },
    });
    const child = this.child;
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await this.answers())) {
      if (child.exitCode !== null) throw new Error(`the private RabbitMQ node exited with ${child.exitCode}; see ${dir}/log`);
      if (Date.now() > deadline) throw new Error(`the private RabbitMQ node on port ${this.port} did not answer; see ${dir}/log`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Kills the node at once (SIGKILL to its process group), as a crash or a lost machine would. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await exited;
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async answers(): Promise<boolean> {
    try {
      const connection = await connect(this.url, { timeout: 1000 });
      await connection.close();
      return true;
    } catch {
      return false;
    }
  }
}
