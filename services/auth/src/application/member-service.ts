import { DomainError } from '@crm/observability';
import { ACCOUNT_LIMITS } from '@crm/vocabulary';
import { requireAdmin, requireWorkspace, type Caller } from '../domain/caller';
import type { Clock } from '@crm/vocabulary';
import { newId } from '../domain/ids';
import { invitationMatches, invitationTarget, newInvitation } from '../domain/invitation-tokens';
import { isActive, isInvitePending, type MemberRole, type User } from '../domain/model';
import type { PasswordHasher } from '../domain/passwords';
import type { PeoplePage, UserRepository } from '../domain/repositories';
import type { SessionEndings } from './session-endings';
import { FieldCheck } from '../domain/validation';

export interface InviteInput {
  email: string;
  firstName: string;
  lastName: string;
  role: string;
}

export interface MemberChange {
  role?: string;
  isActive?: boolean;
}

const ROLES: readonly MemberRole[] = ['admin', 'member'];
const EMAIL_TAKEN = 'A user with this email already exists.';
const LAST_ADMIN = 'The workspace must keep at least one active admin.';
export const INVALID_INVITATION = 'Invalid, used or expired invitation token.';
export const EMAIL_SIGNS_IN_ELSEWHERE =
  'This email address already has an account in another workspace; an address belongs to one workspace, so ask for an invitation to another address.';

/**
 * The people of a workspace: any caller of the workspace reads them; admins invite them, change
 * their role and deactivate them. Deactivating ends every session of the user at once.
 *
 * An invitation is a pending user of the workspace and nothing else: the global login (which makes
 * an email sign in to one workspace) is written only when the invitation is accepted. So inviting
 * reserves no one's address, and answers the same whether or not the address has an account in
 * another workspace. An address signs in to one workspace (one login, one workspace, as sign-up
 * has it): accepting an invitation for an address that already has a login elsewhere is refused
 * and leaves that login alone (docs/api.md, "One workspace per address").
 */
export class MemberService {
  constructor(
    private readonly users: UserRepository,
    private readonly passwords: PasswordHasher,
    private readonly sessionEndings: SessionEndings,
    private readonly now: Clock,
  ) {}

  list(caller: Caller, offset: number, limit: number, cursor?: string): Promise<PeoplePage> {
    return this.users.listPeople(requireWorkspace(caller), { offset: Math.max(0, offset), limit: Math.max(0, limit), cursor });
  }

  /** A new pending user, or a fresh token for one whose invitation is still pending (the old token stops working). */
  async invite(caller: Caller, input: InviteInput): Promise<{ user: User; token: string }> {
    const workspaceId = await requireAdmin(this.users, caller, 'invite users');
    const check = new FieldCheck();
    const email = check.email('email', input.email);
    const firstName = check.text('firstName', input.firstName, ACCOUNT_LIMITS.personName);
    const lastName = check.text('lastName', input.lastName, ACCOUNT_LIMITS.personName);
    const role = this.role(check, input.role);
    // Only this workspace's people are looked at: whether the address signs in elsewhere is not the inviter's to learn.
    const existing = email ? await this.users.findByEmail(workspaceId, email) : null;
    if (existing && !isInvitePending(existing)) check.add('email', EMAIL_TAKEN);
    check.throwIfAny();

    const details = { firstName: firstName!, lastName: lastName!, role: role! };
    if (existing) return this.reissue(existing, details);
    const fresh: User = { id: newId('usr_'), workspaceId, email: email!, ...details, createdAt: this.now().toISOString() };
    const invitation = newInvitation(fresh, this.now());
    const user: User = { ...fresh, inviteTokenHash: invitation.tokenHash, inviteExpiresAt: invitation.expiresAt };
    if ((await this.users.insert(user)) === 'email_taken') {
      // Lost a race with another invitation of the same address: renew that one instead.
      const winner = await this.users.findByEmail(workspaceId, email!);
      if (!winner || !isInvitePending(winner)) throw DomainError.validation({ email: [EMAIL_TAKEN] });
      return this.reissue(winner, details);
    }
    return { user, token: invitation.token };
  }

