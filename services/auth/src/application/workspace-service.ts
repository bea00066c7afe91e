import { DomainError } from '@crm/observability';
import { ACCOUNT_LIMITS, DEFAULT_PLAN } from '@crm/vocabulary';
import type { Clock } from '@crm/vocabulary';
import { newId } from '../domain/ids';
import type { User, Workspace } from '../domain/model';
import type { PasswordHasher } from '../domain/passwords';
import { resolvePlan } from '../domain/plans';
import type { UserRepository, WorkspaceRepository } from '../domain/repositories';
import { FieldCheck } from '../domain/validation';
import { unannouncedWorkspaceChanges, type WorkspaceChanges } from '../domain/workspace-changes';

export interface NewWorkspaceInput {
  workspaceName: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  /** Starter when left out. */
  plan?: string;
  /** Only for enterprise. */
  rateLimitPerMinute?: number;
}

const EMAIL_TAKEN = 'A user with this email already exists.';

/** Workspaces with their plan, their system user and their first admin. */
export class WorkspaceService {
  constructor(
    private readonly workspaces: WorkspaceRepository,
    private readonly users: UserRepository,
    private readonly passwords: PasswordHasher,
    private readonly now: Clock,
    private readonly changes: WorkspaceChanges = unannouncedWorkspaceChanges,
  ) {}

  async createWorkspace(input: NewWorkspaceInput): Promise<{ workspace: Workspace; admin: User }> {
    const check = new FieldCheck();
    const workspaceName = check.text('workspaceName', input.workspaceName, ACCOUNT_LIMITS.workspaceName);
    const email = check.email('email', input.email);
    const password = check.password('password', input.password);
    const firstName = check.text('firstName', input.firstName, ACCOUNT_LIMITS.personName);
    const lastName = check.text('lastName', input.lastName, ACCOUNT_LIMITS.personName);
    const plan = check.merge(() => resolvePlan(input.plan ?? DEFAULT_PLAN, input.rateLimitPerMinute));
    if (email && (await this.users.findLogin(email))) check.add('email', EMAIL_TAKEN);
    check.throwIfAny();

    const createdAt = this.now().toISOString();
    const workspaceId = newId('ws_');
    const systemUser: User = {
      id: newId('usr_'),
      workspaceId,
      email: '',
      firstName: 'API',
      lastName: 'Key',
      role: 'system',
      createdAt,
    };
    const admin: User = {
      id: newId('usr_'),
      workspaceId,
      email: email!,
      firstName: firstName!,
      lastName: lastName!,
      role: 'admin',
      passwordHash: await this.passwords.hash(password!),
      createdAt,
    };
    const workspace: Workspace = {
      id: workspaceId,
      name: workspaceName!,
      plan: plan!.plan,
      rateLimitPerMinute: plan!.rateLimitPerMinute,
      systemUserId: systemUser.id,
      createdAt,
    };
    const outcome = await this.workspaces.create({
      workspace,
      systemUser,
      admin,
      adminLogin: { id: admin.email, userId: admin.id, workspaceId },
    });
    // Lost a race with another sign-up for the same email between the check and the write.
    if (outcome === 'email_taken') throw DomainError.validation({ email: [EMAIL_TAKEN] });
    return { workspace, admin };
  }

  async changePlan(workspaceId: string, plan: string, rateLimitPerMinute?: number): Promise<Workspace> {
    const resolved = resolvePlan(plan, rateLimitPerMinute);
    const updated = await this.workspaces.changePlan(workspaceId, resolved.plan, resolved.rateLimitPerMinute);
    if (!updated) throw DomainError.notFound();
    await this.changes.changed(workspaceId);
    return updated;
  }

  async get(workspaceId: string): Promise<Workspace> {
    const workspace = workspaceId ? await this.workspaces.get(workspaceId) : null;
    if (!workspace) throw DomainError.notFound();
    return workspace;
  }

  list(): Promise<Workspace[]> {
    return this.workspaces.list();
  }
}
