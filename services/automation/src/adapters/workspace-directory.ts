/**
 * Workspace names and users from the auth service, for merge placeholders and recipients' emails;
 * answers cached for a minute. When auth cannot be reached the engine retries the step later
 * (the error propagates), so an email never goes out with a blank where a name belongs.
 */
import { authV1, GrpcClient, type InternalTls } from '@crm/grpc';

export interface DirectoryUser {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
}

export interface WorkspaceDirectory {
  workspaceName(workspaceId: string): Promise<string>;
  /** The workspace's plan (starter, growth, business, enterprise): its daily email quota. */
  plan(workspaceId: string): Promise<string>;
  /** The workspace's users among `ids`; others are left out. */
  users(workspaceId: string, ids: string[]): Promise<Map<string, DirectoryUser>>;
  close(): void;
}

export class AuthWorkspaceDirectory implements WorkspaceDirectory {
  private readonly client: GrpcClient<authV1.AuthServiceMethods>;
  private readonly workspaces = new Map<string, { value: { name: string; plan: string }; expiresAt: number }>();
  private readonly people = new Map<string, { value: DirectoryUser | null; expiresAt: number }>();

  constructor(
    address: string,
    tls: InternalTls | null,
    private readonly ttlMs = 60_000,
  ) {
    this.client = new GrpcClient<authV1.AuthServiceMethods>(authV1.protoPath, authV1.AuthServiceName, address, tls);
  }

  async workspaceName(workspaceId: string): Promise<string> {
    return (await this.workspace(workspaceId)).name;
  }

  async plan(workspaceId: string): Promise<string> {
    return (await this.workspace(workspaceId)).plan;
  }

  private async workspace(workspaceId: string): Promise<{ name: string; plan: string }> {
    const cached = this.workspaces.get(workspaceId);
    if (cached && cached.expiresAt > Date.now()) return cached.value;
    const workspace = await this.client.call(
      'GetWorkspace',
      { workspaceId },
      { workspaceId, actorId: 'automation', actorKind: 'system' },
      { timeoutMs: 5000 },
    );
    const value = { name: workspace.name, plan: workspace.plan };
    this.workspaces.set(workspaceId, { value, expiresAt: Date.now() + this.ttlMs });
    return value;
  }

  async users(workspaceId: string, ids: string[]): Promise<Map<string, DirectoryUser>> {
    const out = new Map<string, DirectoryUser>();
    const missing: string[] = [];
    for (const id of new Set(ids.filter(Boolean))) {
      const cached = this.people.get(`${workspaceId}/${id}`);
      if (cached && cached.expiresAt > Date.now()) {
        if (cached.value) out.set(id, cached.value);
      } else missing.push(id);
    }
    if (missing.length === 0) return out;
    const response = await this.client.call(
      'GetUsers',
      { ids: missing },
      { workspaceId, actorId: 'automation', actorKind: 'system' },
      { timeoutMs: 5000 },
    );
    const expiresAt = Date.now() + this.ttlMs;
    for (const id of missing) this.people.set(`${workspaceId}/${id}`, { value: null, expiresAt });
    for (const user of response.users) {
      if (user.workspaceId && user.workspaceId !== workspaceId) continue;
      const entry = { id: user.id, firstName: user.firstName, lastName: user.lastName, email: user.email };
      this.people.set(`${workspaceId}/${user.id}`, { value: entry, expiresAt });
      out.set(user.id, entry);
    }
    return out;
  }

  close(): void {
    this.client.close();
  }
}
