/**
 * A minimal in-test AuthService on a real GrpcServer: enough of auth.proto for the gateway's
 * tests (sessions, signing keys, API keys, workspaces, usage). Not the auth service's rules.
 */
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { GrpcServer, authV1 } from '@crm/grpc';
import { DomainError, createLogger } from '@crm/observability';
import { API_KEY_SCOPES } from '@crm/vocabulary';

export const ISSUER = 'crm-auth';
export const AUDIENCE = 'crm-api';
export const KID = 'test-key-1';

export type FakeWorkspace = authV1.Workspace;

/** Handlers of the fake's rpcs, by name. */
type Handlers = Record<string, (request: any, context: any) => Promise<unknown>>;

export class FakeAuthService {
  readonly keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  readonly workspaces = new Map<string, FakeWorkspace>();
  readonly users = new Map<string, authV1.User & { password: string }>();
  readonly apiKeys = new Map<string, authV1.ApiKey & { key: string; workspaceId: string }>();
  readonly refreshTokens = new Map<string, { userId: string; used: boolean }>();
  readonly usage: authV1.ApiKeyUsageEntry[] = [];
  readonly calls: string[] = [];
  /** How long CreateApiKey takes, for tests of requests still running at a stop. */
  createApiKeyDelayMs = 0;
  private server: GrpcServer | undefined;
  port = 0;

  constructor() {
    this.addWorkspace('ws_main', 1000);
    this.addUser('usr_ann', 'ann@example.com', 'correct horse', 'ws_main');
  }

  addWorkspace(id: string, rateLimitPerMinute: number, plan = 'starter'): FakeWorkspace {
    const workspace = {
      id,
      name: id,
      plan,
      rateLimitPerMinute,
      systemUserId: `usr_system_${id}`,
      createdAt: '2025-01-01T00:00:00Z',
      endedSessions: [],
    };
    this.workspaces.set(id, workspace);
    this.users.set(workspace.systemUserId, {
      id: workspace.systemUserId,
      email: '',
      password: '',
      firstName: 'System',
      lastName: '',
      workspaceId: id,
      role: 'system',
      isActive: true,
      invitePending: false,
      createdAt: '2025-01-01T00:00:00Z',
    });
    return workspace;
  }

  addUser(id: string, email: string, password: string, workspaceId: string): void {
    this.users.set(id, {
      id,
      email,
      password,
      firstName: 'Ann',
      lastName: 'Lee',
      workspaceId,
      role: 'admin',
      isActive: true,
      invitePending: false,
      createdAt: '2025-01-01T00:00:00Z',
    });
  }

  /** An access token as auth would issue it; `options` lets tests forge bad ones. */
  accessToken(userId = 'usr_ann', options: { key?: KeyObject; expiresIn?: number; workspaceId?: string } = {}): string {
    const user = this.users.get(userId);
    return jwt.sign({ wid: options.workspaceId ?? user?.workspaceId ?? 'ws_main' }, options.key ?? this.keys.privateKey, {
      algorithm: 'RS256',
      keyid: KID,
      subject: userId,
      issuer: ISSUER,
      audience: AUDIENCE,
      expiresIn: options.expiresIn ?? 3600,
    });
  }

  /** A key holding `scopes` (every scope when empty) until `expiresAt` (ISO; empty: never). */
  addApiKey(workspaceId: string, name = 'test key', limits: { scopes?: string[]; expiresAt?: string } = {}): string {
    const id = `key_${randomUUID().slice(0, 8)}`;
    const key = `crm_${randomUUID().replace(/-/g, '')}`;
    this.apiKeys.set(id, {
      id,
      name,
      prefix: key.slice(0, 8),
      createdAt: '2025-01-02T00:00:00Z',
      lastUsedAt: '',
      revokedAt: '',
      scopes: limits.scopes?.length ? limits.scopes : [...API_KEY_SCOPES],
      expiresAt: limits.expiresAt ?? '',
      key,
      workspaceId,
    });
    return key;
  }

  private session(user: authV1.User): authV1.SessionResponse {
    const refresh = `rt_${randomUUID()}`;
    this.refreshTokens.set(refresh, { userId: user.id, used: false });
    const { password: _password, ...publicUser } = user as authV1.User & { password?: string };
    return { access: this.accessToken(user.id), refresh, user: publicUser };
  }

  async start(): Promise<number> {
    const handlers = { ...this.sessionHandlers(), ...this.apiKeyHandlers() };
    const traced = Object.fromEntries(
      Object.entries(handlers).map(([name, handler]) => [
        name,
        (request: unknown, context: unknown) => (this.calls.push(name), handler(request, context)),
      ]),
    );
    // Plaintext, as gatewayConfig() speaks to it: these specs are about the gateway, not internal trust.
    this.server = new GrpcServer({ logger: createLogger('fake-auth', { level: 'silent' }), tls: null }).addService(
      'auth/v1/auth.proto',
      authV1.AuthServiceName,
      traced,
      {},
    );
    this.port = await this.server.listen('127.0.0.1:0');
    this.server.setServing(true);
    return this.port;
  }

