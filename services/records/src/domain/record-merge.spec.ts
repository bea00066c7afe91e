import { DomainError } from '@crm/observability';
import { CONTACT_RULES } from './contact-rules';
import { checkMergedFound, checkMergeList, mergedBody } from './record-merge';

const contact = (id: string, fields: Record<string, unknown>) => ({
  id,
  firstName: 'Ada',
  lastName: '',
  email: `${id}@example.com`,
  phone: '',
  title: '',
  stage: 'new',
  accountId: null,
  assignedTo: null,
  tags: [],
  emailOptOut: false,
  emailBounced: false,
  notes: '',
  ...fields,
});

function fieldErrors(run: () => void): Record<string, string[]> | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error.fields;
    throw error;
  }
  return undefined;
}

describe('which ids may be merged', () => {
  it.each([
    [[], 'Name at least one record to merge.'],
    [Array.from({ length: 11 }, (_, i) => `c${i}`), 'Ensure this field has no more than 10 elements.'],
    [['c1', 'c1'], 'Each id may appear once.'],
    [['c1', 's'], 'A record cannot be merged into itself.'],
  ])('refuses %j', (ids, message) => {
    expect(fieldErrors(() => checkMergeList('s', ids))).toEqual({ mergeIds: [message] });
  });

  it('accepts 1 to 10 distinct ids and names the first that was not found', () => {
    expect(fieldErrors(() => checkMergeList('s', ['c1', 'c2']))).toBeUndefined();
    expect(fieldErrors(() => checkMergedFound(['c1', 'c2', 'c3'], new Set(['c1'])))).toEqual({
      mergeIds: ['Invalid pk "c2" - object does not exist.'],
    });
  });
});

describe('the survivor’s merged values', () => {
  const survivor = contact('s', { title: '', phone: '123', notes: 'first', tags: ['a'] });
  const one = contact('m1', { title: '', phone: '456', notes: '', tags: ['b', 'a'], stage: 'customer' });
  const two = contact('m2', { title: 'CTO', phone: '', notes: 'second', tags: ['c'], accountId: 'acc_1' });

  it('fills empty fields in order, joins notes, unites tags and keeps what the survivor has', () => {
    expect(mergedBody(survivor, [one, two], CONTACT_RULES, {})).toEqual({
      title: 'CTO',
      notes: 'first\n\nsecond',
      tags: ['a', 'b', 'c'],
      accountId: 'acc_1',
    });
  });

  it('lets `fields` pick the winner, the survivor included, and leaves unchanged values out', () => {
    expect(mergedBody(survivor, [one, two], CONTACT_RULES, { phone: 'm1', stage: 's', notes: 's', tags: 's' })).toEqual({
      phone: '456',
      title: 'CTO',
      accountId: 'acc_1',
    });
  });

  it('refuses an unknown field or an id outside the merge, on `fields`', () => {
    expect(fieldErrors(() => mergedBody(survivor, [one], CONTACT_RULES, { fullName: 'm1', title: 'm9' }))).toEqual({
      fields: ['"fullName" is not a field that can be merged.', '"m9" is neither the survivor nor one of mergeIds.'],
    });
  });
});
