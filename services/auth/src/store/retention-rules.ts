/**
 * What auth keeps only for a while: refresh tokens (used, revoked or never used) once they have
 * been expired for REFRESH_TOKEN_RETENTION_DAYS. An expired token is refused whatever else is
 * known about it, so deleting it loses nothing but the trail; reuse detection needs a used token
 * only while it could still have been accepted, that is until it expires.
 */
import { isoDaysBefore, type RetentionRule } from '@crm/store';
import { refreshTokens } from './collections';

export function authRetentionRules(refreshTokenRetentionDays: number): RetentionRule[] {
  return [
    {
      collection: refreshTokens,
      expired: (now) => [{ field: 'expiresAt', op: 'lt', value: isoDaysBefore(now, refreshTokenRetentionDays) }],
    },
  ];
}
