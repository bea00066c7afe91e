import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@crm/observability';
import { LocalInvalidationChannel } from '@crm/rate-limit';
import { metricsRegistry } from '@crm/telemetry';
import { gatewayConfig } from './config';
import { startGateway } from './index';
import { FakeAuthService } from './testing/fake-auth-service';
import { HttpsClient } from './testing/https-client';
import { MemoryCounter } from './testing/memory-counter';

const silent = createLogger('gateway-test', { level: 'silent' });

it('at stop, fails /readyz and keeps serving for drainDelayMs, then closes its listener', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'crm-gateway-stop-'));
  const auth = new FakeAuthService();
  const authPort = await auth.start();
  const gateway = await startGateway(
    gatewayConfig({ CRM_HOST: '127.0.0.1', CRM_PORT: 0, CRM_DATA_DIR: dataDir, AUTH_GRPC_ADDR: `127.0.0.1:${authPort}` }),
    { logger: silent, rateLimitCounter: new MemoryCounter(), invalidation: new LocalInvalidationChannel(silent), drainDelayMs: 1500 },
  );
  const client = new HttpsClient(gateway.url);
  try {
    expect((await client.send('GET', '/readyz')).status).toBe(200);
    const stopped = gateway.stop();
    const during = await Promise.all([client.send('GET', '/readyz'), client.send('GET', '/healthz')]);
    expect(during.map((r) => r.status)).toEqual([503, 200]);
    expect(during[0].body).toEqual({ detail: expect.stringMatching(/shutting down/i) });
    await stopped;
    await expect(client.send('GET', '/healthz')).rejects.toThrow();
  } finally {
    await client.close();
    await auth.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('exports whether it counts rate limits in memory, as while Redis is unreachable', async () => {
  const text = await metricsRegistry.metrics();
  // The MemoryCounter of the test above counts locally.
  expect(text.split('\n')).toContain('rate_limit_local_counting 1');
});
