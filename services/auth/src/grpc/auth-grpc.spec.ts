import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { loadConfig } from '@crm/config';
import { authV1, GrpcClient, OPERATOR_TOKEN_HEADER } from '@crm/grpc';
import { createLogger } from '@crm/observability';
import { runCli } from '../cli';
import { authConfigSchema, startAuthService, type RunningAuthService } from '../index';
import { PASSWORD, TEST_PASSWORD_HASHING } from '../testing/auth-factory';

const PROTO = 'auth/v1/auth.proto';

describe('auth service over gRPC', () => {
  let dataDir: string;
  let service: RunningAuthService;
  let auth: GrpcClient<authV1.AuthServiceMethods>;
  let operator: GrpcClient<authV1.AuthOperatorServiceMethods>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'crm-auth-'));
    const config = loadConfig(authConfigSchema, { GRPC_HOST: '127.0.0.1', GRPC_PORT: '0', CRM_DATA_DIR: dataDir, INTERNAL_TLS: 'off' });
    service = await startAuthService(config, {
      logger: createLogger('auth-test', { level: 'silent' }),
      storeLocation: { kind: 'sqlite', file: ':memory:' },
      passwordHashing: TEST_PASSWORD_HASHING,
    });
    auth = new GrpcClient(PROTO, authV1.AuthServiceName, `127.0.0.1:${service.port}`, null);
    operator = new GrpcClient(PROTO, authV1.AuthOperatorServiceName, `127.0.0.1:${service.port}`, null);
  });

  afterAll(async () => {
    auth.close();
    operator.close();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const asOperator = (token = service.operatorToken) => ({ metadata: { [OPERATOR_TOKEN_HEADER]: token } });
  let emails = 0;
  const signUp = (email = `grpc-${++emails}@example.com`) =>
    auth.call('SignUp', { workspaceName: 'Acme', email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' });

  it('signs up, logs in and refreshes with rotation', async () => {
    const session = await signUp('flow@example.com');
    expect(session.user).toMatchObject({ email: 'flow@example.com', role: 'admin' });
    const login = await auth.call('LogIn', { email: 'flow@example.com', password: PASSWORD });
    const refreshed = await auth.call('RefreshToken', { refresh: login.refresh });
    expect(refreshed.refresh).not.toBe(login.refresh);
    await expect(auth.call('RefreshToken', { refresh: login.refresh })).rejects.toMatchObject({ kind: 'unauthenticated' });
    await expect(auth.call('RefreshToken', { refresh: refreshed.refresh })).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('carries every failing sign-up field to the caller', async () => {
    await expect(auth.call('SignUp', { email: 'x' })).rejects.toMatchObject({
      kind: 'validation_failed',
      fields: {
        workspaceName: expect.any(Array),
        email: expect.any(Array),
        password: expect.any(Array),
        firstName: expect.any(Array),
        lastName: expect.any(Array),
      },
    });
  });

  it('answers bad credentials with one message', async () => {
    await signUp('known@example.com');
    // Both asked at once, and both awaited at once: awaiting one first would leave the other's
    // rejection unhandled if it came first (an unknown email may answer sooner).
    const wrong = auth.call('LogIn', { email: 'known@example.com', password: 'nope nope nope' });
    const unknown = auth.call('LogIn', { email: 'unknown@example.com', password: PASSWORD });
    await Promise.all([
      expect(wrong).rejects.toMatchObject({ kind: 'unauthenticated', message: 'Invalid email or password.' }),
      expect(unknown).rejects.toMatchObject({ kind: 'unauthenticated', message: 'Invalid email or password.' }),
    ]);
  });

  it('publishes the key that verifies access tokens, with RS256 pinned', async () => {
    const session = await signUp();
    const { keys, issuer, audience } = await auth.call('GetSigningKeys', {});
    const [key] = keys;
    expect(key).toMatchObject({ algorithm: 'RS256', kid: expect.any(String) });
    const claims = jwt.verify(session.access, key!.publicKeyPem, { algorithms: ['RS256'], issuer, audience }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: session.user!.id, wid: session.user!.workspaceId });
  });

  it('manages API keys for an admin caller and verifies them for the gateway', async () => {
    const { user } = await signUp();
    const caller = { workspaceId: user!.workspaceId, actorId: user!.id, actorKind: 'user' as const };
    const created = await auth.call('CreateApiKey', { name: 'Zapier' }, caller);
    expect(created.apiKey!.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const verified = await auth.call('VerifyApiKey', { key: created.key });
    expect(verified).toMatchObject({ keyId: created.apiKey!.id, workspace: { id: user!.workspaceId, rateLimitPerMinute: 100 } });

    await auth.call('RecordApiKeyUsage', {
      entries: [{ keyId: created.apiKey!.id, day: '2025-03-01', count: 5, lastUsedAt: '2025-03-01T10:00:00Z' }],
    });
    const usage = await auth.call('GetApiKeyUsage', { id: created.apiKey!.id }, caller);
    expect(usage).toMatchObject({ lastUsedAt: '2025-03-01T10:00:00Z' });

    const listed = await auth.call('ListApiKeys', {}, caller);
    expect(listed.apiKeys.map((k) => k.id)).toEqual([created.apiKey!.id]);
    expect(JSON.stringify(listed)).not.toContain(created.key);

    await auth.call('RevokeApiKey', { id: created.apiKey!.id }, caller);
    await expect(auth.call('VerifyApiKey', { key: created.key })).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('refuses key management to an API-key caller and to a caller claiming to be the operator', async () => {
    const { user } = await signUp();
    for (const actorKind of ['api_key', 'operator'] as const) {
      const caller = { workspaceId: user!.workspaceId, actorId: user!.id, actorKind };
      await expect(auth.call('CreateApiKey', { name: 'escalation' }, caller)).rejects.toMatchObject({ kind: 'permission_denied' });
    }
  });

  it('invites a user, who accepts with a password and is then listed as an active member', async () => {
    const { user } = await signUp();
    const caller = { workspaceId: user!.workspaceId, actorId: user!.id, actorKind: 'user' as const };
    const invited = await auth.call(
      'InviteUser',
      { email: 'invitee@example.com', firstName: 'In', lastName: 'Vitee', role: 'member' },
      caller,
    );
    expect(invited.user).toMatchObject({ role: 'member', isActive: true, invitePending: true, createdAt: expect.stringMatching(/Z$/) });
    const session = await auth.call('AcceptInvitation', { token: invited.inviteToken, password: 'invitee password' });
    expect(session.user).toMatchObject({ id: invited.user!.id, invitePending: false });
    await expect(auth.call('AcceptInvitation', { token: invited.inviteToken, password: 'invitee password' })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    const listed = await auth.call('ListUsers', { offset: 0, limit: 0 }, caller);
    expect(listed.total).toBe(2);
    const updated = await auth.call('UpdateUser', { id: invited.user!.id, isActive: false }, caller);
    expect(updated).toMatchObject({ isActive: false, role: 'member' });
  });

  it('refuses operator calls without the operator token or with a wrong one', async () => {
    await expect(operator.call('ListWorkspaces', {})).rejects.toMatchObject({ kind: 'permission_denied' });
    await expect(operator.call('ListWorkspaces', {}, {}, asOperator('wrong-token'))).rejects.toMatchObject({ kind: 'permission_denied' });
  });

  it('lets the operator create an enterprise workspace only with a limit, and change plans', async () => {
    const request = {
      name: 'Big',
      plan: 'enterprise',
      adminEmail: 'big@example.com',
      adminPassword: PASSWORD,
      adminFirstName: 'B',
      adminLastName: 'G',
    };
    await expect(operator.call('CreateWorkspace', request, {}, asOperator())).rejects.toMatchObject({
      kind: 'validation_failed',
      fields: { rateLimitPerMinute: expect.any(Array) },
    });
    const created = await operator.call('CreateWorkspace', { ...request, rateLimitPerMinute: 5000 }, {}, asOperator());
    expect(created.workspace).toMatchObject({ plan: 'enterprise', rateLimitPerMinute: 5000 });
    const changed = await operator.call('ChangePlan', { workspaceId: created.workspace!.id, plan: 'growth' }, {}, asOperator());
    expect(changed).toMatchObject({ plan: 'growth', rateLimitPerMinute: 300 });
    await expect(auth.call('GetWorkspace', { workspaceId: created.workspace!.id })).resolves.toMatchObject({ plan: 'growth' });
  });

  describe('operator CLI', () => {
    const output: string[] = [];
    const errors: string[] = [];
    const io = () => ({
      env: { AUTH_GRPC_ADDR: `127.0.0.1:${service.port}`, CRM_DATA_DIR: dataDir, INTERNAL_TLS: 'off' },
      out: (t: string) => void output.push(t),
      err: (t: string) => void errors.push(t),
    });
    beforeEach(() => {
      output.length = 0;
      errors.length = 0;
    });

    it('creates a workspace and an API key with the token from the data folder', async () => {
      expect(
        await runCli(['create-workspace', '--name', 'CLI Co', '--email', 'cli@example.com', '--password', PASSWORD, '--json'], io()),
      ).toBe(0);
      const { workspace } = JSON.parse(output[0]!) as authV1.CreateWorkspaceResponse;
      expect(await runCli(['create-api-key', '--workspace', workspace!.id, '--name', 'ci', '--json'], io())).toBe(0);
      const { key } = JSON.parse(output[1]!) as authV1.CreateApiKeyResponse;
      await expect(auth.call('VerifyApiKey', { key })).resolves.toMatchObject({ workspace: { id: workspace!.id } });
    });

    it('creates a scoped, expiring API key, and points an unknown scope at --scopes', async () => {
      expect(
        await runCli(['create-workspace', '--name', 'Scoped Co', '--email', 'scoped@example.com', '--password', PASSWORD, '--json'], io()),
      ).toBe(0);
      const { workspace } = JSON.parse(output[0]!) as authV1.CreateWorkspaceResponse;
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const args = [
        'create-api-key',
        '--workspace',
        workspace!.id,
        '--name',
        'ci',
        '--scopes',
        'contacts:read, leads:write',
        '--expires-at',
        expiresAt,
        '--json',
      ];
      expect(await runCli(args, io())).toBe(0);
      const { key } = JSON.parse(output[1]!) as authV1.CreateApiKeyResponse;
      await expect(auth.call('VerifyApiKey', { key })).resolves.toMatchObject({ scopes: ['contacts:read', 'leads:write'] });
      expect(await runCli(['create-api-key', '--workspace', workspace!.id, '--name', 'ci', '--scopes', 'contacts:admin'], io())).toBe(65);
      expect(errors.join('\n')).toContain('--scopes');
    });

    it('points validation errors at the flags and exits 65', async () => {
      expect(await runCli(['change-plan', '--workspace', 'ws_x', '--plan', 'enterprise'], io())).toBe(65);
      expect(errors.join('\n')).toContain('--rate-limit');
    });

    it('exits 64 with usage on an unknown option', async () => {
      expect(await runCli(['list-workspaces', '--bogus'], io())).toBe(64);
      expect(errors.join('\n')).toContain('Usage: crm list-workspaces');
    });

    it('exits 77 when the operator token is wrong', async () => {
      expect(await runCli(['list-workspaces'], { ...io(), env: { ...io().env, CRM_OPERATOR_TOKEN: 'wrong-token-wrong-token' } })).toBe(77);
    });

    it('prints help for the CLI and for each command', async () => {
      expect(await runCli(['--help'], io())).toBe(0);
      expect(await runCli(['create-api-key', '--help'], io())).toBe(0);
      expect(output.join('\n')).toMatch(/create-workspace[\s\S]*Usage: crm create-api-key/);
    });
  });
});
