/**
 * The defaults the services take from the chart's topology (charts/crm/topology.yaml, generated
 * into generated/topology.ts): a port or a database name is written there once.
 */
import { TOPOLOGY } from './generated/topology';

export { TOPOLOGY };

/** A component that serves gRPC. */
export type GrpcComponent = 'auth' | 'records' | 'import' | 'automation';

/** The component's gRPC port. */
export function grpcPort(component: GrpcComponent): number {
  return TOPOLOGY[component].ports.grpc;
}

/** The component's gRPC address on this machine: the default of <CALLEE>_GRPC_ADDR. */
export function localGrpcAddress(component: GrpcComponent): string {
  return `127.0.0.1:${grpcPort(component)}`;
}
