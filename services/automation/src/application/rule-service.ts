/**
 * Rules and their execution logs: a workspace's automation rules, checked as a whole on every
 * save, activated within the plan's quota, and the runs each one made.
 */
import { DomainError } from '@crm/observability';
import { planQuotas, apiTimestamp, systemClock, type Clock } from '@crm/vocabulary';
import { ID_PREFIX, newId } from '../domain/ids';
import { LOG_STATUSES, type EnrollmentDocument, type RuleDefinition, type RuleDocument, type Step } from '../domain/model';
import type { Page, Paging } from '../domain/paging';
import type { WorkspaceDirectory } from '../adapters/workspace-directory';
import { readinessProblems, validateRuleDefinition, type RuleInput } from '../domain/rule-validation';
import type { AutomationRepositories } from '../store/repositories';
import type { Caller } from './caller';

export const RULE_FIELDS = ['name', 'trigger', 'triggerConditions', 'exitConditions', 'steps'] as const;

export class RuleService {
  constructor(
    private readonly repositories: Pick<AutomationRepositories, 'rules' | 'runs' | 'engineWorkspaces'>,
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

  private get rules() {
    return this.repositories.rules;
  }

  listRules(caller: Caller, paging: Paging = {}): Promise<Page<RuleDocument>> {
    return this.rules.page(caller.workspaceId, paging);
  }

  async getRule(caller: Caller, id: string): Promise<RuleDocument> {
    const rule = await this.rules.get(caller.workspaceId, id);
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
    return this.rules.insert(rule);
  }

  /** Any subset of the definition; the result is validated as a whole. Enrollments under way keep their steps. */
  async updateRule(caller: Caller, id: string, input: RuleInput, fields: string[]): Promise<RuleDocument> {
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
    const updated = await this.rules.changeDefinition(caller.workspaceId, id, definition, this.now(), current.updatedAt);
    if (!updated) {
      // Changed or deleted under us: report what holds now.
      if (!(await this.rules.get(caller.workspaceId, id))) throw DomainError.notFound();
      throw DomainError.conflict('The rule changed while it was being updated; read it again and retry.');
    }
    return updated;
  }

  async deleteRule(caller: Caller, id: string): Promise<void> {
    if (!(await this.rules.delete(caller.workspaceId, id))) throw DomainError.notFound();
    // Enrollments under way end: their rule is gone. (Their logs stay, unreachable through the API.)
    await this.repositories.runs.cancelRunsOfRule(caller.workspaceId, id, 'The rule was deleted.', this.now());
  }

  async setActive(caller: Caller, id: string, active: boolean): Promise<RuleDocument> {
    const rule = await this.getRule(caller, id);
    if (active) {
      this.assertReady(rule);
      // The sweeper looks for overdue steps in registered workspaces only.
      await this.repositories.engineWorkspaces.register(caller.workspaceId, this.now());
    }
    if (rule.isActive === active) return rule;
    if (active) await this.assertActiveRuleQuota(caller);
    const updated = await this.rules.setActive(caller.workspaceId, id, active, this.now());
    if (!updated) throw DomainError.notFound();
    return updated;
  }

  /** One more active rule than the plan allows is a 422 on `isActive` (the rule stays inactive). */
  private async assertActiveRuleQuota(caller: Caller): Promise<void> {
    const { activeRules } = planQuotas(caller.plan);
    const active = await this.rules.countActive(caller.workspaceId);
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
    if (filter.status && !(LOG_STATUSES as readonly string[]).includes(filter.status))
      throw DomainError.invalid(`status must be one of ${LOG_STATUSES.join(', ')}.`);
    let startedAfter: string | undefined;
    if (filter.after) {
      const after = new Date(filter.after);
      if (Number.isNaN(after.getTime())) throw DomainError.invalid('after must be an ISO 8601 date or timestamp.');
      startedAfter = apiTimestamp(after);
    }
    return this.repositories.runs.logPage(caller.workspaceId, ruleId, { status: filter.status, startedAfter }, filter);
  }
}
