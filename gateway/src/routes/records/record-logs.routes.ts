/**
 * The records the spec mentions without endpoints of their own, as the contract decisions give
 * them: lead sources (`/api/crm/sources/`), tasks about a record (`/api/tasks/?relatedTo=`) and the
 * audit log (`/api/activities/?recordId=`). Paginated like every other list.
 */
import { FIELD_LIMITS, TASK_STATUSES } from '@crm/vocabulary';
import { Router } from 'express';
import { z } from 'zod';
import type { GatewayConfig } from '../../config';
import { operation, type OpenApiPaths } from '../../openapi/operation';
import { answerSchema, bodyCheck, bodySchemaOf, type BodyTable } from '../field-table';
import { parseBody } from '../validate';
import { paginated, readListQuery } from './list-query';
import { listParameters } from './record-routes';
import { type RecordsCall } from './records-call';
import { pageSchema, recordAnswer, renderRecord, t } from './record-shape';

/**
 * The records service checks the name (trimmed, not blank, at most FIELD_LIMITS.name), so one 422
 * reads the same as its others; the gateway checks its type and unknown fields.
 */
const sourceBodyFields = {
  name: { check: z.string(), rules: { type: 'string', minLength: 1, maxLength: FIELD_LIMITS.name, pattern: '\\S' }, required: true },
} satisfies BodyTable;

export const createSourceBody = bodyCheck(sourceBodyFields);

const source = recordAnswer({ uid: { type: 'string', format: 'uuid' }, name: t.string(), createdAt: t.timestamp() });

const task = recordAnswer({
  id: t.id('tsk_'),
  name: t.string(),
  dueDate: t.nullableDate('`YYYY-MM-DD`, or null.'),
  assignedTo: t.nullableString('User id, or null.'),
  relatedTo: t.string('The record the task is about (`cnt_`, `ld_`, `acc_`, `opp_`).'),
  status: t.choice(TASK_STATUSES),
  createdAt: t.timestamp(),
});

const activity = recordAnswer({
  id: t.id('act_'),
  action: t.choice(['created', 'updated', 'deleted', 'converted', 'merged']),
  recordType: t.choice(['contact', 'lead', 'account', 'opportunity']),
  recordId: t.string(),
  actorId: t.string("The acting user; for API keys the workspace's system user."),
  actorType: t.choice(['user', 'api_key', 'system']),
  createdAt: t.timestamp(),
  mergedIds: t.strings('On a `merged` activity, the records merged into this one (now deleted); empty otherwise.'),
});

/** The sources, tasks and activities routes on a router of their own. */
export function recordLogRoutes(call: RecordsCall, config: GatewayConfig): Router {
  const router = Router();
  sourceRoutes(router, call, config);

  router.get('/api/tasks', async (req, res) => {
    const list = readListQuery(req, ['relatedTo'], { cursor: true });
    const answer = await call(
      'ListTasks',
      { relatedTo: list.filters.relatedTo, offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' },
      res,
    );
    res.json(
      paginated(
        req,
        config,
        list,
        answer.total as number,
        answer.tasks.map((message) => renderRecord(task, message)),
        answer.nextCursor as string,
      ),
    );
  });

  router.get('/api/activities', async (req, res) => {
    const list = readListQuery(req, ['recordId'], { cursor: true });
    const answer = await call(
      'ListActivities',
      { recordId: list.filters.recordId, offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' },
      res,
    );
    res.json(
      paginated(
        req,
        config,
        list,
        answer.total as number,
        answer.activities.map((a) => renderRecord(activity, a)),
        answer.nextCursor as string,
      ),
    );
  });
  return router;
}

function sourceRoutes(router: Router, call: RecordsCall, config: GatewayConfig): void {
  router.post('/api/crm/sources', async (req, res) => {
    const input = parseBody(createSourceBody, req.body);
    const answer = await call('CreateSource', { name: input.name }, res);
    res.status(201).json(renderRecord(source, answer.source));
  });

  router.get('/api/crm/sources', async (req, res) => {
    const list = readListQuery(req, [], { cursor: true });
    const answer = await call('ListSources', { offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' }, res);
    res.json(
      paginated(
        req,
        config,
        list,
        answer.total as number,
        answer.sources.map((s) => renderRecord(source, s)),
        answer.nextCursor as string,
      ),
    );
  });
}

/** The OpenAPI part of {@link recordLogRoutes}. */
export function recordLogPaths(): OpenApiPaths {
  return {
    ...sourcePaths(),
    '/api/tasks/': {
      get: operation({
        operationId: 'listTasks',
        summary: 'List tasks, optionally those about one record',
        description: "Newest first. A record's tasks are deleted with it.",
        tags: ['tasks'],
        authenticated: true,
        parameters: listParameters(
          [{ name: 'relatedTo', description: 'A record id; every task of the workspace when absent.', schema: t.string() }],
          { cursor: true },
        ),
        responses: {
          200: {
            description: 'A page of tasks.',
            schema: pageSchema(answerSchema(task), 'A page of tasks.', { cursor: true }),
          },
        },
        errors: [400],
      }),
    },
    '/api/activities/': {
      get: operation({
        operationId: 'listActivities',
        summary: 'The audit log, optionally of one record',
        description:
          "Every write to a record, newest first, with the actor and its kind (`user`, `api_key` for calls made with a workspace API key, attributed to the workspace's system user, or `system`). Entries outlive their record.",
        tags: ['activities'],
        authenticated: true,
        parameters: listParameters(
          [{ name: 'recordId', description: "A record id; the whole workspace's log when absent.", schema: t.string() }],
          { cursor: true },
        ),
        responses: {
          200: {
            description: 'A page of activities.',
            schema: pageSchema(answerSchema(activity), 'A page of activities.', { cursor: true }),
          },
        },
        errors: [400],
      }),
    },
  };
}

function sourcePaths(): OpenApiPaths {
  return {
    '/api/crm/sources/': {
      get: operation({
        operationId: 'listSources',
        summary: 'List lead sources',
        description: "The workspace's sources, newest first. An import's `source_uid` names one.",
        tags: ['sources'],
        authenticated: true,
        parameters: listParameters([], { cursor: true }),
        responses: {
          200: {
            description: 'A page of sources.',
            schema: pageSchema(answerSchema(source), 'A page of sources.', { cursor: true }),
          },
        },
        errors: [400],
      }),
      post: operation({
        operationId: 'createSource',
        summary: 'Create a lead source',
        description: `The name is trimmed; blank or over ${FIELD_LIMITS.name} characters: 422.`,
        tags: ['sources'],
        authenticated: true,
        requestBody: bodySchemaOf(sourceBodyFields, 'create'),
        responses: { 201: { description: 'The new source.', schema: answerSchema(source) } },
      }),
    },
  };
}
