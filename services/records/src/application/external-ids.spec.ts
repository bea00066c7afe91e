import { DomainError } from '@crm/observability';
import { callerIn, recordsHarness, type Harness } from '../testing/records-factory';

const A = callerIn('ws_a');
const B = callerIn('ws_b', { id: 'usr_bob', type: 'user' });

async function fieldsOf(promise: Promise<unknown>): Promise<Record<string, string[]>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'validation_failed' && error.fields) return error.fields;
    throw error;
  }
  throw new Error('expected a 422');
}

describe('externalId', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await recordsHarness();
  });
  afterEach(() => h.close());

  const contact = (caller = A, body: Record<string, unknown> = {}) =>
    h.service.contacts.create(caller, { body: { firstName: 'Ada', email: `ada-${Math.random()}@example.com`, ...body } });

  it('is unique per workspace and kind: a clash on create or update is a 422 on externalId', async () => {
    await contact(A, { externalId: 'crm-1' });
    expect(Object.keys(await fieldsOf(contact(A, { externalId: 'crm-1' })))).toEqual(['externalId']);
    const other = await contact(A, { externalId: 'crm-2' });
    expect(Object.keys(await fieldsOf(h.service.contacts.update(A, other.id, { body: { externalId: 'crm-1' } })))).toEqual(['externalId']);
  });

  it('may repeat across kinds and workspaces, and many records may have none', async () => {
    await contact(A, { externalId: 'crm-1' });
    await contact(B, { externalId: 'crm-1' });
    await h.service.accounts.create(A, { body: { name: 'Acme', externalId: 'crm-1' } });
    await contact(A);
    await contact(A, { externalId: null });
    expect((await h.service.contacts.list(A, { externalId: 'crm-1' })).total).toBe(1);
  });

  it('is trimmed, refused blank or over 255 characters, and cleared by null', async () => {
    const created = await contact(A, { externalId: '  crm-3 ' });
    expect(created.externalId).toBe('crm-3');
    expect(Object.keys(await fieldsOf(contact(A, { externalId: ' ' })))).toEqual(['externalId']);
    expect(Object.keys(await fieldsOf(contact(A, { externalId: 'x'.repeat(256) })))).toEqual(['externalId']);
    expect((await h.service.contacts.update(A, created.id, { body: { externalId: null } })).externalId).toBeNull();
  });

  it('is not copied by conversion', async () => {
    const lead = await h.service.leads.create(A, {
      body: { firstName: 'Lea', email: 'lea@example.com', company: 'Acme', externalId: 'lead-1' },
    });
    const result = await h.service.leads.convert(A, lead.id, {
      body: { createAccount: true, createOpportunity: true, opportunityName: 'Deal' },
    });
    expect(result.lead.externalId).toBe('lead-1');
    expect(result.contact.externalId ?? null).toBeNull();
    expect(result.account?.externalId ?? null).toBeNull();
    expect(result.opportunity?.externalId ?? null).toBeNull();
  });

  it('makes an imported row whose externalId is taken, or repeats an earlier row, a row error', async () => {
    await contact(A, { externalId: 'crm-1' });
    const rows = [
      { row: 1, body: { firstName: 'One', email: 'one@example.com', externalId: 'crm-1' } },
      { row: 2, body: { firstName: 'Two', email: 'two@example.com', externalId: 'crm-2' } },
      { row: 3, body: { firstName: 'Three', email: 'three@example.com', externalId: 'crm-2' } },
    ];
    const result = await h.service.contactBatches.create(A, { idempotencyKey: 'job:0', rows });
    expect(result.created.map((c) => c.row)).toEqual([2]);
    expect(result.errors.map((e) => e.row)).toEqual([1, 3]);
    expect(result.errors[0]!.message).toMatch(/^externalId: /);
  });

  it('passes to the survivor of a merge when a merged record wins it', async () => {
    const survivor = await contact(A, { externalId: 'keep' });
    const merged = await contact(A, { externalId: 'taken-over' });
    const result = await h.service.merges.merge(A, 'contact', survivor.id, { mergeIds: [merged.id], winners: { externalId: merged.id } });
    expect((result.record as { externalId?: string }).externalId).toBe('taken-over');
  });
});
