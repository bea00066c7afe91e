import { DomainError } from '@crm/observability';
import { callerIn, recordsHarness, type Harness } from '../testing/records-factory';

const A = callerIn('ws_a');
const B = callerIn('ws_b', { id: 'usr_bob', type: 'user' });

async function kindOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error.kind;
    throw error;
  }
  return 'ok';
}

describe('record versions (ETag / If-Match)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await recordsHarness();
  });
  afterEach(() => h.close());

  const contact = () => h.service.contacts.create(A, { body: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' } });

  it('starts a record at version 0 and bumps it on every update, with or without If-Match', async () => {
    const c = await contact();
    expect(c.version ?? 0).toBe(0);
    expect((await h.service.contacts.update(A, c.id, { body: { title: 'CTO' } })).version).toBe(1);
    expect((await h.service.contacts.update(A, c.id, { body: { title: 'CEO' }, expectedVersion: 1 })).version).toBe(2);
    expect((await h.service.contacts.get(A, c.id)).version).toBe(2);
  });

  it('refuses an update at a stale version with precondition_failed and changes nothing', async () => {
    const c = await contact();
    await h.service.contacts.update(A, c.id, { body: { title: 'CTO' } });
    expect(await kindOf(h.service.contacts.update(A, c.id, { body: { title: 'Intern' }, expectedVersion: 0 }))).toBe('precondition_failed');
    expect(await h.service.contacts.get(A, c.id)).toMatchObject({ title: 'CTO', version: 1 });
  });

  it('lets one of two concurrent updates with the same If-Match through and refuses the other', async () => {
    for (const kind of ['contact', 'lead', 'account', 'opportunity'] as const) {
      const id =
        kind === 'contact'
          ? (await contact()).id
          : kind === 'lead'
            ? (await h.service.leads.create(A, { body: { firstName: 'L', email: `l${Math.random()}@x.io` } })).id
            : kind === 'account'
              ? (await h.service.accounts.create(A, { body: { name: 'Acme' } })).id
              : (
                  await h.service.opportunities.create(A, {
                    body: { name: 'Deal', accountId: (await h.service.accounts.create(A, { body: { name: 'Acme' } })).id },
                  })
                ).id;
      const update = (value: string) => {
        const input = { body: kind === 'account' || kind === 'opportunity' ? { name: value } : { phone: value }, expectedVersion: 0 };
        if (kind === 'contact') return h.service.contacts.update(A, id, input);
        if (kind === 'lead') return h.service.leads.update(A, id, input);
        if (kind === 'account') return h.service.accounts.update(A, id, input);
        return h.service.opportunities.update(A, id, input);
      };
      const outcomes = await Promise.all([kindOf(update('one')), kindOf(update('two'))]);
      expect(outcomes.sort()).toEqual(['ok', 'precondition_failed']);
    }
  });

  it('refuses a delete at a stale version and keeps the record; deletes at the current one', async () => {
    const c = await contact();
    await h.service.contacts.update(A, c.id, { body: { title: 'CTO' } });
    expect(await kindOf(h.service.contacts.delete(A, c.id, 0))).toBe('precondition_failed');
    expect(await kindOf(h.service.contacts.get(A, c.id))).toBe('ok');
    await h.service.contacts.delete(A, c.id, 1);
    expect(await kindOf(h.service.contacts.get(A, c.id))).toBe('not_found');
  });

  it('bumps the version of contacts unlinked by their account being deleted', async () => {
    const account = await h.service.accounts.create(A, { body: { name: 'Acme' } });
    const c = await h.service.contacts.create(A, { body: { firstName: 'A', lastName: 'B', email: 'a@b.io', accountId: account.id } });
    await h.service.accounts.delete(A, account.id, 0);
    expect(await h.service.contacts.get(A, c.id)).toMatchObject({ accountId: null, version: 1 });
  });

  it("answers not found for another workspace's record whatever the version", async () => {
    const c = await contact();
    expect(await kindOf(h.service.contacts.update(B, c.id, { body: { title: 'x' }, expectedVersion: 0 }))).toBe('not_found');
    expect(await kindOf(h.service.contacts.delete(B, c.id, 0))).toBe('not_found');
  });
});
