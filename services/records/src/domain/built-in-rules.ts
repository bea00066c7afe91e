/**
 * A kind's field rules read from its built-in field descriptors (@crm/vocabulary): what each
 * writable field accepts, which fields a client may send back but not change, and the values a
 * created record takes for the fields its body left out (each descriptor's `write.default`).
 */
import { createDefaults, fieldNames, type BuiltInField, type BuiltInFields, type CustomFieldKind } from '@crm/vocabulary';
import type { FieldRule, FieldTable } from './field-rules';
import { fieldIdentifier, perFieldList } from './field-list-code';

function ruleOf(name: string, field: BuiltInField, recordKind: CustomFieldKind): FieldRule {
  const nullable = field.nullable === true ? { nullable: true } : {};
  switch (field.type) {
    case 'text':
      return {
        kind: 'text',
        max: field.maxLength ?? Number.MAX_SAFE_INTEGER,
        ...nullable,
        ...(field.write?.required ? { required: true } : {}),
      };
    case 'url':
      return { kind: 'url' };
    case 'integer':
      return { kind: 'integer', min: field.min ?? Number.MIN_SAFE_INTEGER, max: field.max ?? Number.MAX_SAFE_INTEGER };
    case 'number':
      return { kind: 'number', min: field.min ?? -Infinity, ...nullable };
    case 'date':
      return { kind: 'date', ...nullable };
    case 'address':
      return { kind: 'address' };
    case 'references':
      if (field.target !== 'contact') throw new Error(`${name}: references name contacts only.`);
      return { kind: 'references', target: 'contact' };
    case 'email':
      return { kind: 'email', ...(field.write?.required ? { required: true } : {}) };
    case 'choice':
      return { kind: 'choice', values: field.choices ?? [] };
    case 'reference':
      if (!field.target) throw new Error(`${name}: a reference names no target.`);
      return { kind: 'reference', target: field.target, ...nullable };
    case 'tags':
      return { kind: 'tags' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'externalId':
      return { kind: 'externalId', nullable: true };
    case 'customFields':
      return { kind: 'customFields', recordKind };
    default:
      throw new Error(`${name}: no rule for a writable ${field.type} field.`);
  }
}

/** The rules of the fields a client writes. */
export function fieldTableOf(fields: BuiltInFields, recordKind: CustomFieldKind): FieldTable {
  return Object.fromEntries(
    Object.entries(fields).flatMap(([name, field]) => (field.write ? [[name, ruleOf(name, field, recordKind)]] : [])),
  );
}

/** Fields of the representation a client may send back; ignored rather than refused. */
export function readOnlyFieldsOf(fields: BuiltInFields): string[] {
  return fieldNames(fields, (field) => !field.write);
}

type Completer = (target: Record<string, unknown>, checked: Record<string, unknown>) => void;

/** Gives each writable field a target does not set yet its checked value, else its default. */
const completerOf = perFieldList<Completer>(['target', 'checked'], (fields) =>
  Object.entries(createDefaults(fields))
    .map(([name, fallback]) => {
      const field = fieldIdentifier(name);
      return `if (!('${field}' in target)) target.${field} = checked.${field} ?? ${JSON.stringify(fallback)};`;
    })
    .join('\n'),
);

/**
 * Completes a created record: each writable field `record` does not set yet takes its checked
 * value, else its default (a fresh one: a default list is never shared). The fields the caller
 * sets itself stay as set.
 */
export function withCreatedValues<T extends object>(record: Partial<T>, fields: BuiltInFields, checked: Record<string, unknown>): T {
  completerOf(fields)(record as Record<string, unknown>, checked);
  return record as T;
}
