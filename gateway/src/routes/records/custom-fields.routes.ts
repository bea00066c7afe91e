/**
 * Custom field definitions (/api/settings/custom-fields/): a workspace's own typed fields of a
 * record kind, whose values records carry in `customFields`. Everyone reads them; writes are for
 * admins, like every write under /api/settings/ (the gateway's one check, auth/admin-guard.ts,
 * runs before these routes). REST ↔ gRPC translation only: bodies are read as record writes are
 * (write-body.ts: the typed message, the mask of the fields sent, what could not be typed), and the
 * records service judges the definition (422 keyed on the field).
 */
import type { recordsV1 } from '@crm/grpc';
import {
  CUSTOM_FIELD_KEY_PATTERN,
  CUSTOM_FIELD_KINDS,
  CUSTOM_FIELD_LIMITS,
  CUSTOM_FIELD_TYPES,
  OPTION_CUSTOM_FIELD_TYPES,
  PAGING,
  UNIQUE_CUSTOM_FIELD_TYPES,
  type CustomFieldDefinition,
} from '@crm/vocabulary';
import type { Request, Response, Router } from 'express';
import type { GatewayConfig } from '../../config';
import { idParameter, operation, type JsonSchema, type OpenApiPaths } from '../../openapi/operation';
import { pathId } from '../validate';
import { listOffset, nextOffsetCursor, paginated, readListQuery } from './list-query';
import { listParameters } from './record-routes';
import { type RecordsCall } from './records-call';
import { answerSchema } from '../field-table';
import { pageSchema, pickAnswer, recordAnswer, t, type ResponseFields } from './record-shape';
import { translateWrite, writeSchema, type WriteShape } from './write-body';

export const CUSTOM_FIELDS_PATH = '/api/settings/custom-fields';

const TAG = 'custom fields';
const ADMIN_ONLY = 'Admins only: members and API keys answer 403.';
const list = (values: readonly string[]) => values.map((value) => `\`${value}\``).join(', ');

/** The body of a create, and of a PATCH (which the service lets change label, description, required and options only). */
export const customFieldShape: WriteShape = {
  fields: {
    kind: { type: 'string', choices: CUSTOM_FIELD_KINDS, description: 'The record kind the field belongs to. Fixed once created.' },
    key: {
      type: 'string',
      maxLength: 40,
      description: `\`${CUSTOM_FIELD_KEY_PATTERN.source}\`, unique per kind, never a built-in field's name; records carry the value as \`customFields.<key>\`. At most ${CUSTOM_FIELD_LIMITS.perKind} fields per kind (the next one: 422 on \`key\`). Fixed once created.`,
    },
    label: { type: 'string', maxLength: CUSTOM_FIELD_LIMITS.label, description: 'What people read.' },
    type: {
      type: 'string',
      choices: CUSTOM_FIELD_TYPES,
      description: `text (at most ${CUSTOM_FIELD_LIMITS.text.toLocaleString('en-US')} characters), number, integer, boolean, date (\`YYYY-MM-DD\`), datetime (a UTC timestamp), select, multiselect, url or email. Fixed once created.`,
    },
    options: {
      type: 'strings',
      maxItems: CUSTOM_FIELD_LIMITS.options,
      itemMaxLength: CUSTOM_FIELD_LIMITS.option,
      description: `For ${list(OPTION_CUSTOM_FIELD_TYPES)} only, and required there: 1 to ${CUSTOM_FIELD_LIMITS.options} distinct strings of 1 to ${CUSTOM_FIELD_LIMITS.option} characters. A PATCH may add options and remove those no record holds (removing one a record holds: 422 on \`options\`).`,
    },
    required: {
      type: 'boolean',
      description:
        'Default false. Applies to creates made after it is set; existing records keep their nulls until written with the field.',
    },
    unique: {
      type: 'boolean',
      description: `Default false; ${list(UNIQUE_CUSTOM_FIELD_TYPES)} fields only. No two records of the kind hold the same value (422 on \`customFields.<key>\`). Fixed once created.`,
    },
    description: { type: 'string', maxLength: CUSTOM_FIELD_LIMITS.description, description: 'Default empty; null clears.' },
  },
  readOnly: ['id', 'createdAt', 'updatedAt'],
  required: ['kind', 'key', 'label', 'type'],
};

