import { z } from 'zod';

/**
 * The settings every process that speaks gRPC reads for mutual TLS inside the system (one
 * definition, spread into each process's schema; `requireInternalTlsDir` is its check).
 */
export const internalTlsSettings = {
  /** A folder with `ca.crt`, `tls.crt` and `tls.key` (a Kubernetes TLS Secret's layout): this process's internal identity. */
  INTERNAL_TLS_DIR: z.string().min(1).optional(),
  /** `off` serves and calls gRPC in plaintext and believes any caller's metadata: never in production; logged as a warning. */
  INTERNAL_TLS: z.enum(['on', 'off']).default('on'),
};

/** For a process that serves gRPC. */
export const grpcHealthSettings = {
  /** A plaintext listener serving only gRPC health, for Kubernetes' gRPC probes (they cannot present a certificate). Unset: none. */
  GRPC_HEALTH_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /**
   * How long a caller's connection lives before the server asks it to reconnect, so callers that
   * balance over every replica (`dns:///` addresses) find replicas added since. Unset: libs/grpc's
   * MAX_CONNECTION_AGE_MS (30 s); tests shorten it.
   */
  GRPC_MAX_CONNECTION_AGE_MS: z.coerce.number().int().min(500).max(86_400_000).optional(),
};

/** A superRefine: with internal TLS on (the default), its folder must be given. */
export function requireInternalTlsDir(
  config: { INTERNAL_TLS: 'on' | 'off'; INTERNAL_TLS_DIR?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (config.INTERNAL_TLS === 'on' && !config.INTERNAL_TLS_DIR) {
    ctx.addIssue({
      code: 'custom',
      path: ['INTERNAL_TLS_DIR'],
      message:
        "required: the folder of this process's internal certificate (ca.crt, tls.crt, tls.key); INTERNAL_TLS=off runs without one, in plaintext, trusting any caller (never in production)",
    });
  }
}
