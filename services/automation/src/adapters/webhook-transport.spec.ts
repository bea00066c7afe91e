import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookTransport } from './webhook-transport';

describe('webhookTransport', () => {
  let server: http.Server;
  let port: number;
  const received: string[] = [];
  let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end('ok');

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      received.push(req.url ?? '');
      answer(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    received.length = 0;
    answer = (_req, res) => res.end('ok');
  });

  const allowed = webhookTransport({ allowPrivate: true, timeoutMs: 500, maxResponseBytes: 16 });

  it('posts the body and reports a 2xx with the answer', async () => {
    const result = await allowed.post(`http://127.0.0.1:${port}/hook`, '{}', { 'x-crm-event-id': 'evt_1' });
    expect(result).toMatchObject({ status: 200, error: null, excerpt: 'ok' });
  });

  it('connects to the address its own lookup vetted, not to what the system resolver would say', async () => {
    // `receiver.invalid` resolves nowhere for the system; the transport's resolver is the only way there.
    const pinned = webhookTransport({
      allowPrivate: true,
      timeoutMs: 500,
      maxResponseBytes: 16,
      resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
    });
    const result = await pinned.post(`http://receiver.invalid:${port}/pinned`, '{}', {});
    expect(result).toMatchObject({ status: 200, error: null });
    expect(received).toEqual(['/pinned']);
  });

  it('never connects when a name resolves to a private address, even though it would answer', async () => {
    // A rebinding DNS server: the name resolves to loopback, where our receiver listens.
    const guarded = webhookTransport({
      allowPrivate: false,
      timeoutMs: 500,
      maxResponseBytes: 16,
      resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
    });
    const result = await guarded.post(`https://rebind.example.com:${port}/hook`, '{}', {});
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/Refused target: rebind\.example\.com resolves to 127\.0\.0\.1 is a loopback address/);
    expect(received).toEqual([]);
  });

  it('refuses the whole answer when any resolved address is unsafe', async () => {
    const guarded = webhookTransport({
      allowPrivate: false,
      timeoutMs: 500,
      maxResponseBytes: 16,
      resolve: () =>
        Promise.resolve([
          { address: '93.184.216.34', family: 4 },
          { address: '::ffff:169.254.169.254', family: 6 },
        ]),
    });
    const result = await guarded.post('https://mixed.example.com/hook', '{}', {});
    expect(result.error).toMatch(/169\.254\.169\.254 is a linkLocal address/);
  });

  it('refuses an unsafe literal without resolving', async () => {
    const guarded = webhookTransport({ allowPrivate: false, timeoutMs: 500, maxResponseBytes: 16 });
    const result = await guarded.post(`https://[::ffff:127.0.0.1]:${port}/`, '{}', {});
    expect(result.error).toMatch(/loopback/);
    expect(received).toEqual([]);
  });

  it('does not follow a redirect: a 3xx is a failed delivery', async () => {
    answer = (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` }).end();
    const result = await allowed.post(`http://127.0.0.1:${port}/hook`, '{}', {});
    expect(result).toMatchObject({ status: 302, error: 'The receiver answered 302.' });
    expect(received).toEqual(['/hook']);
  });

  it('gives up after the timeout', async () => {
    answer = () => undefined;
    const result = await allowed.post(`http://127.0.0.1:${port}/slow`, '{}', {});
    expect(result).toMatchObject({ status: null, error: 'No answer within 500 ms.' });
  });

  it('reads the answer only up to the cap', async () => {
    answer = (_req, res) => res.end('x'.repeat(100_000));
    const result = await allowed.post(`http://127.0.0.1:${port}/big`, '{}', {});
    expect(result.excerpt).toBe('x'.repeat(16));
  });
});
