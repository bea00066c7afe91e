import { isActive, isInvitePending } from '../domain/model';
import { buildAuth, PASSWORD, userCaller, type AuthFixture } from '../testing/auth-factory';

const NEW_PASSWORD = 'a brand new password';

describe('members and roles', () => {
  let auth: AuthFixture;
  beforeEach(async () => {
    auth = await buildAuth();
  });
  afterEach(() => auth.close());

  const signUpAdmin = async () => (await auth.signUp()).user;
  const invite = (admin: { id: string; workspaceId: string }, email = 'new.person@example.com', role = 'member') =>
    auth.members.invite(userCaller(admin), { email, firstName: 'New', lastName: 'Person', role });

  describe('invitations', () => {
    it('creates a pending user who cannot log in, then accepting sets the password and the token works once', async () => {
      const admin = await signUpAdmin();
      const { user, token } = await invite(admin);
      expect(user).toMatchObject({ workspaceId: admin.workspaceId, role: 'member' });
      expect(isInvitePending(user)).toBe(true);
      expect(JSON.stringify(user)).not.toContain(token.split('.')[2]);
      await expect(auth.sessions.logIn('new.person@example.com', '')).rejects.toMatchObject({ kind: 'unauthenticated' });

      const accepted = await auth.members.acceptInvitation(token, NEW_PASSWORD);
      expect(isInvitePending(accepted)).toBe(false);
      await expect(auth.sessions.logIn('new.person@example.com', NEW_PASSWORD)).resolves.toMatchObject({ user: { id: user.id } });
      await expect(auth.members.acceptInvitation(token, NEW_PASSWORD)).rejects.toMatchObject({ kind: 'invalid_argument' });
    });

    it('re-inviting a pending email answers a new token and the old one stops working', async () => {
      const admin = await signUpAdmin();
      const first = await invite(admin);
      const second = await invite(admin, 'NEW.person@example.com', 'admin');
      expect(second.user.id).toBe(first.user.id);
      expect(second.user.role).toBe('admin');
      await expect(auth.members.acceptInvitation(first.token, NEW_PASSWORD)).rejects.toMatchObject({ kind: 'invalid_argument' });
      await expect(auth.members.acceptInvitation(second.token, NEW_PASSWORD)).resolves.toMatchObject({ role: 'admin' });
    });

    it('refuses a token after 7 days, a made-up token and a short password', async () => {
      const admin = await signUpAdmin();
      const { token } = await invite(admin);
      await expect(auth.members.acceptInvitation(token, 'short')).rejects.toMatchObject({
        kind: 'validation_failed',
        fields: { password: expect.any(Array) },
      });
      await expect(auth.members.acceptInvitation(`${token.slice(0, -3)}AAA`, NEW_PASSWORD)).rejects.toMatchObject({
        kind: 'invalid_argument',
      });
      await expect(auth.members.acceptInvitation('nonsense', NEW_PASSWORD)).rejects.toMatchObject({ kind: 'invalid_argument' });
      auth.clock.advance(7 * 86_400_000 + 1000);
      await expect(auth.members.acceptInvitation(token, NEW_PASSWORD)).rejects.toMatchObject({ kind: 'invalid_argument' });
    });

    it('answers 422 on email for an existing or deactivated user, and lists every bad field', async () => {
      const admin = await signUpAdmin();
      const member = await auth.addMember(admin.workspaceId);
      await expect(invite(admin, admin.email)).rejects.toMatchObject({ kind: 'validation_failed', fields: { email: expect.any(Array) } });
      await auth.members.update(userCaller(admin), member.id, { isActive: false });
      await expect(invite(admin, member.email)).rejects.toMatchObject({ kind: 'validation_failed', fields: { email: expect.any(Array) } });
      await expect(
        auth.members.invite(userCaller(admin), { email: 'bad', firstName: '', lastName: 'X', role: 'owner' }),
      ).rejects.toMatchObject({ fields: { email: expect.any(Array), firstName: expect.any(Array), role: expect.any(Array) } });
    });

    it('writes no login until acceptance: the address stays free to sign up with, and an unaccepted invitation cannot log in', async () => {
      const admin = await signUpAdmin();
      const { user } = await invite(admin, 'someone@example.com');
      expect(await auth.repositories.users.findLogin('someone@example.com')).toBeNull();
      await expect(auth.sessions.logIn('someone@example.com', '')).rejects.toMatchObject({
        kind: 'unauthenticated',
        message: 'Invalid email or password.',
      });
      // Nobody reserved the address: its owner signs up a workspace of their own.
      await expect(auth.signUp('someone@example.com')).resolves.toMatchObject({ user: { email: 'someone@example.com' } });
      expect(await auth.repositories.users.get(admin.workspaceId, user.id)).toMatchObject({ email: 'someone@example.com' });
    });

    it('answers an invitation the same whether or not the address has an account in another workspace', async () => {
      const elsewhere = await signUpAdmin();
      const admin = await signUpAdmin();
      const taken = await invite(admin, elsewhere.email);
      const free = await invite(admin, 'nobody.yet@example.com');
      const shape = (answer: typeof taken) => ({ ...answer.user, id: 'x', email: 'x', inviteTokenHash: 'x', token: typeof answer.token });
      expect(shape(taken)).toEqual(shape(free));
      expect(isInvitePending(taken.user)).toBe(true);
      // The other workspace's login is untouched.
      await expect(auth.sessions.logIn(elsewhere.email, PASSWORD)).resolves.toMatchObject({ user: { id: elsewhere.id } });
    });

    it('refuses to accept an invitation whose address already signs in elsewhere, and keeps that login', async () => {
      const elsewhere = await signUpAdmin();
      const admin = await signUpAdmin();
      const { user, token } = await invite(admin, elsewhere.email);
      await expect(auth.members.acceptInvitation(token, NEW_PASSWORD)).rejects.toMatchObject({
        kind: 'invalid_argument',
        message: expect.stringContaining('another workspace'),
      });
      expect(await auth.repositories.users.findLogin(elsewhere.email)).toMatchObject({ userId: elsewhere.id });
      expect(isInvitePending((await auth.repositories.users.get(admin.workspaceId, user.id))!)).toBe(true);
      await expect(auth.sessions.logIn(elsewhere.email, NEW_PASSWORD)).rejects.toMatchObject({ kind: 'unauthenticated' });
    });

    it('gives the login to the first of two workspaces whose invitations of one address are accepted', async () => {
      const first = await signUpAdmin();
      const second = await signUpAdmin();
      const a = await invite(first, 'shared@example.com');
      const b = await invite(second, 'shared@example.com');
      const outcomes = await Promise.allSettled([
        auth.members.acceptInvitation(a.token, NEW_PASSWORD),
        auth.members.acceptInvitation(b.token, NEW_PASSWORD),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      const winner = outcomes[0]!.status === 'fulfilled' ? a.user : b.user;
      expect(await auth.repositories.users.findLogin('shared@example.com')).toMatchObject({ userId: winner.id });
      await expect(auth.sessions.logIn('shared@example.com', NEW_PASSWORD)).resolves.toMatchObject({ user: { id: winner.id } });
    });

    it('keeps one pending user per address in a workspace when two invitations race', async () => {
      const admin = await signUpAdmin();
      const answers = await Promise.allSettled([invite(admin, 'race@example.com'), invite(admin, 'race@example.com')]);
      expect(answers.some((a) => a.status === 'fulfilled')).toBe(true);
      const people = await auth.members.list(userCaller(admin), 0, 0);
      expect(people.users.filter((u) => u.email === 'race@example.com')).toHaveLength(1);
    });

    it('lets only admins invite', async () => {
      const admin = await signUpAdmin();
      const member = await auth.addMember(admin.workspaceId);
      await expect(invite(member)).rejects.toMatchObject({ kind: 'permission_denied' });
      const apiKey = { workspaceId: admin.workspaceId, actorId: 'usr_system', actorKind: 'api_key' as const };
      await expect(
        auth.members.invite(apiKey, { email: 'k@example.com', firstName: 'K', lastName: 'K', role: 'member' }),
      ).rejects.toMatchObject({
        kind: 'permission_denied',
      });
    });
  });

  describe('listing', () => {
    it("lists the workspace's people newest first, without the system user or other workspaces' people", async () => {
      const admin = await signUpAdmin();
      auth.clock.advance(1000);
      const member = await auth.addMember(admin.workspaceId);
      await signUpAdmin();
      const { total, users } = await auth.members.list(userCaller(member), 0, 0);
      expect(total).toBe(2);
      expect(users.map((u) => u.id)).toEqual([member.id, admin.id]);
      expect((await auth.members.list(userCaller(admin), 1, 1)).users.map((u) => u.id)).toEqual([admin.id]);
    });
  });

  describe('role changes and deactivation', () => {
    it('promotes and demotes; a member cannot change anyone', async () => {
      const admin = await signUpAdmin();
      const member = await auth.addMember(admin.workspaceId);
      await expect(auth.members.update(userCaller(member), member.id, { role: 'admin' })).rejects.toMatchObject({
        kind: 'permission_denied',
      });
      await expect(auth.members.update(userCaller(admin), member.id, { role: 'admin' })).resolves.toMatchObject({ role: 'admin' });
      await expect(auth.members.update(userCaller(admin), member.id, { role: 'member' })).resolves.toMatchObject({ role: 'member' });
      await expect(auth.members.update(userCaller(admin), member.id, { role: 'system' })).rejects.toMatchObject({
        fields: { role: expect.any(Array) },
      });
    });

    it('keeps the last active admin: demoting answers 422 on role, deactivating 422 on isActive', async () => {
      const admin = await signUpAdmin();
      const member = await auth.addMember(admin.workspaceId);
      await expect(auth.members.update(userCaller(admin), admin.id, { role: 'member' })).rejects.toMatchObject({
        fields: { role: expect.any(Array) },
      });
      await expect(auth.members.update(userCaller(admin), admin.id, { isActive: false })).rejects.toMatchObject({
        fields: { isActive: expect.any(Array) },
      });
      expect(await auth.repositories.users.get(admin.workspaceId, admin.id)).toMatchObject({ role: 'admin' });

      await auth.members.update(userCaller(admin), member.id, { role: 'admin' });
      await expect(auth.members.update(userCaller(admin), admin.id, { role: 'member' })).resolves.toMatchObject({ role: 'member' });
      // A deactivated admin does not count as the one left.
      await expect(auth.members.update(userCaller(member), member.id, { isActive: false })).rejects.toMatchObject({
        fields: { isActive: expect.any(Array) },
      });
    });

    it('deactivating ends every session, refuses login like a wrong password, and reactivating lets them in again', async () => {
      const admin = await signUpAdmin();
      const member = await auth.addMember(admin.workspaceId);
      const session = await auth.sessions.logIn(member.email, PASSWORD);
      const deactivated = await auth.members.update(userCaller(admin), member.id, { isActive: false });
      expect(isActive(deactivated)).toBe(false);
      await expect(auth.sessions.refresh(session.refresh)).rejects.toMatchObject({ kind: 'unauthenticated' });
      expect((await auth.sessionEndings.endedRecently(admin.workspaceId)).map((end) => end.id)).toEqual([member.id]);
      await expect(auth.sessions.logIn(member.email, PASSWORD)).rejects.toMatchObject({
        kind: 'unauthenticated',
        message: 'Invalid email or password.',
      });

      await auth.members.update(userCaller(admin), member.id, { isActive: true });
      await expect(auth.sessions.logIn(member.email, PASSWORD)).resolves.toMatchObject({ user: { id: member.id } });
    });

    it('demoting a deactivated admin keeps them deactivated, and an empty change changes nothing', async () => {
      const admin = await signUpAdmin();
      const other = await auth.addMember(admin.workspaceId);
      await auth.members.update(userCaller(admin), other.id, { role: 'admin' });
      await auth.members.update(userCaller(admin), other.id, { isActive: false });
      const demoted = await auth.members.update(userCaller(admin), other.id, { role: 'member' });
      expect(demoted).toMatchObject({ role: 'member', deactivatedAt: expect.any(String) });
      await expect(auth.members.update(userCaller(admin), other.id, {})).resolves.toEqual(demoted);
    });

    it("answers not found for another workspace's user and the system user", async () => {
      const admin = await signUpAdmin();
      const stranger = await signUpAdmin();
      await expect(auth.members.update(userCaller(admin), stranger.id, { isActive: false })).rejects.toMatchObject({ kind: 'not_found' });
      const workspace = await auth.workspaces.get(admin.workspaceId);
      await expect(auth.members.update(userCaller(admin), workspace.systemUserId, { role: 'admin' })).rejects.toMatchObject({
        kind: 'not_found',
      });
      expect(await auth.repositories.users.get(stranger.workspaceId, stranger.id)).not.toHaveProperty('deactivatedAt');
    });
  });
});
