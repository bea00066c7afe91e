import { DomainError } from '@crm/observability';
import { DEFAULT_PLAN } from '@crm/vocabulary';
import type { AccessTokenIssuer } from '../domain/access-tokens';
import { callerUser, requireWorkspace, type Caller } from '../domain/caller';
import { isActive, type User } from '../domain/model';
import type { PasswordHasher } from '../domain/passwords';
import type { RefreshTokenService } from './refresh-tokens';
import type { UserRepository } from '../domain/repositories';
import type { WorkspaceService } from './workspace-service';

export interface SignUpInput {
  workspaceName: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

export interface Session {
  access: string;
  refresh: string;
  user: User;
}

/** One message for an unknown email and a wrong password, so login does not reveal who has an account. */
export const INVALID_CREDENTIALS = 'Invalid email or password.';

/** Sign-up, login, refresh and the caller's own user. */
export class SessionService {
  constructor(
    private readonly users: UserRepository,
    private readonly workspaces: WorkspaceService,
    private readonly passwords: PasswordHasher,
    private readonly accessTokens: AccessTokenIssuer,
    private readonly refreshTokens: RefreshTokenService,
  ) {}

  /** A new starter-plan workspace with the signer as its admin, already logged in. */
  async signUp(input: SignUpInput): Promise<Session> {
    const { admin } = await this.workspaces.createWorkspace({ ...input, plan: DEFAULT_PLAN });
    return this.open(admin);
  }

  async logIn(email: string, password: string): Promise<Session> {
    const login = email ? await this.users.findLogin(email.trim().toLowerCase()) : null;
    const user = login ? await this.users.get(login.workspaceId, login.userId) : null;
    // The system user has no password hash, so it burns a dummy verify and fails like an unknown email.
    const valid = await this.passwords.verifyOrBurn(user?.passwordHash, password ?? '');
    // A deactivated user (or an invited one, who has no password yet) fails like a wrong password.
    if (!user || !valid || !isActive(user)) throw DomainError.unauthenticated(INVALID_CREDENTIALS);
    return this.open(user);
  }

  async refresh(presented: string): Promise<{ access: string; refresh: string }> {
    const rotated = await this.refreshTokens.rotate(presented ?? '');
    const user = await this.users.get(rotated.workspaceId, rotated.userId);
    if (!user || !isActive(user)) throw DomainError.unauthenticated('Invalid or expired refresh token.');
    return { access: await this.accessTokens.issue(user, rotated.sessionGeneration), refresh: rotated.token };
  }

  currentUser(caller: Caller): Promise<User> {
    return callerUser(this.users, caller);
  }

  /** Users of the caller's workspace by id (for names on records); others' ids are left out. */
  usersById(caller: Caller, ids: string[]): Promise<User[]> {
    const workspaceId = requireWorkspace(caller);
    return ids.length === 0 ? Promise.resolve([]) : this.users.getMany(workspaceId, [...new Set(ids)]);
  }

  /** A new session for a user who proved who they are (login, or accepting an invitation). */
  async open(user: User): Promise<Session> {
    const refresh = await this.refreshTokens.issue(user);
    return { access: await this.accessTokens.issue(user, refresh.sessionGeneration), refresh: refresh.token, user };
  }
}