/** The definition as the spec answers it; unset optional fields of the message as '' / false / []. */
/** A definition as answered: the message's kind and type as sent, which this gateway may not know. */
export type CustomFieldJson = Omit<CustomFieldDefinition, 'kind' | 'type'> & { kind: string; type: string };

export function customFieldJson(field: recordsV1.CustomField | null | undefined): CustomFieldJson {
  return {
    id: field?.id ?? '',
    kind: field?.kind ?? '',
    key: field?.key ?? '',
    label: field?.label ?? '',
    type: field?.type ?? '',
    options: [...(field?.options ?? [])],
    required: field?.required ?? false,
    unique: field?.unique ?? false,
    description: field?.description ?? '',
    createdAt: field?.createdAt ?? '',
    updatedAt: field?.updatedAt ?? '',
  };
}

const isOneOf = <T extends string>(values: readonly T[], value: string): value is T => (values as readonly string[]).includes(value);

/** The definition, when its kind and type are ones this gateway can describe (a newer service's other types are left out of the document). */
function definitionOf(json: CustomFieldJson): CustomFieldDefinition[] {
  const { kind, type } = json;
  return isOneOf(CUSTOM_FIELD_KINDS, kind) && isOneOf(CUSTOM_FIELD_TYPES, type) ? [{ ...json, kind, type }] : [];
}

/** Every definition of the caller's workspace, every kind, a page at a time (at most 100 per kind). */
export async function allCustomFields(call: RecordsCall, res: Response): Promise<CustomFieldDefinition[]> {
  const found: CustomFieldDefinition[] = [];
  for (let offset = 0; ; offset += PAGING.maxLimit) {
    const page = await call('ListCustomFields', { kind: '', offset, limit: PAGING.maxLimit }, res);
    found.push(...page.fields.flatMap((field) => definitionOf(customFieldJson(field))));
    if (page.fields.length === 0 || found.length >= page.total) return found;
  }
}

const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

/** The custom field definitions' routes (/api/settings/custom-fields/), on the settings router. */
export function customFieldRoutes(router: Router, call: RecordsCall, config: GatewayConfig): void {
  router.get(CUSTOM_FIELDS_PATH, async (req, res) => {
    const query = readListQuery(req, ['kind'] as const, { cursor: true });
    const offset = listOffset(query);
    const answer = await call('ListCustomFields', { kind: query.filters.kind ?? '', offset, limit: query.limit }, res);
    const next = nextOffsetCursor(offset, query.limit, answer.total);
    res.json(paginated(req, config, { ...query, offset }, answer.total, answer.fields.map(customFieldJson), next));
  });

  router.post(CUSTOM_FIELDS_PATH, async (req, res) => {
    const write = translateWrite<recordsV1.CustomField>(body(req), customFieldShape);
    const answer = await call('CreateCustomField', { field: write.message, fieldMask: write.mask, invalidFields: write.invalid }, res);
    res.status(201).json(customFieldJson(answer.field));
  });

  router.get(`${CUSTOM_FIELDS_PATH}/:id`, async (req, res) => {
    const answer = await call('GetCustomField', { id: pathId(req.params.id) }, res);
    res.json(customFieldJson(answer.field));
  });

  router.patch(`${CUSTOM_FIELDS_PATH}/:id`, async (req, res) => {
    const id = pathId(req.params.id);
    const write = translateWrite<recordsV1.CustomField>(body(req), customFieldShape);
    const answer = await call('UpdateCustomField', { id, field: write.message, updateMask: write.mask, invalidFields: write.invalid }, res);
    res.json(customFieldJson(answer.field));
  });

  router.delete(`${CUSTOM_FIELDS_PATH}/:id`, async (req, res) => {
    await call('DeleteCustomField', { id: pathId(req.params.id) }, res);
    res.status(204).end();
  });
}

const definitionFields: ResponseFields = {
  id: t.id('fld_'),
  kind: t.choice(CUSTOM_FIELD_KINDS),
  key: { type: 'string', pattern: CUSTOM_FIELD_KEY_PATTERN.source, description: 'Records carry the value as `customFields.<key>`.' },
  label: t.string(),
  type: t.choice(CUSTOM_FIELD_TYPES),
  options: t.strings(`The choices of ${list(OPTION_CUSTOM_FIELD_TYPES)} fields; empty for the other types.`),
  required: t.boolean(),
  unique: t.boolean(),
  description: t.string('Empty when none.'),
  createdAt: t.timestamp(),
  updatedAt: t.timestamp(),
};
const DEFINITION = ['id', 'kind', 'key', 'label', 'type', 'options', 'required', 'unique', 'description', 'createdAt', 'updatedAt'];
export const customFieldSchema: JsonSchema = answerSchema(
  pickAnswer(recordAnswer(definitionFields), DEFINITION),
  'full',
  'A custom field definition.',
);

