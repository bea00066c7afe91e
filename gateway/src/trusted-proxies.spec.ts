import { request } from 'node:http';
import { createLogger } from '@crm/observability';
import { LocalInvalidationChannel } from '@crm/rate-limit';
import { gatewayConfig, gatewayConfigSchema, type GatewayConfig } from './config';
import { startGateway, type RunningGateway } from './index';
import { MemoryCounter } from './testing/memory-counter';

const silent = createLogger('gateway-test', { level: 'silent' });

/** A gateway behind a TLS-terminating ingress, with a login budget of 2 per address. */
async function gatewayBehindIngress(overrides: Partial<GatewayConfig>): Promise<RunningGateway> {
  return startGateway(
    gatewayConfig({ CRM_HOST: '127.0.0.1', CRM_PORT: 0, TLS_TERMINATED_UPSTREAM: true, AUTH_GRPC_ADDR: '127.0.0.1:1', ...overrides }),
    {
      logger: silent,
      rateLimitCounter: new MemoryCounter(),
      invalidation: new LocalInvalidationChannel(silent),
      budgets: { anonymousPerMinute: 1000, sessionPerAddressPerMinute: 2, loginPerEmailPerMinute: 2 },
      checkReadiness: async () => true,
    },
  );
}

/** The refresh's status and X-RateLimit-Remaining, sent from 127.0.0.1 with the X-Forwarded-For given. */
function refresh(gateway: RunningGateway, forwardedFor: string): Promise<{ status: number; remaining: string | undefined }> {
  const url = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/api/auth/token/refresh/',
        localAddress: '127.0.0.1',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-for': forwardedFor },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, remaining: res.headers['x-ratelimit-remaining'] as string | undefined }));
      },
    );
    req.on('error', reject);
    req.end('{"refresh":"x"}');
  });
}

describe('TRUSTED_PROXIES', () => {
  it('reads comma-separated addresses and CIDR ranges, and refuses anything else', () => {
    expect(
      gatewayConfigSchema.parse({ INTERNAL_TLS: 'off', TRUSTED_PROXIES: ' 10.0.0.0/8, 192.168.1.7,fd00::/8 ' }).TRUSTED_PROXIES,
    ).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8']);
    expect(gatewayConfigSchema.parse({ INTERNAL_TLS: 'off' }).TRUSTED_PROXIES).toEqual([]);
    for (const bad of ['10.0.0.0/33', 'loopback', '10.0.0.0/8/1', 'ingress.local'])
      expect(gatewayConfigSchema.safeParse({ INTERNAL_TLS: 'off', TRUSTED_PROXIES: bad }).success).toBe(false);
  });

  it('ignores X-Forwarded-For from a peer it does not name, even with TLS ending at the ingress', async () => {
    const gateway = await gatewayBehindIngress({});
    try {
      const answers = [await refresh(gateway, '203.0.113.1'), await refresh(gateway, '203.0.113.2'), await refresh(gateway, '203.0.113.3')];
      expect(answers.map((a) => a.status)).toEqual([503, 503, 429]);
    } finally {
      await gateway.stop();
    }
  });

  it("counts a named proxy's clients apart by the address the proxy appended", async () => {
    const gateway = await gatewayBehindIngress({ TRUSTED_PROXIES: ['127.0.0.0/8'] });
    try {
      const answers = [
        await refresh(gateway, '203.0.113.1'),
        await refresh(gateway, '203.0.113.1'),
        await refresh(gateway, '203.0.113.2'),
        await refresh(gateway, '198.51.100.9, 203.0.113.2'),
      ];
      expect(answers.map((a) => a.remaining)).toEqual(['1', '0', '1', '0']);
    } finally {
      await gateway.stop();
    }
  });
});
