import { allHold, anyHolds, conditionHolds } from './conditions';
import type { Condition } from './model';

const lead = {
  status: 'new',
  leadScore: 72,
  company: 'Acme Widgets',
  email: '',
  tags: ['vip', 'emea'],
  createdAt: '2025-03-01T10:00:00Z',
  convertedAt: null,
};
const holds = (condition: Condition) => conditionHolds(condition, lead);

describe('condition evaluation', () => {
  it('eq compares case-insensitively, and a list field equals a value it holds', () => {
    expect(holds({ field: 'status', operator: 'eq', value: 'NEW' })).toBe(true);
    expect(holds({ field: 'status', operator: 'eq', value: 'lost' })).toBe(false);
    expect(holds({ field: 'tags', operator: 'eq', value: 'vip' })).toBe(true);
  });

  it('neq is the negation of eq', () => {
    expect(holds({ field: 'status', operator: 'neq', value: 'lost' })).toBe(true);
    expect(holds({ field: 'status', operator: 'neq', value: 'new' })).toBe(false);
  });

  it('in and not_in test membership of a list of values', () => {
    expect(holds({ field: 'status', operator: 'in', value: ['new', 'contacted'] })).toBe(true);
    expect(holds({ field: 'status', operator: 'in', value: ['lost'] })).toBe(false);
    expect(holds({ field: 'status', operator: 'not_in', value: ['lost'] })).toBe(true);
    expect(holds({ field: 'status', operator: 'not_in', value: ['new'] })).toBe(false);
  });

  it('contains matches text literally and case-insensitively, and list elements', () => {
    expect(holds({ field: 'company', operator: 'contains', value: 'widget' })).toBe(true);
    expect(holds({ field: 'company', operator: 'contains', value: 'w.*t' })).toBe(false);
    expect(holds({ field: 'tags', operator: 'contains', value: 'EMEA' })).toBe(true);
  });

  it('gt, gte, lt and lte order numbers', () => {
    expect(holds({ field: 'leadScore', operator: 'gt', value: 71 })).toBe(true);
    expect(holds({ field: 'leadScore', operator: 'gt', value: 72 })).toBe(false);
    expect(holds({ field: 'leadScore', operator: 'gte', value: 72 })).toBe(true);
    expect(holds({ field: 'leadScore', operator: 'lt', value: 72 })).toBe(false);
    expect(holds({ field: 'leadScore', operator: 'lte', value: 72 })).toBe(true);
  });

  it('range operators order ISO dates and never match an empty field', () => {
    expect(holds({ field: 'createdAt', operator: 'gt', value: '2025-02-28' })).toBe(true);
    expect(holds({ field: 'createdAt', operator: 'lt', value: '2025-02-28' })).toBe(false);
    expect(holds({ field: 'convertedAt', operator: 'lt', value: '2030-01-01' })).toBe(false);
  });

  it('is_empty and is_not_empty treat null, missing, blank and empty lists as empty', () => {
    expect(holds({ field: 'email', operator: 'is_empty' })).toBe(true);
    expect(holds({ field: 'convertedAt', operator: 'is_empty' })).toBe(true);
    expect(holds({ field: 'nowhere', operator: 'is_empty' })).toBe(true);
    expect(holds({ field: 'company', operator: 'is_not_empty' })).toBe(true);
    expect(holds({ field: 'email', operator: 'is_not_empty' })).toBe(false);
  });

  it('trigger conditions all hold; exit conditions end on any one', () => {
    const conditions: Condition[] = [
      { field: 'status', operator: 'eq', value: 'new' },
      { field: 'leadScore', operator: 'gt', value: 90 },
    ];
    expect(allHold(conditions, lead)).toBe(false);
    expect(anyHolds(conditions, lead)).toBe(true);
    expect(allHold([], lead)).toBe(true);
    expect(anyHolds([], lead)).toBe(false);
  });
});

describe('custom field conditions', () => {
  const record = { customFields: { tier: 'gold', seats: 12, regions: ['emea'], note: null } };
  it('read customFields.<key> from the record’s custom values', () => {
    expect(conditionHolds({ field: 'customFields.tier', operator: 'eq', value: 'Gold' }, record)).toBe(true);
    expect(conditionHolds({ field: 'customFields.seats', operator: 'gt', value: 10 }, record)).toBe(true);
    expect(conditionHolds({ field: 'customFields.regions', operator: 'contains', value: 'emea' }, record)).toBe(true);
    expect(conditionHolds({ field: 'customFields.note', operator: 'is_empty' }, record)).toBe(true);
    expect(conditionHolds({ field: 'customFields.missing', operator: 'is_empty' }, record)).toBe(true);
    expect(conditionHolds({ field: 'customFields.tier', operator: 'eq', value: 'silver' }, record)).toBe(false);
  });
});
