/**
 * Automation: rules (CRUD, activate/deactivate, execution logs, save as template), the template
 * gallery (list, read, install), and what the engine sent (emails, notifications). REST ↔ gRPC
 * translation only; the automation service holds the rules.
 */
import { Router } from 'express';
import { DomainError } from '@crm/observability';
import { AUTOMATION_DEADLINE_MS, lazyAutomationClient, type AutomationClient } from '../../clients/automation-client';
import { idParameter, operation, type OpenApiPaths } from '../../openapi/operation';
import type { GatewayConfig } from '../../config';
import { callerContext } from '../../request-context';
import { listParameters } from '../records/record-routes';
import { countedList, paginated, readListQuery } from '../records/list-query';
import type { RouteDeps, RouteModule } from '../route-module';
import { parseBody, pathId } from '../validate';
import { withoutReadOnly } from '../field-table';
import {
  emailJson,
  emailListSchema,
  installBody,
  installSchema,
  LOG_STATUSES,
  logJson,
  logListSchema,
  notificationJson,
  notificationListSchema,
  READ_ONLY_RULE_FIELDS,
  ruleBody,
  ruleCreateSchema,
  ruleFromBody,
  ruleJson,
  ruleListItem,
  ruleListSchema,
  ruleSchema,
  ruleUpdateSchema,
  saveAsTemplateBody,
  saveAsTemplateSchema,
  templateJson,
  templateListItem,
  templateListSchema,
  templateSchema,
} from './automation-shapes';

function isoParam(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(new Date(value).getTime()))
    throw DomainError.invalid(`${name} must be an ISO 8601 date or timestamp.`);
  return value;
}

const options = { timeoutMs: AUTOMATION_DEADLINE_MS };

export function automationRoutes(
  deps: RouteDeps,
  client: AutomationClient = lazyAutomationClient(deps.config.AUTOMATION_GRPC_ADDR, deps.internalTls),
): RouteModule {
  const router = Router();
  ruleRoutes(router, client);
  ruleActionRoutes(router, client);
  templateRoutes(router, client);
  sentRoutes(router, client, deps.config);
  return { name: 'automation', access: 'authenticated', router, paths: automationPaths() };
}