  /** A fresh token (and the latest details) for a pending invitation; the old token stops working. */
  private async reissue(pending: User, details: Pick<User, 'firstName' | 'lastName' | 'role'>): Promise<{ user: User; token: string }> {
    const invitation = newInvitation(pending, this.now());
    const user = await this.users.update(pending.workspaceId, pending.id, {
      set: { ...details, inviteTokenHash: invitation.tokenHash, inviteExpiresAt: invitation.expiresAt },
    });
    if (!user) throw DomainError.notFound();
    return { user, token: invitation.token };
  }

  /** Role and active state; the last active admin keeps both. */
  async update(caller: Caller, id: string, change: MemberChange): Promise<User> {
    const workspaceId = await requireAdmin(this.users, caller, 'change users');
    const user = id ? await this.users.get(workspaceId, id) : null;
    if (!user || user.role === 'system') throw DomainError.notFound();
    const check = new FieldCheck();
    const role = change.role === undefined ? undefined : this.role(check, change.role);
    check.throwIfAny();

    const demotes = user.role === 'admin' && role === 'member';
    const deactivates = isActive(user) && change.isActive === false;
    const reactivates = !isActive(user) && change.isActive === true;
    const lastAdminField = deactivates ? 'isActive' : 'role';
    const losesAnAdmin = user.role === 'admin' && isActive(user) && (demotes || deactivates);
    if (losesAnAdmin && (await this.users.countActiveAdmins(workspaceId)) <= 1) {
      throw DomainError.validation({ [lastAdminField]: [LAST_ADMIN] });
    }
    if ((!role || role === user.role) && !deactivates && !reactivates) return user;

    const updated = await this.users.update(workspaceId, user.id, {
      set: { ...(role ? { role } : {}), ...(deactivates ? { deactivatedAt: this.now().toISOString() } : {}) },
      unset: reactivates ? ['deactivatedAt'] : [],
    });
    if (!updated) throw DomainError.notFound();

    // Two admins demoting each other at once both passed the check above; the later one undoes its change.
    if (losesAnAdmin && (await this.users.countActiveAdmins(workspaceId)) === 0) {
      await this.users.update(workspaceId, user.id, { set: { role: user.role }, unset: ['deactivatedAt'] });
      throw DomainError.validation({ [lastAdminField]: [LAST_ADMIN] });
    }
    if (deactivates) await this.sessionEndings.endEverySession(workspaceId, user.id);
    return updated;
  }

  /** Sets the invited user's password; the token works once. */
  async acceptInvitation(token: string, password: string): Promise<User> {
    const target = invitationTarget(token ?? '');
    const user = target ? await this.users.get(target.workspaceId, target.userId) : null;
    if (!user || !isActive(user) || !invitationMatches(user, token, this.now())) throw DomainError.invalid(INVALID_INVITATION);
    const check = new FieldCheck();
    const chosen = check.password('password', password);
    check.throwIfAny();
    // The login is written now, with the password, not at invitation. An invitation made before
    // that rule may already have its login (pointing at this user): it is kept as it is.
    const login = await this.users.findLogin(user.email);
    if (login && login.userId !== user.id) throw DomainError.invalid(EMAIL_SIGNS_IN_ELSEWHERE);
    // Conditional on the token still being the pending one: of two accepts at once, one wins; of
    // two workspaces' invitations of one address accepted at once, the first login written wins.
    const accepted = await this.users.acceptInvitation(
      user.workspaceId,
      user.id,
      user.inviteTokenHash!,
      await this.passwords.hash(chosen!),
      login ? null : { id: user.email, userId: user.id, workspaceId: user.workspaceId },
    );
    if (accepted === 'email_taken') throw DomainError.invalid(EMAIL_SIGNS_IN_ELSEWHERE);
    if (!accepted) throw DomainError.invalid(INVALID_INVITATION);
    return accepted;
  }

  private role(check: FieldCheck, value: string | undefined): MemberRole | undefined {
    if (ROLES.includes(value as MemberRole)) return value as MemberRole;
    check.add('role', value ? `"${value}" is not a valid choice.` : 'This field is required.');
    return undefined;
  }
}
