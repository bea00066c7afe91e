import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';

/**
 * A Redis server of the test's own on a free port, so a test can stop and restart it without
 * touching the machine's shared Redis. Needs the redis-server binary (installed with Redis).
 */
export class PrivateRedis {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address() as { port: number };
        server.close(() => resolve(address.port));
      });
    });
    const redis = new PrivateRedis(port);
    await redis.resume();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (or restarts) the server on the same port and waits until it answers PING. */
  async resume(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const spawned = await new Promise<boolean>((resolve) => {
      this.child!.once('spawn', () => resolve(true));
      this.child!.once('error', () => resolve(false));
    });
    if (!spawned) throw new Error('redis-server is not installed on this machine (it comes with the Redis package).');
    const deadline = Date.now() + 10_000;
    while (!(await this.ping())) {
      if (Date.now() > deadline) throw new Error(`private redis-server on port ${this.port} did not answer`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Kills the server at once, as a crash would. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  private ping(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect(this.port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.setTimeout(500, () => {
        socket.destroy();
        resolve(false);
      });
      socket.on('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.on('error', () => resolve(false));
    });
  }
}
