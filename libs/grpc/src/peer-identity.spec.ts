import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { createLogger } from '@crm/observability';
import { GrpcClient } from './client';
import type { ImportServiceMethods } from './generated/import.v1';
import { ensureInternalCertificates } from './internal-certificates';
import { loadInternalTls, type InternalTls } from './internal-tls';
import { GrpcServer } from './server';

const PROTO = 'import/v1/import.proto';
const SERVICE = 'import.v1.ImportService';

describe('the peer identity of a gRPC call', () => {
  let root: string;
  let tls: Record<string, InternalTls>;
  let server: GrpcServer;
  let address: string;
  const peers: Array<string | undefined> = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'crm-peer-'));
    const folders = await ensureInternalCertificates(root, ['import', 'gateway', 'import-worker']);
    tls = Object.fromEntries(Object.entries(folders).map(([identity, dir]) => [identity, loadInternalTls(dir)]));
    server = new GrpcServer({ logger: createLogger('peer-test', { level: 'silent' }), tls: tls.import! }).addService(
      PROTO,
      SERVICE,
      {
        GetImportJob: async (_request, context) => {
          peers.push(context.peer);
          return {};
        },
      },
      { gateway: { methods: 'all', actors: ['system'] }, 'import-worker': { methods: 'all', actors: ['system'] } },
    );
    address = `127.0.0.1:${await server.listen('127.0.0.1:0')}`;
  });

  afterAll(async () => {
    await server.shutdown(0);
    rmSync(root, { recursive: true, force: true });
  });

  it('is read from the certificate once per connection, and each connection has its own', async () => {
    const readCertificate = jest.spyOn(TLSSocket.prototype, 'getPeerCertificate');
    const gateway = new GrpcClient<ImportServiceMethods>(PROTO, SERVICE, address, tls.gateway!);
    const worker = new GrpcClient<ImportServiceMethods>(PROTO, SERVICE, address, tls['import-worker']!);
    try {
      await gateway.call('GetImportJob', { uid: 'j' });
      await worker.call('GetImportJob', { uid: 'j' });
      const afterFirstCalls = readCertificate.mock.calls.length;
      for (let i = 0; i < 5; i += 1) {
        await gateway.call('GetImportJob', { uid: 'j' });
        await worker.call('GetImportJob', { uid: 'j' });
      }
      expect(readCertificate.mock.calls.length).toBe(afterFirstCalls);
      expect(peers).toEqual(Array.from({ length: 6 }, () => ['gateway', 'import-worker']).flat());
    } finally {
      gateway.close();
      worker.close();
      readCertificate.mockRestore();
    }
  });
});
