/**
 * Who a process is inside the system, and how it proves it: mutual TLS with certificates of the
 * internal CA. A process reads its folder (INTERNAL_TLS_DIR: `ca.crt`, `tls.crt`, `tls.key`, the
 * layout of a Kubernetes TLS Secret); its identity is its certificate's common name, one of the
 * deployables of charts/crm/topology.yaml or `operator` (the CLI).
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerCertificate } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '@crm/observability';

export const CA_FILE = 'ca.crt';
export const CERT_FILE = 'tls.crt';
export const KEY_FILE = 'tls.key';

export interface InternalTls {
  /** The certificate's common name: who this process is to the others. */
  identity: string;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** Reads a process's internal TLS folder; a missing or unreadable file says which and where. */
export function loadInternalTls(dir: string): InternalTls {
  const read = (file: string) => {
    try {
      return readFileSync(join(dir, file));
    } catch (error) {
      throw new Error(`Internal TLS: cannot read ${join(dir, file)} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  };
  const ca = read(CA_FILE);
  const cert = read(CERT_FILE);
  const key = read(KEY_FILE);
  const parsed = new X509Certificate(cert);
  const ours = new X509Certificate(ca);
  if (!parsed.verify(ours.publicKey)) throw new Error(`Internal TLS: ${join(dir, CERT_FILE)} is not signed by ${join(dir, CA_FILE)}`);
  const identity = commonName(parsed.subject);
  if (!identity) throw new Error(`Internal TLS: ${join(dir, CERT_FILE)} has no common name`);
  return { identity, ca, cert, key };
}

/**
 * Loads the folder and checks it is the expected identity's, so a Deployment mounting another
 * component's certificate fails at start rather than at its first refused call.
 */
export function loadInternalTlsAs(dir: string, identity: string): InternalTls {
  const tls = loadInternalTls(dir);
  if (tls.identity !== identity) {
    throw new Error(`Internal TLS: ${join(dir, CERT_FILE)} is the certificate of "${tls.identity}", but this process is "${identity}"`);
  }
  return tls;
}

/** The internal TLS settings of a process's config (libs/config internalTlsSettings). */
export interface InternalTlsSettings {
  INTERNAL_TLS: 'on' | 'off';
  INTERNAL_TLS_DIR?: string | undefined;
}

/**
 * A process's internal TLS from its settings: its folder's material (checked to be `identity`'s),
 * or null with INTERNAL_TLS=off, which is said loudly at every start.
 */
export function internalTlsFor(settings: InternalTlsSettings, identity: string, logger: Logger): InternalTls | null {
  if (settings.INTERNAL_TLS === 'off') {
    logger.warn(
      { identity },
      'INTERNAL_TLS=off: gRPC in plaintext, and any process that can reach this one may act as any workspace. Never run production like this.',
    );
    return null;
  }
  if (!settings.INTERNAL_TLS_DIR) throw new Error('INTERNAL_TLS_DIR is required unless INTERNAL_TLS=off');
  return loadInternalTlsAs(settings.INTERNAL_TLS_DIR, identity);
}

function commonName(subject: string): string | undefined {
  return /^CN=(.+)$/m.exec(subject)?.[1]?.trim();
}

/**
 * The server side: clients must present a certificate of the internal CA, checked at the
 * handshake. Kubernetes' gRPC probes cannot present one (they are plaintext), so probes use the
 * separate health-only listener (GrpcServer `healthAddress`), never this one.
 */
export function serverCredentials(tls: InternalTls): grpc.ServerCredentials {
  return grpc.ServerCredentials.createSsl(tls.ca, [{ private_key: tls.key, cert_chain: tls.cert }], true);
}

/**
 * The client side: present our certificate and accept only a server whose certificate, from the
 * internal CA, names `serverIdentity` (e.g. `auth`). The name is checked instead of the address
 * (`ssl_target_name_override`), so the same certificate works over Unix sockets, loopback ports
 * and Kubernetes Service names.
 */
export function channelOptionsFor(serverIdentity: string): grpc.ChannelOptions {
  return { 'grpc.ssl_target_name_override': serverIdentity, 'grpc.default_authority': serverIdentity };
}

export function channelCredentials(tls: InternalTls): grpc.ChannelCredentials {
  return grpc.credentials.createSsl(tls.ca, tls.key, tls.cert);
}

type AuthContextSource = { getAuthContext?: () => { sslPeerCertificate?: PeerCertificate } | null };

/** Identities by connection: a connection's verified certificate never changes, and reading it is costly. */
const identities = new WeakMap<object, string | undefined>();

/**
 * The HTTP/2 session (one per connection) a grpc-js server call came on. grpc-js keeps it private,
 * so this follows its shape and answers undefined when that changes (the identity is then read on every call).
 */
function connectionOf(call: unknown): object | undefined {
  type Layer = { nextCall?: Layer; stream?: { session?: unknown } };
  // The call wraps grpc-js's base call, behind the server's interceptors if it has any.
  let layer = (call as { call?: Layer }).call;
  for (let depth = 0; layer && !layer.stream && depth < 8; depth += 1) layer = layer.nextCall;
  const session = layer?.stream?.session;
  return typeof session === 'object' && session !== null ? session : undefined;
}

function identityFromCertificate(call: AuthContextSource): string | undefined {
  const certificate = call.getAuthContext?.()?.sslPeerCertificate;
  const cn = certificate?.subject?.CN;
  return typeof cn === 'string' && cn.length > 0 ? cn : undefined;
}

/**
 * The identity of the peer of a server call, from its verified certificate; undefined without one.
 * Read once per connection: grpc-js's getAuthContext turns the certificate into a new object on
 * every call, which was a sixth of the auth service's CPU per call.
 */
export function peerIdentity(call: AuthContextSource): string | undefined {
  const connection = connectionOf(call);
  if (connection && identities.has(connection)) return identities.get(connection);
  const identity = identityFromCertificate(call);
  if (connection) identities.set(connection, identity);
  return identity;
}
