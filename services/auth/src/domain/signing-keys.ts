import { createHash, createPrivateKey, createPublicKey, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { DomainError } from '@crm/observability';
import type { SigningKey } from './model';
import type { SigningKeyRepository } from './repositories';

export const ACCESS_TOKEN_ALGORITHM = 'RS256';
/** The store id of the key every replica signs with; the fixed id settles first-start races between replicas. */
export const CURRENT_SIGNING_KEY_ID = 'primary';
/** The store id of the key the last rotation retired: still published, so its tokens live out their hour. */
export const PREVIOUS_SIGNING_KEY_ID = 'previous';

const generateRsaKeyPair = promisify(generateKeyPair);

/** The key id published with the public key: a fingerprint, so it is the same on every replica. */
export function keyIdOf(publicKeyPem: string): string {
  const der = createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url').slice(0, 16);
}

/** A signing key from a private key PEM (RSA), with its public half and key id. */
export function signingKeyFromPem(privateKeyPem: string, now: Date): SigningKey {
  const privateKey = createPrivateKey(privateKeyPem);
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error('The JWT signing key must be an RSA private key.');
  const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return {
    id: CURRENT_SIGNING_KEY_ID,
    kid: keyIdOf(publicKeyPem),
    algorithm: ACCESS_TOKEN_ALGORITHM,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem,
    createdAt: now.toISOString(),
  };
}

async function generateSigningKey(now: Date): Promise<SigningKey> {
  const { privateKey } = await generateRsaKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return signingKeyFromPem(privateKey, now);
}

export interface RotatedSigningKeys {
  current: string;
  previous: string;
}

/**
 * The current and previous signing keys, kept in the shared store so every auth replica signs
 * with the same current key and publishes both. Every read goes to the store: a rotation made
 * through one replica is what the others sign with and publish on their very next call.
 * A key configured by AUTH_JWT_PRIVATE_KEY is what this replica signs with; it is made current in
 * the store at start unless it is already current or previous (an older replica of a rolling update).
 */
export class SigningKeyRing {
  private constructor(
    private readonly repository: SigningKeyRepository,
    private readonly configured: SigningKey | undefined,
    private readonly now: () => Date,
  ) {}

  static async open(repository: SigningKeyRepository, configuredPem: string | undefined, now: () => Date): Promise<SigningKeyRing> {
    const ring = new SigningKeyRing(repository, configuredPem ? signingKeyFromPem(configuredPem, now()) : undefined, now);
    await ring.settle();
    return ring;
  }

  /** The key to sign with now. */
  async current(): Promise<SigningKey> {
    if (this.configured) return this.configured;
    const stored = await this.repository.get(CURRENT_SIGNING_KEY_ID);
    if (!stored) throw new DomainError('internal', 'The signing key is missing from the store.');
    return stored;
  }

  /** Every key a valid token may be signed with: current, previous, and this replica's configured one. */
  async published(): Promise<SigningKey[]> {
    const [current, previous] = await Promise.all([
      this.repository.get(CURRENT_SIGNING_KEY_ID),
      this.repository.get(PREVIOUS_SIGNING_KEY_ID),
    ]);
    const keys = new Map<string, SigningKey>();
    for (const key of [current, previous, this.configured]) if (key && !keys.has(key.kid)) keys.set(key.kid, key);
    return [...keys.values()];
  }

  /** A new current key; the current one becomes previous and the previous one is dropped. */
  async rotate(): Promise<RotatedSigningKeys> {
    if (this.configured) {
      throw DomainError.conflict('The signing key is set by AUTH_JWT_PRIVATE_KEY: rotate by changing it and restarting auth.');
    }
    const from = await this.current();
    const to = await generateSigningKey(this.now());
    if (!(await this.repository.rotate(from, to))) throw DomainError.conflict('Another rotation happened at the same moment; try again.');
    return { current: to.kid, previous: from.kid };
  }

  private async settle(): Promise<void> {
    const current =
      (await this.repository.get(CURRENT_SIGNING_KEY_ID)) ??
      (await this.repository.insertOrGet(this.configured ?? (await generateSigningKey(this.now()))));
    if (!this.configured || current.kid === this.configured.kid) return;
    const previous = await this.repository.get(PREVIOUS_SIGNING_KEY_ID);
    if (previous?.kid === this.configured.kid) return;
    await this.repository.rotate(current, this.configured);
  }
}
