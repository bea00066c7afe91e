import { GrpcClient } from './client';
import type { InternalTls } from './internal-tls';

interface HealthMethods {
  Check: { request: { service: string }; response: { status: string } };
}

export interface HealthTarget {
  address: string;
  /** Our certificate, when the server speaks mutual TLS; null for plaintext (a health-only listener). */
  tls: InternalTls | null;
  /** Whose certificate the server must present (e.g. `auth`). */
  serverIdentity?: string;
}

/** Asks a server's standard health service whether it (or one of its services) is serving. */
export async function checkHealth(where: string | HealthTarget, service = '', timeoutMs = 2000): Promise<boolean> {
  // A bare address is a plaintext listener: a health-only one, or a server without internal TLS.
  const target: HealthTarget = typeof where === 'string' ? { address: where, tls: null } : where;
  const client = new GrpcClient<HealthMethods>(
    'grpc/health/v1/health.proto',
    'grpc.health.v1.Health',
    target.address,
    target.tls,
    target.serverIdentity ?? '',
  );
  try {
    const response = await client.call('Check', { service }, {}, { timeoutMs });
    return response.status === 'SERVING';
  } catch {
    return false;
  } finally {
    client.close();
  }
}
