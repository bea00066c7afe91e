import { isBuiltInFieldName } from './custom-fields';

describe('custom field keys that name a built-in field', () => {
  it.each([
    ['contact', 'title'],
    ['contact', 'accountName'],
    ['contact', 'customFields'],
    ['lead', 'company'],
    ['lead', 'convertedAt'],
    ['account', 'phone'],
    ['account', 'billingAddress'],
    ['opportunity', 'contactIds'],
    ['opportunity', 'account.name'],
    ['contact', 'searchText'],
    ['lead', 'workspaceId'],
  ] as const)('%s.%s is taken', (kind, key) => {
    expect(isBuiltInFieldName(kind, key)).toBe(true);
  });

  it.each([
    // Another kind's field is free: a contact may have its own `company`.
    ['contact', 'company'],
    ['account', 'title'],
    ['lead', 'billingAddress'],
    ['contact', 'tier'],
    ['contact', 'constructor'],
  ] as const)('%s.%s is free', (kind, key) => {
    expect(isBuiltInFieldName(kind, key)).toBe(false);
  });
});
