import { DomainError } from '@crm/observability';
import { accountChanges, newAccount } from './account-rules';
import type { KnownReferences } from './field-rules';
import { customField } from '../testing/custom-field-definition';
import { ALREADY_CONVERTED, planConversion, type ConversionFields } from './lead-conversion';
import { leadChanges, newLead } from './lead-rules';
import { newOpportunity, opportunityChanges } from './opportunity-rules';

const refs: KnownReferences = { account: new Set(['acc_1']), contact: new Set(['cnt_1']), user: new Set(['usr_1']), customFields: [] };
const NOW = '2025-01-02T03:04:05Z';
const NOW_DATE = new Date('2025-01-02T03:04:05Z');
let n = 0;
const ids = (prefix: string) => `${prefix}${++n}`;

function errorsOf(fn: () => unknown): Record<string, string[]> {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'validation_failed') return error.fields ?? {};
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('lead rules', () => {
  it('defaults status new and score 0', () => {
    expect(newLead({ body: { lastName: 'Lee', email: 'l@x.io' }, references: refs }, 'ld_1', 'ws', NOW)).toMatchObject({
      status: 'new',
      leadScore: 0,
    });
  });

  it('reports score, status, email and unknown fields together', () => {
    const fields = errorsOf(() =>
      newLead(
        { body: { firstName: 'A', email: 'bad', leadScore: 101, status: 'won', extra: 1, assignedTo: 'usr_x' }, references: refs },
        'ld_1',
        'ws',
        NOW,
      ),
    );
    expect(Object.keys(fields).sort()).toEqual(['assignedTo', 'email', 'extra', 'leadScore', 'status']);
    expect(fields.leadScore).toEqual(['Ensure this value is less than or equal to 100.']);
  });

  it('refuses a fractional lead score', () => {
    expect(
      errorsOf(() => newLead({ body: { firstName: 'A', email: 'a@x.io', leadScore: 5.5 }, references: refs }, 'ld_1', 'ws', NOW)).leadScore,
    ).toEqual(['A valid integer is required.']);
  });

  it('does not let PATCH set status converted', () => {
    const lead = newLead({ body: { firstName: 'A', email: 'a@x.io' }, references: refs }, 'ld_1', 'ws', NOW);
    expect(errorsOf(() => leadChanges(lead, { body: { status: 'converted' }, references: refs }, NOW)).status).toHaveLength(1);
  });
});

describe('account rules', () => {
  it('defaults the stage to prospect', () => {
    expect(newAccount({ body: { name: 'Acme' }, references: refs }, 'acc_1', 'ws', NOW).stage).toBe('prospect');
  });

  it('checks name, website, revenue, address and tags at once', () => {
    const fields = errorsOf(() =>
      newAccount(
        {
          body: {
            website: 'ftp://x',
            annualRevenue: -1,
            billingAddress: { city: 1, planet: 'Mars' },
            tags: ['x'.repeat(51)],
            stage: 'gold',
          },
          references: refs,
        },
        'acc_1',
        'ws',
        NOW,
      ),
    );
    expect(Object.keys(fields).sort()).toEqual(['annualRevenue', 'billingAddress', 'name', 'stage', 'tags', 'website']);
    expect(fields.billingAddress).toHaveLength(2);
  });

  it('refuses a name over 200 characters on update', () => {
    const current = newAccount({ body: { name: 'Acme' }, references: refs }, 'acc_1', 'ws', NOW);
    expect(errorsOf(() => accountChanges(current, { body: { name: 'n'.repeat(201) }, references: refs }, NOW)).name).toEqual([
      'Ensure this field has no more than 200 characters.',
    ]);
  });
});

describe('opportunity rules', () => {
  it('defaults stage prospecting and probability from the stage', () => {
    const opp = newOpportunity({ body: { name: 'Deal', accountId: 'acc_1' }, references: refs }, 'opp_1', 'ws', NOW_DATE);
    expect(opp).toMatchObject({ stage: 'prospecting', probability: 10, closedDate: null, value: 0 });
    expect(
      newOpportunity({ body: { name: 'D', accountId: 'acc_1', stage: 'negotiation' }, references: refs }, 'o', 'ws', NOW_DATE).probability,
    ).toBe(80);
  });

  it('sets closedDate to today when created closed', () => {
    expect(
      newOpportunity({ body: { name: 'D', accountId: 'acc_1', stage: 'closed_won' }, references: refs }, 'o', 'ws', NOW_DATE),
    ).toMatchObject({
      probability: 100,
      closedDate: '2025-01-02',
    });
  });

  it('checks every field at once', () => {
    const fields = errorsOf(() =>
      newOpportunity(
        {
          body: { value: -5, probability: 150, closeDate: '2025-02-30', contactIds: ['cnt_1', 'cnt_other'], accountId: 'acc_other' },
          references: refs,
        },
        'o',
        'ws',
        NOW_DATE,
      ),
    );
    expect(Object.keys(fields).sort()).toEqual(['accountId', 'closeDate', 'contactIds', 'name', 'probability', 'value']);
    expect(fields.contactIds).toEqual(['Invalid pk "cnt_other" - object does not exist.']);
  });

  it('moves probability and closedDate with the stage unless given, and clears lossReason with null', () => {
    const opp = newOpportunity({ body: { name: 'D', accountId: 'acc_1', lossReason: 'x' }, references: refs }, 'o', 'ws', NOW_DATE);
    expect(opportunityChanges(opp, { body: { stage: 'closed_lost', lossReason: null }, references: refs }, NOW_DATE)).toMatchObject({
      stage: 'closed_lost',
      probability: 0,
      closedDate: '2025-01-02',
      lossReason: null,
    });
    expect(
      opportunityChanges(opp, { body: { stage: 'closed_won', closedDate: '2024-12-31', probability: 90 }, references: refs }, NOW_DATE),
    ).toMatchObject({
      closedDate: '2024-12-31',
      probability: 90,
    });
  });
});

