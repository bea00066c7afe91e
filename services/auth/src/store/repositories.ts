import type { DocumentStore } from '@crm/store';
import type { AuthRepositories } from '../domain/repositories';
import { StoreApiKeyRepository } from './api-key-repository';
import { StoreRefreshTokenRepository } from './refresh-token-repository';
import { StoreSessionEndRepository } from './session-end-repository';
import { StoreSigningKeyRepository } from './signing-key-repository';
import { StoreUserRepository, StoreWorkspaceRepository } from './workspace-repository';

export function createRepositories(store: DocumentStore): AuthRepositories {
  return {
    workspaces: new StoreWorkspaceRepository(store),
    users: new StoreUserRepository(store),
    refreshTokens: new StoreRefreshTokenRepository(store),
    sessionEnds: new StoreSessionEndRepository(store),
    apiKeys: new StoreApiKeyRepository(store),
    signingKeys: new StoreSigningKeyRepository(store),
  };
}
