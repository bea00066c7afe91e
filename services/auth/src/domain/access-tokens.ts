import jwt from 'jsonwebtoken';
import { DomainError } from '@crm/observability';
import type { User } from './model';
import { ACCESS_TOKEN_ALGORITHM, type SigningKeyRing } from './signing-keys';

export const ACCESS_TOKEN_ISSUER = 'crm-auth';
export const ACCESS_TOKEN_AUDIENCE = 'crm-api';

export interface AccessTokenClaims {
  userId: string;
  workspaceId: string;
  /** Claim `gen`: the user's session generation when the token was issued. */
  sessionGeneration: number;
}

export interface PublishedSigningKeys {
  keys: { kid: string; algorithm: string; publicKeyPem: string }[];
  issuer: string;
  audience: string;
}

/** Issues and checks the 1-hour RS256 access tokens the gateway verifies on its own. */
export class AccessTokenIssuer {
  constructor(
    private readonly keys: SigningKeyRing,
    private readonly ttlSeconds: number,
  ) {}

  async issue(user: Pick<User, 'id' | 'workspaceId'>, sessionGeneration: number): Promise<string> {
    const key = await this.keys.current();
    return jwt.sign({ wid: user.workspaceId, gen: sessionGeneration }, key.privateKeyPem, {
      algorithm: ACCESS_TOKEN_ALGORITHM,
      keyid: key.kid,
      subject: user.id,
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
      expiresIn: this.ttlSeconds,
    });
  }

  /** What a verifier must do: the key found by kid among the published ones, the algorithm pinned, issuer and audience checked. */
  async verify(token: string): Promise<AccessTokenClaims> {
    const kid = jwt.decode(token, { complete: true })?.header.kid;
    const key = (await this.keys.published()).find((k) => k.kid === kid);
    try {
      if (!key) throw new Error('unknown key');
      const payload = jwt.verify(token, key.publicKeyPem, {
        algorithms: [ACCESS_TOKEN_ALGORITHM],
        issuer: ACCESS_TOKEN_ISSUER,
        audience: ACCESS_TOKEN_AUDIENCE,
      });
      if (typeof payload === 'string' || typeof payload.sub !== 'string' || typeof payload.wid !== 'string') throw new Error('bad claims');
      return { userId: payload.sub, workspaceId: payload.wid, sessionGeneration: typeof payload.gen === 'number' ? payload.gen : 0 };
    } catch {
      throw DomainError.unauthenticated('Invalid or expired access token.');
    }
  }

  async published(): Promise<PublishedSigningKeys> {
    const keys = await this.keys.published();
    return {
      keys: keys.map((key) => ({ kid: key.kid, algorithm: ACCESS_TOKEN_ALGORITHM, publicKeyPem: key.publicKeyPem })),
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    };
  }
}
