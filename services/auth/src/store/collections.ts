// Every collection the auth service keeps. Only the repositories in this folder use them.
import { defineCollection, leases } from '@crm/store';
import type {
  ApiKey,
  ApiKeyLookup,
  ApiKeyUsageDay,
  RefreshToken,
  SessionEnd,
  SigningKey,
  User,
  UserLogin,
  Workspace,
} from '../domain/model';

export const workspaces = defineCollection<Workspace>({
  name: 'workspaces',
  scope: 'global',
  fields: { createdAt: 'string' },
});

export const users = defineCollection<User>({
  name: 'users',
  scope: 'workspace',
  fields: { role: 'string', createdAt: 'string', email: 'string' },
  // One user per (lower-cased) email in a workspace, pending invitations included: an invitation
  // writes no global login (that waits for acceptance), so this is what keeps two racing invitations
  // of one address to one user. The system user's email is '' (one per workspace).
  indexes: [{ fields: ['email'], unique: true, sparse: true }],
});

export const userLogins = defineCollection<UserLogin>({
  name: 'user_logins',
  scope: 'global',
});

export const refreshTokens = defineCollection<RefreshToken>({
  name: 'refresh_tokens',
  scope: 'global',
  fields: { familyId: 'string', userId: 'string', usedAt: 'string', revokedAt: 'string', expiresAt: 'string' },
  indexes: [{ fields: ['familyId'] }, { fields: ['userId'] }],
});

export const sessionEnds = defineCollection<SessionEnd>({
  name: 'session_ends',
  scope: 'workspace',
  fields: { endedAt: 'string' },
  indexes: [{ fields: ['endedAt'] }],
});

export const apiKeys = defineCollection<ApiKey>({
  name: 'api_keys',
  scope: 'workspace',
  fields: { createdAt: 'string', revokedAt: 'string', lastUsedAt: 'string' },
});

export const apiKeyLookup = defineCollection<ApiKeyLookup>({
  name: 'api_key_lookup',
  scope: 'global',
  // Usage batches name keys by id only; this index finds a key's workspace from its id.
  fields: { keyId: 'string' },
  indexes: [{ fields: ['keyId'], unique: true }],
});

export const apiKeyUsage = defineCollection<ApiKeyUsageDay>({
  name: 'api_key_usage',
  scope: 'workspace',
  fields: { keyId: 'string', day: 'string' },
  indexes: [{ fields: ['keyId', 'day'] }],
});

export const signingKeys = defineCollection<SigningKey>({
  name: 'signing_keys',
  scope: 'global',
});

export const authCollections = [
  workspaces,
  users,
  userLogins,
  refreshTokens,
  sessionEnds,
  apiKeys,
  apiKeyLookup,
  apiKeyUsage,
  signingKeys,
  // The retention sweeper's lease (store/retention-rules.ts).
  leases,
];
