/**
 * Where auth says that a workspace's plan or limit changed, so that every gateway replica drops
 * what it has cached and the very next request is counted against the new limit.
 */
export interface WorkspaceChanges {
  /** Resolves once the news is on its way to every replica; never throws. */
  changed(workspaceId: string): Promise<void>;
}

/** No gateway to tell (unit tests, a service run on its own): caches expire by themselves. */
export const unannouncedWorkspaceChanges: WorkspaceChanges = { changed: async () => undefined };
