import { AccessTokenIssuer } from './access-tokens';
import { ApiKeyService } from './api-key-service';
import { systemClock, type Clock } from './clock';
import type { SigningKey } from './model';
import { PasswordHasher, type PasswordHashingOptions } from './passwords';
import { RefreshTokenService } from './refresh-tokens';
import type { AuthRepositories } from './repositories';
import { SessionService } from './session-service';
import { WorkspaceService } from './workspace-service';

export interface AuthServicesOptions {
  repositories: AuthRepositories;
  signingKey: SigningKey;
  accessTokenTtlSeconds: number;
  refreshTokenTtlDays: number;
  passwordHashing?: PasswordHashingOptions;
  now?: Clock;
}

export interface AuthServices {
  sessions: SessionService;
  workspaces: WorkspaceService;
  apiKeys: ApiKeyService;
  accessTokens: AccessTokenIssuer;
}

/** Wires the domain services over a set of repositories. */
export function createAuthServices(options: AuthServicesOptions): AuthServices {
  const now = options.now ?? systemClock;
  const { repositories: r } = options;
  const passwords = new PasswordHasher(options.passwordHashing);
  const accessTokens = new AccessTokenIssuer(options.signingKey, options.accessTokenTtlSeconds);
  const refreshTokens = new RefreshTokenService(r.refreshTokens, options.refreshTokenTtlDays, now);
  const workspaces = new WorkspaceService(r.workspaces, r.users, passwords, now);
  return {
    workspaces,
    sessions: new SessionService(r.users, workspaces, passwords, accessTokens, refreshTokens),
    apiKeys: new ApiKeyService(r.apiKeys, r.users, r.workspaces, now),
    accessTokens,
  };
}
