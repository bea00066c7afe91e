import { StoreError, type DocumentStore } from '@crm/store';
import type { Plan, User, Workspace } from '../domain/model';
import type { NewWorkspace, UserRepository, WorkspaceRepository } from '../domain/repositories';
import { userLogins, users, workspaces } from './collections';

export class StoreWorkspaceRepository implements WorkspaceRepository {
  constructor(private readonly store: DocumentStore) {}

  /** The workspace, its system user, its admin and the admin's login land together or not at all. */
  async create({ workspace, systemUser, admin, adminLogin }: NewWorkspace): Promise<'created' | 'email_taken'> {
    try {
      await this.store.forWorkspace(workspace.id).commit([
        { kind: 'insert', collection: workspaces, document: { ...workspace } },
        { kind: 'insert', collection: users, document: { ...systemUser } },
        { kind: 'insert', collection: users, document: { ...admin } },
        { kind: 'insert', collection: userLogins, document: { ...adminLogin } },
      ]);
      return 'created';
    } catch (error) {
      // Ids are random, so the only duplicate that can happen is the login (the email).
      if (error instanceof StoreError && error.code === 'duplicate') return 'email_taken';
      throw error;
    }
  }

  get(id: string): Promise<Workspace | null> {
    return this.store.global().get(workspaces, id);
  }

  list(): Promise<Workspace[]> {
    return this.store.global().find(workspaces, { sort: [{ field: 'createdAt', direction: 'desc' }] });
  }

  changePlan(id: string, plan: Plan, rateLimitPerMinute: number): Promise<Workspace | null> {
    return this.store.global().update(workspaces, id, { set: { plan, rateLimitPerMinute } });
  }
}

export class StoreUserRepository implements UserRepository {
  constructor(private readonly store: DocumentStore) {}

  findLogin(email: string) {
    return this.store.global().get(userLogins, email);
  }

  get(workspaceId: string, id: string): Promise<User | null> {
    return this.store.forWorkspace(workspaceId).get(users, id);
  }

  getMany(workspaceId: string, ids: string[]): Promise<User[]> {
    return this.store.forWorkspace(workspaceId).getMany(users, ids);
  }
}
