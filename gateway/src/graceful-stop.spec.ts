import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@crm/observability';
import { LocalInvalidationChannel } from '@crm/rate-limit';
import { metricsRegistry } from '@crm/telemetry';
import { Agent, request } from 'undici';
import { gatewayConfig } from './config';
import { MemoryIdempotencyStore } from './idempotency/memory-idempotency-store';
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

it('at stop, waits for a keyed request whose client hung up and keeps its answer for the retry', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'crm-gateway-stop-'));
  const auth = new FakeAuthService();
  auth.createApiKeyDelayMs = 800;
  const authPort = await auth.start();
  const store = new MemoryIdempotencyStore();
  const gateway = await startGateway(
    gatewayConfig({ CRM_HOST: '127.0.0.1', CRM_PORT: 0, CRM_DATA_DIR: dataDir, AUTH_GRPC_ADDR: `127.0.0.1:${authPort}` }),
    { logger: silent, rateLimitCounter: new MemoryCounter(), invalidation: new LocalInvalidationChannel(silent), idempotencyStore: store },
  );
  try {
    const hangUp = new AbortController();
    const hungUp = request(`${gateway.url}/api/settings/api-keys/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${auth.accessToken()}`, 'content-type': 'application/json', 'idempotency-key': 'stop-1' },
      body: JSON.stringify({ name: 'at stop' }),
      dispatcher: new Agent({ connect: { rejectUnauthorized: false } }),
      signal: hangUp.signal,
    });
    // The client hangs up once the request is under way at auth (its key claimed), however long the
    // gateway took to get there: a fixed timeout could fire before a loaded machine claimed it.
    for (let turn = 0; !auth.calls.includes('CreateApiKey') && turn < 500; turn++) await new Promise((r) => setTimeout(r, 10));
    expect(auth.calls).toContain('CreateApiKey');
    hangUp.abort();
    await expect(hungUp).rejects.toThrow();
    await gateway.stop(); // its only connection is gone: only the claim is left to wait for
    const entry = await store.claim(`ws_main:${createHash('sha256').update('stop-1').digest('hex')}`, 'probe', 1_000);
    // Settled: an API key creation carries a one-time secret, so what is kept is the 409 standing for it.
    expect(entry).toMatchObject({ state: 'done', answer: { status: 409 } });
    expect(auth.apiKeys.size).toBe(1);
  } finally {
    await auth.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('exports whether it counts rate limits in memory, as while Redis is unreachable', async () => {
  const text = await metricsRegistry.metrics();
  // The MemoryCounter of the test above counts locally.
  expect(text.split('\n')).toContain('rate_limit_local_counting 1');
});
