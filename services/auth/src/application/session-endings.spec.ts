import { buildAuth, PASSWORD, userCaller, type AuthFixture } from '../testing/auth-factory';

describe('ending sessions', () => {
  let auth: AuthFixture;
  beforeEach(async () => {
    auth = await buildAuth();
  });
  afterEach(() => auth.close());

  const generationOf = async (access: string) => (await auth.accessTokens.verify(access)).sessionGeneration;

  it('logout revokes that login only; an unknown or malformed token ends nothing and throws nothing', async () => {
    const first = await auth.signUp('one@example.com');
    const second = await auth.sessions.logIn('one@example.com', PASSWORD);
    const next = await auth.sessions.refresh(first.refresh);
    await auth.sessionEndings.logOut(first.refresh); // an already rotated token of the family
    await expect(auth.sessions.refresh(next.refresh)).rejects.toMatchObject({ kind: 'unauthenticated' });
    await expect(auth.sessions.refresh(second.refresh)).resolves.toMatchObject({ access: expect.any(String) });
    await expect(auth.sessionEndings.logOut('rt_nope')).resolves.toBeUndefined();
    await expect(auth.sessionEndings.logOut(`${second.refresh.slice(0, -2)}xx`)).resolves.toBeUndefined();
  });

  it('logout everywhere revokes every refresh token, and new tokens carry the next generation', async () => {
    const first = await auth.signUp('all@example.com');
    const second = await auth.sessions.logIn('all@example.com', PASSWORD);
    expect(await generationOf(first.access)).toBe(0);
    await auth.sessionEndings.endOwn(userCaller(first.user));
    for (const refresh of [first.refresh, second.refresh]) {
      await expect(auth.sessions.refresh(refresh)).rejects.toMatchObject({ kind: 'unauthenticated' });
    }
    const again = await auth.sessions.logIn('all@example.com', PASSWORD);
    expect(await generationOf(again.access)).toBe(1);
    expect(await generationOf((await auth.sessions.refresh(again.refresh)).access)).toBe(1);
    const ended = await auth.sessionEndings.endedRecently(first.user.workspaceId);
    expect(ended).toEqual([expect.objectContaining({ id: first.user.id, generation: 1 })]);
  });

  it('lists an end only while an access token of the old generation may be alive', async () => {
    const { user } = await auth.signUp();
    await auth.sessionEndings.endOwn(userCaller(user));
    auth.clock.advance(3600_000 + 61_000);
    expect(await auth.sessionEndings.endedRecently(user.workspaceId)).toEqual([]);
  });

  it("lets an admin end a member's sessions; a member, an API key, the system user and other workspaces cannot", async () => {
    const { user: admin } = await auth.signUp();
    const member = await auth.addMember(admin.workspaceId);
    const memberSession = await auth.sessions.logIn(member.email, PASSWORD);
    await expect(auth.sessionEndings.endFor(userCaller(member), admin.id)).rejects.toMatchObject({ kind: 'permission_denied' });
    const apiKey = { workspaceId: admin.workspaceId, actorId: 'usr_system', actorKind: 'api_key' as const };
    await expect(auth.sessionEndings.endFor(apiKey, member.id)).rejects.toMatchObject({ kind: 'permission_denied' });
    await expect(auth.sessionEndings.endOwn(apiKey)).rejects.toMatchObject({ kind: 'permission_denied' });
    const workspace = await auth.workspaces.get(admin.workspaceId);
    await expect(auth.sessionEndings.endFor(userCaller(admin), workspace.systemUserId)).rejects.toMatchObject({ kind: 'not_found' });
    const { user: stranger } = await auth.signUp();
    await expect(auth.sessionEndings.endFor(userCaller(admin), stranger.id)).rejects.toMatchObject({ kind: 'not_found' });

    await auth.sessionEndings.endFor(userCaller(admin), member.id);
    await expect(auth.sessions.refresh(memberSession.refresh)).rejects.toMatchObject({ kind: 'unauthenticated' });
    expect((await auth.sessionEndings.endedRecently(admin.workspaceId)).map((end) => end.id)).toEqual([member.id]);
  });
});
