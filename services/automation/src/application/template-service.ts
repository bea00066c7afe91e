/**
 * Templates: the built-in gallery and a workspace's own, listed one page at a time, saved from a
 * rule, and installed as a new inactive rule (an independent copy) with the install count moved.
 */
import { DomainError } from '@crm/observability';
import { apiTimestamp, systemClock, type Clock } from '@crm/vocabulary';
import { BUILT_IN_TEMPLATES, findBuiltInTemplate, GALLERY_CREATED_AT } from '../domain/gallery';
import { ID_PREFIX, newId } from '../domain/ids';
import { TRIGGER_KINDS, type CustomTemplateDocument, type RuleDocument, type TemplateDefinition } from '../domain/model';
import type { Page, Paging } from '../domain/paging';
import { validateTemplateFields } from '../domain/rule-validation';
import type { TemplateRepository } from '../store/template-repository';
import type { Caller } from './caller';
import type { RuleService } from './rule-service';

export interface TemplateView extends TemplateDefinition {
  isBuiltIn: boolean;
  installCount: number;
  createdAt: string;
}

export class TemplateService {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly rules: RuleService,
    private readonly clock: Clock = systemClock,
  ) {}

  async saveAsTemplate(
    caller: Caller,
    ruleId: string,
    input: { name?: unknown; description?: unknown; category?: unknown },
  ): Promise<TemplateView> {
    const rule = await this.rules.getRule(caller, ruleId);
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
      createdAt: apiTimestamp(this.clock()),
    };
    await this.templates.insert(template);
    return customView(template);
  }

  /** The built-in templates that match (gallery order), then the workspace's custom ones (newest first), one page of them. */
  async listTemplates(
    caller: Caller,
    filter: { category?: string; trigger?: string; search?: string } & Paging,
  ): Promise<Page<TemplateView>> {
    if (filter.trigger && !(TRIGGER_KINDS as readonly string[]).includes(filter.trigger)) {
      throw DomainError.invalid(`trigger must be one of ${TRIGGER_KINDS.join(', ')}.`);
    }
    const search = filter.search?.trim();
    const needle = search?.toLowerCase();
    const builtIn = BUILT_IN_TEMPLATES.filter(
      (t) =>
        (!filter.category || t.category === filter.category) &&
        (!filter.trigger || t.trigger === filter.trigger) &&
        (!needle || t.name.toLowerCase().includes(needle) || t.description.toLowerCase().includes(needle)),
    );
    const filters = [filter.category ?? '', filter.trigger ?? '', search ?? ''];
    const page = await this.templates.galleryPage(
      caller.workspaceId,
      builtIn,
      { category: filter.category, trigger: filter.trigger, search },
      filters,
      filter,
    );
    const countOf = await this.templates.builtInInstallCounts(page.builtIns.map((t) => t.id));
    return {
      total: page.total,
      items: [...page.builtIns.map((t) => builtInView(t, countOf.get(t.id) ?? 0)), ...page.custom.map(customView)],
      nextCursor: page.nextCursor,
    };
  }

  async getTemplate(caller: Caller, id: string): Promise<TemplateView> {
    const builtIn = findBuiltInTemplate(id);
    if (builtIn) {
      return builtInView(builtIn, await this.templates.builtInInstallCount(id));
    }
    const custom = await this.templates.get(caller.workspaceId, id);
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
    const rule = await this.rules.createRule(caller, copy, template.id);
    if (template.isBuiltIn) await this.templates.countBuiltInInstall(template.id);
    else await this.templates.countCustomInstall(caller.workspaceId, template.id);
    return rule;
  }
}

function builtInView(template: TemplateDefinition, installCount: number): TemplateView {
  return { ...structuredClone(template), isBuiltIn: true, installCount, createdAt: GALLERY_CREATED_AT };
}

function customView(template: CustomTemplateDocument): TemplateView {
  const { workspaceId: _workspace, ...rest } = template;
  return { ...rest, isBuiltIn: false };
}
