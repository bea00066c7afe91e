/** Who makes a call: the workspace, the actor and the request, carried to every write, event and audit entry. */
export interface Caller {
  workspaceId: string;
  actor: { id: string; type: 'user' | 'api_key' | 'system' };
  /** Ties events to the request that caused them. */
  correlationId: string;
  /** The API key a key's call was made with (actor is then the workspace's system user). */
  apiKeyId?: string;
  /** A service's cause for its own write (automation's rules); the events carry it on. */
  cause?: string;
}
