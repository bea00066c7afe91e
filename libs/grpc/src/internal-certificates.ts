/**
 * The internal CA and one certificate per deployable, for the launchers (`npm start`, the local
 * cluster, the container harness): made once under a folder and kept across restarts. The chart
 * makes the same layout with Helm or cert-manager instead.
 *
 * Layout of `root`: `ca.crt` and `ca.key` (the CA; its key never leaves this folder), and per
 * identity a folder `<identity>/` with `ca.crt`, `tls.crt`, `tls.key` — the file names of a
 * Kubernetes TLS Secret (and of cert-manager's), so INTERNAL_TLS_DIR points at one such folder
 * wherever it comes from. Keys are ECDSA P-256 (fast to make, small handshakes); files are 0600.
 *
 * Certificates of identities are short-lived (LEAF_DAYS) and renewed by the launcher that calls this
 * at start once they are within RENEW_BEFORE_DAYS of expiry; processes read them at start, so a
 * restart picks the renewed one up. A stolen leaf key is good for weeks, not years.
 */
import { webcrypto, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';
import { CA_FILE, CERT_FILE, KEY_FILE } from './internal-tls';

const SIGNING = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 3600 * 1000;
const CA_DAYS = 3650;
export const LEAF_DAYS = 90;
export const RENEW_BEFORE_DAYS = 30;
/** The folder under CRM_DATA_DIR where `npm start` and the local cluster keep the internal CA and certificates. */
export function internalTlsRoot(dataDir: string): string {
  return join(dataDir, 'internal-tls');
}

/** What an identity may be: a DNS label, since it is also the certificate's DNS name. */
export const IDENTITY_PATTERN = /^[a-z][a-z0-9-]{0,62}$/;

/** Loaded only when something must be made (the x509 library and its ASN.1 modules are not small). */
function x509(): typeof X509 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const lib = require('@peculiar/x509') as typeof X509;
  lib.cryptoProvider.set(webcrypto);
  return lib;
}

interface CertificateAuthority {
  cert: X509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

function writePrivate(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
}

async function pemOfKey(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
}

async function loadOrMakeCa(root: string, now: number): Promise<CertificateAuthority> {
  const lib = x509();
  const certFile = join(root, 'ca.crt');
  const keyFile = join(root, 'ca.key');
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = new lib.X509Certificate(readFileSync(certFile, 'utf8'));
    const der = lib.PemConverter.decodeFirst(readFileSync(keyFile, 'utf8'));
    const privateKey = await webcrypto.subtle.importKey('pkcs8', der, SIGNING, true, ['sign']);
    const publicKey = await cert.publicKey.export(SIGNING, ['verify'], webcrypto);
    return { cert, keys: { privateKey: privateKey, publicKey } };
  }
  const keys = await webcrypto.subtle.generateKey(SIGNING, true, ['sign', 'verify']);
  const cert = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=crm internal CA',
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + CA_DAYS * DAY_MS),
    signingAlgorithm: SIGNING,
    keys,
    extensions: [
      new lib.BasicConstraintsExtension(true, 0, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.keyCertSign | lib.KeyUsageFlags.cRLSign, true),
      await lib.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  writePrivate(keyFile, await pemOfKey(keys.privateKey));
  writeFileSync(certFile, cert.toString('pem') + '\n');
  return { cert, keys };
}

function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0]! &= 0x7f; // a positive INTEGER
  return Buffer.from(bytes).toString('hex');
}

/** A leaf for `identity`: CN and DNS name are the identity; usable as a gRPC server and as a client. */
async function makeLeaf(ca: CertificateAuthority, identity: string, now: number): Promise<{ cert: string; key: string }> {
  const lib = x509();
  const keys = await webcrypto.subtle.generateKey(SIGNING, true, ['sign', 'verify']);
  const cert = await lib.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${identity}`,
    issuer: ca.cert.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + LEAF_DAYS * DAY_MS),
    signingAlgorithm: SIGNING,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    extensions: [
      new lib.BasicConstraintsExtension(false, undefined, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature | lib.KeyUsageFlags.keyEncipherment, true),
      new lib.ExtendedKeyUsageExtension([lib.ExtendedKeyUsage.serverAuth, lib.ExtendedKeyUsage.clientAuth]),
      new lib.SubjectAlternativeNameExtension([{ type: 'dns', value: identity }]),
      await lib.AuthorityKeyIdentifierExtension.create(ca.cert),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: await pemOfKey(keys.privateKey) };
}

/** Whether an identity's folder holds a certificate still good for more than RENEW_BEFORE_DAYS at `now`. */
function leafIsCurrent(dir: string, now: number): boolean {
  if (![CA_FILE, CERT_FILE, KEY_FILE].every((file) => existsSync(join(dir, file)))) return false;
  const validTo = Date.parse(new X509Certificate(readFileSync(join(dir, CERT_FILE))).validTo);
  return validTo > now + RENEW_BEFORE_DAYS * DAY_MS;
}

/**
 * Makes whatever is missing under `root`: the CA, then a folder per identity, and renews an
 * identity's certificate that is close to expiry. The CA is kept, so every process of a run, and
 * every restart, shares one. Returns each identity's folder.
 */
export async function ensureInternalCertificates(
  root: string,
  identities: readonly string[],
  { now = Date.now() }: { now?: number } = {},
): Promise<Record<string, string>> {
  for (const identity of identities) {
    if (!IDENTITY_PATTERN.test(identity)) throw new Error(`Not a valid internal identity: ${JSON.stringify(identity)}`);
  }
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const folders: Record<string, string> = {};
  let ca: CertificateAuthority | undefined;
  for (const identity of identities) {
    const dir = join(root, identity);
    folders[identity] = dir;
    if (leafIsCurrent(dir, now)) continue;
    ca ??= await loadOrMakeCa(root, now);
    const leaf = await makeLeaf(ca, identity, now);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writePrivate(join(dir, KEY_FILE), leaf.key);
    writeFileSync(join(dir, CERT_FILE), leaf.cert);
    writeFileSync(join(dir, CA_FILE), readFileSync(join(root, 'ca.crt')));
  }
  return folders;
}
