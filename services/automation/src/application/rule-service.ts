/**
 * Rules and their execution logs: a workspace's automation rules, checked as a whole on every
 * save, activated within the plan's quota, and the runs each one made.
 */
import { workspacePage, type Page, type Paging } from './paging';
import { DomainError } from '@crm/observability';
import type { Condition as StoreCondition, DocumentStore } from '@crm/store';
import { planQuotas, apiTimestamp, systemClock, type Clock } from '@crm/vocabulary';
import { ID_PREFIX, newId } from '../domain/ids';
import { LOG_STATUSES, type EnrollmentDocument, type RuleDefinition, type RuleDocument, type Step } from '../domain/model';
import type { WorkspaceDirectory } from '../adapters/workspace-directory';
import { readinessProblems, validateRuleDefinition, type RuleInput } from '../domain/rule-validation';
import { engineWorkspaces, enrollments, rules } from '../store/collections';
import type { Caller } from './caller';

export const RULE_FIELDS = ['name', 'trigger', 'triggerConditions', 'exitConditions', 'steps'] as const;

export class RuleService {
  constructor(
    private readonly store: DocumentStore,
    private readonly clock: Clock = systemClock,
    /** Where the users an assign_user step names are checked; without it (unit tests) they are not. */
    private readonly members?: WorkspaceDirectory,
  ) {}

  /**
   * Every user an assign_user step names must be a member of the caller's workspace when the rule
   * is saved (the step checks again when it runs, through records). While auth cannot answer, the
   * save is refused as unavailable: never accepted unchecked.
   */
  private async assertMembers(caller: Caller, definition: { steps: Step[] }): Promise<void> {
    if (!this.members) return;
    const named = definition.steps.flatMap((step, index) =>
      step.type === 'assign_user' ? step.config.userIds.map((id, at) => ({ id, path: `steps.${index}.config.userIds.${at}` })) : [],
    );
    if (named.length === 0) return;
    const found = await this.members.users(
      caller.workspaceId,
      named.map((n) => n.id),
    );
    const strangers = named.filter((n) => !found.has(n.id));
    if (strangers.length > 0)
      throw DomainError.validation(Object.fromEntries(strangers.map((n) => [n.path, [`There is no user ${n.id} in this workspace.`]])));
  }

  private now(): string {
    return apiTimestamp(this.clock());
  }

  listRules(caller: Caller, paging: Paging = {}): Promise<Page<RuleDocument>> {
    return workspacePage(this.store, caller.workspaceId, rules, { sort: { field: 'createdAt', direction: 'desc' } }, paging);
  }

  async getRule(caller: Caller, id: string): Promise<RuleDocument> {
    const rule = await this.store.forWorkspace(caller.workspaceId).get(rules, id);
    if (!rule) throw DomainError.notFound();
    return rule;
  }

  async createRule(caller: Caller, input: RuleInput, installedFromTemplateId: string | null = null): Promise<RuleDocument> {
    const definition = validateRuleDefinition(input);
    await this.assertMembers(caller, definition);
    const now = this.now();
    const rule: RuleDocument = {
      id: newId(ID_PREFIX.rule),
      workspaceId: caller.workspaceId,
      ...definition,
      isActive: false,
      enrolledCount: 0,
      roundRobin: {},
      installedFromTemplateId,
      createdAt: now,
      updatedAt: now,
    };
    return this.store.forWorkspace(caller.workspaceId).insert(rules, rule);
  }

