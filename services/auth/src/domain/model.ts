// The auth service's records as the domain sees them; the store keeps them as documents.

import type { ApiKeyScope, Plan } from '@crm/vocabulary';

export type { Plan };
export type Role = 'admin' | 'member' | 'system';

export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  rateLimitPerMinute: number;
  systemUserId: string;
  createdAt: string;
}

export interface User {
  id: string;
  workspaceId: string;
  email: string;
  firstName: string;
  lastName: string;
  role: Role;
  /** Absent for the system user, which can never log in, and for an invited user until they accept. */
  passwordHash?: string;
  /** Set while deactivated: the user cannot log in, and their sessions ended when it was set. */
  deactivatedAt?: string;
  /** While an invitation is pending: sha256 hex of its one-time token (the token itself is never stored). */
  inviteTokenHash?: string;
  inviteExpiresAt?: string;
  createdAt: string;
}

/** What an admin can set on a person of the workspace. */
export type MemberRole = 'admin' | 'member';

export const isActive = (user: User): boolean => !user.deactivatedAt;
export const isInvitePending = (user: User): boolean => Boolean(user.inviteTokenHash);

/** Login by email is one global get; the id (the lowercased email) makes emails unique. */
export interface UserLogin {
  id: string;
  userId: string;
  workspaceId: string;
}

export interface RefreshToken {
  id: string;
  /** Every token descending from one login shares it, so reuse can revoke the whole chain. */
  familyId: string;
  userId: string;
  workspaceId: string;
  /** sha256 hex of the secret part; the secret itself is never stored. */
  tokenHash: string;
  expiresAt: string;
  usedAt?: string;
  revokedAt?: string;
  createdAt: string;
}

/**
 * id = the user's id. The generation goes up each time every session of the user is ended; access
 * tokens carry the generation they were issued in, and gateways refuse older ones.
 */
export interface SessionEnd {
  id: string;
  workspaceId: string;
  generation: number;
  endedAt: string;
}

export interface ApiKey {
  id: string;
  workspaceId: string;
  name: string;
  prefix: string;
  createdAt: string;
  revokedAt?: string;
  lastUsedAt?: string;
  /** Absent: every scope (keys made before scopes existed, or created without any). */
  scopes?: ApiKeyScope[];
  /** Absent: never expires. */
  expiresAt?: string;
}

/** id = sha256 hex of the whole key: verifying a key is one global get. */
export interface ApiKeyLookup {
  id: string;
  keyId: string;
  workspaceId: string;
}

export interface ApiKeyUsageDay {
  /** `${keyId}:${day}` */
  id: string;
  workspaceId: string;
  keyId: string;
  /** YYYY-MM-DD (UTC) */
  day: string;
  count: number;
}

export interface SigningKey {
  id: string;
  kid: string;
  algorithm: 'RS256';
  privateKeyPem: string;
  publicKeyPem: string;
  createdAt: string;
}
