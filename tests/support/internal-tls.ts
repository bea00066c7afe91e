import { loadInternalTls, type HealthTarget, type InternalTls } from '@crm/grpc';
import type { LocalCluster } from './cluster';

/** The certificate of one internal identity of the run (gateway, records, operator, ...), to call services directly as it. */
export function internalTlsOf(cluster: LocalCluster, identity: string): InternalTls {
  const dir = cluster.internalTlsDirs[identity];
  if (!dir) throw new Error(`the cluster has no internal certificate for ${identity}`);
  return loadInternalTls(dir);
}

/** A health check of one of the run's servers, asked as the gateway (which any server lets check its health). */
export function healthOf(cluster: LocalCluster, address: string, serverIdentity: string): HealthTarget {
  return { address, tls: internalTlsOf(cluster, 'gateway'), serverIdentity };
}
