import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { continueWhenBodyIsRead } from './expect-continue';

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/refuse') {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"no"}');
      return;
    }
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => res.end(String(bytes)));
  });
  continueWhenBodyIsRead(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends headers with `Expect: 100-continue` and the body only once a 100 arrives, as curl does. */
function postExpecting(path: string, body: Buffer): Promise<{ continued: boolean; status: number; text: string; connection?: string }> {
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = request({
      port,
      host: '127.0.0.1',
      path,
      method: 'POST',
      headers: { expect: '100-continue', 'content-length': body.length },
    });
    req.on('continue', () => {
      continued = true;
      req.end(body);
    });
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ continued, status: res.statusCode ?? 0, text, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

describe('continueWhenBodyIsRead', () => {
  it('sends 100 Continue once the handler reads the body, and the body arrives whole', async () => {
    const answer = await postExpecting('/read', Buffer.alloc(300_000, 'x'));
    expect(answer).toMatchObject({ continued: true, status: 200, text: '300000' });
  });

  it('answers a request refused from its headers without a 100, and closes that connection', async () => {
    const answer = await postExpecting('/refuse', Buffer.alloc(300_000, 'x'));
    expect(answer).toEqual({ continued: false, status: 401, text: '{"detail":"no"}', connection: 'close' });
  });
});
