import * as grpc from '@grpc/grpc-js';
import { GrpcClient } from './client';
import type { RecordsServiceMethods } from './generated/records.v1';
import { loadService } from './proto-files';

const PROTO = 'records/v1/records.proto';
const SERVICE = 'records.v1.RecordsService';

/** A records server whose every method fails with UNAVAILABLE `failures` times, then answers. */
async function flakyServer(failures: number): Promise<{ address: string; calls: Map<string, number>; stop(): void }> {
  const server = new grpc.Server();
  const calls = new Map<string, number>();
  const answer = (name: string) => (_call: unknown, callback: grpc.sendUnaryData<object>) => {
    const n = (calls.get(name) ?? 0) + 1;
    calls.set(name, n);
    if (n <= failures) callback({ code: grpc.status.UNAVAILABLE, details: 'gone for a moment' });
    else callback(null, {});
  };
  server.addService(loadService(PROTO, SERVICE).service, { GetContact: answer('GetContact'), CreateContact: answer('CreateContact') });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { address: `127.0.0.1:${port}`, calls, stop: () => server.forceShutdown() };
}

describe('a call that fails with UNAVAILABLE', () => {
  it('is sent again when its proto marks it free of side effects (a read)', async () => {
    const server = await flakyServer(2);
    const client = new GrpcClient<RecordsServiceMethods>(PROTO, SERVICE, server.address, null);
    try {
      await expect(client.call('GetContact', { id: 'c1' })).resolves.toBeDefined();
      expect(server.calls.get('GetContact')).toBe(3);
    } finally {
      client.close();
      server.stop();
    }
  });

  it('is not sent again when it writes: the server may have written before the connection failed', async () => {
    const server = await flakyServer(1);
    const client = new GrpcClient<RecordsServiceMethods>(PROTO, SERVICE, server.address, null);
    try {
      await expect(client.call('CreateContact', {})).rejects.toMatchObject({ kind: 'unavailable', grpcDetails: 'gone for a moment' });
      expect(server.calls.get('CreateContact')).toBe(1);
    } finally {
      client.close();
      server.stop();
    }
  });

  it('fails a read that stays unavailable after its retries', async () => {
    const server = await flakyServer(10);
    const client = new GrpcClient<RecordsServiceMethods>(PROTO, SERVICE, server.address, null);
    try {
      await expect(client.call('GetContact', { id: 'c1' })).rejects.toMatchObject({
        kind: 'unavailable',
        call: `GetContact ${server.address}`,
      });
      expect(server.calls.get('GetContact')).toBe(3);
    } finally {
      client.close();
      server.stop();
    }
  });
});
