import { GrpcClient } from './client';

interface HealthMethods {
  [method: string]: { request: object; response: object };
  Check: { request: { service: string }; response: { status: string } };
}

/** Asks a server's standard health service whether it (or one of its services) is serving. */
export async function checkHealth(address: string, service = '', timeoutMs = 2000): Promise<boolean> {
  const client = new GrpcClient<HealthMethods>('grpc/health/v1/health.proto', 'grpc.health.v1.Health', address);
  try {
    const response = await client.call('Check', { service }, {}, { timeoutMs });
    return response.status === 'SERVING';
  } catch {
    return false;
  } finally {
    client.close();
  }
}