  /** Any subset of the definition; the result is validated as a whole. Enrollments under way keep their steps. */
  async updateRule(caller: Caller, id: string, input: RuleInput, fields: string[]): Promise<RuleDocument> {
    const scoped = this.store.forWorkspace(caller.workspaceId);
    const current = await this.getRule(caller, id);
    const merged: RuleInput = {
      name: current.name,
      trigger: current.trigger,
      triggerConditions: current.triggerConditions,
      exitConditions: current.exitConditions,
      steps: current.steps,
    };
    for (const field of fields) {
      if ((RULE_FIELDS as readonly string[]).includes(field)) merged[field as keyof RuleInput] = input[field as keyof RuleInput];
    }
    const definition = validateRuleDefinition(merged);
    await this.assertMembers(caller, definition);
    if (current.isActive) this.assertReady(definition);
    // Trigger changes re-key the round-robin positions: a step's position is its order.
    const updated = await scoped.update(
      rules,
      id,
      { set: { ...definition, updatedAt: this.now() } },
      { where: [{ field: 'updatedAt', op: 'eq', value: current.updatedAt }] },
    );
    if (!updated) {
      // Changed or deleted under us: report what holds now.
      if (!(await scoped.get(rules, id))) throw DomainError.notFound();
      throw DomainError.conflict('The rule changed while it was being updated; read it again and retry.');
    }
    return updated;
  }

  async deleteRule(caller: Caller, id: string): Promise<void> {
    const scoped = this.store.forWorkspace(caller.workspaceId);
    if (!(await scoped.delete(rules, id))) throw DomainError.notFound();
    // Enrollments under way end: their rule is gone. (Their logs stay, unreachable through the API.)
    const now = this.now();
    await scoped.updateMany(
      enrollments,
      [
        { field: 'ruleId', op: 'eq', value: id },
        { field: 'status', op: 'eq', value: 'in_progress' },
      ],
      { set: { status: 'cancelled', activeKey: null, dueAt: null, reason: 'The rule was deleted.', completedAt: now } },
    );
  }

  async setActive(caller: Caller, id: string, active: boolean): Promise<RuleDocument> {
    const scoped = this.store.forWorkspace(caller.workspaceId);
    const rule = await this.getRule(caller, id);
    if (active) {
      this.assertReady(rule);
      // The sweeper looks for overdue steps in registered workspaces only.
      await this.store.global().upsert(engineWorkspaces, { id: caller.workspaceId, registeredAt: this.now() }, {});
    }
    if (rule.isActive === active) return rule;
    if (active) await this.assertActiveRuleQuota(caller);
    const updated = await scoped.update(rules, id, { set: { isActive: active, updatedAt: this.now() } });
    if (!updated) throw DomainError.notFound();
    return updated;
  }

  /** One more active rule than the plan allows is a 422 on `isActive` (the rule stays inactive). */
  private async assertActiveRuleQuota(caller: Caller): Promise<void> {
    const { activeRules } = planQuotas(caller.plan);
    const active = await this.store.forWorkspace(caller.workspaceId).count(rules, [{ field: 'isActive', op: 'eq', value: true }]);
    if (active >= activeRules)
      throw DomainError.validation({
        isActive: [`This workspace's plan allows ${activeRules} active rules; deactivate one first.`],
      });
  }

  private assertReady(definition: RuleDefinition): void {
    const problems = readinessProblems(definition);
    if (Object.keys(problems).length > 0) throw DomainError.validation(problems);
  }

  async listLogs(caller: Caller, ruleId: string, filter: { status?: string; after?: string } & Paging): Promise<Page<EnrollmentDocument>> {
    await this.getRule(caller, ruleId);
    const where: StoreCondition[] = [{ field: 'ruleId', op: 'eq', value: ruleId }];
    if (filter.status) {
      if (!(LOG_STATUSES as readonly string[]).includes(filter.status))
        throw DomainError.invalid(`status must be one of ${LOG_STATUSES.join(', ')}.`);
      where.push({ field: 'status', op: 'eq', value: filter.status });
    }
    if (filter.after) {
      const after = new Date(filter.after);
      if (Number.isNaN(after.getTime())) throw DomainError.invalid('after must be an ISO 8601 date or timestamp.');
      where.push({ field: 'startedAt', op: 'gt', value: apiTimestamp(after) });
    }
    return workspacePage(this.store, caller.workspaceId, enrollments, { where, sort: { field: 'startedAt', direction: 'desc' } }, filter);
  }
}
