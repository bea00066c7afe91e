import type { automationV1, CallContext, ServiceHandlers, UnaryHandler } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import type { Caller } from '../application/caller';
import type { OutboxService } from '../application/outbox-service';
import type { RuleService } from '../application/rule-service';
import type { TemplateService } from '../application/template-service';
import type { WebhookService } from '../application/webhook-service';
import { webhookHandlers } from './webhook-handlers';
import { pageFields, pagingOf } from './page-fields';
import { emailMessage, logMessage, notificationMessage, ruleInput, ruleMessage, templateMessage } from './proto-mapping';

type M = automationV1.AutomationServiceMethods;
type Handlers = { [K in keyof M as string extends K ? never : K]: UnaryHandler<M[K]['request'], M[K]['response']> };

function callerOf(context: CallContext): Caller {
  if (!context.workspaceId) throw DomainError.unauthenticated('The call carries no workspace.');
  return { workspaceId: context.workspaceId, plan: context.plan };
}

/** Translation only: proto ↔ the automation service's calls. */
/** The automation service's resources, one application service each. */
export interface AutomationResources {
  rules: RuleService;
  templates: TemplateService;
  outbox: OutboxService;
  webhooks: WebhookService;
}

export function automationHandlers({ rules, templates, outbox, webhooks }: AutomationResources): ServiceHandlers {
  const handlers: Handlers = {
    ...webhookHandlers(webhooks, callerOf),
    ListRules: async (r, c) => {
      const page = await rules.listRules(callerOf(c), pagingOf(r));
      return { ...pageFields(page), rules: page.items.map(ruleMessage) };
    },
    CreateRule: async (r, c) => ({ rule: ruleMessage(await rules.createRule(callerOf(c), ruleInput(r.rule, r.providedFields))) }),
    GetRule: async (r, c) => ({ rule: ruleMessage(await rules.getRule(callerOf(c), r.id)) }),
    UpdateRule: async (r, c) => ({
      rule: ruleMessage(await rules.updateRule(callerOf(c), r.id, ruleInput(r.rule, r.updateFields), r.updateFields)),
    }),
    DeleteRule: async (r, c) => {
      await rules.deleteRule(callerOf(c), r.id);
      return {};
    },
    ActivateRule: async (r, c) => ({ rule: ruleMessage(await rules.setActive(callerOf(c), r.id, true)) }),
    DeactivateRule: async (r, c) => ({ rule: ruleMessage(await rules.setActive(callerOf(c), r.id, false)) }),
    ListExecutionLogs: async (r, c) => {
      const page = await rules.listLogs(callerOf(c), r.ruleId, { status: r.status, after: r.after, ...pagingOf(r) });
      return { ...pageFields(page), logs: page.items.map(logMessage) };
    },
    SaveRuleAsTemplate: async (r, c) => {
      const sent = (field: string) => r.providedFields.length === 0 || r.providedFields.includes(field);
      const template = await templates.saveAsTemplate(callerOf(c), r.ruleId, {
        name: sent('name') ? r.name : undefined,
        description: sent('description') ? r.description : undefined,
        category: sent('category') ? r.category : undefined,
      });
      return { template: templateMessage(template) };
    },
    ListTemplates: async (r, c) => {
      const page = await templates.listTemplates(callerOf(c), {
        category: r.category,
        trigger: r.trigger,
        search: r.search,
        ...pagingOf(r),
      });
      return { ...pageFields(page), templates: page.items.map(templateMessage) };
    },
    GetTemplate: async (r, c) => ({ template: templateMessage(await templates.getTemplate(callerOf(c), r.id)) }),
    InstallTemplate: async (r, c) => ({ rule: ruleMessage(await templates.installTemplate(callerOf(c), r.templateId, r.name)) }),
    ListEmails: async (r, c) => {
      const page = await outbox.listEmails(callerOf(c), { relatedTo: r.relatedTo, ...pagingOf(r) });
      return { ...pageFields(page), emails: page.items.map(emailMessage) };
    },
    ListNotifications: async (r, c) => {
      const page = await outbox.listNotifications(callerOf(c), {
        recipient: r.recipient,
        relatedTo: r.relatedTo,
        ...pagingOf(r),
      });
      return { ...pageFields(page), notifications: page.items.map(notificationMessage) };
    },
  };
  return handlers as ServiceHandlers;
}
