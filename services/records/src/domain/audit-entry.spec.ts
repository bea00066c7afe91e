import { erasedChanges, fieldChanges, initialValues } from './audit-entry';

const contact = {
  id: 'cnt_1',
  workspaceId: 'ws_a',
  version: 3,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
  firstName: 'Ada',
  lastName: 'Lovelace',
  fullName: 'Ada Lovelace',
  searchText: 'ada lovelace',
  emailKey: 'ada@example.com',
  email: 'ada@example.com',
  phone: '',
  tags: ['vip'],
  accountId: null,
  customFields: { tier: 'gold', seats: 3 },
};

describe('fieldChanges', () => {
  it('lists exactly the visible fields an update changed, custom fields by key, never bookkeeping', () => {
    const after = {
      ...contact,
      version: 4,
      updatedAt: '2026-01-03T00:00:00Z',
      lastName: 'Byron',
      fullName: 'Ada Byron',
      searchText: 'ada byron',
      tags: ['vip', 'new'],
      customFields: { tier: 'gold', seats: 5, region: 'EU' },
    };
    expect(fieldChanges(contact, after)).toEqual({
      lastName: { from: 'Lovelace', to: 'Byron' },
      tags: { from: ['vip'], to: ['vip', 'new'] },
      'customFields.seats': { from: 3, to: 5 },
      'customFields.region': { from: null, to: 'EU' },
    });
  });

  it('takes an absent field and null for the same value', () => {
    const { accountId: _, ...without } = contact;
    expect(fieldChanges(contact, without)).toEqual({});
  });

  it('lists a creation’s initial values from null, leaving out the empty ones', () => {
    expect(fieldChanges(null, contact)).toEqual({
      firstName: { from: null, to: 'Ada' },
      lastName: { from: null, to: 'Lovelace' },
      email: { from: null, to: 'ada@example.com' },
      tags: { from: null, to: ['vip'] },
      'customFields.tier': { from: null, to: 'gold' },
      'customFields.seats': { from: null, to: 3 },
    });
  });

  it('lists a deletion’s last values to null', () => {
    expect(fieldChanges(contact, null)).toEqual(
      expect.objectContaining({ email: { from: 'ada@example.com', to: null }, 'customFields.seats': { from: 3, to: null } }),
    );
    expect(Object.keys(fieldChanges(contact, null))).not.toContain('phone');
  });
});

describe('erasedChanges', () => {
  it('keeps the fields and blanks every value that held something', () => {
    expect(erasedChanges({ email: { from: null, to: 'ada@example.com' }, tags: { from: ['a'], to: [] } })).toEqual({
      email: { from: null, to: '[erased]' },
      tags: { from: '[erased]', to: '[erased]' },
    });
  });
});

describe('initialValues', () => {
  const records = [
    { id: 'cnt_1', workspaceId: 'ws', firstName: 'Ada', lastName: '', email: 'ada@x.io', tags: [], title: null, searchText: 'ada' },
    {
      id: 'cnt_2',
      tags: ['a', 'bb'],
      customFields: { tier: 'gold', seats: 3, empty: null, blank: '' },
      auditGroup: 'aud_1',
      notes: 'x'.repeat(10_000),
    },
    { id: 'cnt_3', address: { city: 'Paris', zip: '75001' }, emailKey: 'k', importJobId: 'imp_1' },
    {},
  ];

  it('holds the fields, values and order of a creation’s changes, without their `from`', () => {
    for (const record of records) {
      const changes = fieldChanges(null, record);
      const { values } = initialValues(record);
      expect(Object.keys(values)).toEqual(Object.keys(changes));
      expect(Object.fromEntries(Object.entries(values).map(([field, to]) => [field, { from: null, to }]))).toEqual(changes);
    }
  });

  it('counts about the JSON characters of the values, without making it', () => {
    for (const record of records) {
      const { values, size } = initialValues(record);
      const json = JSON.stringify(values).length;
      expect(size).toBeGreaterThanOrEqual(json);
      expect(size).toBeLessThanOrEqual(json + 8 * Object.keys(values).length + 16);
    }
  });
});
