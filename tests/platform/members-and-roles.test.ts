/**
 * Members and roles through HTTPS on two gateway replicas: invitations, the admin-only settings
 * writes walked with an admin, a member and an API key, deactivation, the last admin, and other
 * workspaces. Invitation accepts, logins and sign-ups share the per-address budget of 20 calls a
 * minute, so the suite makes few of them.
 */
import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';
import { waitUntil } from '../support/sibling-process';

let t: TestCluster;
let g1: ApiClient;
let g2: ApiClient;
let owner: SignedUp;
let member: { id: string; email: string; access: string };
let apiKey: string;

const PASSWORD = 'invited person password';
const email = (who: string) => `${who}-${randomBytes(5).toString('hex')}@example.com`;

async function invite(role: 'admin' | 'member', address = email(role)) {
  const response = await g1.post(
    '/api/settings/users/',
    { email: address, firstName: 'In', lastName: 'Vited', role },
    { token: owner.access },
  );
  expect(response.status).toBe(201);
  return response.body as { id: string; email: string; inviteToken: string; invitePending: boolean; role: string };
}

async function inviteAndAccept(role: 'admin' | 'member') {
  const invited = await invite(role);
  const accepted = await g2.post('/api/auth/invitations/accept/', { token: invited.inviteToken, password: PASSWORD });
  expect(accepted.status).toBe(200);
  return { id: invited.id, email: invited.email, access: accepted.body.access as string };
}

beforeAll(async () => {
  t = await startTestCluster({ gateways: 2, withWorkers: false });
  [g1, g2] = t.gateways as [ApiClient, ApiClient];
  owner = await signUp(g1);
  // The walk below makes more calls than the starter plan's 100 a minute.
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  member = await inviteAndAccept('member');
  const created = await g1.post('/api/settings/api-keys/', { name: 'roles walk' }, { token: owner.access });
  expect(created.status).toBe(201);
  apiKey = created.body.key;
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

describe('invitations', () => {
  it('an invitee cannot log in until they accept; re-inviting replaces the token; the accepted token works once', async () => {
    const first = await invite('member');
    expect(first).toMatchObject({ invitePending: true, role: 'member', isActive: true, inviteToken: expect.any(String) });
    const wrongPassword = await g1.post('/api/auth/login/', { email: owner.user.email, password: 'not the password' });
    const pending = await g1.post('/api/auth/login/', { email: first.email, password: PASSWORD });
    expect(pending.status).toBe(401);
    expect(pending.body).toEqual(wrongPassword.body);

    const second = await invite('member', first.email);
    expect(second.id).toBe(first.id);
    expect(second.inviteToken).not.toBe(first.inviteToken);
    expect((await g2.post('/api/auth/invitations/accept/', { token: first.inviteToken, password: PASSWORD })).status).toBe(400);

    const accepted = await g2.post('/api/auth/invitations/accept/', { token: second.inviteToken, password: PASSWORD });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({
      access: expect.any(String),
      refresh: expect.any(String),
      user: { id: first.id, role: 'member' },
    });
    expect((await g1.get('/api/auth/me/', { token: accepted.body.access })).status).toBe(200);
    expect((await g1.post('/api/auth/invitations/accept/', { token: second.inviteToken, password: PASSWORD })).status).toBe(400);
    expect((await g1.post('/api/auth/login/', { email: first.email, password: PASSWORD })).status).toBe(200);

    const listed = await g1.get('/api/settings/users/?limit=100', { token: member.access });
    expect(listed.status).toBe(200);
    expect(listed.body.results.find((u: { id: string }) => u.id === first.id)).toEqual({
      id: first.id,
      email: first.email,
      firstName: 'In',
      lastName: 'Vited',
      role: 'member',
      isActive: true,
      invitePending: false,
      createdAt: expect.stringMatching(/Z$/),
    });
  });

  it('refuses a bad invitation with every failing field, and an existing email on email', async () => {
    const bad = await g1.post('/api/settings/users/', { email: 'nope', firstName: '', role: 'owner' }, { token: owner.access });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body).sort()).toEqual(['email', 'firstName', 'lastName', 'role']);
    const taken = await g1.post(
      '/api/settings/users/',
      { email: member.email, firstName: 'A', lastName: 'B', role: 'member' },
      { token: owner.access },
    );
    expect(taken.status).toBe(422);
    expect(taken.body).toEqual({ email: [expect.any(String)] });
    expect((await g1.post('/api/auth/invitations/accept/', { token: 'made-up', password: PASSWORD })).status).toBe(400);
  });
});

type Who = 'admin' | 'member' | 'apiKey';
interface Step {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: () => string;
  body?: () => unknown;
  /** Settings writes: admins only. Everything else: every caller. */
  adminOnly: boolean;
  /** The admin's status; the others get 403 when adminOnly, this status otherwise. */
  status: number;
  /** Runs after the admin's call. */
  keep?: (body: any) => void;
}

