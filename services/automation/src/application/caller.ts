/** Who calls the automation service: the workspace, and its plan as the gateway names it (its quotas apply, `planQuotas`). */
export interface Caller {
  workspaceId: string;
  plan?: string;
}
