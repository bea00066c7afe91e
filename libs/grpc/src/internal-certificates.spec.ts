import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureInternalCertificates, LEAF_DAYS, RENEW_BEFORE_DAYS } from './internal-certificates';
import { loadInternalTls, loadInternalTlsAs } from './internal-tls';

const DAY_MS = 24 * 3600 * 1000;

describe('ensureInternalCertificates', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'crm-internal-tls-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('makes a CA and, per identity, a certificate it signed naming that identity for client and server use', async () => {
    const folders = await ensureInternalCertificates(root, ['gateway', 'records']);
    const ca = new X509Certificate(readFileSync(join(root, 'ca.crt')));
    expect(ca.ca).toBe(true);
    for (const identity of ['gateway', 'records']) {
      const tls = loadInternalTls(folders[identity]!);
      expect(tls.identity).toBe(identity);
      const cert = new X509Certificate(tls.cert);
      expect(cert.verify(ca.publicKey)).toBe(true);
      expect(cert.ca).toBe(false);
      expect(cert.subjectAltName).toBe(`DNS:${identity}`);
      expect(cert.keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']));
    }
  });

  it('keeps private keys readable by their owner only', async () => {
    await ensureInternalCertificates(root, ['auth']);
    expect(statSync(join(root, 'ca.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'auth', 'tls.key')).mode & 0o777).toBe(0o600);
  });

  it('keeps what exists across runs and signs a new identity with the same CA', async () => {
    await ensureInternalCertificates(root, ['auth']);
    const firstCa = readFileSync(join(root, 'ca.crt'));
    const firstLeaf = readFileSync(join(root, 'auth', 'tls.crt'));
    await ensureInternalCertificates(root, ['auth', 'operator']);
    expect(readFileSync(join(root, 'ca.crt')).equals(firstCa)).toBe(true);
    expect(readFileSync(join(root, 'auth', 'tls.crt')).equals(firstLeaf)).toBe(true);
    expect(new X509Certificate(readFileSync(join(root, 'operator', 'tls.crt'))).verify(new X509Certificate(firstCa).publicKey)).toBe(true);
  });

  it('gives identities certificates that last 90 days, not years', async () => {
    const folders = await ensureInternalCertificates(root, ['gateway']);
    const lifetime = Date.parse(new X509Certificate(readFileSync(join(folders.gateway!, 'tls.crt'))).validTo) - Date.now();
    expect(LEAF_DAYS).toBe(90);
    expect(lifetime).toBeLessThanOrEqual(90 * DAY_MS);
    expect(lifetime).toBeGreaterThan(89 * DAY_MS);
  });

  it('renews, at a start within 30 days of expiry, the certificate of an identity, signed by the same CA', async () => {
    await ensureInternalCertificates(root, ['auth']);
    const ca = readFileSync(join(root, 'ca.crt'));
    const first = readFileSync(join(root, 'auth', 'tls.crt'));
    const later = Date.now() + (LEAF_DAYS - RENEW_BEFORE_DAYS + 1) * DAY_MS;
    await ensureInternalCertificates(root, ['auth'], { now: later });
    const renewed = new X509Certificate(readFileSync(join(root, 'auth', 'tls.crt')));
    expect(renewed.raw.equals(new X509Certificate(first).raw)).toBe(false);
    expect(readFileSync(join(root, 'ca.crt')).equals(ca)).toBe(true);
    expect(renewed.verify(new X509Certificate(ca).publicKey)).toBe(true);
    expect(Date.parse(renewed.validTo)).toBeGreaterThan(later + (LEAF_DAYS - 1) * DAY_MS);
  });

  it('refuses an identity that is not a DNS label', async () => {
    await expect(ensureInternalCertificates(root, ['Gate way'])).rejects.toThrow(/Not a valid internal identity/);
  });

  it('refuses to load one identity as another', async () => {
    const folders = await ensureInternalCertificates(root, ['import-worker']);
    expect(() => loadInternalTlsAs(folders['import-worker']!, 'records')).toThrow(
      /certificate of "import-worker", but this process is "records"/,
    );
  });

  it("refuses a certificate that the folder's CA did not sign", async () => {
    const other = mkdtempSync(join(tmpdir(), 'crm-internal-tls-other-'));
    try {
      const mine = await ensureInternalCertificates(root, ['auth']);
      await ensureInternalCertificates(other, ['auth']);
      const { copyFileSync } = await import('node:fs');
      copyFileSync(join(other, 'ca.crt'), join(mine.auth!, 'ca.crt'));
      expect(() => loadInternalTls(mine.auth!)).toThrow(/is not signed by/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