describe('lead conversion plan', () => {
  const lead = newLead(
    {
      body: {
        firstName: 'Lin',
        lastName: 'Ho',
        email: 'lin@x.io',
        phone: '123',
        company: 'Hoco',
        notes: 'met at fair',
        assignedTo: 'usr_1',
      },
      references: refs,
    },
    'ld_1',
    'ws',
    NOW,
  );

  const NO_FIELDS: ConversionFields = { contact: [], lead: [], account: [], opportunity: [] };
  const field = customField;

  it('makes only a contact by default, copying name, email, phone, owner and notes', () => {
    const plan = planConversion(lead, {}, NO_FIELDS, ids, NOW_DATE);
    expect(plan.contact).toMatchObject({
      firstName: 'Lin',
      lastName: 'Ho',
      email: 'lin@x.io',
      phone: '123',
      assignedTo: 'usr_1',
      notes: 'met at fair',
    });
    expect(plan.account).toBeNull();
    expect(plan.opportunity).toBeNull();
    expect(plan.leadChange).toMatchObject({ status: 'converted', convertedAt: NOW, convertedContactId: plan.contact.id });
  });

  it('names the account after the company and the opportunity after the account', () => {
    const plan = planConversion(lead, { createAccount: true, createOpportunity: true, opportunityValue: 500 }, NO_FIELDS, ids, NOW_DATE);
    expect(plan.account?.name).toBe('Hoco');
    expect(plan.contact.accountId).toBe(plan.account?.id);
    expect(plan.opportunity).toMatchObject({
      name: 'Hoco opportunity',
      value: 500,
      stage: 'prospecting',
      probability: 10,
      accountId: plan.account?.id,
    });
  });

  it('refuses an opportunity without an account', () => {
    expect(errorsOf(() => planConversion(lead, { createOpportunity: true }, NO_FIELDS, ids, NOW_DATE)).createOpportunity).toHaveLength(1);
  });

  it('needs an account name when the lead has no company', () => {
    const noCompany = { ...lead, company: '' };
    expect(errorsOf(() => planConversion(noCompany, { createAccount: true }, NO_FIELDS, ids, NOW_DATE)).accountName).toHaveLength(1);
  });

  it('refuses a converted lead with 400', () => {
    expect(() => planConversion({ ...lead, status: 'converted' }, {}, NO_FIELDS, ids, NOW_DATE)).toThrow(ALREADY_CONVERTED);
  });

  it('checks the options together', () => {
    const fields = errorsOf(() =>
      planConversion(lead, { createAccount: 'yes', opportunityStage: 'won', opportunityValue: -1, bogus: 1 }, NO_FIELDS, ids, NOW_DATE),
    );
    expect(Object.keys(fields).sort()).toEqual(['bogus', 'createAccount', 'opportunityStage', 'opportunityValue']);
  });

  describe('custom values', () => {
    const fields: ConversionFields = {
      lead: [
        field('lead', 'tier', 'select', { options: ['gold', 'silver'] }),
        field('lead', 'seats', 'integer'),
        field('lead', 'code', 'text'),
      ],
      contact: [
        field('contact', 'tier', 'select', { options: ['gold', 'silver'] }),
        field('contact', 'seats', 'text'),
        field('contact', 'code', 'text', { unique: true }),
      ],
      account: [field('account', 'seats', 'integer')],
      opportunity: [field('opportunity', 'code', 'text')],
    };
    const withValues = { ...lead, customFields: { tier: 'gold', seats: 12, code: 'Q-7' } };

    it('carries each value to the fields of the same key and type, and claims unique ones', () => {
      const plan = planConversion(withValues, { createAccount: true, createOpportunity: true }, fields, ids, NOW_DATE);
      // seats is text on contacts: a different type, so not carried there.
      expect(plan.contact.customFields).toEqual({ tier: 'gold', code: 'Q-7' });
      expect(plan.contact.uniqueClaims?.map((claim) => claim.key)).toEqual(['code']);
      expect(plan.contact.searchText).toContain('q-7');
      expect(plan.account?.customFields).toEqual({ seats: 12 });
      expect(plan.opportunity?.customFields).toEqual({ code: 'Q-7' });
      expect(plan.opportunity?.searchText).toContain('q-7');
    });

    it('carries nothing to records it does not make', () => {
      const plan = planConversion(withValues, {}, fields, ids, NOW_DATE);
      expect(plan.account).toBeNull();
      expect(plan.contact.customFields).toEqual({ tier: 'gold', code: 'Q-7' });
    });

    it("refuses a value the new record's field cannot hold, and a required field left empty", () => {
      const narrow: ConversionFields = {
        ...fields,
        contact: [field('contact', 'tier', 'select', { options: ['gold'] }), field('contact', 'region', 'text', { required: true })],
      };
      const errors = errorsOf(() => planConversion({ ...withValues, customFields: { tier: 'silver' } }, {}, narrow, ids, NOW_DATE));
      expect(Object.keys(errors).sort()).toEqual(['customFields.region', 'customFields.tier']);
      expect(errors['customFields.tier']![0]).toContain('contact');
      expect(errors['customFields.region']![0]).toContain('requires');
    });
  });
});
