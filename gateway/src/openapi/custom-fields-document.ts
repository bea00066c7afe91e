/**
 * The document as a workspace sees it: `GET /api/openapi.json` with a Bearer credential states the
 * workspace's custom fields as typed properties of each record kind's `customFields` (in answers and
 * write bodies); without one, `customFields` stays an open object. The document is otherwise the
 * same, so this copies it and rewrites only the `customFields` schemas under each kind's paths.
 */
import { CUSTOM_FIELD_LIMITS, type CustomFieldDefinition } from '@crm/vocabulary';
import type { JsonSchema } from './operation';

type Definition = Pick<CustomFieldDefinition, 'kind' | 'key' | 'label' | 'type' | 'options' | 'description'>;

/** Path prefix → the record kind whose `customFields` its schemas carry. */
const KIND_OF_PATH: ReadonlyArray<[string, string]> = [
  ['/api/contacts/', 'contact'],
  ['/api/leads/', 'lead'],
  ['/api/accounts/', 'account'],
  ['/api/opportunities/', 'opportunity'],
];

/** One value's schema, null included (unset in answers, clearing in writes). */
export function valueSchema(definition: Definition): JsonSchema {
  const described = {
    title: definition.label,
    ...(definition.description ? { description: definition.description } : {}),
  };
  switch (definition.type) {
    case 'text':
      return { type: ['string', 'null'], maxLength: CUSTOM_FIELD_LIMITS.text, ...described };
    case 'number':
      return { type: ['number', 'null'], ...described };
    case 'integer':
      return { type: ['integer', 'null'], ...described };
    case 'boolean':
      return { type: ['boolean', 'null'], ...described };
    case 'date':
      return { type: ['string', 'null'], format: 'date', ...described };
    case 'datetime':
      return { type: ['string', 'null'], format: 'date-time', ...described };
    case 'select':
      return { type: ['string', 'null'], enum: [...definition.options, null], ...described };
    case 'multiselect':
      return { type: ['array', 'null'], items: { type: 'string', enum: [...definition.options] }, uniqueItems: true, ...described };
    case 'url':
      return { type: ['string', 'null'], format: 'uri', ...described };
    case 'email':
      return { type: ['string', 'null'], format: 'email', ...described };
    default:
      return { ...described };
  }
}

function typed(schema: JsonSchema, definitions: readonly Definition[]): JsonSchema {
  const properties = Object.fromEntries(definitions.map((definition) => [definition.key, valueSchema(definition)]));
  // An answer (type `object`) has every key; a write body (`['object', 'null']`) any subset.
  const answer = schema.type === 'object';
  return {
    ...schema,
    properties,
    ...(answer ? { required: definitions.map((definition) => definition.key) } : {}),
    additionalProperties: false,
  };
}

/** Every `properties.customFields` below `node`, typed with the kind's definitions; a fresh copy of the rest. */
function rewrite(node: unknown, definitions: readonly Definition[]): unknown {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, definitions));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && value && typeof value === 'object' && 'customFields' in value) {
      const properties = rewrite(value, definitions) as Record<string, unknown>;
      const open = (value as Record<string, unknown>).customFields as JsonSchema;
      properties.customFields =
        typeof open === 'object' && open !== null && 'additionalProperties' in open ? typed(open, definitions) : open;
      out[key] = properties;
    } else {
      out[key] = rewrite(value, definitions);
    }
  }
  return out;
}

/** The document with each kind's `customFields` typed from the workspace's definitions (the input is left as it is). */
export function withCustomFields(document: Record<string, unknown>, definitions: readonly Definition[]): Record<string, unknown> {
  const paths = (document.paths ?? {}) as Record<string, unknown>;
  const typedPaths: Record<string, unknown> = {};
  for (const [path, operations] of Object.entries(paths)) {
    const kind = KIND_OF_PATH.find(([prefix]) => path.startsWith(prefix))?.[1];
    typedPaths[path] = kind
      ? rewrite(
          operations,
          definitions.filter((definition) => definition.kind === kind),
        )
      : operations;
  }
  return { ...document, paths: typedPaths };
}
