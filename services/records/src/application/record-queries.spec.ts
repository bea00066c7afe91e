import { DomainError } from '@crm/observability';
import { callerIn, recordsHarness, type Harness } from '../testing/records-factory';

const A = callerIn('ws_a');
const B = callerIn('ws_b', { id: 'usr_bob', type: 'user' });

async function refusal(promise: Promise<unknown>): Promise<Record<string, string[]>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'invalid_argument' && error.fields) return error.fields;
    throw error;
  }
  throw new Error('expected a refusal');
}

const leaf = (field: string, operator: string, value?: unknown) => ({ field, operator, ...(value === undefined ? {} : { value }) });

describe('the filter language over records (SQLite)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await recordsHarness();
    const people: Array<Record<string, unknown>> = [
      { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', stage: 'customer', tags: ['vip'], title: 'Countess' },
      { firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com', stage: 'new', tags: ['vip', 'math'] },
      { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', stage: 'engaged', title: 'Admiral' },
      { lastName: 'Noether', email: 'emmy@example.com', stage: 'new' },
    ];
    for (const body of people) await h.service.contacts.create(A, { body });
    await h.service.contacts.create(B, { body: { firstName: 'Ada', lastName: 'Other', email: 'ada@b.example', stage: 'customer' } });
  });
  afterEach(() => h.close());

  const names = async (query: Parameters<Harness['service']['queries']['query']>[2]) =>
    (await h.service.queries.query(A, 'contact', query)).items.map((c) => c.lastName);

  it('keeps the leaves of an and, an or and a not', async () => {
    const filter = {
      and: [{ or: [leaf('stage', 'eq', 'new'), leaf('stage', 'eq', 'customer')] }, { not: leaf('lastName', 'eq', 'Turing') }],
    };
    expect((await names({ filter: JSON.stringify(filter), ordering: 'lastName' })).sort()).toEqual(['Lovelace', 'Noether']);
  });

  it('matches unset values with neq and not_in, and not with eq', async () => {
    expect(await names({ filter: JSON.stringify(leaf('title', 'neq', 'Admiral')), ordering: 'lastName' })).toEqual([
      'Lovelace',
      'Noether',
      'Turing',
    ]);
    expect(await names({ filter: JSON.stringify(leaf('firstName', 'not_in', ['Ada', 'Alan'])), ordering: 'lastName' })).toEqual([
      'Hopper',
      'Noether',
    ]);
  });

  it('reads contains as a case-insensitive substring on text and as membership on tags', async () => {
    expect(await names({ filter: JSON.stringify(leaf('email', 'contains', 'GRACE')) })).toEqual(['Hopper']);
    expect((await names({ filter: JSON.stringify(leaf('tags', 'contains', 'vip')) })).sort()).toEqual(['Lovelace', 'Turing']);
  });

  it('tells empty from set values, an empty list and an empty string included', async () => {
    expect((await names({ filter: JSON.stringify(leaf('tags', 'is_empty')) })).sort()).toEqual(['Hopper', 'Noether']);
    expect((await names({ filter: JSON.stringify(leaf('title', 'is_not_empty')) })).sort()).toEqual(['Hopper', 'Lovelace']);
  });

  it('compares timestamps in range', async () => {
    expect(await names({ filter: JSON.stringify(leaf('createdAt', 'gte', '2000-01-01')) })).toHaveLength(4);
    expect(await names({ filter: JSON.stringify(leaf('createdAt', 'lt', '2000-01-01')) })).toHaveLength(0);
  });

  it('never shows another workspace', async () => {
    const page = await h.service.queries.query(A, 'contact', { filter: JSON.stringify(leaf('firstName', 'eq', 'Ada')) });
    expect(page.items.map((c) => c.lastName)).toEqual(['Lovelace']);
    expect(page.total).toBe(1);
  });

  it('orders by up to three fields, unset values last ascending and first descending', async () => {
    expect(await names({ ordering: 'firstName' })).toEqual(['Lovelace', 'Turing', 'Hopper', 'Noether']);
    expect(await names({ ordering: '-firstName' })).toEqual(['Noether', 'Hopper', 'Turing', 'Lovelace']);
    expect(await names({ ordering: 'stage,-lastName' })).toEqual(['Lovelace', 'Hopper', 'Turing', 'Noether']);
  });

  it('walks every page by cursor under a multi-field ordering, counting on every page', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await h.service.queries.query(A, 'contact', { ordering: 'stage,firstName', limit: 1, cursor });
      expect(page.total).toBe(4);
      seen.push(...page.items.map((c) => c.lastName));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['Lovelace', 'Hopper', 'Turing', 'Noether']);
  });

  it('refuses a cursor sent with another ordering', async () => {
    const page = await h.service.queries.query(A, 'contact', { ordering: 'stage,firstName', limit: 1 });
    await expect(h.service.queries.query(A, 'contact', { ordering: 'firstName', limit: 1, cursor: page.nextCursor! })).rejects.toThrow(
      DomainError,
    );
  });

  it.each([
    ['an unknown field', leaf('colour', 'eq', 'red'), 'filter.field: unknown field "colour".'],
    ['an unknown operator', leaf('stage', 'like', 'new'), 'filter.operator: unknown operator'],
    ['an operator the type does not take', leaf('stage', 'gt', 'new'), 'filter.operator: "gt" does not apply to choice field "stage".'],
    ['a value of the wrong type', { and: [leaf('firstName', 'eq', 3)] }, 'filter.and[0].value: must be a string for "firstName".'],
    ['a choice outside its set', leaf('stage', 'eq', 'nope'), 'filter.value: must be one of'],
    ['a bad timestamp', leaf('createdAt', 'gt', 'yesterday'), 'filter.value: must be an ISO 8601'],
    ['too many values', leaf('stage', 'in', Array(101).fill('new')), 'filter.value: "in" needs a list of 1 to 100 values.'],
    ['a value on is_empty', leaf('title', 'is_empty', 'x'), 'filter.value: "is_empty" takes no value.'],
    ['a leaf with another key', { ...leaf('title', 'eq', 'x'), op: 'eq' }, 'filter: unknown key "op"'],
    ['a group with another key', { and: [leaf('title', 'eq', 'x')], or: [] }, 'filter: "and" must be the object\'s only key.'],
  ])('refuses %s, naming its path', async (_name, filter, message) => {
    const fields = await refusal(h.service.queries.query(A, 'contact', { filter: JSON.stringify(filter) }));
    expect(fields.filter?.[0]).toContain(message);
  });

  it('allows five levels of and/or/not and refuses six, before reading the leaves', async () => {
    let five: unknown = leaf('stage', 'eq', 'new');
    for (let i = 0; i < 5; i += 1) five = i % 2 === 0 ? { not: five } : { and: [five] };
    await expect(h.service.queries.query(A, 'contact', { filter: JSON.stringify(five) })).resolves.toBeDefined();
    const six = { or: [{ and: [{ not: { and: [{ or: [{ not: leaf('nothing', 'bad') }] }] } }] }] };
    expect((await refusal(h.service.queries.query(A, 'contact', { filter: JSON.stringify(six) }))).filter?.[0]).toBe(
      'filter.or[0].and[0].not.and[0].or[0]: a filter nests at most 5 levels of and/or/not.',
    );
  });

  it('allows 50 leaves and refuses 51', async () => {
    const many = (n: number) => JSON.stringify({ or: Array.from({ length: n }, () => leaf('stage', 'eq', 'new')) });
    expect((await h.service.queries.query(A, 'contact', { filter: many(50) })).total).toBe(2);
    expect((await refusal(h.service.queries.query(A, 'contact', { filter: many(51) }))).filter?.[0]).toBe(
      'filter.or[50]: a filter holds at most 50 conditions.',
    );
  });

  it.each([
    ['an unknown field', 'colour'],
    ['a list field', 'tags'],
    ['more than three fields', 'firstName,lastName,email,stage'],
    ['a field twice', 'firstName,-firstName'],
  ])('refuses an ordering with %s', async (_name, ordering) => {
    expect(Object.keys(await refusal(h.service.queries.query(A, 'contact', { ordering })))).toEqual(['ordering']);
  });

  describe('a field of the linked account', () => {
    beforeEach(async () => {
      const acme = await h.service.accounts.create(A, { body: { name: 'Acme', industry: 'Tools', stage: 'customer' } });
      await h.service.accounts.create(A, { body: { name: 'Globex', industry: 'Energy' } });
      const [ada] = (await h.service.queries.query(A, 'contact', { filter: JSON.stringify(leaf('lastName', 'eq', 'Lovelace')) })).items;
      await h.service.contacts.update(A, ada!.id, { body: { accountId: acme.id } });
    });

    it('keeps the records whose account matches', async () => {
      expect(await names({ filter: JSON.stringify(leaf('account.industry', 'contains', 'tool')) })).toEqual(['Lovelace']);
      expect(await names({ filter: JSON.stringify(leaf('account.stage', 'in', ['customer', 'active'])) })).toEqual(['Lovelace']);
      expect(await names({ filter: JSON.stringify(leaf('accountName', 'eq', 'Globex')) })).toEqual([]);
    });

    it('lets neq and is_empty meet records without an account, as on their own fields', async () => {
      expect((await names({ filter: JSON.stringify(leaf('account.name', 'neq', 'Acme')) })).sort()).toEqual([
        'Hopper',
        'Noether',
        'Turing',
      ]);
      expect((await names({ filter: JSON.stringify(leaf('account.name', 'is_empty')) })).sort()).toEqual(['Hopper', 'Noether', 'Turing']);
    });

    it('keeps its cursors valid while the accounts it matches change, and refuses them under another filter', async () => {
      // The accounts with a name are resolved at each request: Initech joins them between the pages.
      const filter = JSON.stringify({ or: [leaf('account.name', 'is_not_empty'), leaf('lastName', 'is_not_empty')] });
      const first = await h.service.queries.query(A, 'contact', { filter, ordering: 'lastName', limit: 2 });
      await h.service.accounts.create(A, { body: { name: 'Initech' } });
      const second = await h.service.queries.query(A, 'contact', { filter, ordering: 'lastName', limit: 2, cursor: first.nextCursor! });
      expect([...first.items, ...second.items].map((c) => c.lastName)).toEqual(['Hopper', 'Lovelace', 'Noether', 'Turing']);
      const other = JSON.stringify(leaf('account.name', 'neq', 'Somebody'));
      await expect(
        h.service.queries.query(A, 'contact', { filter: other, ordering: 'lastName', cursor: first.nextCursor! }),
      ).rejects.toThrow(DomainError);
    });

    it('refuses ordering by it', async () => {
      expect(Object.keys(await refusal(h.service.queries.query(A, 'contact', { ordering: 'account.name' })))).toEqual(['ordering']);
    });
  });

  it('ANDs a filter with the GET list parameters', async () => {
    const page = await h.service.contacts.list(A, { stage: 'new', filter: JSON.stringify(leaf('lastName', 'contains', 'ring')) });
    expect(page.items.map((c) => c.lastName)).toEqual(['Turing']);
  });
});
