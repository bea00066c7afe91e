import { createLogger } from '@crm/observability';
import { checkHealth } from './health-client';
import { GrpcServer, LIVENESS_SERVICE } from './server';

const logger = createLogger('readiness-test', { level: 'silent' });

async function healthBecomes(address: string, serving: boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await checkHealth(address)) !== serving) {
    if (Date.now() > deadline) throw new Error(`health never became ${serving ? 'SERVING' : 'NOT_SERVING'}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('GrpcServer.serveWhileReady', () => {
  let server: GrpcServer;
  let address: string;

  beforeEach(async () => {
    server = new GrpcServer({ logger, tls: null });
    address = `127.0.0.1:${await server.listen('127.0.0.1:0')}`;
  });
  afterEach(() => server.shutdown(0));

  it('serves only while every dependency answers, and comes back by itself', async () => {
    let brokerUp = true;
    await server.serveWhileReady(
      [
        { name: 'store', ready: async () => true },
        { name: 'broker', ready: async () => brokerUp },
      ],
      20,
    );
    await expect(checkHealth(address)).resolves.toBe(true);
    brokerUp = false;
    await healthBecomes(address, false);
    brokerUp = true;
    await healthBecomes(address, true);
  });

  it('answers the liveness service while not ready and while draining, as long as the process runs', async () => {
    let storeUp = false;
    await server.serveWhileReady([{ name: 'store', ready: async () => storeUp }], 20);
    await expect(checkHealth(address)).resolves.toBe(false);
    await expect(checkHealth(address, LIVENESS_SERVICE)).resolves.toBe(true);
    storeUp = true;
    await healthBecomes(address, true);
    server.setServing(false); // draining
    await expect(checkHealth(address)).resolves.toBe(false);
    await expect(checkHealth(address, LIVENESS_SERVICE)).resolves.toBe(true);
  });

  it('counts a check that fails as not ready', async () => {
    await server.serveWhileReady([{ name: 'store', ready: () => Promise.reject(new Error('gone')) }], 20);
    await expect(checkHealth(address)).resolves.toBe(false);
  });

  it('stops following its dependencies once shut down', async () => {
    await server.serveWhileReady([{ name: 'store', ready: async () => true }], 20);
    await server.shutdown(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(checkHealth(address, '', 300)).resolves.toBe(false);
  });
});
