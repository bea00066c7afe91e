/**
 * What a custom field definition accepts (contract-decisions "Round 3", custom fields): the
 * create body, and the PATCH that may change only `label`, `description`, `required` and
 * `options`. Pure: what the workspace already holds (its definitions, the options records use)
 * arrives as arguments; every problem of a body is reported at once (the 422 body).
 */
import {
  CUSTOM_FIELD_KEY_PATTERN,
  CUSTOM_FIELD_KINDS,
  CUSTOM_FIELD_LIMITS,
  CUSTOM_FIELD_TYPES,
  OPTION_CUSTOM_FIELD_TYPES,
  UNIQUE_CUSTOM_FIELD_TYPES,
  characterCount,
  isBuiltInFieldName,
  type CustomFieldDefinition,
  type CustomFieldKind,
  type CustomFieldType,
} from '@crm/vocabulary';
import { FieldErrorList } from '@crm/observability';
import { MESSAGES } from './field-messages';
import type { Body } from './field-rules';

const CREATE_FIELDS = ['kind', 'key', 'label', 'type', 'options', 'required', 'unique', 'description'];
const READ_ONLY = ['id', 'createdAt', 'updatedAt'];
const FIXED = ['kind', 'key', 'type', 'unique'];

/** A new definition from a create body; `existing` are the workspace's definitions of every kind. */
export function newCustomField(
  body: Body,
  existing: readonly CustomFieldDefinition[],
  id: string,
  now: string,
  earlier?: Record<string, string[]>,
): CustomFieldDefinition {
  const errors = new FieldErrorList();
  errors.merge(earlier);
  unknownFields(body, CREATE_FIELDS, errors);
  const kind = choice(body, 'kind', CUSTOM_FIELD_KINDS, errors) as CustomFieldKind | undefined;
  const type = choice(body, 'type', CUSTOM_FIELD_TYPES, errors) as CustomFieldType | undefined;
  const key = checkKey(body.key, kind, existing, errors);
  const label = text(body, 'label', CUSTOM_FIELD_LIMITS.label, true, errors);
  const description = text(body, 'description', CUSTOM_FIELD_LIMITS.description, false, errors) ?? '';
  const required = flag(body, 'required', errors);
  const unique = flag(body, 'unique', errors);
  if (unique && type && !UNIQUE_CUSTOM_FIELD_TYPES.includes(type)) {
    errors.add('unique', `Only ${UNIQUE_CUSTOM_FIELD_TYPES.join(', ')} fields can be unique.`);
  }
  const options = type ? checkOptions(body, type, errors, 'create') : [];
  errors.throwIfAny();
  return {
    id,
    kind: kind!,
    key: key!,
    label: label!,
    type: type!,
    options: options ?? [],
    required,
    unique,
    description,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The definition after a PATCH. `optionsInUse` answers which of the options it is asked about a
 * record of the kind still holds (an option in use may not go).
 */
export function changedCustomField(
  current: CustomFieldDefinition,
  body: Body,
  optionsInUse: ReadonlySet<string>,
  now: string,
  earlier?: Record<string, string[]>,
): CustomFieldDefinition {
  const errors = new FieldErrorList();
  errors.merge(earlier);
  unknownFields(body, CREATE_FIELDS, errors);
  for (const field of FIXED) {
    if (field in body && body[field] !== current[field as keyof CustomFieldDefinition])
      errors.add(field, `A field's ${field} cannot be changed.`);
  }
  const next = { ...current, updatedAt: now };
  if ('label' in body) next.label = text(body, 'label', CUSTOM_FIELD_LIMITS.label, true, errors) ?? current.label;
  if ('description' in body) next.description = text(body, 'description', CUSTOM_FIELD_LIMITS.description, false, errors) ?? '';
  if ('required' in body) next.required = flag(body, 'required', errors);
  if ('options' in body) {
    const options = checkOptions(body, current.type, errors, 'update');
    if (options) {
      const removed = current.options.filter((option) => !options.includes(option) && optionsInUse.has(option));
      if (removed.length > 0) errors.add('options', `Options still held by records cannot be removed: ${removed.join(', ')}.`);
      next.options = options;
    }
  }
  errors.throwIfAny();
  return next;
}

/** The options a PATCH body drops from the definition (to ask whether records hold them). */
export function removedOptions(current: CustomFieldDefinition, body: Body): string[] {
  if (!Array.isArray(body.options)) return [];
  return current.options.filter((option) => !(body.options as unknown[]).includes(option));
}

function unknownFields(body: Body, allowed: string[], errors: FieldErrorList): void {
  for (const field of Object.keys(body)) if (!allowed.includes(field) && !READ_ONLY.includes(field)) errors.add(field, MESSAGES.unknown);
}

function choice(body: Body, field: string, values: readonly string[], errors: FieldErrorList): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) {
    errors.add(field, MESSAGES.required);
    return undefined;
  }
  if (typeof value !== 'string' || !values.includes(value)) {
    errors.add(field, MESSAGES.choice(typeof value === 'string' ? value : JSON.stringify(value)));
    return undefined;
  }
  return value;
}

