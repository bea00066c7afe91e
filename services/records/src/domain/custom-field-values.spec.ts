import { FieldErrorList } from '@crm/observability';
import type { CustomFieldDefinition } from '@crm/vocabulary';
import { answerValues, checkCustomFields, searchableValues, uniqueClaims, withPatch } from './custom-field-values';
import { changedCustomField, newCustomField } from './custom-field-rules';
import { customField } from '../testing/custom-field-definition';

const now = '2026-11-28T00:00:00Z';
const field = (key: string, type: CustomFieldDefinition['type'], extra: Partial<CustomFieldDefinition> = {}) =>
  customField('contact', key, type, extra);
const defs = [
  field('code', 'text', { unique: true }),
  field('seats', 'integer'),
  field('tier', 'select', { options: ['gold', 'silver'] }),
  field('langs', 'multiselect', { options: ['en', 'fr'] }),
  field('billing', 'email', { unique: true }),
  field('seen', 'datetime'),
  field('region', 'text', { required: true }),
];

describe('custom field values', () => {
  it('checks each value by its type and names every failing key', () => {
    const errors = new FieldErrorList();
    const patch = checkCustomFields(
      { code: ' A1 ', seats: 2.5, tier: 'bronze', langs: ['en', 'en'], nope: 1, seen: '2026-01-01T10:00:00+02:00' },
      defs,
      'update',
      errors,
    );
    expect(patch).toEqual({ code: 'A1', langs: ['en'], seen: '2026-01-01T08:00:00Z' });
    expect(Object.keys(errors.errors).sort()).toEqual(['customFields.nope', 'customFields.seats', 'customFields.tier']);
  });

  it('requires required fields on create only, and refuses clearing them', () => {
    const create = new FieldErrorList();
    checkCustomFields(undefined, defs, 'create', create);
    expect(create.errors).toEqual({ 'customFields.region': ['This field is required.'] });
    const update = new FieldErrorList();
    checkCustomFields({ region: null }, defs, 'update', update);
    expect(Object.keys(update.errors)).toEqual(['customFields.region']);
  });

  it('merges a patch, answers every defined key, searches text-like values and claims unique ones', () => {
    const values = withPatch({ code: 'A', seats: 3 }, { seats: null, billing: 'X@Y.com' });
    expect(values).toEqual({ code: 'A', billing: 'X@Y.com' });
    expect(answerValues(values, defs.slice(0, 2))).toEqual({ code: 'A', seats: null });
    expect(searchableValues(values, defs)).toEqual(['A', 'X@Y.com']);
    const claims = uniqueClaims('ws1', 'contact', values, defs);
    expect(claims.map((c) => c.key)).toEqual(['code', 'billing']);
    expect(uniqueClaims('ws1', 'contact', { billing: 'x@y.COM' }, defs)[0]!.id).toBe(claims[1]!.id);
    expect(uniqueClaims('ws2', 'contact', values, defs)[0]!.id).not.toBe(claims[0]!.id);
  });
});

describe('custom field definitions', () => {
  it('refuses a built-in key, a bad key, options on a text field, a unique boolean, and the 101st field', () => {
    const full = Array.from({ length: 100 }, (_, i) => field(`f${i}`, 'text'));
    const attempt = (body: Record<string, unknown>, existing = [] as CustomFieldDefinition[]) => {
      try {
        newCustomField({ kind: 'contact', label: 'x', type: 'text', ...body }, existing, 'fld_1', now);
        return {};
      } catch (error) {
        return (error as { fields: Record<string, string[]> }).fields;
      }
    };
    expect(Object.keys(attempt({ key: 'email' }))).toEqual(['key']);
    expect(Object.keys(attempt({ key: '9lives' }))).toEqual(['key']);
    expect(Object.keys(attempt({ key: 'ok', options: ['a'] }))).toEqual(['options']);
    expect(Object.keys(attempt({ key: 'ok', type: 'boolean', unique: true }))).toEqual(['unique']);
    expect(Object.keys(attempt({ key: 'f100' }, full))).toEqual(['key']);
    expect(attempt({ key: 'fine' }, full.slice(1))).toEqual({});
  });

  it('changes label, description, required and options, never kind, key or type, and keeps options in use', () => {
    const tier = field('tier', 'select', { options: ['gold', 'silver'] });
    expect(changedCustomField(tier, { label: 'Tier', options: ['gold'] }, new Set(), now)).toMatchObject({
      label: 'Tier',
      options: ['gold'],
    });
    expect(() => changedCustomField(tier, { options: ['gold'] }, new Set(['silver']), now)).toThrow();
    expect(() => changedCustomField(tier, { type: 'text' }, new Set(), now)).toThrow();
  });
});
