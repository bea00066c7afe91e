/**
 * A reverse proxy standing in for the chart's ingress: it takes plain HTTP, re-encrypts to one
 * gateway and appends the address it was reached from to X-Forwarded-For, as ingress-nginx does.
 * It connects from 127.0.0.1, so a gateway started with TRUSTED_PROXIES=127.0.0.1/32 trusts it;
 * clients reach it from other loopback addresses (ApiClient's localAddress) to be told apart.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { Agent, request } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface ForwardingProxy {
  url: string;
  close(): Promise<void>;
}

export async function startForwardingProxy(target: string, ca: string): Promise<ForwardingProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ ca, keepAlive: true, localAddress: '127.0.0.1' });
  const server = createServer((req, res) => {
    const peer = req.socket.remoteAddress ?? '';
    const prior = req.headers['x-forwarded-for'];
    const headers: IncomingHttpHeaders = {
      ...req.headers,
      host: upstream.host,
      'x-forwarded-for': prior ? `${String(prior)}, ${peer}` : peer,
      'x-forwarded-proto': 'https',
    };
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, servername: upstream.hostname, method: req.method, path: req.url, headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
