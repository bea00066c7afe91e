/**
 * Verifies access JWTs locally with auth's public keys, so the hot path never calls auth. Auth
 * publishes its current and previous keys; a token naming a key id we don't know waits for a key
 * fetch that starts after it arrived (at most one a second), so a key rotated in a moment ago is
 * found rather than refused, and forged key ids cost auth no more than one call a second.
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
  /** Claim `gen`: the user's session generation when the token was issued (0 when absent). */
  sessionGeneration: number;
}

export interface AccessTokenVerifierOptions {
  /** Minimum time between the starts of two key fetches triggered by unknown key ids. */
  refetchIntervalMs?: number;
  /** Key sets older than this are fetched again in the background, so a key dropped by two rotations stops working here too. */
  maxKeyAgeMs?: number;
  cacheSize?: number;
  now?: () => number;
}

const ALGORITHM = 'RS256';

export class AccessTokenVerifier {
  private keys = new Map<string, KeyObject>();
  private issuer = '';
  private audience = '';
  private lastFetchStartedAt = Number.NEGATIVE_INFINITY;
  private fetchesStarted = 0;
  /** The newest fetch whose answer was applied: a slow older answer must not bring back retired keys. */
  private fetchApplied = 0;
  /** The next key fetch, not started yet: every request that joins it arrived before it starts. */
  private scheduled: Promise<void> | undefined;
  private readonly verified: ExpiringLru<string, AccessTokenClaims>;
  private readonly refetchIntervalMs: number;
  private readonly maxKeyAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly auth: AuthClient,
    private readonly logger: Logger,
    options: AccessTokenVerifierOptions = {},
  ) {
    this.refetchIntervalMs = options.refetchIntervalMs ?? 1000;
    this.maxKeyAgeMs = options.maxKeyAgeMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
    this.verified = new ExpiringLru(options.cacheSize ?? 10_000, this.now);
  }

  async verify(token: string): Promise<AccessTokenClaims> {
    if (this.keys.size > 0 && this.now() - this.lastFetchStartedAt > this.maxKeyAgeMs) void this.fetchSoon();
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
      typeof payload.exp !== 'number' ||
      (payload.gen !== undefined && !Number.isInteger(payload.gen))
    ) {
      throw credentialError('Invalid token.', 'invalid_token');
    }
    const claims: AccessTokenClaims = {
      userId: payload.sub,
      workspaceId,
      expiresAt: payload.exp * 1000,
      sessionGeneration: (payload.gen as number | undefined) ?? 0,
    };
    this.verified.set(token, claims, claims.expiresAt);
    return claims;
  }

  /** The key for `kid`, waiting for a key fetch that starts after this call when it is unknown. */
  private async keyFor(kid: string): Promise<KeyObject | undefined> {
    const known = this.keys.get(kid);
    if (known) return known;
    await this.fetchSoon();
    return this.keys.get(kid);
  }

  /** Joins the next fetch, or schedules one: now, or one interval after the last one started. */
  private fetchSoon(): Promise<void> {
    if (this.scheduled) return this.scheduled;
    const delay = Math.max(0, this.lastFetchStartedAt + this.refetchIntervalMs - this.now());
    const next = new Promise((resolve) => setTimeout(resolve, delay)).then(() => {
      this.scheduled = undefined;
      this.lastFetchStartedAt = this.now();
      return this.fetchKeys(this.keys.size === 0);
    });
    this.scheduled = next;
    return next;
  }

  private fetchKeys(mustSucceed: boolean): Promise<void> {
    const fetch = ++this.fetchesStarted;
    return this.auth
      .call('GetSigningKeys', {}, {}, { timeoutMs: GRPC_DEADLINE_MS })
      .then((response) => {
        if (fetch < this.fetchApplied) return;
        this.fetchApplied = fetch;
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
        const changed = retired || keys.size !== this.keys.size;
        this.keys = keys;
        this.issuer = response.issuer;
        this.audience = response.audience;
        if (retired) this.verified.clear(); // a retired key must not keep its tokens alive
        if (!response.issuer || !response.audience) this.logger.warn('auth sent no issuer or audience; those claims go unchecked');
        if (changed) this.logger.info({ kids: [...keys.keys()] }, 'loaded access-token signing keys');
      })
      .catch((error: unknown) => {
        // Without any key we cannot tell good tokens from bad: that's the service being unavailable.
        if (mustSucceed || this.keys.size === 0) {
          throw error instanceof DomainError ? error : new DomainError('unavailable', 'Authentication service unavailable.');
        }
        this.logger.warn({ err: error }, 'could not refresh signing keys; keeping the ones we have');
      });
  }
}
