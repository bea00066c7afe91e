import { createHash, createPrivateKey, createPublicKey, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import { DomainError } from '@crm/observability';
import type { SigningKey, User } from './model';
import type { SigningKeyRepository } from './repositories';

export const ACCESS_TOKEN_ISSUER = 'crm-auth';
export const ACCESS_TOKEN_AUDIENCE = 'crm-api';
export const ACCESS_TOKEN_ALGORITHM = 'RS256';
/** The fixed id every replica inserts its generated key under, so concurrent starts agree on one. */
export const PRIMARY_SIGNING_KEY_ID = 'primary';

const generateRsaKeyPair = promisify(generateKeyPair);

export interface AccessTokenClaims {
  userId: string;
  workspaceId: string;
}

/** The key id published with the public key: a fingerprint, so it is the same on every replica. */
export function keyIdOf(publicKeyPem: string): string {
  const der = createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url').slice(0, 16);
}

/** A signing key from a configured private key PEM (RSA), with its public half and key id. */
export function signingKeyFromPem(privateKeyPem: string, now: Date): SigningKey {
  const privateKey = createPrivateKey(privateKeyPem);
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error('The JWT signing key must be an RSA private key.');
  const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return {
    id: PRIMARY_SIGNING_KEY_ID,
    kid: keyIdOf(publicKeyPem),
    algorithm: ACCESS_TOKEN_ALGORITHM,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem,
    createdAt: now.toISOString(),
  };
}

/**
 * The configured key when there is one; otherwise the stored key, generating and storing an
 * RSA-2048 pair on the very first start (the insert with a fixed id settles races between replicas).
 */
export async function loadSigningKey(repository: SigningKeyRepository, configuredPem: string | undefined, now: Date): Promise<SigningKey> {
  if (configuredPem) return signingKeyFromPem(configuredPem, now);
  const stored = await repository.get(PRIMARY_SIGNING_KEY_ID);
  if (stored) return stored;
  const { privateKey } = await generateRsaKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return repository.insertOrGet(signingKeyFromPem(privateKey, now));
}

export interface PublishedSigningKeys {
  keys: { kid: string; algorithm: string; publicKeyPem: string }[];
  issuer: string;
  audience: string;
}

/** Issues and checks the 1-hour RS256 access tokens the gateway verifies on its own. */
export class AccessTokenIssuer {
  constructor(
    private readonly key: SigningKey,
    private readonly ttlSeconds: number,
  ) {}

  issue(user: Pick<User, 'id' | 'workspaceId'>): string {
    return jwt.sign({ wid: user.workspaceId }, this.key.privateKeyPem, {
      algorithm: ACCESS_TOKEN_ALGORITHM,
      keyid: this.key.kid,
      subject: user.id,
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
      expiresIn: this.ttlSeconds,
    });
  }

  /** What a verifier must do: the algorithm pinned, issuer and audience checked. */
  verify(token: string): AccessTokenClaims {
    try {
      const payload = jwt.verify(token, this.key.publicKeyPem, {
        algorithms: [ACCESS_TOKEN_ALGORITHM],
        issuer: ACCESS_TOKEN_ISSUER,
        audience: ACCESS_TOKEN_AUDIENCE,
      });
      if (typeof payload === 'string' || typeof payload.sub !== 'string' || typeof payload.wid !== 'string') throw new Error('bad claims');
      return { userId: payload.sub, workspaceId: payload.wid };
    } catch {
      throw DomainError.unauthenticated('Invalid or expired access token.');
    }
  }

  published(): PublishedSigningKeys {
    return {
      keys: [{ kid: this.key.kid, algorithm: ACCESS_TOKEN_ALGORITHM, publicKeyPem: this.key.publicKeyPem }],
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    };
  }
}
