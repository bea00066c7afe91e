import { mergePlaceholders, placeholdersIn, unknownPlaceholders } from './placeholders';

describe('merge placeholders', () => {
  const context = {
    recordType: 'lead' as const,
    record: { firstName: 'Ada', lastName: 'Lovelace', company: 'Analytical Engines', leadScore: 90, phone: null },
    workspace: { name: 'Acme Corp' },
    owner: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' },
  };

  it('fills record, workspace and owner placeholders', () => {
    expect(
      mergePlaceholders(
        'Hi {{lead.firstName}} {{ lead.lastName }} of {{lead.company}} — {{owner.firstName}} at {{workspace.name}}',
        context,
      ),
    ).toBe('Hi Ada Lovelace of Analytical Engines — Grace at Acme Corp');
  });

  it('renders numbers as text and missing or null values as empty', () => {
    expect(mergePlaceholders('score {{lead.leadScore}}, phone [{{lead.phone}}]', context)).toBe('score 90, phone []');
    expect(mergePlaceholders('owner [{{owner.firstName}}]', { ...context, owner: null })).toBe('owner []');
  });

  it('leaves placeholders of another record type as written', () => {
    expect(mergePlaceholders('{{contact.firstName}}', context)).toBe('{{contact.firstName}}');
  });

  it('finds placeholders the record type does not offer', () => {
    expect(placeholdersIn('{{a.b}} and {{ c.d }}')).toEqual(['a.b', 'c.d']);
    expect(unknownPlaceholders('{{lead.firstName}} {{lead.salary}} {{contact.title}} {{workspace.name}}', 'lead')).toEqual([
      'lead.salary',
      'contact.title',
    ]);
  });
});
