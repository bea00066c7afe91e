import * as grpc from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@crm/observability';
import type { ServiceCallers } from './caller-policy';
import { GrpcClient } from './client';
import { checkHealth } from './health-client';
import type { ImportServiceMethods } from './generated/import.v1';
import { ensureInternalCertificates } from './internal-certificates';
import { loadInternalTls, type InternalTls } from './internal-tls';
import { GrpcServer } from './server';

const PROTO = 'import/v1/import.proto';
const SERVICE = 'import.v1.ImportService';
const logger = createLogger('mutual-tls-test', { level: 'silent' });
const callers: ServiceCallers = {
  gateway: { methods: 'all', actors: ['user', 'api_key'] },
  'import-worker': { methods: ['GetImportJob'], actors: ['system'] },
};

describe('GrpcServer and GrpcClient with internal TLS', () => {
  let root: string;
  let strangerRoot: string;
  let tls: Record<string, InternalTls>;
  let stranger: InternalTls;
  let server: GrpcServer;
  let address: string;
  let healthAddress: string;
  const seen: Array<{ peer?: string; workspaceId: string }> = [];
  const clients: Array<{ close(): void }> = [];

  function client(identity: InternalTls | null, serverIdentity?: string): GrpcClient<ImportServiceMethods> {
    const made = new GrpcClient<ImportServiceMethods>(PROTO, SERVICE, address, identity, serverIdentity);
    clients.push(made);
    return made;
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'crm-mtls-'));
    strangerRoot = mkdtempSync(join(tmpdir(), 'crm-mtls-stranger-'));
    const folders = await ensureInternalCertificates(root, ['import', 'gateway', 'import-worker', 'auth']);
    tls = Object.fromEntries(Object.entries(folders).map(([identity, dir]) => [identity, loadInternalTls(dir)]));
    stranger = loadInternalTls((await ensureInternalCertificates(strangerRoot, ['gateway'])).gateway!);
    server = new GrpcServer({ logger, tls: tls.import! }).addService(
      PROTO,
      SERVICE,
      {
        GetImportJob: async (_request, context) => {
          seen.push({ peer: context.peer, workspaceId: context.workspaceId });
          return {};
        },
        ListImportJobs: async () => ({ jobs: [] }),
      },
      callers,
    );
    const healthPort = await new Promise<number>((resolve, reject) => {
      const probe = new grpc.Server();
      probe.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
        probe.forceShutdown();
        if (error) reject(error);
        else resolve(port);
      });
    });
    healthAddress = `127.0.0.1:${healthPort}`;
    address = `127.0.0.1:${await server.listen('127.0.0.1:0', { healthAddress })}`;
    server.setServing(true);
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await server.shutdown(0);
    rmSync(root, { recursive: true, force: true });
    rmSync(strangerRoot, { recursive: true, force: true });
  });

  const asUser = { workspaceId: 'ws_1', actorId: 'usr_1', actorKind: 'user' as const };

  it('serves a caller whose certificate the table allows, and tells the handler who it is', async () => {
    await expect(client(tls.gateway!).call('GetImportJob', { uid: 'j' }, asUser)).resolves.toBeDefined();
    expect(seen.at(-1)).toEqual({ peer: 'gateway', workspaceId: 'ws_1' });
  });

  it('refuses a plaintext caller whatever metadata it forges', async () => {
    await expect(client(null).call('GetImportJob', { uid: 'j' }, asUser, { timeoutMs: 2000 })).rejects.toMatchObject({
      kind: 'unavailable',
    });
  });

  it('refuses a TLS caller that presents no client certificate', async () => {
    const bare = new grpc.Client(address, grpc.credentials.createSsl(tls.gateway!.ca), { 'grpc.ssl_target_name_override': 'import' });
    clients.push(bare);
    const error = await new Promise<grpc.ServiceError>((resolve) => {
      bare.makeUnaryRequest(
        `/${SERVICE}/GetImportJob`,
        () => Buffer.alloc(0),
        () => ({}),
        {},
        new grpc.Metadata(),
        { deadline: Date.now() + 2000 },
        (err) => resolve(err!),
      );
    });
    expect(error.code).toBe(grpc.status.UNAVAILABLE);
  });

  it('refuses a certificate of another CA', async () => {
    await expect(client(stranger).call('GetImportJob', { uid: 'j' }, asUser, { timeoutMs: 2000 })).rejects.toMatchObject({
      kind: 'unavailable',
    });
  });

  it("refuses a method outside the identity's role, as an internal fault rather than the client's", async () => {
    await expect(
      client(tls['import-worker']!).call('ListImportJobs', {}, { workspaceId: 'ws_1', actorKind: 'system' }),
    ).rejects.toMatchObject({
      kind: 'internal',
      message: 'Internal call refused: import-worker may not call import.v1.ImportService/ListImportJobs.',
    });
  });

  it('refuses an allowed method when the identity claims a caller it may not set', async () => {
    await expect(client(tls['import-worker']!).call('GetImportJob', { uid: 'j' }, asUser)).rejects.toMatchObject({ kind: 'internal' });
    await expect(
      client(tls['import-worker']!).call('GetImportJob', { uid: 'j' }, { workspaceId: 'ws_1', actorKind: 'system' }),
    ).resolves.toBeDefined();
  });

  it('refuses an identity the table does not name', async () => {
    await expect(client(tls.auth!).call('GetImportJob', { uid: 'j' }, asUser)).rejects.toMatchObject({ kind: 'internal' });
  });

  it('accepts only a server whose certificate names the expected service', async () => {
    await expect(client(tls.gateway!, 'records').call('GetImportJob', { uid: 'j' }, asUser, { timeoutMs: 2000 })).rejects.toMatchObject({
      kind: 'unavailable',
    });
  });

  it('answers health over mutual TLS, and in plaintext on the health-only listener where nothing else is served', async () => {
    await expect(checkHealth({ address, tls: tls.gateway!, serverIdentity: 'import' })).resolves.toBe(true);
    await expect(checkHealth(address)).resolves.toBe(false);
    await expect(checkHealth(healthAddress)).resolves.toBe(true);
    const plain = new GrpcClient<ImportServiceMethods>(PROTO, SERVICE, healthAddress, null);
    clients.push(plain);
    await expect(plain.call('GetImportJob', { uid: 'j' }, asUser)).rejects.toMatchObject({
      kind: 'unavailable',
      grpcCode: grpc.status.UNIMPLEMENTED,
    });
  });
});
