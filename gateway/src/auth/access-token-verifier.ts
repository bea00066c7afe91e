/**
 * Verifies access JWTs locally with auth's public keys (fetched once, refetched when a token names
 * a key id we don't know, at most every 30 s), so the hot path never calls auth.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import jwt, { type JwtPayload } from 'jsonwebtoken';
import { DomainError, type Logger } from '@crm/observability';
import { GRPC_DEADLINE_MS, type AuthClient } from '../clients/auth-client';
import { credentialError } from './credential-error';
import { ExpiringLru } from './expiring-lru';

export interface AccessTokenClaims {
  userId: string;
  workspaceId: string;
  /** Epoch ms. */
  expiresAt: number;
}

export interface AccessTokenVerifierOptions {
  /** Minimum time between two key fetches triggered by unknown key ids. */
  refetchIntervalMs?: number;
  cacheSize?: number;
  now?: () => number;
}

const ALGORITHM = 'RS256';

export class AccessTokenVerifier {
  private keys = new Map<string, KeyObject>();
  private issuer = '';
  private audience = '';
  private lastFetchAt = 0;
  private fetching: Promise<void> | undefined;
  private readonly verified: ExpiringLru<string, AccessTokenClaims>;
  private readonly refetchIntervalMs: number;
  private readonly now: () => number;

  constructor(
    private readonly auth: AuthClient,
    private readonly logger: Logger,
    options: AccessTokenVerifierOptions = {},
  ) {
    this.refetchIntervalMs = options.refetchIntervalMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.verified = new ExpiringLru(options.cacheSize ?? 10_000, this.now);
  }

  async verify(token: string): Promise<AccessTokenClaims> {
    const cached = this.verified.get(token);
    if (cached) return cached;

    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.payload === 'string') throw credentialError('Invalid token.', 'invalid_token');
    // Pin the algorithm before anything else: `none` and HS256-with-the-public-key never get near a key.
    if (decoded.header.alg !== ALGORITHM) throw credentialError('Invalid token.', 'invalid_token');
    const kid = decoded.header.kid;
    if (typeof kid !== 'string' || kid.length === 0) throw credentialError('Invalid token.', 'invalid_token');

    const key = await this.keyFor(kid);
    if (!key) throw credentialError('Invalid token.', 'invalid_token');

    let payload: JwtPayload;
    try {
      payload = jwt.verify(token, key, {
        algorithms: [ALGORITHM],
        issuer: this.issuer || undefined,
        audience: this.audience || undefined,
        clockTolerance: 5,
      }) as JwtPayload;
    } catch (error) {
      if (error instanceof jwt.TokenExpiredError) throw credentialError('Token has expired.', 'invalid_token');
      throw credentialError('Invalid token.', 'invalid_token');
    }

    const tokenUse = payload.typ ?? payload.token_use ?? payload.type;
    const workspaceId = payload.wid; // auth's claim for the workspace (services/auth access-tokens.ts)
    if (
      (tokenUse !== undefined && tokenUse !== 'access') ||
      typeof payload.sub !== 'string' ||
      typeof workspaceId !== 'string' ||
      typeof payload.exp !== 'number'
    ) {
      throw credentialError('Invalid token.', 'invalid_token');
    }
    const claims: AccessTokenClaims = { userId: payload.sub, workspaceId, expiresAt: payload.exp * 1000 };
    this.verified.set(token, claims, claims.expiresAt);
    return claims;
  }

  /** The key for `kid`, fetching the key set when it is unknown and the last fetch is old enough. */
  private async keyFor(kid: string): Promise<KeyObject | undefined> {
    const known = this.keys.get(kid);
    if (known) return known;
    const neverFetched = this.lastFetchAt === 0;
    if (!neverFetched && this.now() - this.lastFetchAt < this.refetchIntervalMs) return undefined;
    await this.fetchKeys(neverFetched);
    return this.keys.get(kid);
  }

  private fetchKeys(mustSucceed: boolean): Promise<void> {
    this.fetching ??= this.auth
      .call('GetSigningKeys', {}, {}, { timeoutMs: GRPC_DEADLINE_MS })
      .then((response) => {
        const keys = new Map<string, KeyObject>();
        for (const key of response.keys) {
          if (key.algorithm && key.algorithm !== ALGORITHM) continue;
          try {
            keys.set(key.kid, createPublicKey(key.publicKeyPem));
          } catch (error) {
            this.logger.warn({ err: error, kid: key.kid }, 'ignoring a signing key that does not parse');
          }
        }
        const retired = [...this.keys.keys()].some((kid) => !keys.has(kid));
        this.keys = keys;
        this.issuer = response.issuer;
        this.audience = response.audience;
        this.lastFetchAt = this.now();
        if (retired) this.verified.clear(); // a retired key must not keep its tokens alive
        if (!response.issuer || !response.audience) this.logger.warn('auth sent no issuer or audience; those claims go unchecked');
        this.logger.info({ kids: [...keys.keys()] }, 'loaded access-token signing keys');
      })
      .catch((error: unknown) => {
        // Without any key we cannot tell good tokens from bad: that's the service being unavailable.
        if (mustSucceed || this.keys.size === 0) {
          throw error instanceof DomainError ? error : new DomainError('unavailable', 'Authentication service unavailable.');
        }
        this.logger.warn({ err: error }, 'could not refresh signing keys; keeping the ones we have');
        this.lastFetchAt = this.now();
      })
      .finally(() => {
        this.fetching = undefined;
      });
    return this.fetching;
  }
}
