import type { authV1 } from '@crm/grpc';
import type { AccessTokenClaims } from './access-token-verifier';

/**
 * Whether the token belongs to a session that has ended: auth lists, with each workspace, the users
 * whose sessions ended within an access token's lifetime and their new session generation.
 */
export function sessionEnded(workspace: authV1.Workspace, claims: Pick<AccessTokenClaims, 'userId' | 'sessionGeneration'>): boolean {
  const ended = (workspace.endedSessions ?? []).find((entry) => entry.userId === claims.userId);
  return ended !== undefined && claims.sessionGeneration < ended.generation;
}