/** Rules: list, create, read, update, delete. */
function ruleRoutes(router: Router, client: AutomationClient): void {
  router.get('/api/automations/rules', async (req, res) => {
    const list = readListQuery(req, [], { cursor: true });
    const page = await client.call(
      'ListRules',
      { offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' },
      callerContext(res),
      options,
    );
    res.json(countedList(list, page.total, page.rules.map(ruleListItem), page.nextCursor));
  });

  router.post('/api/automations/rules', async (req, res) => {
    const { rule, fields } = ruleFromBody(parseBody(ruleBody, req.body));
    const created = await client.call('CreateRule', { rule: rule as never, providedFields: fields }, callerContext(res), options);
    res.status(201).json(ruleJson(created.rule!));
  });

  router.get('/api/automations/rules/:id', async (req, res) => {
    const { rule } = await client.call('GetRule', { id: pathId(req.params.id) }, callerContext(res), options);
    res.json(ruleJson(rule!));
  });

  router.patch('/api/automations/rules/:id', async (req, res) => {
    const id = pathId(req.params.id);
    const { rule, fields } = ruleFromBody(parseBody(ruleBody, withoutReadOnly(req.body, READ_ONLY_RULE_FIELDS)));
    const updated = await client.call('UpdateRule', { id, rule: rule as never, updateFields: fields }, callerContext(res), options);
    res.json(ruleJson(updated.rule!));
  });

  router.delete('/api/automations/rules/:id', async (req, res) => {
    await client.call('DeleteRule', { id: pathId(req.params.id) }, callerContext(res), options);
    res.status(204).end();
  });
}

/** What is done to a rule: activate, deactivate, its execution logs, save as template. */
function ruleActionRoutes(router: Router, client: AutomationClient): void {
  router.post('/api/automations/rules/:id/activate', async (req, res) => {
    const { rule } = await client.call('ActivateRule', { id: pathId(req.params.id) }, callerContext(res), options);
    res.json(ruleJson(rule!));
  });

  router.post('/api/automations/rules/:id/deactivate', async (req, res) => {
    const { rule } = await client.call('DeactivateRule', { id: pathId(req.params.id) }, callerContext(res), options);
    res.json(ruleJson(rule!));
  });

  router.get('/api/automations/rules/:id/logs', async (req, res) => {
    const ruleId = pathId(req.params.id);
    const list = readListQuery(req, ['status', 'after'], { cursor: true });
    const after = isoParam('after', list.filters.after);
    const { logs, total, nextCursor } = await client.call(
      'ListExecutionLogs',
      { ruleId, status: list.filters.status ?? '', after: after ?? '', offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' },
      callerContext(res),
      options,
    );
    res.json(countedList(list, total, logs.map(logJson), nextCursor));
  });

  router.post('/api/automations/rules/:id/save-as-template', async (req, res) => {
    const ruleId = pathId(req.params.id);
    const body = parseBody(saveAsTemplateBody, req.body ?? {});
    const providedFields = Object.keys(body).filter((key) => (body as Record<string, unknown>)[key] !== undefined);
    const { template } = await client.call(
      'SaveRuleAsTemplate',
      {
        ruleId,
        name: body.name ?? '',
        description: body.description ?? '',
        category: body.category ?? '',
        providedFields: providedFields.length ? providedFields : ['none'],
      },
      callerContext(res),
      options,
    );
    res.status(201).json(templateJson(template!));
  });
}

/** The template gallery: list, read, install. */
function templateRoutes(router: Router, client: AutomationClient): void {
  router.get('/api/automations/templates', async (req, res) => {
    const list = readListQuery(req, ['category', 'trigger', 'search'], { cursor: true });
    const { category = '', trigger = '', search = '' } = list.filters;
    const { templates, total, nextCursor } = await client.call(
      'ListTemplates',
      { category, trigger, search, offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' },
      callerContext(res),
      options,
    );
    res.json(countedList(list, total, templates.map(templateListItem), nextCursor));
  });

  router.get('/api/automations/templates/:id', async (req, res) => {
    const { template } = await client.call('GetTemplate', { id: pathId(req.params.id) }, callerContext(res), options);
    res.json(templateJson(template!));
  });

  router.post('/api/automations/templates/:id/install', async (req, res) => {
    const templateId = pathId(req.params.id);
    const body = parseBody(installBody, req.body ?? {});
    const { rule } = await client.call('InstallTemplate', { templateId, name: body.name ?? '' }, callerContext(res), options);
    res.status(201).json(ruleJson(rule!));
  });
}

/** What the engine sent: emails and notifications. */
function sentRoutes(router: Router, client: AutomationClient, config: GatewayConfig): void {
  router.get('/api/emails', async (req, res) => {
    const list = readListQuery(req, ['relatedTo'], { cursor: true });
    const { emails, total, nextCursor } = await client.call(
      'ListEmails',
      { relatedTo: list.filters.relatedTo ?? '', offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' },
      callerContext(res),
      options,
    );
    res.json(paginated(req, config, list, total, emails.map(emailJson), nextCursor));
  });

  router.get('/api/notifications', async (req, res) => {
    const list = readListQuery(req, ['recipient', 'relatedTo'], { cursor: true });
    const { notifications, total, nextCursor } = await client.call(
      'ListNotifications',
      {
        recipient: list.filters.recipient ?? '',
        relatedTo: list.filters.relatedTo ?? '',
        offset: list.offset,
        limit: list.limit,
        cursor: list.cursor ?? '',
      },
      callerContext(res),
      options,
    );
    res.json(paginated(req, config, list, total, notifications.map(notificationJson), nextCursor));
  });
}

const ruleId = idParameter('The rule id (rul_...).');
const templateId = idParameter('The template id (tmpl_...).');
const query = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
/** Every list here walks by page, offset or cursor. */
const pagingParameters = listParameters([], { cursor: true });
const tags = ['automation'];

/** The OpenAPI part of {@link automationRoutes}, in the same order. */
export function automationPaths(): OpenApiPaths {
  return { ...rulePaths(), ...ruleActionPaths(), ...templatePaths(), ...sentPaths() };
}

function rulePaths(): OpenApiPaths {
  return {
    '/api/automations/rules/': {
      get: operation({
        operationId: 'listAutomationRules',
        summary: "List the workspace's automation rules, newest first",
        tags,
        authenticated: true,
        parameters: pagingParameters,
        responses: { 200: { description: 'A page of rules.', schema: ruleListSchema } },
        errors: [400],
      }),
      post: operation({
        operationId: 'createAutomationRule',
        summary: 'Create an automation rule (inactive)',
        description:
          "Requires name, a known trigger and at least one valid step; step orders are 1..n without gaps. Conditions name fields of the trigger's record type (lead for lead_created/lead_status_changed, contact for contact_created, opportunity for opportunity_stage_changed/proposal_status_changed; trigger conditions may also use the event's previousStatus/previousStage/change). Validation errors name paths such as `steps.2.config.duration` (positions from 0). Loop protection: an event caused by a rule's own actions never re-enrolls a record in that rule, and chains of rules stop after 3 hops.",
        tags,
        authenticated: true,
        requestBody: ruleCreateSchema,
        responses: { 201: { description: 'The new rule, inactive.', schema: ruleSchema } },
      }),
    },
    '/api/automations/rules/{id}/': {
      get: operation({
        operationId: 'getAutomationRule',
        summary: 'Read a rule',
        tags,
        authenticated: true,
        parameters: [ruleId],
        responses: { 200: { description: 'The rule.', schema: ruleSchema } },
        errors: [404],
      }),
      patch: operation({
        operationId: 'updateAutomationRule',
        summary: 'Change any subset of name, trigger, triggerConditions, exitConditions, steps',
        description:
          'The result is validated as a whole. Enrollments under way keep the steps they started with. Read-only fields sent back are ignored.',
        tags,
        authenticated: true,
        parameters: [ruleId],
        requestBody: ruleUpdateSchema,
        responses: { 200: { description: 'The full updated rule.', schema: ruleSchema } },
        errors: [404, 409],
      }),
      delete: operation({
        operationId: 'deleteAutomationRule',
        summary: 'Delete a rule; its enrollments under way end cancelled',
        tags,
        authenticated: true,
        parameters: [ruleId],
        responses: { 204: { description: 'Deleted; no body.' } },
        errors: [404],
      }),
    },
  };
}

function ruleActionPaths(): OpenApiPaths {
  return {
    '/api/automations/rules/{id}/activate/': {
      post: operation({
        operationId: 'activateAutomationRule',
        summary: 'Activate a rule: matching records enroll from now on',
        description:
          'A rule with an assign_user step without users (as installed from a gallery template) answers 422 until users are chosen.',
        tags,
        authenticated: true,
        parameters: [ruleId],
        responses: { 200: { description: 'The updated rule.', schema: ruleSchema } },
        errors: [404, 422],
      }),
    },
    '/api/automations/rules/{id}/deactivate/': {
      post: operation({
        operationId: 'deactivateAutomationRule',
        summary: 'Deactivate a rule: no new enrollments; enrollments under way run to their end',
        tags,
        authenticated: true,
        parameters: [ruleId],
        responses: { 200: { description: 'The updated rule.', schema: ruleSchema } },
        errors: [404],
      }),
    },
    '/api/automations/rules/{id}/logs/': {
      get: operation({
        operationId: 'listAutomationRuleLogs',
        summary: "The rule's execution logs, newest first",
        tags,
        authenticated: true,
        parameters: [
          ruleId,
          query('status', 'completed, failed, cancelled or in_progress.', { type: 'string', enum: [...LOG_STATUSES] }),
          query('after', 'ISO 8601: only logs started after this instant.', { type: 'string', format: 'date-time' }),
          ...pagingParameters,
        ],
        responses: { 200: { description: 'Execution logs (count and results only).', schema: logListSchema } },
        errors: [400, 404],
      }),
    },
    '/api/automations/rules/{id}/save-as-template/': {
      post: operation({
        operationId: 'saveAutomationRuleAsTemplate',
        summary: 'Save a rule as a custom template, visible only to this workspace',
        description: '`name` is required; `category` defaults to `custom`.',
        tags,
        authenticated: true,
        parameters: [ruleId],
        requestBody: saveAsTemplateSchema,
        responses: { 201: { description: 'The new template.', schema: templateSchema } },
        errors: [404],
      }),
    },
  };
}

function templatePaths(): OpenApiPaths {
  return {
    '/api/automations/templates/': {
      get: operation({
        operationId: 'listAutomationTemplates',
        summary: "The built-in gallery and the workspace's custom templates",
        tags,
        authenticated: true,
        parameters: [
          query('category', 'lead_management, sales_pipeline, customer_success, support, custom, ...'),
          query('trigger', 'A trigger kind.'),
          query('search', 'Literal, case-insensitive match on name or description.'),
          ...pagingParameters,
        ],
        responses: {
          200: {
            description: 'A page of templates: the built-in ones that match (gallery order), then custom ones, newest first.',
            schema: templateListSchema,
          },
        },
        errors: [400],
      }),
    },
    '/api/automations/templates/{id}/': {
      get: operation({
        operationId: 'getAutomationTemplate',
        summary: 'Read a template',
        tags,
        authenticated: true,
        parameters: [templateId],
        responses: { 200: { description: 'The template.', schema: templateSchema } },
        errors: [404],
      }),
    },
    '/api/automations/templates/{id}/install/': {
      post: operation({
        operationId: 'installAutomationTemplate',
        summary: 'Install a template as a new inactive rule (an independent copy)',
        description: "Without `name`, the rule takes the template's name. The template's installCount moves by one.",
        tags,
        authenticated: true,
        parameters: [templateId],
        requestBody: installSchema,
        responses: { 201: { description: 'The new rule.', schema: ruleSchema } },
        errors: [404],
      }),
    },
  };
}

function sentPaths(): OpenApiPaths {
  return {
    '/api/emails/': {
      get: operation({
        operationId: 'listOutboundEmails',
        summary: "Emails automation sent (the workspace's outbox), newest first",
        tags,
        authenticated: true,
        parameters: [query('relatedTo', 'Only emails about this record id.'), ...pagingParameters],
        responses: { 200: { description: 'A page of emails.', schema: emailListSchema } },
        errors: [400],
      }),
    },
    '/api/notifications/': {
      get: operation({
        operationId: 'listNotifications',
        summary: 'In-app notifications automation created, newest first',
        tags,
        authenticated: true,
        parameters: [
          query('recipient', 'Only notifications for this user id.'),
          query('relatedTo', 'Only notifications about this record id.'),
          ...pagingParameters,
        ],
        responses: { 200: { description: 'A page of notifications.', schema: notificationListSchema } },
        errors: [400],
      }),
    },
  };
}
