/**
 * POST /api/{contacts,leads,accounts}/{id}/merge/: duplicates merged into the survivor. The body's
 * shape is checked here; which ids may be merged, and how the values combine, is the records
 * service's (domain/record-merge.ts there).
 */
import type { Router } from 'express';
import { z } from 'zod';
import { idParameter, operation, type JsonSchema, type OpenApiPaths } from '../../openapi/operation';
import { bodyCheck, bodySchemaOf, type BodyTable } from '../field-table';
import { parseBody, pathId } from '../validate';
import type { KindCall, RecordsMethod } from './records-call';
import type { RecordKind } from './record-kind';
import { etagOf, withEtag } from './record-etag';

const MERGE_LIMIT = 10;
const mergeFields = {
  mergeIds: {
    check: z.array(z.string(), { error: 'Expected a list of record ids.' }),
    rules: {
      type: 'array',
      items: { type: 'string' },
      minItems: 1,
      maxItems: MERGE_LIMIT,
      uniqueItems: true,
      description: `The records merged into this one, in the order their values are taken (1 to ${MERGE_LIMIT}; not this record's id).`,
    },
    required: true,
  },
  fields: {
    check: z.record(z.string(), z.string(), { error: 'Expected an object of field names and record ids.' }).optional(),
    rules: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Field name → the id (this record or one of `mergeIds`) whose value wins, whatever the others hold.',
    },
  },
} satisfies BodyTable;

const mergeBody = bodyCheck(mergeFields);

/** Registers POST {kind}/:id/merge on `router`; `render` renders the survivor in its single-record shape. */
export function mergeRoute(
  kind: RecordKind<string>,
  rpc: Extract<RecordsMethod, `Merge${string}`>,
  router: Router,
  call: KindCall,
  render: (message: unknown) => unknown,
): void {
  router.post(`${kind.path}/:id/merge`, async (req, res) => {
    const id = pathId(req.params.id);
    const body = parseBody(mergeBody, req.body ?? {});
    const answer = await call(rpc, { id, mergeIds: body.mergeIds, fields: body.fields ?? {} }, res);
    res.set('ETag', etagOf(answer[kind.singular] as { version?: number })).json(render(answer[kind.singular]));
  });
}

/** The OpenAPI part of {@link mergeRoute}: `fullSchema` is the kind's single-record shape. */
export function mergePaths(kind: RecordKind<string>, fullSchema: JsonSchema): OpenApiPaths {
  return {
    [`${kind.path}/{id}/merge/`]: {
      post: withEtag(
        operation({
          operationId: `merge${kind.pluralName}`,
          summary: `Merge duplicates into ${kind.aName}`,
          description:
            `One transaction: this ${kind.singular} (the survivor) keeps its values and fills each empty field from the first of \`mergeIds\` that has one, unless \`fields\` names the record whose value wins; \`notes\` are joined (survivor first) and \`tags\` united. ` +
            `The merged records' notes, tasks, activities and links move to the survivor (automation runs follow shortly after), the merged records are deleted (their ids then answer 404), and the audit log gets a \`merged\` activity naming them. ` +
            `422 on \`mergeIds\` when it is empty, holds more than ${MERGE_LIMIT} ids, repeats one, names the survivor, or names no ${kind.singular} of this workspace; 422 on \`fields\` for an unknown field or an id not in the merge; 409 when one of the records changed during the merge.`,
          tags: [kind.tag],
          authenticated: true,
          parameters: [idParameter(`The surviving ${kind.singular}'s id (\`${kind.idPrefix}...\`).`)],
          requestBody: bodySchemaOf(mergeFields, 'create'),
          responses: { 200: { description: `The survivor after the merge.`, schema: fullSchema } },
          errors: [404, 409],
        }),
        200,
      ),
    },
  };
}
