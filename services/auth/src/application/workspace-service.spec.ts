import { buildAuth, PASSWORD, type AuthFixture } from '../testing/auth-factory';

const admin = { email: 'owner@example.com', password: PASSWORD, firstName: 'Olive', lastName: 'Owner' };

describe('workspaces', () => {
  let auth: AuthFixture;
  beforeEach(async () => {
    auth = await buildAuth();
  });
  afterEach(() => auth.close());

  it('creates an enterprise workspace with its own limit', async () => {
    const { workspace, admin: user } = await auth.workspaces.createWorkspace({
      workspaceName: 'Big',
      plan: 'enterprise',
      rateLimitPerMinute: 5000,
      ...admin,
    });
    expect(workspace).toMatchObject({ plan: 'enterprise', rateLimitPerMinute: 5000 });
    expect(user.role).toBe('admin');
    await expect(auth.sessions.logIn(admin.email, PASSWORD)).resolves.toMatchObject({ user: { id: user.id } });
  });

  it('refuses an enterprise workspace without a limit, listing it with the other failing fields', async () => {
    await expect(
      auth.workspaces.createWorkspace({ workspaceName: 'Big', plan: 'enterprise', ...admin, email: 'bad' }),
    ).rejects.toMatchObject({
      kind: 'validation_failed',
      fields: { rateLimitPerMinute: [expect.any(String)], email: ['Enter a valid email address.'] },
    });
  });

  it('changes the plan and the limit with it', async () => {
    const { workspace } = await auth.workspaces.createWorkspace({ workspaceName: 'Small', ...admin });
    await expect(auth.workspaces.changePlan(workspace.id, 'business')).resolves.toMatchObject({
      plan: 'business',
      rateLimitPerMinute: 600,
    });
    await expect(auth.workspaces.changePlan(workspace.id, 'enterprise')).rejects.toMatchObject({ kind: 'validation_failed' });
    await expect(auth.workspaces.changePlan(workspace.id, 'enterprise', 2000)).resolves.toMatchObject({ rateLimitPerMinute: 2000 });
  });

  it('answers not found for an unknown workspace', async () => {
    await expect(auth.workspaces.changePlan('ws_missing', 'growth')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(auth.workspaces.get('ws_missing')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('lists workspaces newest first', async () => {
    const a = await auth.workspaces.createWorkspace({ workspaceName: 'A', ...admin, email: 'a@example.com' });
    auth.clock.advance(1000);
    const b = await auth.workspaces.createWorkspace({ workspaceName: 'B', ...admin, email: 'b@example.com' });
    expect((await auth.workspaces.list()).map((w) => w.id)).toEqual([b.workspace.id, a.workspace.id]);
  });
});
