/**
 * The automation service's calls for clients: rules, execution logs, templates, and the outbox of
 * emails and notifications the engine wrote. Rules hold here; I/O goes through the store port.
 */
import { workspacePage, type Page, type Paging } from './paging';
import { galleryPage } from './template-gallery-page';
import { DomainError } from '@crm/observability';
import type { Condition as StoreCondition, DocumentStore } from '@crm/store';
import { planQuotas, apiTimestamp, systemClock, type Clock } from '@crm/vocabulary';
import { BUILT_IN_TEMPLATES, findBuiltInTemplate, GALLERY_CREATED_AT } from '../domain/gallery';
import { ID_PREFIX, newId } from '../domain/ids';
import {
  LOG_STATUSES,
  TRIGGER_KINDS,
  type CustomTemplateDocument,
  type EmailDocument,
  type EnrollmentDocument,
  type NotificationDocument,
  type RuleDefinition,
  type RuleDocument,
  type Step,
  type TemplateDefinition,
} from '../domain/model';
import type { WorkspaceDirectory } from '../adapters/workspace-directory';
import { readinessProblems, validateRuleDefinition, validateTemplateFields, type RuleInput } from '../domain/rule-validation';
import { customTemplates, emails, engineWorkspaces, enrollments, galleryInstalls, notifications, rules } from '../store/collections';

export interface Caller {
  workspaceId: string;
  /** The workspace's plan, as the gateway names it; its quotas apply (`planQuotas`). */
  plan?: string;
}

export const RULE_FIELDS = ['name', 'trigger', 'triggerConditions', 'exitConditions', 'steps'] as const;

export interface TemplateView extends TemplateDefinition {
  isBuiltIn: boolean;
  installCount: number;
  createdAt: string;
}

export type { Page } from './paging';

export class AutomationService {
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

  // ------------------------------------------------------------------ rules

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

  async saveAsTemplate(
    caller: Caller,
    ruleId: string,
    input: { name?: unknown; description?: unknown; category?: unknown },
  ): Promise<TemplateView> {
    const rule = await this.getRule(caller, ruleId);
    const fields = validateTemplateFields(input);
    const template: CustomTemplateDocument = {
      id: newId(ID_PREFIX.template),
      workspaceId: caller.workspaceId,
      ...fields,
      trigger: rule.trigger,
      triggerConditions: rule.triggerConditions,
      exitConditions: rule.exitConditions,
      steps: rule.steps,
      installCount: 0,
      createdAt: this.now(),
    };
    await this.store.forWorkspace(caller.workspaceId).insert(customTemplates, template);
    return customView(template);
  }

  // ------------------------------------------------------------------ templates

  /** The built-in templates that match (gallery order), then the workspace's custom ones (newest first), one page of them. */
  async listTemplates(
    caller: Caller,
    filter: { category?: string; trigger?: string; search?: string } & Paging,
  ): Promise<Page<TemplateView>> {
    if (filter.trigger && !(TRIGGER_KINDS as readonly string[]).includes(filter.trigger)) {
      throw DomainError.invalid(`trigger must be one of ${TRIGGER_KINDS.join(', ')}.`);
    }
    const where: StoreCondition[] = [];
    if (filter.category) where.push({ field: 'category', op: 'eq', value: filter.category });
    if (filter.trigger) where.push({ field: 'trigger', op: 'eq', value: filter.trigger });
    const search = filter.search?.trim();
    if (search) {
      where.push({
        or: [[{ field: 'name', op: 'contains_text', value: search }], [{ field: 'description', op: 'contains_text', value: search }]],
      });
    }
    const needle = search?.toLowerCase();
    const builtIn = BUILT_IN_TEMPLATES.filter(
      (t) =>
        (!filter.category || t.category === filter.category) &&
        (!filter.trigger || t.trigger === filter.trigger) &&
        (!needle || t.name.toLowerCase().includes(needle) || t.description.toLowerCase().includes(needle)),
    );
    const filters = [filter.category ?? '', filter.trigger ?? '', search ?? ''];
    const page = await galleryPage(this.store, caller.workspaceId, builtIn, where, filters, filter);
    const counts = await this.store.global().getMany(
      galleryInstalls,
      page.builtIns.map((t) => t.id),
    );
    const countOf = new Map(counts.map((c) => [c.id, c.installCount]));
    return {
      total: page.total,
      items: [...page.builtIns.map((t) => builtInView(t, countOf.get(t.id) ?? 0)), ...page.custom.map(customView)],
      nextCursor: page.nextCursor,
    };
  }

  async getTemplate(caller: Caller, id: string): Promise<TemplateView> {
    const builtIn = findBuiltInTemplate(id);
    if (builtIn) {
      const count = await this.store.global().get(galleryInstalls, id);
      return builtInView(builtIn, count?.installCount ?? 0);
    }
    const custom = await this.store.forWorkspace(caller.workspaceId).get(customTemplates, id);
    if (!custom) throw DomainError.notFound();
    return customView(custom);
  }

  /** A new inactive rule, an independent deep copy of the template; the install count moves atomically. */
  async installTemplate(caller: Caller, id: string, name?: string): Promise<RuleDocument> {
    const template = await this.getTemplate(caller, id);
    const copy = structuredClone({
      name: name?.trim() ? name : template.name,
      trigger: template.trigger,
      triggerConditions: template.triggerConditions,
      exitConditions: template.exitConditions,
      steps: template.steps,
    });
    const rule = await this.createRule(caller, copy, template.id);
    if (template.isBuiltIn)
      await this.store.global().upsert(galleryInstalls, { id: template.id, installCount: 1 }, { inc: { installCount: 1 } });
    else await this.store.forWorkspace(caller.workspaceId).update(customTemplates, template.id, { inc: { installCount: 1 } });
    return rule;
  }

  // ------------------------------------------------------------------ outbox

  async listEmails(caller: Caller, filter: { relatedTo?: string } & Paging): Promise<Page<EmailDocument>> {
    const where: StoreCondition[] = filter.relatedTo ? [{ field: 'relatedTo', op: 'eq', value: filter.relatedTo }] : [];
    return this.page(caller, emails, where, filter);
  }

  async listNotifications(
    caller: Caller,
    filter: { recipient?: string; relatedTo?: string } & Paging,
  ): Promise<Page<NotificationDocument>> {
    const where: StoreCondition[] = [];
    if (filter.recipient) where.push({ field: 'recipient', op: 'eq', value: filter.recipient });
    if (filter.relatedTo) where.push({ field: 'relatedTo', op: 'eq', value: filter.relatedTo });
    return this.page(caller, notifications, where, filter);
  }

  private async page<T extends EmailDocument | NotificationDocument>(
    caller: Caller,
    collection: typeof emails | typeof notifications,
    where: StoreCondition[],
    filter: Paging,
  ): Promise<Page<T>> {
    const page = await workspacePage(
      this.store,
      caller.workspaceId,
      collection as typeof emails,
      { where, sort: { field: 'createdAt', direction: 'desc' } },
      filter,
    );
    return { ...page, items: page.items as unknown as T[] };
  }
}

function builtInView(template: TemplateDefinition, installCount: number): TemplateView {
  return { ...structuredClone(template), isBuiltIn: true, installCount, createdAt: GALLERY_CREATED_AT };
}

function customView(template: CustomTemplateDocument): TemplateView {
  const { workspaceId: _workspace, ...rest } = template;
  return { ...rest, isBuiltIn: false };
}
