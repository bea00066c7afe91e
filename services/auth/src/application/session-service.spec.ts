import { DomainError } from '@crm/observability';
import { buildAuth, PASSWORD, type AuthFixture } from '../testing/auth-factory';
import { DAY_MS } from '../domain/clock';
import { INVALID_CREDENTIALS } from './session-service';

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('sessions', () => {
  let auth: AuthFixture;
  beforeEach(async () => {
    auth = await buildAuth();
  });
  afterEach(() => auth.close());

  describe('sign-up', () => {
    it('creates a starter workspace with the signer as admin and a system user', async () => {
      const session = await auth.signUp('Ada@Example.COM');
      expect(session.user).toMatchObject({ email: 'ada@example.com', role: 'admin', firstName: 'Ada' });
      const workspace = await auth.workspaces.get(session.user.workspaceId);
      expect(workspace).toMatchObject({ name: 'Acme', plan: 'starter', rateLimitPerMinute: 100 });
      const system = await auth.repositories.users.get(workspace.id, workspace.systemUserId);
      expect(system).toMatchObject({ role: 'system' });
      expect(system?.passwordHash).toBeUndefined();
      expect(session.user.id).toMatch(/^usr_[0-9A-Za-z]{22}$/);
      expect(workspace.id).toMatch(/^ws_[0-9A-Za-z]{22}$/);
    });

    it('reports every failing field at once', async () => {
      const error = await failure(
        auth.sessions.signUp({ workspaceName: ' ', email: 'not-an-email', password: 'short', firstName: '', lastName: '' }),
      );
      expect(error.kind).toBe('validation_failed');
      expect(Object.keys(error.fields ?? {}).sort()).toEqual(['email', 'firstName', 'lastName', 'password', 'workspaceName']);
      expect(error.fields?.password).toEqual(['Ensure this field has at least 10 characters.']);
      expect(error.fields?.email).toEqual(['Enter a valid email address.']);
    });

    it('refuses a password longer than 256 characters', async () => {
      const error = await failure(
        auth.sessions.signUp({ workspaceName: 'A', email: 'a@b.co', password: 'x'.repeat(257), firstName: 'A', lastName: 'B' }),
      );
      expect(error.fields).toEqual({ password: ['Ensure this field has no more than 256 characters.'] });
    });

    it('refuses an email already in use, whatever its case, on the email field', async () => {
      await auth.signUp('taken@example.com');
      const error = await failure(auth.signUp('TAKEN@example.com'));
      expect(error.kind).toBe('validation_failed');
      expect(error.fields).toEqual({ email: ['A user with this email already exists.'] });
    });

    it('lets only one of two simultaneous sign-ups with one email through', async () => {
      const results = await Promise.allSettled([auth.signUp('race@example.com'), auth.signUp('race@example.com')]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ kind: 'validation_failed' });
    });
  });

  describe('login', () => {
    it('returns tokens and the user for the right password, with the email in any case', async () => {
      const { user } = await auth.signUp('login@example.com');
      const session = await auth.sessions.logIn('LOGIN@example.com', PASSWORD);
      expect(session.user.id).toBe(user.id);
      await expect(auth.accessTokens.verify(session.access)).resolves.toEqual({
        userId: user.id,
        workspaceId: user.workspaceId,
        sessionGeneration: 0,
      });
      expect(session.refresh).toMatch(/^rt_[0-9A-Za-z]{22}\.[A-Za-z0-9_-]{43}$/);
    });

    it('answers an unknown email and a wrong password with the same message', async () => {
      await auth.signUp('known@example.com');
      const wrongPassword = await failure(auth.sessions.logIn('known@example.com', 'wrong password!'));
      const unknownEmail = await failure(auth.sessions.logIn('nobody@example.com', PASSWORD));
      expect(wrongPassword).toMatchObject({ kind: 'unauthenticated', message: INVALID_CREDENTIALS });
      expect(unknownEmail).toMatchObject({ kind: 'unauthenticated', message: INVALID_CREDENTIALS });
    });

    it('never logs in the system user', async () => {
      const { user } = await auth.signUp();
      const workspace = await auth.workspaces.get(user.workspaceId);
      const system = await auth.repositories.users.get(user.workspaceId, workspace.systemUserId);
      await expect(auth.sessions.logIn(system!.email, '')).rejects.toMatchObject({ kind: 'unauthenticated' });
    });
  });

  describe('refresh', () => {
    it('rotates the refresh token and returns a new access token', async () => {
      const { refresh, user } = await auth.signUp();
      const next = await auth.sessions.refresh(refresh);
      expect(next.refresh).not.toBe(refresh);
      expect((await auth.accessTokens.verify(next.access)).userId).toBe(user.id);
      await expect(auth.sessions.refresh(next.refresh)).resolves.toMatchObject({ access: expect.any(String) });
    });

    it('treats reuse of a rotated token as theft and revokes the whole family', async () => {
      const { refresh: first } = await auth.signUp();
      const { refresh: second } = await auth.sessions.refresh(first);
      await expect(auth.sessions.refresh(first)).rejects.toMatchObject({ kind: 'unauthenticated' });
      await expect(auth.sessions.refresh(second)).rejects.toMatchObject({ kind: 'unauthenticated' });
    });

    it('leaves other logins of the same user alone when one family is revoked', async () => {
      const { refresh: stolen, user } = await auth.signUp();
      const other = await auth.sessions.logIn(user.email, PASSWORD);
      await auth.sessions.refresh(stolen);
      await expect(auth.sessions.refresh(stolen)).rejects.toMatchObject({ kind: 'unauthenticated' });
      await expect(auth.sessions.refresh(other.refresh)).resolves.toMatchObject({ refresh: expect.any(String) });
    });

    it('lets exactly one of two simultaneous refreshes with one token win, and revokes the family', async () => {
      const { refresh } = await auth.signUp();
      const results = await Promise.allSettled([auth.sessions.refresh(refresh), auth.sessions.refresh(refresh)]);
      const won = results.filter((r): r is PromiseFulfilledResult<{ access: string; refresh: string }> => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      await expect(auth.sessions.refresh(won[0]!.value.refresh)).rejects.toMatchObject({ kind: 'unauthenticated' });
    });

    it('refuses an expired refresh token', async () => {
      const { refresh } = await auth.signUp();
      auth.clock.advance(30 * DAY_MS + 1000);
      await expect(auth.sessions.refresh(refresh)).rejects.toMatchObject({ kind: 'unauthenticated' });
    });

    it('accepts a refresh token just before it expires', async () => {
      const { refresh } = await auth.signUp();
      auth.clock.advance(30 * DAY_MS - 1000);
      await expect(auth.sessions.refresh(refresh)).resolves.toMatchObject({ refresh: expect.any(String) });
    });

    it('refuses a tampered token without revoking the genuine one', async () => {
      const { refresh } = await auth.signUp();
      const [id, secret] = refresh.split('.') as [string, string];
      const tampered = `${id}.${secret[0] === 'A' ? 'B' : 'A'}${secret.slice(1)}`;
      await expect(auth.sessions.refresh(tampered)).rejects.toMatchObject({ kind: 'unauthenticated' });
      await expect(auth.sessions.refresh('garbage')).rejects.toMatchObject({ kind: 'unauthenticated' });
      await expect(auth.sessions.refresh(refresh)).resolves.toMatchObject({ refresh: expect.any(String) });
    });
  });

  describe('current user', () => {
    it('is the caller in its workspace', async () => {
      const { user } = await auth.signUp();
      await expect(
        auth.sessions.currentUser({ workspaceId: user.workspaceId, actorId: user.id, actorKind: 'user' }),
      ).resolves.toMatchObject({ id: user.id });
    });

    it('does not find a user through another workspace', async () => {
      const { user } = await auth.signUp();
      const { user: other } = await auth.signUp();
      await expect(
        auth.sessions.currentUser({ workspaceId: other.workspaceId, actorId: user.id, actorKind: 'user' }),
      ).rejects.toMatchObject({
        kind: 'unauthenticated',
      });
      await expect(
        auth.sessions.usersById({ workspaceId: other.workspaceId, actorId: other.id, actorKind: 'user' }, [user.id, other.id]),
      ).resolves.toEqual([expect.objectContaining({ id: other.id })]);
    });
  });
});
