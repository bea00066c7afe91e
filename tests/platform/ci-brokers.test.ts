/**
 * CI's broker check (.ci/brokers.sh) against a RabbitMQ that accepts connections and never answers
 * (a wedged broker): it must leave that broker alone, since CI did not start it, and go on with a
 * RabbitMQ node of its own that answers, stopped again when CI's shell exits.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { privateRabbitMqUnavailable } from '../support/private-rabbitmq';

const ROOT = path.resolve(__dirname, '../..');
const unavailable = privateRabbitMqUnavailable();
if (unavailable) console.warn(`ci-brokers test skipped: ${unavailable}`);
const maybe = unavailable ? it.skip : it;

maybe(
  "leaves a wedged broker it did not start alone and runs on a RabbitMQ of CI's own",
  async () => {
    const accepted = new Set<net.Socket>();
    const wedged = net.createServer((socket) => accepted.add(socket)); // accepts, answers nothing
    await new Promise<void>((resolve) => wedged.listen(0, '127.0.0.1', resolve));
    try {
      const port = (wedged.address() as net.AddressInfo).port;
      let output = '';
      const exitCode = await new Promise<number | null>((resolve) => {
        const shell = spawn(
          'bash',
          [
            '-c',
            // What .ci/run does, then a handshake with the broker it ended on, from the same shell.
            'set -euo pipefail; source .ci/brokers.sh; ensure_brokers_answer; echo "ended on $AMQP_URL"; node scripts/check-brokers.js && echo "handshake ok"',
          ],
          { cwd: ROOT, env: { ...process.env, AMQP_URL: `amqp://guest:guest@127.0.0.1:${port}` }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        shell.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        shell.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const deadline = setTimeout(() => {
          output += '\n[the test stopped the shell after 420 s]';
          shell.kill('SIGKILL');
        }, 420_000);
        shell.on('exit', (code) => {
          clearTimeout(deadline);
          resolve(code);
        });
      });
      // On a failure the shell's own words say which step gave up.
      expect({ exitCode, output: exitCode === 0 ? '' : output }).toEqual({ exitCode: 0, output: '' });
      expect(output).toContain("running on a RabbitMQ of CI's own");
      const endedOn = /ended on amqp:\/\/guest:guest@127\.0\.0\.1:(\d+)/.exec(output);
      expect(Number(endedOn?.[1])).not.toBe(port);
      expect(output).toContain('handshake ok');
      expect(wedged.listening).toBe(true); // the broker CI did not start is still there
      // The node of CI's own went with the shell that started it.
      const ownPort = Number(endedOn![1]);
      const stillUp = await new Promise<boolean>((resolve) => {
        const probe = net.connect({ host: '127.0.0.1', port: ownPort }, () => {
          probe.destroy();
          resolve(true);
        });
        probe.on('error', () => resolve(false));
      });
      expect(stillUp).toBe(false);
    } finally {
      // Nothing reads these sockets, so they never see their peer leave: close them, or close() waits
      // forever (and a failed assertion above would leave jest running after the suite).
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => wedged.close(resolve));
    }
  },
  480_000,
);
