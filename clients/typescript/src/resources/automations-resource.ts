import type { Client } from 'openapi-fetch';
import type {
  Answer,
  AutomationRule,
  AutomationRuleCreate,
  AutomationRuleListItem,
  AutomationRuleUpdate,
  AutomationTemplate,
  AutomationTemplateListItem,
  ExecutionLog,
  ListQuery,
  RequestBody,
} from '../api-types';
import { CursorList } from '../cursor-list';
import type { paths } from '../generated/crm-api';
import { answer, createHeaders, type CreateOptions } from './answer';

/** Automation rules: created inactive; activate to start enrolling records. */
export class RulesResource {
  constructor(private readonly api: Client<paths>) {}

  list(query: ListQuery<'listAutomationRules'> = {}): CursorList<AutomationRuleListItem> {
    return new CursorList((cursor) => answer(this.api.GET('/api/automations/rules/', { params: { query: { ...query, cursor } } })));
  }

  get(id: string): Promise<AutomationRule> {
    return answer(this.api.GET('/api/automations/rules/{id}/', { params: { path: { id } } }));
  }

  create(rule: AutomationRuleCreate, options?: CreateOptions): Promise<AutomationRule> {
    return answer(this.api.POST('/api/automations/rules/', { body: rule, headers: createHeaders(options) }));
  }

  update(id: string, changes: AutomationRuleUpdate): Promise<AutomationRule> {
    return answer(this.api.PATCH('/api/automations/rules/{id}/', { params: { path: { id } }, body: changes }));
  }

  async delete(id: string): Promise<void> {
    await answer(this.api.DELETE('/api/automations/rules/{id}/', { params: { path: { id } } }));
  }

  activate(id: string): Promise<AutomationRule> {
    return answer(this.api.POST('/api/automations/rules/{id}/activate/', { params: { path: { id } } }));
  }

  deactivate(id: string): Promise<AutomationRule> {
    return answer(this.api.POST('/api/automations/rules/{id}/deactivate/', { params: { path: { id } } }));
  }

  /** The rule's execution logs (one per enrolled record's run). */
  logs(id: string, query: ListQuery<'listAutomationRuleLogs'> = {}): CursorList<ExecutionLog> {
    return new CursorList((cursor) =>
      answer(this.api.GET('/api/automations/rules/{id}/logs/', { params: { path: { id }, query: { ...query, cursor } } })),
    );
  }

  saveAsTemplate(
    id: string,
    template: RequestBody<'saveAutomationRuleAsTemplate'>,
    options?: CreateOptions,
  ): Promise<Answer<'saveAutomationRuleAsTemplate', 201>> {
    return answer(
      this.api.POST('/api/automations/rules/{id}/save-as-template/', {
        params: { path: { id } },
        body: template,
        headers: createHeaders(options),
      }),
    );
  }
}

/** The template gallery (built-in, then the workspace's own). */
export class TemplatesResource {
  constructor(private readonly api: Client<paths>) {}

  list(query: ListQuery<'listAutomationTemplates'> = {}): CursorList<AutomationTemplateListItem> {
    return new CursorList((cursor) => answer(this.api.GET('/api/automations/templates/', { params: { query: { ...query, cursor } } })));
  }

  get(id: string): Promise<AutomationTemplate> {
    return answer(this.api.GET('/api/automations/templates/{id}/', { params: { path: { id } } }));
  }

  /** A new inactive rule copied from the template. */
  install(id: string, rule: RequestBody<'installAutomationTemplate'> = {}, options?: CreateOptions): Promise<AutomationRule> {
    return answer(
      this.api.POST('/api/automations/templates/{id}/install/', { params: { path: { id } }, body: rule, headers: createHeaders(options) }),
    );
  }
}
