// The one-time token an invited user sets their password with. It names the user it is for, so
// accepting it is one get; only its hash is stored, and a new invitation replaces the hash.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { User } from './model';

export const INVITATION_TTL_DAYS = 7;
const DAY_MS = 86_400_000;
const SHAPE = /^(ws_[0-9A-Za-z]{1,64})\.(usr_[0-9A-Za-z]{1,64})\.([A-Za-z0-9_-]{43})$/;

export interface NewInvitation {
  token: string;
  tokenHash: string;
  expiresAt: string;
}

export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function newInvitation(user: Pick<User, 'id' | 'workspaceId'>, now: Date): NewInvitation {
  const token = `${user.workspaceId}.${user.id}.${randomBytes(32).toString('base64url')}`;
  return { token, tokenHash: hashInvitationToken(token), expiresAt: new Date(now.getTime() + INVITATION_TTL_DAYS * DAY_MS).toISOString() };
}

/** Whose invitation the token claims to be; null when it is not shaped like one. */
export function invitationTarget(token: string): { workspaceId: string; userId: string } | null {
  const match = SHAPE.exec(token);
  return match ? { workspaceId: match[1]!, userId: match[2]! } : null;
}

/** True when the user's pending invitation is this token and has not expired. */
export function invitationMatches(user: User, token: string, now: Date): boolean {
  if (!user.inviteTokenHash || !user.inviteExpiresAt || new Date(user.inviteExpiresAt) <= now) return false;
  const presented = Buffer.from(hashInvitationToken(token), 'hex');
  const stored = Buffer.from(user.inviteTokenHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