/** The create body: the shared schema, with the key's pattern stated. */
function createBodySchema(): JsonSchema {
  const schema = writeSchema(customFieldShape, 'create', 'A new custom field definition.');
  const properties = schema.properties as Record<string, JsonSchema>;
  properties.key = { ...properties.key, pattern: CUSTOM_FIELD_KEY_PATTERN.source };
  return schema;
}

/** The PATCH body: any subset; kind, key, type and unique may be sent back as they are, and a different value is a 422 on it. */
function patchBodySchema(): JsonSchema {
  const schema = writeSchema(
    customFieldShape,
    'update',
    'Any subset of label, description, required and options. `kind`, `key`, `type` and `unique` are fixed: sent with the value they have, they are accepted; with another, 422 on that field.',
  );
  const properties = schema.properties as Record<string, JsonSchema>;
  properties.key = { ...properties.key, pattern: CUSTOM_FIELD_KEY_PATTERN.source };
  return schema;
}

const fieldId = idParameter('The custom field (`fld_...`).');

/** The OpenAPI part of {@link customFieldRoutes}. */
export function customFieldPaths(): OpenApiPaths {
  return { [`${CUSTOM_FIELDS_PATH}/`]: collectionOperations(), [`${CUSTOM_FIELDS_PATH}/{id}/`]: definitionOperations() };
}

function collectionOperations(): OpenApiPaths[string] {
  return {
    get: operation({
      operationId: 'listCustomFields',
      summary: "The workspace's custom field definitions",
      description: 'Every caller of the workspace may read them, API keys of any scope included.',
      tags: [TAG],
      authenticated: true,
      parameters: [
        ...listParameters([], { cursor: true }),
        {
          name: 'kind',
          in: 'query',
          required: false,
          description: 'Only the fields of this record kind (400 for another value).',
          schema: t.choice(CUSTOM_FIELD_KINDS),
        },
      ],
      responses: {
        200: {
          description: 'A page of definitions.',
          schema: pageSchema(customFieldSchema, 'A page of custom field definitions.', { cursor: true }),
        },
      },
      errors: [400],
    }),
    post: operation({
      operationId: 'createCustomField',
      summary: 'Define a custom field of a record kind',
      description: `Every failing field is listed in one 422 (a key taken in the kind or naming a built-in field, a bad type, options missing or given for a type without them, \`unique\` on a type that cannot be, the ${CUSTOM_FIELD_LIMITS.perKind + 1}st field of a kind on \`key\`). Records of the kind carry it in \`customFields\` from then on (null until written). ${ADMIN_ONLY}`,
      tags: [TAG],
      authenticated: true,
      requestBody: createBodySchema(),
      responses: { 201: { description: 'The new definition.', schema: customFieldSchema } },
      errors: [403],
    }),
  };
}

function definitionOperations(): OpenApiPaths[string] {
  return {
    get: operation({
      operationId: 'getCustomField',
      summary: 'Read a custom field definition',
      tags: [TAG],
      authenticated: true,
      parameters: [fieldId],
      responses: { 200: { description: 'The definition.', schema: customFieldSchema } },
      errors: [404],
    }),
    patch: operation({
      operationId: 'updateCustomField',
      summary: 'Change the label, description, required flag or options of a custom field',
      description: `Removing an option that a record holds: 422 on \`options\`. \`required\` applies to creates made after it is set. ${ADMIN_ONLY}`,
      tags: [TAG],
      authenticated: true,
      parameters: [fieldId],
      requestBody: patchBodySchema(),
      responses: { 200: { description: 'The definition.', schema: customFieldSchema } },
      errors: [403, 404],
    }),
    delete: operation({
      operationId: 'deleteCustomField',
      summary: 'Delete a custom field and every value of it',
      description: `Records of the kind no longer carry the key in \`customFields\`. ${ADMIN_ONLY}`,
      tags: [TAG],
      authenticated: true,
      parameters: [fieldId],
      responses: { 204: { description: 'Deleted; no body.' } },
      errors: [403, 404],
    }),
  };
}