  /** Signing keys, log-in, sign-up, refresh, API key verification, the workspace and the current user. */
  private sessionHandlers(): Handlers {
    return {
      GetSigningKeys: async () => ({
        keys: [{ kid: KID, algorithm: 'RS256', publicKeyPem: this.keys.publicKey.export({ type: 'spki', format: 'pem' }).toString() }],
        issuer: ISSUER,
        audience: AUDIENCE,
      }),
      LogIn: async (request: authV1.LogInRequest) => {
        const user = [...this.users.values()].find((u) => u.email === request.email && u.password === request.password);
        if (!user) throw DomainError.unauthenticated('No active account found with the given credentials.');
        return this.session(user);
      },
      SignUp: async (request: authV1.SignUpRequest) => {
        const workspace = this.addWorkspace(`ws_${randomUUID().slice(0, 8)}`, 100);
        const id = `usr_${randomUUID().slice(0, 8)}`;
        this.addUser(id, request.email, request.password, workspace.id);
        return this.session(this.users.get(id)!);
      },
      RefreshToken: async (request: authV1.RefreshTokenRequest) => {
        const token = this.refreshTokens.get(request.refresh);
        if (!token || token.used) throw DomainError.unauthenticated('Token is invalid or expired.');
        token.used = true;
        const { access, refresh } = this.session(this.users.get(token.userId)!);
        return { access, refresh };
      },
      VerifyApiKey: async (request: authV1.VerifyApiKeyRequest) => {
        const key = [...this.apiKeys.values()].find((k) => k.key === request.key && !k.revokedAt);
        if (!key || (key.expiresAt && Date.parse(key.expiresAt) <= Date.now())) throw DomainError.unauthenticated('Invalid API key.');
        return { keyId: key.id, workspace: this.workspaces.get(key.workspaceId), scopes: key.scopes, expiresAt: key.expiresAt };
      },
      GetWorkspace: async (request: authV1.GetWorkspaceRequest) => {
        const workspace = this.workspaces.get(request.workspaceId);
        if (!workspace) throw DomainError.notFound();
        return workspace;
      },
      RecordApiKeyUsage: async (request: authV1.RecordApiKeyUsageRequest) => {
        this.usage.push(...request.entries);
        return {};
      },
      GetCurrentUser: async (_request: unknown, context: { actorId: string }) => {
        const user = this.users.get(context.actorId);
        if (!user) throw DomainError.notFound();
        const { password: _password, ...publicUser } = user;
        return publicUser;
      },
    };
  }

  /** API keys made, listed, revoked, and their usage. */
  private apiKeyHandlers(): Handlers {
    return {
      CreateApiKey: async (request: authV1.CreateApiKeyRequest, context: { workspaceId: string }) => {
        if (this.createApiKeyDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.createApiKeyDelayMs));
        const key = this.addApiKey(context.workspaceId, request.name, { scopes: request.scopes, expiresAt: request.expiresAt });
        const stored = [...this.apiKeys.values()].find((k) => k.key === key)!;
        const { key: _key, workspaceId: _ws, ...apiKey } = stored;
        return { apiKey, key };
      },
      ListApiKeys: async (_request: unknown, context: { workspaceId: string }) => ({
        apiKeys: [...this.apiKeys.values()]
          .filter((k) => k.workspaceId === context.workspaceId)
          .map(({ key: _k, workspaceId: _w, ...k }) => k),
      }),
      RevokeApiKey: async (request: authV1.RevokeApiKeyRequest, context: { workspaceId: string }) => {
        const key = this.apiKeys.get(request.id);
        if (!key || key.workspaceId !== context.workspaceId) throw DomainError.notFound();
        key.revokedAt = new Date().toISOString();
        return {};
      },
      GetApiKeyUsage: async (request: authV1.GetApiKeyUsageRequest) => {
        const entries = this.usage.filter((u) => u.keyId === request.id);
        const days = new Map<string, number>();
        for (const e of entries) days.set(e.day, (days.get(e.day) ?? 0) + e.count);
        return {
          id: request.id,
          days: [...days].map(([date, count]) => ({ date, count })),
          lastUsedAt: entries.at(-1)?.lastUsedAt ?? '',
          total: entries.reduce((n, e) => n + e.count, 0),
        };
      },
    };
  }

  async stop(): Promise<void> {
    await this.server?.shutdown(1000);
  }
}
