import { DomainError } from '@crm/observability';
import { contactChanges, newContact } from './contact-rules';
import { NO_REFERENCES, type KnownReferences } from './field-rules';

const refs: KnownReferences = { account: new Set(['acc_1']), contact: new Set(), user: new Set(['usr_1']), customFields: [] };
const NOW = '2025-01-02T03:04:05Z';

function errorsOf(fn: () => unknown): Record<string, string[]> {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'validation_failed') return error.fields ?? {};
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('contact rules', () => {
  it('applies the defaults on create', () => {
    const contact = newContact({ body: { firstName: 'Ada', email: 'ada@example.com' }, references: refs }, 'cnt_1', 'ws_a', NOW);
    expect(contact).toMatchObject({
      stage: 'new',
      tags: [],
      accountId: null,
      assignedTo: null,
      emailKey: 'ada@example.com',
      fullName: 'Ada',
    });
  });

  it('reports every failing field at once', () => {
    const fields = errorsOf(() =>
      newContact(
        {
          body: {
            email: 'not-an-email',
            stage: 'bogus',
            phone: 42,
            favouriteColour: 'blue',
            accountId: 'acc_other',
            assignedTo: 'usr_other',
            tags: Array.from({ length: 51 }, (_, i) => `t${i}`),
            notes: 'x'.repeat(10_001),
            emailOptOut: 'yes',
          },
          references: refs,
          earlierErrors: { title: ['Not a valid string.'] },
        },
        'cnt_1',
        'ws_a',
        NOW,
      ),
    );
    expect(Object.keys(fields).sort()).toEqual(
      [
        'accountId',
        'assignedTo',
        'email',
        'emailOptOut',
        'favouriteColour',
        'firstName',
        'notes',
        'phone',
        'stage',
        'tags',
        'title',
      ].sort(),
    );
    expect(fields.email).toEqual(['Enter a valid email address.']);
    expect(fields.stage).toEqual(['"bogus" is not a valid choice.']);
    expect(fields.favouriteColour).toEqual(['Unknown field.']);
    expect(fields.accountId).toEqual(['Invalid pk "acc_other" - object does not exist.']);
  });

  it('requires email and one of the names', () => {
    const fields = errorsOf(() => newContact({ body: {}, references: NO_REFERENCES }, 'cnt_1', 'ws_a', NOW));
    expect(fields.email).toEqual(['This field is required.']);
    expect(fields.firstName).toBeDefined();
  });

  it('refuses operator objects as values', () => {
    const fields = errorsOf(() =>
      newContact({ body: { firstName: { $gt: '' }, email: { $ne: null }, stage: { $ne: 'x' } }, references: refs }, 'cnt_1', 'ws_a', NOW),
    );
    expect(fields.firstName).toEqual(['Not a valid string.']);
    expect(fields.email).toEqual(['Not a valid string.']);
    expect(fields.stage).toHaveLength(1);
  });

  it('ignores read-only fields on update and unlinks the account with null', () => {
    const current = newContact({ body: { firstName: 'Ada', email: 'a@x.io', accountId: 'acc_1' }, references: refs }, 'cnt_1', 'ws_a', NOW);
    const changes = contactChanges(
      current,
      { body: { id: 'cnt_9', createdAt: 'x', accountName: 'y', accountId: null }, references: refs },
      NOW,
    );
    expect(changes).toEqual({ accountId: null, updatedAt: NOW });
  });

  it('refuses null for a required field on update', () => {
    const current = newContact({ body: { firstName: 'Ada', email: 'a@x.io' }, references: refs }, 'cnt_1', 'ws_a', NOW);
    expect(errorsOf(() => contactChanges(current, { body: { email: null }, references: refs }, NOW)).email).toEqual([
      'This field may not be null.',
    ]);
  });
});
