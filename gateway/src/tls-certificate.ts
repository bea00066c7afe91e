/**
 * The certificate the gateway serves: the operator's files (TLS_CERT_FILE/TLS_KEY_FILE, e.g. a
 * Kubernetes TLS secret), or a self-signed one for localhost made on first start and kept under
 * `<CRM_DATA_DIR>/tls/` so clients that pinned it keep working across restarts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { generate as Generate } from 'selfsigned';

/** Loaded only when a certificate must be made: selfsigned pulls in ~150 ms of crypto modules. */
function generate(...args: Parameters<typeof Generate>): ReturnType<typeof Generate> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('selfsigned') as { generate: typeof Generate }).generate(...args);
}
import type { Logger } from '@crm/observability';
import type { GatewayConfig } from './config';

export interface TlsMaterial {
  cert: string;
  key: string;
  /** Where they came from, for the start-up log line. */
  source: 'files' | 'generated' | 'self-signed';
  certFile?: string;
}

export async function loadTlsMaterial(config: GatewayConfig, logger: Logger): Promise<TlsMaterial> {
  if (config.TLS_CERT_FILE || config.TLS_KEY_FILE) {
    if (!config.TLS_CERT_FILE || !config.TLS_KEY_FILE) {
      throw new Error('TLS_CERT_FILE and TLS_KEY_FILE must be set together.');
    }
    return {
      cert: readFileSync(config.TLS_CERT_FILE, 'utf8'),
      key: readFileSync(config.TLS_KEY_FILE, 'utf8'),
      source: 'files',
      certFile: config.TLS_CERT_FILE,
    };
  }
  const dir = join(config.CRM_DATA_DIR, 'tls');
  const certFile = join(dir, 'localhost.crt');
  const keyFile = join(dir, 'localhost.key');
  if (existsSync(certFile) && existsSync(keyFile)) {
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), source: 'self-signed', certFile };
  }
  const now = new Date();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 825 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  writeFileSync(certFile, pems.cert, { mode: 0o644 });
  logger.info({ certFile, fingerprint: pems.fingerprint }, 'generated a self-signed certificate for localhost');
  return { cert: pems.cert, key: pems.private, source: 'generated', certFile };
}
