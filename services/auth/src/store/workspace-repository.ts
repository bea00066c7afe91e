import { listPage, StoreError, type Condition, type DocumentStore } from '@crm/store';
import type { Plan, User, UserLogin, Workspace } from '../domain/model';
import type { NewWorkspace, PeoplePage, UserChange, UserRepository, WorkspaceRepository } from '../domain/repositories';
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

  findByEmail(workspaceId: string, email: string): Promise<User | null> {
    return this.store.forWorkspace(workspaceId).findOne(users, [{ field: 'email', op: 'eq', value: email }]);
  }

  get(workspaceId: string, id: string): Promise<User | null> {
    return this.store.forWorkspace(workspaceId).get(users, id);
  }

  getMany(workspaceId: string, ids: string[]): Promise<User[]> {
    return this.store.forWorkspace(workspaceId).getMany(users, ids);
  }

  /** The user and the login that makes their email unique land together. */
  async insert(user: User, login?: UserLogin): Promise<'created' | 'email_taken'> {
    try {
      await this.store
        .forWorkspace(user.workspaceId)
        .commit([
          { kind: 'insert', collection: users, document: { ...user } },
          ...(login ? [{ kind: 'insert' as const, collection: userLogins, document: { ...login } }] : []),
        ]);
      return 'created';
    } catch (error) {
      if (error instanceof StoreError && error.code === 'duplicate') return 'email_taken';
      throw error;
    }
  }

  async listPeople(workspaceId: string, paging: { offset: number; limit: number; cursor?: string }): Promise<PeoplePage> {
    const where: Condition[] = [{ field: 'role', op: 'ne', value: 'system' }];
    const sort = { field: 'createdAt', direction: 'desc' } as const;
    if (paging.limit === 0) {
      const page = await this.store.forWorkspace(workspaceId).findPage(users, { where, sort: [sort], offset: paging.offset });
      return { total: page.total, users: page.items, nextCursor: null };
    }
    const page = await listPage(this.store.forWorkspace(workspaceId), users, { where, sort, ...paging, owner: workspaceId });
    return { total: page.total, users: page.items, nextCursor: page.nextCursor };
  }

  countActiveAdmins(workspaceId: string): Promise<number> {
    return this.store.forWorkspace(workspaceId).count(users, [
      { field: 'role', op: 'eq', value: 'admin' },
      { field: 'deactivatedAt', op: 'exists', value: false },
    ]);
  }

  update(workspaceId: string, id: string, change: UserChange): Promise<User | null> {
    return this.store.forWorkspace(workspaceId).update<User>(users, id, { set: { ...change.set }, unset: change.unset ?? [] });
  }

  async acceptInvitation(
    workspaceId: string,
    id: string,
    tokenHash: string,
    passwordHash: string,
    login: UserLogin | null,
  ): Promise<User | null | 'email_taken'> {
    const scoped = this.store.forWorkspace(workspaceId);
    try {
      await scoped.commit([
        {
          kind: 'update',
          collection: users,
          id,
          change: { set: { passwordHash }, unset: ['inviteTokenHash', 'inviteExpiresAt'] },
          where: [{ field: 'inviteTokenHash', op: 'eq', value: tokenHash }],
        },
        ...(login ? [{ kind: 'insert' as const, collection: userLogins, document: { ...login } }] : []),
      ]);
    } catch (error) {
      if (error instanceof StoreError && error.code === 'duplicate') return 'email_taken';
      // Another accept of the same token (or a re-invitation) came first.
      if (error instanceof StoreError && error.code === 'conflict') return null;
      throw error;
    }
    return scoped.get(users, id);
  }
}
