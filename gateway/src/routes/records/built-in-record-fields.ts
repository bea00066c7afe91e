/**
 * A kind's gateway table (record-fields.ts) read from its built-in field descriptors
 * (@crm/vocabulary): each field's answer schema, write schema, list and filter flags.
 */
import { FIELD_LIMITS, type BuiltInField, type BuiltInFields } from '@crm/vocabulary';
import type { JsonSchema } from '../../openapi/operation';
import { t } from './record-shape';
import type { RecordField, RecordFields } from './record-fields';
import type { WritableField } from './write-body';

/** A postal address's answer schema: its five parts, or null. */
function postalAddress(description?: string): JsonSchema {
  return {
    type: ['object', 'null'],
    ...(description ? { description } : {}),
    required: ['street', 'city', 'state', 'postalCode', 'country'],
    properties: { street: t.string(), city: t.string(), state: t.string(), postalCode: t.string(), country: t.string() },
    additionalProperties: false,
  };
}

function answerOf(name: string, field: BuiltInField): JsonSchema {
  const { description } = field;
  switch (field.type) {
    case 'id':
      return t.id(field.prefix ?? '');
    case 'text':
    case 'email':
    case 'url':
    case 'reference':
    case 'externalId':
      return field.nullable ? t.nullableString(description) : t.string(description);
    case 'integer':
      return t.integer(description);
    case 'address':
      return postalAddress(description);
    case 'references':
      return t.strings(description);
    case 'choice':
      return t.choice(field.choices ?? []);
    case 'number':
      return field.nullable ? t.nullableNumber(description) : t.number(description);
    case 'date':
      return field.nullable ? t.nullableDate(description) : { type: 'string', format: 'date', ...(description ? { description } : {}) };
    case 'timestamp':
      return field.nullable ? t.nullableTimestamp(description) : t.timestamp();
    case 'boolean':
      return t.boolean();
    case 'tags':
      return t.strings(description);
    case 'customFields':
      return t.openObject(description);
    default:
      throw new Error(`${name}: no answer schema for a ${String(field.type)} field.`);
  }
}

function writeOf(name: string, field: BuiltInField): WritableField {
  const description = field.write?.description ? { description: field.write.description } : {};
  const nullable = field.nullable ? { nullable: true } : {};
  const maxLength = field.maxLength !== undefined ? { maxLength: field.maxLength } : {};
  switch (field.type) {
    case 'text':
    case 'reference':
    case 'externalId':
      return { type: 'string', ...nullable, ...maxLength, ...description };
    case 'email':
      return { type: 'string', format: 'email', ...maxLength, ...description };
    case 'url':
      return { type: 'string', format: 'uri', ...maxLength, ...description };
    case 'integer':
    case 'number':
      return {
        type: field.type,
        ...nullable,
        ...(field.min !== undefined ? { minimum: field.min } : {}),
        ...(field.max !== undefined ? { maximum: field.max } : {}),
        ...description,
      };
    case 'date':
      return { type: 'string', format: 'date', ...nullable, ...description };
    case 'address':
      return { type: 'address', ...description };
    case 'references':
      return { type: 'strings', ...description };
    case 'choice':
      return { type: 'string', choices: field.choices ?? [], ...description };
    case 'boolean':
      return { type: 'boolean', ...description };
    case 'tags':
      return {
        type: 'strings',
        maxItems: FIELD_LIMITS.tagCount,
        itemMaxLength: FIELD_LIMITS.tagLength,
        description: field.write?.description ?? 'Blank and repeated tags are dropped.',
      };
    case 'customFields':
      return { type: 'json', nullable: true, ...description };
    default:
      throw new Error(`${name}: no write schema for a writable ${field.type} field.`);
  }
}

/** The gateway's table of a kind's built-in fields. */
export function recordFieldsOf(fields: BuiltInFields): RecordFields {
  const table: RecordFields = {};
  for (const [name, field] of Object.entries(fields)) {
    const row: RecordField = { answer: answerOf(name, field) };
    if (field.write) row.write = writeOf(name, field);
    if (field.write?.required) row.required = true;
    if (field.write?.oneOfRequired) row.oneOfRequired = true;
    if (field.listed) row.listed = true;
    if (field.filter?.parameter)
      row.filter = { description: field.filter.parameter, ...(field.type === 'choice' ? { schema: t.choice(field.choices ?? []) } : {}) };
    table[name] = row;
  }
  return table;
}
