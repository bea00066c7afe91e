import { createServer, type Server, type Socket } from 'node:net';
import { createLogger } from '@crm/observability';
import { AmqpBus } from './amqp-bus';

/** A "broker" that accepts connections and never answers: the start must fail in time, not hang. */
describe('AmqpBus start against a broker that never answers', () => {
  let server: Server;
  let port: number;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('fails the attempt after startTimeoutMs, naming the wait', async () => {
    const started = Date.now();
    const opening = AmqpBus.open(
      { url: `amqp://guest:guest@127.0.0.1:${port}`, startTimeoutMs: 700 },
      createLogger('bus-spec', { level: 'silent' }),
    );
    await expect(opening).rejects.toThrow(/connection and set-up took longer than 0.7 s/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(sockets.length).toBeGreaterThan(0); // it did reach the listener
  });
});
