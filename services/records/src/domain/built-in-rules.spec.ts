import { CONTACT_FIELDS, OPPORTUNITY_FIELDS } from '@crm/vocabulary';
import { fieldTableOf, readOnlyFieldsOf, withCreatedValues } from './built-in-rules';
import { fieldIdentifier } from './field-list-code';

describe("a kind's rules read from its field descriptors", () => {
  it('complete a created record: checked values, else defaults, never over what the caller set', () => {
    const one = withCreatedValues<Record<string, unknown>>({ id: 'cnt_1', firstName: 'Ada' }, CONTACT_FIELDS, {
      firstName: 'ignored',
      phone: '+44',
      tags: ['vip'],
    });
    expect(one).toMatchObject({ id: 'cnt_1', firstName: 'Ada', phone: '+44', tags: ['vip'], title: '', stage: 'new', accountId: null });
    expect(one).toMatchObject({ externalId: null, emailOptOut: false, lastName: '', notes: '' });
    // Read-only fields and fields without a default are the caller's to set.
    expect(one).not.toHaveProperty('source');
    expect(one).not.toHaveProperty('email');
  });

  it('give each created record lists of its own', () => {
    const a = withCreatedValues<{ tags: string[] }>({}, CONTACT_FIELDS, {});
    const b = withCreatedValues<{ tags: string[] }>({}, CONTACT_FIELDS, {});
    a.tags.push('mine');
    expect(b.tags).toEqual([]);
  });

  it("leave what has no default of its own to the kind's rules (an opportunity's probability)", () => {
    const opportunity = withCreatedValues<Record<string, unknown>>({}, OPPORTUNITY_FIELDS, { stage: 'proposal' });
    expect(opportunity).toMatchObject({ stage: 'proposal', value: 0, contactIds: [] });
    expect(opportunity).not.toHaveProperty('probability');
  });

  it('take writable fields as rules and the rest as read-only', () => {
    const rules = fieldTableOf(CONTACT_FIELDS, 'contact');
    expect(rules.title).toEqual({ kind: 'text', max: 200 });
    expect(rules.accountId).toEqual({ kind: 'reference', target: 'account', nullable: true });
    expect(rules.email).toEqual({ kind: 'email', required: true });
    expect(readOnlyFieldsOf(CONTACT_FIELDS)).toEqual(['id', 'accountName', 'assignedToName', 'source', 'createdAt', 'updatedAt']);
  });

  it('refuse a field name that is no identifier before it reaches generated code', () => {
    expect(fieldIdentifier('linkedinUrl')).toBe('linkedinUrl');
    expect(() => fieldIdentifier("a'); process.exit(1); ('")).toThrow('no field name');
    expect(() => fieldIdentifier('a.b')).toThrow('no field name');
  });
});
