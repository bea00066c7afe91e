import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@crm/observability';
import type { ServiceCallers } from './caller-policy';
import { clientChannelOptions, DNS_MIN_RESOLUTION_INTERVAL_MS, GrpcClient, loadBalancingFor } from './client';
import type { ImportServiceMethods } from './generated/import.v1';
import { ensureInternalCertificates } from './internal-certificates';
import { loadInternalTls, type InternalTls } from './internal-tls';
import { GrpcServer, MAX_CONNECTION_AGE_GRACE_MS, MAX_CONNECTION_AGE_MS, serverChannelOptions } from './server';

const PROTO = 'import/v1/import.proto';
const SERVICE = 'import.v1.ImportService';
const logger = createLogger('load-balancing-test', { level: 'silent' });
const callers: ServiceCallers = { gateway: { methods: 'all', actors: ['user'] } };
const ROUND_ROBIN = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

describe('which addresses a client balances over', () => {
  it.each(['dns:///crm-records-headless:50052', 'ipv4:10.0.0.1:50052,10.0.0.2:50052', 'ipv6:[::1]:50052'])(
    'balances call by call over every replica %s names',
    (address) => {
      expect(loadBalancingFor(address)).toBe('round_robin');
    },
  );

  it.each(['crm-records:50052', '127.0.0.1:50052', 'unix:/tmp/crm/records.sock'])('keeps one connection to %s', (address) => {
    expect(loadBalancingFor(address)).toBe('pick_first');
  });

  it('asks round_robin and prompt re-resolution for a headless Service, and still checks the server by its identity', () => {
    expect(clientChannelOptions('dns:///crm-records-headless:50052', 'records')).toMatchObject({
      'grpc.service_config': ROUND_ROBIN,
      'grpc.dns_min_time_between_resolutions_ms': DNS_MIN_RESOLUTION_INTERVAL_MS,
      'grpc.ssl_target_name_override': 'records',
      'grpc.default_authority': 'records',
    });
  });

  it('leaves a single address to grpc-js defaults (pick_first)', () => {
    expect(clientChannelOptions('crm-records:50052', 'records')['grpc.service_config']).toBeUndefined();
  });
});

describe('server connection age', () => {
  it('asks callers to reconnect after MAX_CONNECTION_AGE_MS, leaving calls under way their grace', () => {
    expect(serverChannelOptions()).toMatchObject({
      'grpc.max_connection_age_ms': MAX_CONNECTION_AGE_MS,
      'grpc.max_connection_age_grace_ms': MAX_CONNECTION_AGE_GRACE_MS,
    });
  });

  it('gives a call under way longer than the longest deadline a caller sets (60 s)', () => {
    expect(MAX_CONNECTION_AGE_GRACE_MS).toBeGreaterThan(60_000);
  });

  it('takes a shorter age from its options', () => {
    expect(serverChannelOptions({ maxConnectionAgeMs: 2_000 })['grpc.max_connection_age_ms']).toBe(2_000);
  });
});

describe('a client of several replicas over mutual TLS', () => {
  let root: string;
  let tls: Record<string, InternalTls>;
  const servers: GrpcServer[] = [];
  const ports: number[] = [];
  const served: number[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'crm-balancing-'));
    const folders = await ensureInternalCertificates(root, ['import', 'gateway']);
    tls = Object.fromEntries(Object.entries(folders).map(([identity, dir]) => [identity, loadInternalTls(dir)]));
    for (let replica = 0; replica < 3; replica += 1) {
      served.push(0);
      const server = new GrpcServer({ logger, tls: tls.import! }).addService(
        PROTO,
        SERVICE,
        {
          ListImportJobs: async () => {
            served[replica]! += 1;
            return { jobs: [] };
          },
        },
        callers,
      );
      ports.push(await server.listen('127.0.0.1:0'));
      server.setServing(true);
      servers.push(server);
    }
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.shutdown(100)));
    rmSync(root, { recursive: true, force: true });
  });

  it('spreads its calls over every address of an ipv4: target', async () => {
    const client = new GrpcClient<ImportServiceMethods>(
      PROTO,
      SERVICE,
      `ipv4:${ports.map((port) => `127.0.0.1:${port}`).join(',')}`,
      tls.gateway!,
    );
    try {
      for (let call = 0; call < 90; call += 1) {
        await client.call('ListImportJobs', {}, { workspaceId: 'w1', actorId: 'u1', actorKind: 'user' });
      }
    } finally {
      client.close();
    }
    // Round robin over the replicas already connected: the first calls go to whichever connects first.
    for (const count of served) expect(count).toBeGreaterThanOrEqual(20);
  });

  it('connects through a dns:/// target with the server checked by its certificate name', async () => {
    const client = new GrpcClient<ImportServiceMethods>(PROTO, SERVICE, `dns:///localhost:${ports[0]}`, tls.gateway!);
    try {
      await expect(client.call('ListImportJobs', {}, { workspaceId: 'w1', actorId: 'u1', actorKind: 'user' })).resolves.toEqual({
        jobs: [],
      });
    } finally {
      client.close();
    }
  });

  it('refuses a dns:/// target whose server is not the identity it expects', async () => {
    const client = new GrpcClient<ImportServiceMethods>(PROTO, SERVICE, `dns:///localhost:${ports[0]}`, tls.gateway!, 'records');
    try {
      await expect(
        client.call('ListImportJobs', {}, { workspaceId: 'w1', actorId: 'u1', actorKind: 'user' }, { timeoutMs: 2_000 }),
      ).rejects.toMatchObject({ kind: 'unavailable' });
    } finally {
      client.close();
    }
  });

  it('loses no call while every replica keeps closing aged connections', async () => {
    const aging: GrpcServer[] = [];
    const agingPorts: number[] = [];
    for (let replica = 0; replica < 3; replica += 1) {
      const server = new GrpcServer({ logger, tls: tls.import!, maxConnectionAgeMs: 500 }).addService(
        PROTO,
        SERVICE,
        { ListImportJobs: async () => ({ jobs: [] }) },
        callers,
      );
      agingPorts.push(await server.listen('127.0.0.1:0'));
      server.setServing(true);
      aging.push(server);
    }
    const target = `ipv4:${agingPorts.map((port) => `127.0.0.1:${port}`).join(',')}`;
    const client = new GrpcClient<ImportServiceMethods>(PROTO, SERVICE, target, tls.gateway!);
    const failures: unknown[] = [];
    let calls = 0;
    const until = Date.now() + 3_000;
    try {
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (Date.now() < until) {
            calls += 1;
            await client.call('ListImportJobs', {}, { workspaceId: 'w1', actorId: 'u1', actorKind: 'user' }).catch((error: unknown) => {
              failures.push(error);
            });
          }
        }),
      );
    } finally {
      client.close();
      await Promise.all(aging.map((server) => server.shutdown(100)));
    }
    expect(calls).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  });
});