describe('what each role may do', () => {
  it('members and API keys get 403 on every settings write and 2xx on reads, records, imports and automations; admins 2xx everywhere', async () => {
    const ids: Record<string, string> = {};
    const tokens: Record<Who, string> = { admin: owner.access, member: member.access, apiKey };
    const settings: Step[] = [
      { method: 'GET', path: () => '/api/settings/users/', adminOnly: false, status: 200 },
      {
        method: 'POST',
        path: () => '/api/settings/users/',
        body: () => ({ email: email('walk'), firstName: 'W', lastName: 'Alk', role: 'member' }),
        adminOnly: true,
        status: 201,
        keep: (b) => (ids.user = b.id),
      },
      { method: 'PATCH', path: () => `/api/settings/users/${ids.user}/`, body: () => ({ role: 'admin' }), adminOnly: true, status: 200 },
      { method: 'POST', path: () => `/api/settings/users/${ids.user}/logout/`, adminOnly: true, status: 204 },
      { method: 'GET', path: () => '/api/settings/api-keys/', adminOnly: false, status: 200 },
      {
        method: 'POST',
        path: () => '/api/settings/api-keys/',
        body: () => ({ name: 'walk' }),
        adminOnly: true,
        status: 201,
        keep: (b) => (ids.key = b.id),
      },
      { method: 'GET', path: () => `/api/settings/api-keys/${ids.key}/usage/`, adminOnly: false, status: 200 },
      { method: 'DELETE', path: () => `/api/settings/api-keys/${ids.key}/`, adminOnly: true, status: 204 },
      { method: 'GET', path: () => '/api/settings/webhooks/', adminOnly: false, status: 200 },
      {
        method: 'POST',
        path: () => '/api/settings/webhooks/',
        body: () => ({ url: 'https://hooks.example.com/crm', events: ['contact.created'] }),
        adminOnly: true,
        status: 201,
        keep: (b) => (ids.webhook = b.id),
      },
      { method: 'GET', path: () => `/api/settings/webhooks/${ids.webhook}/`, adminOnly: false, status: 200 },
      {
        method: 'PATCH',
        path: () => `/api/settings/webhooks/${ids.webhook}/`,
        body: () => ({ isActive: false }),
        adminOnly: true,
        status: 200,
      },
      { method: 'POST', path: () => `/api/settings/webhooks/${ids.webhook}/rotate-secret/`, adminOnly: true, status: 200 },
      { method: 'POST', path: () => `/api/settings/webhooks/${ids.webhook}/test/`, adminOnly: true, status: 202 },
      { method: 'GET', path: () => `/api/settings/webhooks/${ids.webhook}/deliveries/`, adminOnly: false, status: 200 },
      // No delivery exists (no workers run here): the admin passes the guard and finds nothing.
      { method: 'POST', path: () => `/api/settings/webhooks/${ids.webhook}/deliveries/dlv_none/redeliver/`, adminOnly: true, status: 404 },
      { method: 'DELETE', path: () => `/api/settings/webhooks/${ids.webhook}/`, adminOnly: true, status: 204 },
    ];
    const others: Step[] = [
      { method: 'GET', path: () => '/api/contacts/', adminOnly: false, status: 200 },
      { method: 'GET', path: () => '/api/crm/contacts/import-jobs/', adminOnly: false, status: 200 },
      { method: 'GET', path: () => '/api/automations/rules/', adminOnly: false, status: 200 },
      { method: 'GET', path: () => '/api/auth/me/', adminOnly: false, status: 200 },
    ];

    const seen: string[] = [];
    for (const step of [...settings, ...others]) {
      // The admin goes last: its write may use up what the step works on.
      for (const who of ['member', 'apiKey', 'admin'] as Who[]) {
        const response = await g1.call(step.method, step.path(), { token: tokens[who], body: step.body?.() });
        const expected = step.adminOnly && who !== 'admin' ? 403 : step.status;
        seen.push(`${who} ${step.method} ${step.path()} ${response.status === expected ? 'ok' : `${response.status} ${response.text}`}`);
        if (expected === 403) expect(response.body).toEqual({ detail: expect.any(String) });
        if (who === 'admin' && response.status === expected) step.keep?.(response.body);
      }
    }
    expect(seen.filter((line) => !line.endsWith(' ok'))).toEqual([]);
  });

  it('refuses a member a settings write however the path is spelled', async () => {
    // Webhooks: a route whose service has no role check of its own, so only the gateway's guard stands between.
    const body = { url: 'https://hooks.example.com/sneaky', events: ['contact.created'] };
    for (const path of ['/api/v1/settings/webhooks/', '/API/Settings/webhooks/', '/api//settings/webhooks']) {
      const response = await g1.post(path, body, { token: member.access });
      expect([path, response.status]).toEqual([path, 403]);
    }
  });

  it('lets every role create, change and delete records and automation rules', async () => {
    const tokens: Record<Who, string> = { admin: owner.access, member: member.access, apiKey };
    for (const who of ['member', 'apiKey', 'admin'] as Who[]) {
      const token = tokens[who];
      const contact = await g1.post('/api/contacts/', { firstName: 'Role', lastName: who, email: email(who) }, { token });
      expect([who, contact.status]).toEqual([who, 201]);
      expect((await g1.patch(`/api/contacts/${contact.body.id}/`, { lastName: `${who} changed` }, { token })).status).toBe(200);
      expect((await g1.delete(`/api/contacts/${contact.body.id}/`, { token })).status).toBe(204);
      const rule = await g1.post(
        '/api/automations/rules/',
        { name: `Rule ${who}`, trigger: 'lead_created', steps: [{ type: 'wait', order: 1, config: { duration: 1, unit: 'days' } }] },
        { token },
      );
      expect([who, rule.status]).toEqual([who, 201]);
    }
  });
});