function checkKey(
  value: unknown,
  kind: CustomFieldKind | undefined,
  existing: readonly CustomFieldDefinition[],
  errors: FieldErrorList,
): string | undefined {
  if (value === undefined || value === null) return void errors.add('key', MESSAGES.required);
  if (typeof value !== 'string') return void errors.add('key', MESSAGES.string);
  if (!CUSTOM_FIELD_KEY_PATTERN.test(value)) {
    return void errors.add('key', 'A key starts with a lower-case letter, holds only letters and digits, and has at most 40 characters.');
  }
  if (!kind) return value;
  if (isBuiltInFieldName(kind, value)) return void errors.add('key', `"${value}" is a built-in field of ${kind}s.`);
  const ofKind = existing.filter((definition) => definition.kind === kind);
  if (ofKind.some((definition) => definition.key === value))
    return void errors.add('key', `A ${kind} field with the key "${value}" exists already.`);
  if (ofKind.length >= CUSTOM_FIELD_LIMITS.perKind) {
    return void errors.add('key', `A workspace has at most ${CUSTOM_FIELD_LIMITS.perKind} custom fields per kind.`);
  }
  return value;
}

function text(body: Body, field: string, max: number, required: boolean, errors: FieldErrorList): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) {
    if (required) errors.add(field, value === null ? MESSAGES.notNull : MESSAGES.required);
    return undefined;
  }
  if (typeof value !== 'string') return void errors.add(field, MESSAGES.string);
  const trimmed = value.trim();
  if (required && trimmed.length === 0) return void errors.add(field, MESSAGES.blank);
  if (characterCount(trimmed) > max) return void errors.add(field, MESSAGES.maxLength(max));
  return trimmed;
}

function flag(body: Body, field: string, errors: FieldErrorList): boolean {
  const value = body[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') {
    errors.add(field, MESSAGES.boolean);
    return false;
  }
  return value;
}

function checkOptions(body: Body, type: CustomFieldType, errors: FieldErrorList, mode: 'create' | 'update'): string[] | undefined {
  const value = body.options;
  const takesOptions = OPTION_CUSTOM_FIELD_TYPES.includes(type);
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0 && !takesOptions)) {
    if (takesOptions && (mode === 'create' || value === null)) errors.add('options', `A ${type} field needs its options.`);
    return takesOptions ? undefined : [];
  }
  if (!takesOptions) return void errors.add('options', `Only ${OPTION_CUSTOM_FIELD_TYPES.join(' and ')} fields have options.`);
  if (!Array.isArray(value)) return void errors.add('options', MESSAGES.list);
  if (value.length === 0 || value.length > CUSTOM_FIELD_LIMITS.options) {
    return void errors.add('options', `Between 1 and ${CUSTOM_FIELD_LIMITS.options} options.`);
  }
  if (
    value.some((option) => typeof option !== 'string' || option.trim().length === 0 || characterCount(option) > CUSTOM_FIELD_LIMITS.option)
  ) {
    return void errors.add('options', `Each option is a string of 1 to ${CUSTOM_FIELD_LIMITS.option} characters.`);
  }
  const options = (value as string[]).map((option) => option.trim());
  if (new Set(options).size !== options.length) return void errors.add('options', 'Options must be distinct.');
  return options;
}
