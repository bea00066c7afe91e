/**
 * Turns an `Authorization: Bearer …` header into a verified caller: an access JWT (verified
 * locally) or a workspace API key (`crm_…`, verified by auth and cached).
 */
import { isDomainError, type Logger } from '@crm/observability';
import type { AuthClient } from '../clients/auth-client';
import type { InvalidationChannel, InvalidationEvent } from '@crm/rate-limit';
import type { Caller, RequestIds } from '../request-context';
import { AccessTokenVerifier, type AccessTokenVerifierOptions } from './access-token-verifier';
import { API_KEY_PREFIX, ApiKeyVerifier, type ApiKeyVerifierOptions } from './api-key-verifier';
import { ApiKeyUsageRecorder } from './api-key-usage';
import { credentialError } from './credential-error';
import { sessionEnded } from './ended-sessions';
import { WorkspaceDirectory, type WorkspaceDirectoryOptions } from './workspace-directory';

export interface AuthenticatorOptions {
  accessTokens?: AccessTokenVerifierOptions;
  apiKeys?: ApiKeyVerifierOptions;
  workspaces?: WorkspaceDirectoryOptions;
  usageFlushIntervalMs?: number;
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MAX_CREDENTIAL_LENGTH = 8192;

export class Authenticator {
  readonly accessTokens: AccessTokenVerifier;
  readonly apiKeys: ApiKeyVerifier;
  readonly workspaces: WorkspaceDirectory;
  readonly usage: ApiKeyUsageRecorder;
  private unsubscribe: unknown;

  constructor(
    auth: AuthClient,
    private readonly invalidation: InvalidationChannel,
    logger: Logger,
    private readonly options: AuthenticatorOptions = {},
  ) {
    this.accessTokens = new AccessTokenVerifier(auth, logger, options.accessTokens);
    this.apiKeys = new ApiKeyVerifier(auth, options.apiKeys);
    this.workspaces = new WorkspaceDirectory(auth, options.workspaces);
    this.usage = new ApiKeyUsageRecorder(auth, logger);
  }

  /** Subscribes to invalidations and starts the usage flush timer. */
  async start(): Promise<void> {
    this.unsubscribe = await this.invalidation.subscribe((event) => this.onInvalidation(event));
    this.usage.start(this.options.usageFlushIntervalMs);
  }

  async stop(): Promise<void> {
    if (typeof this.unsubscribe === 'function') await (this.unsubscribe as () => unknown)();
    await this.usage.stop();
  }

  onInvalidation(event: InvalidationEvent): void {
    if (event.kind === 'api_key_revoked') this.apiKeys.revoke(event.keyId);
    else if (event.kind === 'workspace_changed') {
      this.workspaces.evict(event.workspaceId);
      this.apiKeys.forgetWorkspace(event.workspaceId);
    } else if (event.kind === 'events_missed') {
      this.workspaces.evictAll();
      this.apiKeys.forgetAll();
    }
  }

  async authenticate(authorization: string | undefined, ids: RequestIds): Promise<Caller> {
    if (!authorization) throw credentialError('Authentication credentials were not provided.');
    if (authorization.length > MAX_CREDENTIAL_LENGTH) throw credentialError('Invalid Authorization header.', 'invalid_request');
    const match = BEARER.exec(authorization);
    if (!match) throw credentialError('Invalid Authorization header; expected "Bearer <token>".', 'invalid_request');
    const token = match[1]!;

    if (token.startsWith(API_KEY_PREFIX)) {
      const { keyId, workspace, scopes } = await this.apiKeys.verify(token, ids);
      this.workspaces.remember(workspace);
      this.usage.record(keyId);
      return {
        workspaceId: workspace.id,
        actorId: workspace.systemUserId,
        actorKind: 'api_key',
        plan: workspace.plan,
        rateLimitPerMinute: workspace.rateLimitPerMinute,
        apiKeyId: keyId,
        scopes,
      };
    }

    const claims = await this.accessTokens.verify(token);
    const workspace = await this.workspaces.get(claims.workspaceId, ids).catch((error: unknown) => {
      // A token for a workspace that no longer exists is a dead credential, not a missing page.
      throw isDomainError(error) && error.kind === 'not_found' ? credentialError('Invalid token.', 'invalid_token') : error;
    });
    if (sessionEnded(workspace, claims)) throw credentialError('Session has ended.', 'invalid_token');
    return {
      workspaceId: workspace.id,
      actorId: claims.userId,
      actorKind: 'user',
      plan: workspace.plan,
      rateLimitPerMinute: workspace.rateLimitPerMinute,
    };
  }
}