describe('deactivation', () => {
  it("ends the user's sessions at once on both gateways, and their login answers like a wrong password", async () => {
    const person = await inviteAndAccept('member');
    for (const gateway of [g1, g2]) expect((await gateway.get('/api/auth/me/', { token: person.access })).status).toBe(200);

    const changed = await g1.patch(`/api/settings/users/${person.id}/`, { isActive: false }, { token: owner.access });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: person.id, isActive: false });
    expect((await g1.get('/api/auth/me/', { token: person.access })).status).toBe(401);
    await waitUntil(
      'the other gateway to refuse the deactivated user',
      async () => (await g2.get('/api/auth/me/', { token: person.access })).status === 401,
      10_000,
    );

    const wrongPassword = await g2.post('/api/auth/login/', { email: owner.user.email, password: 'still not it' });
    const login = await g2.post('/api/auth/login/', { email: person.email, password: PASSWORD });
    expect(login.status).toBe(401);
    expect(login.body).toEqual(wrongPassword.body);
    const listed = await g1.get('/api/settings/users/?limit=100', { token: owner.access });
    expect(listed.body.results.find((u: { id: string }) => u.id === person.id)).toMatchObject({ isActive: false });
  });
});

describe('the last admin', () => {
  it('cannot be demoted (422 on role) or deactivated (422 on isActive), and nothing changes', async () => {
    // The walk promoted someone who never accepted; make the owner the only active admin again.
    const admins = (await g1.get('/api/settings/users/?limit=100', { token: owner.access })).body.results.filter(
      (u: { role: string; isActive: boolean; id: string }) => u.role === 'admin' && u.isActive && u.id !== owner.user.id,
    );
    for (const admin of admins) {
      expect((await g1.patch(`/api/settings/users/${admin.id}/`, { role: 'member' }, { token: owner.access })).status).toBe(200);
    }
    const demote = await g1.patch(`/api/settings/users/${owner.user.id}/`, { role: 'member' }, { token: owner.access });
    expect(demote.status).toBe(422);
    expect(demote.body).toEqual({ role: [expect.any(String)] });
    const deactivate = await g1.patch(`/api/settings/users/${owner.user.id}/`, { isActive: false }, { token: owner.access });
    expect(deactivate.status).toBe(422);
    expect(deactivate.body).toEqual({ isActive: [expect.any(String)] });
    expect((await g1.get('/api/auth/me/', { token: owner.access })).body).toMatchObject({ role: 'admin' });
  });

  it('refuses a role that is not admin or member, and an unknown field', async () => {
    const response = await g1.patch(`/api/settings/users/${member.id}/`, { role: 'owner', nickname: 'x' }, { token: owner.access });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body).sort()).toEqual(['nickname', 'role']);
  });
});

describe('other workspaces', () => {
  it("an admin of one workspace can neither see nor change another workspace's users (404)", async () => {
    const stranger = await signUp(g2);
    const theirs = await g2.get('/api/settings/users/', { token: stranger.access });
    expect(theirs.body.results.map((u: { id: string }) => u.id)).toEqual([stranger.user.id]);
    for (const [token, id] of [
      [stranger.access, member.id],
      [owner.access, stranger.user.id],
    ] as const) {
      expect((await g1.patch(`/api/settings/users/${id}/`, { isActive: false }, { token })).status).toBe(404);
      expect((await g1.post(`/api/settings/users/${id}/logout/`, undefined, { token })).status).toBe(404);
    }
    expect((await g1.get('/api/auth/me/', { token: member.access })).status).toBe(200);
    expect((await g1.get('/api/auth/me/', { token: stranger.access })).status).toBe(200);
  });
});
