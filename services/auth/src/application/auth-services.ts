import { AccessTokenIssuer } from '../domain/access-tokens';
import { ApiKeyService } from './api-key-service';
import { systemClock, type Clock } from '@crm/vocabulary';
import { MemberService } from './member-service';
import { PasswordHasher, type PasswordHashingOptions } from '../domain/passwords';
import { RefreshTokenService } from './refresh-tokens';
import type { AuthRepositories } from '../domain/repositories';
import { SessionEndings } from './session-endings';
import { SessionService } from './session-service';
import type { SigningKeyRing } from '../domain/signing-keys';
import { unannouncedWorkspaceChanges, type WorkspaceChanges } from '../domain/workspace-changes';
import { WorkspaceService } from './workspace-service';

export interface AuthServicesOptions {
  repositories: AuthRepositories;
  signingKeys: SigningKeyRing;
  accessTokenTtlSeconds: number;
  refreshTokenTtlDays: number;
  passwordHashing?: PasswordHashingOptions;
  now?: Clock;
  /** Where plan changes and ended sessions are announced to the gateways. */
  workspaceChanges?: WorkspaceChanges;
}

export interface AuthServices {
  sessions: SessionService;
  sessionEndings: SessionEndings;
  signingKeys: SigningKeyRing;
  workspaces: WorkspaceService;
  apiKeys: ApiKeyService;
  members: MemberService;
  accessTokens: AccessTokenIssuer;
}

/** Wires the domain services over a set of repositories. */
export function createAuthServices(options: AuthServicesOptions): AuthServices {
  const now = options.now ?? systemClock;
  const { repositories: r } = options;
  const passwords = new PasswordHasher(options.passwordHashing);
  const changes = options.workspaceChanges ?? unannouncedWorkspaceChanges;
  const accessTokens = new AccessTokenIssuer(options.signingKeys, options.accessTokenTtlSeconds);
  const refreshTokens = new RefreshTokenService(r.refreshTokens, r.sessionEnds, options.refreshTokenTtlDays, now);
  const workspaces = new WorkspaceService(r.workspaces, r.users, passwords, now, options.workspaceChanges);
  const sessionEndings = new SessionEndings(r.users, refreshTokens, r.sessionEnds, changes, now, options.accessTokenTtlSeconds);
  return {
    workspaces,
    sessions: new SessionService(r.users, workspaces, passwords, accessTokens, refreshTokens),
    sessionEndings,
    members: new MemberService(r.users, passwords, sessionEndings, now),
    signingKeys: options.signingKeys,
    apiKeys: new ApiKeyService(r.apiKeys, r.users, r.workspaces, now),
    accessTokens,
  };
}
