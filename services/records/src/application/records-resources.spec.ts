import { DomainError } from '@crm/observability';
import { defaultIds } from '../domain/ids';
import { StaticUserDirectory } from '../adapters/user-directory';
import { contacts, notes, outbox, tasks } from '../store/collections';
import { callerIn, eventually, recordsHarness, type Harness } from '../testing/records-factory';

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

async function fieldsOf(promise: Promise<unknown>): Promise<Record<string, string[]>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError && error.fields) return error.fields;
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('records service', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await recordsHarness();
  });
  afterEach(() => h.close());

  const contact = (caller = A, body: Record<string, unknown> = {}) =>
    h.service.contacts.create(caller, { body: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', ...body } });

  describe('tenancy', () => {
    it("answers not found for another workspace's records everywhere", async () => {
      const c = await contact(A);
      const account = await h.service.accounts.create(A, { body: { name: 'Acme' } });
      const lead = await h.service.leads.create(A, { body: { firstName: 'L', email: 'l@x.io' } });
      expect(await kindOf(h.service.contacts.get(B, c.id))).toBe('not_found');
      expect(await kindOf(h.service.contacts.update(B, c.id, { body: { title: 'x' } }))).toBe('not_found');
      expect(await kindOf(h.service.contacts.delete(B, c.id))).toBe('not_found');
      expect(await kindOf(h.service.accounts.get(B, account.id))).toBe('not_found');
      expect(await kindOf(h.service.contacts.listOfAccount(B, account.id))).toBe('not_found');
      expect(await kindOf(h.service.leads.convert(B, lead.id, { body: {} }))).toBe('not_found');
      expect(await kindOf(h.service.anyRecords.get(B, 'lead', lead.id))).toBe('not_found');
      expect((await h.service.contacts.list(B, {})).total).toBe(0);
      expect(await h.service.contacts.get(A, c.id)).toMatchObject({ id: c.id });
    });

    it("refuses another workspace's account and contacts in a body with 422", async () => {
      const theirs = await h.service.accounts.create(B, { body: { name: 'Theirs' } });
      const theirContact = await contact(B);
      const fields = await fieldsOf(
        h.service.opportunities.create(A, { body: { name: 'Deal', accountId: theirs.id, contactIds: [theirContact.id] } }),
      );
      expect(Object.keys(fields).sort()).toEqual(['accountId', 'contactIds']);
      expect(await fieldsOf(contact(A, { accountId: theirs.id, assignedTo: 'usr_bob' }))).toMatchObject({
        accountId: [`Invalid pk "${theirs.id}" - object does not exist.`],
        assignedTo: ['Invalid pk "usr_bob" - object does not exist.'],
      });
    });
  });

  describe('lists', () => {
    it('pages newest first with a total, and orders on request', async () => {
      for (const name of ['Cy', 'Al', 'Bo']) await contact(A, { firstName: name, email: `${name}@x.io` });
      const page = await h.service.contacts.list(A, { limit: 2 });
      expect(page.total).toBe(3);
      expect(page.items.map((c) => c.firstName)).toEqual(['Bo', 'Al']);
      const byName = await h.service.contacts.list(A, { ordering: 'firstName' });
      expect(byName.items.map((c) => c.firstName)).toEqual(['Al', 'Bo', 'Cy']);
      expect(await kindOf(h.service.contacts.list(A, { ordering: 'password' }))).toBe('invalid_argument');
      expect(await kindOf(h.service.contacts.list(A, { stage: '{"$ne":"x"}' }))).toBe('invalid_argument');
      expect(await kindOf(h.service.contacts.list(A, { createdAfter: 'yesterday' }))).toBe('invalid_argument');
      expect(await kindOf(h.service.contacts.list(A, { limit: -1 }))).toBe('invalid_argument');
    });

    it('matches search literally, special characters included', async () => {
      await contact(A, { firstName: 'Percent', lastName: '100%_done', email: 'p@x.io' });
      await contact(A, { firstName: 'Plain', lastName: '100 done', email: 'q@x.io' });
      await contact(A, { firstName: 'Dot', lastName: 'a.*b', email: 'r@x.io' });
      expect((await h.service.contacts.list(A, { search: '100%_' })).items.map((c) => c.firstName)).toEqual(['Percent']);
      expect((await h.service.contacts.list(A, { search: '.*' })).items.map((c) => c.firstName)).toEqual(['Dot']);
      expect((await h.service.contacts.list(A, { search: 'ADA LOVE' })).total).toBe(0);
      expect((await h.service.contacts.list(A, { search: 'percent 100' })).total).toBe(1);
      expect((await h.service.contacts.list(A, { search: '{"$gt":""}' })).total).toBe(0);
    });

    it('filters an operator-looking value as a literal', async () => {
      await contact(A, { assignedTo: 'usr_ada' });
      expect((await h.service.contacts.list(A, { assignedTo: '{"$ne":null}' })).total).toBe(0);
      expect((await h.service.contacts.list(A, { assignedTo: 'usr_ada' })).total).toBe(1);
    });

    it('filters opportunities by value and close date, and accounts carry counts', async () => {
      const account = await h.service.accounts.create(A, { body: { name: 'Acme', website: 'https://acme.test' } });
      await contact(A, { accountId: account.id });
      await h.service.opportunities.create(A, { body: { name: 'Small', accountId: account.id, value: 10, closeDate: '2025-03-01' } });
      await h.service.opportunities.create(A, { body: { name: 'Big', accountId: account.id, value: 1000, closeDate: '2025-06-01' } });
      await h.service.opportunities.create(A, { body: { name: 'Won', accountId: account.id, value: 5, stage: 'closed_won' } });
      const big = await h.service.opportunities.list(A, { valueMin: '100', closeDateAfter: '2025-05-01' });
      expect(big.items.map((o) => o.name)).toEqual(['Big']);
      expect(big.items[0]!.accountName).toBe('Acme');
      const [listed] = (await h.service.accounts.list(A, { search: 'acme.TEST' })).items;
      expect(listed).toMatchObject({ contactCount: 1, openOpportunityCount: 2, openCaseCount: 0 });
    });
  });

  describe('read models', () => {
    it('fills the owner name and leaves it empty when auth cannot be asked', async () => {
      const c = await contact(A, { assignedTo: 'usr_ada' });
      expect((await h.service.contacts.get(A, c.id)).assignedToName).toBe('Ada Lovelace');
      const offline = await recordsHarness({ store: h.store, users: new StaticUserDirectory(null) });
      try {
        expect((await offline.service.contacts.get(A, c.id)).assignedToName).toBe('');
      } finally {
        await offline.close();
      }
    });
  });

  describe('owners', () => {
    it('never accepts an owner unchecked: while auth cannot answer, a write naming one is refused as unavailable and saves nothing', async () => {
      const offline = await recordsHarness({ store: h.store, users: new StaticUserDirectory(null) });
      try {
        const before = (await offline.service.contacts.list(A, {})).total;
        await expect(
          offline.service.contacts.create(A, { body: { firstName: 'Eve', email: 'eve@x.io', assignedTo: 'usr_other_ws' } }),
        ).rejects.toMatchObject({
          kind: 'unavailable',
        });
        expect((await offline.service.contacts.list(A, {})).total).toBe(before);
        // A write that names no user does not need auth.
        await expect(offline.service.contacts.create(A, { body: { firstName: 'Eve', email: 'eve2@x.io' } })).resolves.toBeDefined();
      } finally {
        await offline.close();
      }
    }, 15_000);
  });

  describe('lead conversion', () => {
    const newLead = () =>
      h.service.leads.create(A, { body: { firstName: 'Lin', email: 'lin@x.io', company: 'Hoco', assignedTo: 'usr_ada' } });

    it('converts with an account and an opportunity', async () => {
      const lead = await newLead();
      const result = await h.service.leads.convert(A, lead.id, {
        body: { createAccount: true, createOpportunity: true, opportunityStage: 'proposal' },
      });
      expect(result.lead).toMatchObject({ status: 'converted', convertedContactId: result.contact.id });
      expect(result.account).toMatchObject({ name: 'Hoco', contactCount: 1, openOpportunityCount: 1 });
      expect(result.opportunity).toMatchObject({ name: 'Hoco opportunity', stage: 'proposal', probability: 60, accountName: 'Hoco' });
      expect(result.contact).toMatchObject({ accountName: 'Hoco', assignedToName: 'Ada Lovelace' });
      expect(await kindOf(h.service.leads.convert(A, lead.id, { body: {} }))).toBe('invalid_argument');
    });

    it('converts with only a contact: account and opportunity null', async () => {
      const result = await h.service.leads.convert(A, (await newLead()).id, { body: {} });
      expect(result.account).toBeNull();
      expect(result.opportunity).toBeNull();
    });

    it('lets exactly one of two concurrent conversions succeed', async () => {
      const lead = await newLead();
      const outcomes = await Promise.all([
        kindOf(h.service.leads.convert(A, lead.id, { body: { createAccount: true } })),
        kindOf(h.service.leads.convert(A, lead.id, { body: { createAccount: true } })),
      ]);
      expect(outcomes.sort()).toEqual(['invalid_argument', 'ok']);
      expect((await h.service.contacts.list(A, {})).total).toBe(1);
      expect((await h.service.accounts.list(A, {})).total).toBe(1);
    });

    it('changes nothing when a part of the conversion fails', async () => {
      const lead = await newLead();
      const existing = await contact(A, { email: 'other@x.io' });
      // The planned contact reuses an existing id, so its insert fails inside the commit.
      const broken = await recordsHarness({
        store: h.store,
        ids: (prefix) => (prefix === 'cnt_' ? existing.id : defaultIds(prefix)),
      });
      try {
        await expect(
          broken.service.leads.convert(A, lead.id, { body: { createAccount: true, createOpportunity: true } }),
        ).rejects.toThrow();
      } finally {
        await broken.close();
      }
      expect((await h.service.leads.get(A, lead.id)).status).toBe('new');
      expect((await h.service.accounts.list(A, {})).total).toBe(0);
      expect((await h.service.opportunities.list(A, {})).total).toBe(0);
      expect((await h.service.related.listActivities(A, lead.id)).items.map((a) => a.action)).toEqual(['created']);
    });

    it("carries the lead's custom values to the new records' fields of the same key and type, unique values claimed", async () => {
      const define = (kind: string, key: string, type: string, extra: Record<string, unknown> = {}) =>
        h.service.customFieldDefinitions.create(A, { body: { kind, key, label: key, type, ...extra } });
      await define('lead', 'code', 'text');
      await define('lead', 'seats', 'integer');
      await define('contact', 'code', 'text', { unique: true });
      await define('account', 'seats', 'integer');
      const lead = await h.service.leads.create(A, {
        body: { firstName: 'Lin', email: 'lin@x.io', company: 'Hoco', customFields: { code: 'Q-7', seats: 12 } },
      });
      const result = await h.service.leads.convert(A, lead.id, { body: { createAccount: true } });
      expect(result.contact.customFields).toEqual({ code: 'Q-7' });
      expect(result.account?.customFields).toEqual({ seats: 12 });
      expect((await h.service.contacts.list(A, { search: 'q-7' })).items.map((c) => c.id)).toEqual([result.contact.id]);
      const history = await h.service.auditLog.history(A, 'contact', result.contact.id, {});
      expect(history.items[0]!.changes['customFields.code']).toEqual({ from: null, to: 'Q-7' });

      // A second lead with the same code: the contact's unique field refuses it, and nothing is written.
      const twin = await h.service.leads.create(A, {
        body: { firstName: 'Kim', email: 'kim@x.io', company: 'Kico', customFields: { code: 'Q-7' } },
      });
      expect(await fieldsOf(h.service.leads.convert(A, twin.id, { body: { createAccount: true } }))).toEqual({
        'customFields.code': ['Another record of this kind in the workspace has this value.'],
      });
      expect((await h.service.leads.get(A, twin.id)).status).toBe('new');
      expect((await h.service.accounts.list(A, {})).total).toBe(1);
    });

    it('refuses a conversion that would leave a required field of the new contact empty', async () => {
      await h.service.customFieldDefinitions.create(A, {
        body: { kind: 'contact', key: 'region', label: 'Region', type: 'text', required: true },
      });
      const lead = await newLead();
      expect(Object.keys(await fieldsOf(h.service.leads.convert(A, lead.id, { body: {} })))).toEqual(['customFields.region']);
      await h.service.customFieldDefinitions.create(A, { body: { kind: 'lead', key: 'region', label: 'Region', type: 'text' } });
      await h.service.leads.update(A, lead.id, { body: { customFields: { region: 'EMEA' } } });
      expect((await h.service.leads.convert(A, lead.id, { body: {} })).contact.customFields).toEqual({ region: 'EMEA' });
    });

    it('refuses status converted on PATCH', async () => {
      const lead = await newLead();
      expect(Object.keys(await fieldsOf(h.service.leads.update(A, lead.id, { body: { status: 'converted' } })))).toEqual(['status']);
    });
  });

  describe('deletes', () => {
    it('removes a contact with its notes and tasks but keeps its activities', async () => {
      const c = await contact(A);
      await h.service.related.createTask(A, { name: 'Call', relatedTo: c.id });
      await h.store
        .forWorkspace('ws_a')
        .insert(notes, { id: 'nte_1', workspaceId: 'ws_a', relatedTo: c.id, body: 'hi', createdAt: c.createdAt });
      await h.service.contacts.delete(A, c.id);
      const ws = h.store.forWorkspace('ws_a');
      expect(await ws.count(contacts)).toBe(0);
      expect(await ws.count(notes)).toBe(0);
      expect(await ws.count(tasks)).toBe(0);
      expect((await h.service.related.listActivities(A, c.id)).items.map((a) => a.action)).toEqual(['deleted', 'created']);
    });

    it("unlinks an account's contacts and opportunities", async () => {
      const account = await h.service.accounts.create(A, { body: { name: 'Acme' } });
      const c = await contact(A, { accountId: account.id });
      const opp = await h.service.opportunities.create(A, { body: { name: 'Deal', accountId: account.id, contactIds: [c.id] } });
      await h.service.accounts.delete(A, account.id);
      expect(await h.service.contacts.get(A, c.id)).toMatchObject({ accountId: null, accountName: '' });
      expect(await h.service.opportunities.get(A, opp.id)).toMatchObject({ accountId: null, contactIds: [c.id] });
    });
  });

  describe('activities', () => {
    it('logs every write with its actor', async () => {
      const apiKey = callerIn('ws_a', { id: 'usr_system', type: 'api_key' });
      const account = await h.service.accounts.create(apiKey, { body: { name: 'Acme' } });
      await h.service.accounts.update(A, account.id, { body: { stage: 'active' } });
      const log = (await h.service.related.listActivities(A, account.id)).items;
      expect(log.map((a) => [a.action, a.actorId, a.actorType])).toEqual([
        ['updated', 'usr_ada', 'user'],
        ['created', 'usr_system', 'api_key'],
      ]);
      expect(log[0]).toMatchObject({ recordType: 'account', recordId: account.id });
    });
  });

  describe('outbox', () => {
    it('writes the event in the commit and the relay publishes it once', async () => {
      const lead = await h.service.leads.create(A, { body: { firstName: 'L', email: 'l@x.io' } });
      await h.service.leads.update(A, lead.id, { body: { status: 'qualified' } });
      await eventually(() => h.published.length === 3);
      await h.relay.sweep();
      expect(h.published.map((m) => m.type)).toEqual([
        'records.lead_created.v1',
        'records.lead_status_changed.v1',
        'records.record_updated.v1',
      ]);
      expect(h.published[1]!.payload).toMatchObject({
        workspaceId: 'ws_a',
        previousStatus: 'new',
        status: 'qualified',
        record: { id: lead.id },
      });
      expect(h.published[2]!.payload).toMatchObject({
        workspaceId: 'ws_a',
        recordType: 'lead',
        recordId: lead.id,
        record: { status: 'qualified' },
      });
      expect(new Set(h.published.map((m) => m.id)).size).toBe(3);
      expect(await h.store.forWorkspace('ws_a').find(outbox, {})).toEqual([]);
    });

    it('publishes each stored event under its outbox id, then deletes it', async () => {
      const manual = await recordsHarness({ relay: 'manual' });
      try {
        await manual.service.contacts.create(A, { body: { firstName: 'C', email: 'c@x.io' } });
        const stored = await manual.store.forWorkspace('ws_a').find(outbox, {});
        expect(stored.map((e) => e.status)).toEqual(['pending']);
        await manual.relay.sweep();
        await eventually(() => manual.published.length === 1);
        expect(manual.published[0]!.id).toBe(stored[0]!.id);
        expect(await manual.store.forWorkspace('ws_a').find(outbox, {})).toEqual([]);
        await manual.relay.sweep();
        expect(manual.published).toHaveLength(1);
      } finally {
        await manual.close();
      }
    });

    it('emits creation, stage and proposal events for accounts and opportunities', async () => {
      const account = await h.service.accounts.create(A, { body: { name: 'Acme' } });
      const opp = await h.service.opportunities.create(A, { body: { name: 'Deal', accountId: account.id } });
      await h.service.opportunities.update(A, opp.id, { body: { stage: 'proposal' } });
      await h.service.opportunities.update(A, opp.id, { body: { stage: 'closed_won' } });
      await eventually(() => h.published.length === 8);
      expect(h.published.map((m) => [m.type, (m.payload as { record: { stage: string } }).record.stage])).toEqual([
        ['records.account_created.v1', 'prospect'],
        ['records.opportunity_created.v1', 'prospecting'],
        ['records.opportunity_stage_changed.v1', 'proposal'],
        ['records.proposal_status_changed.v1', 'proposal'],
        ['records.record_updated.v1', 'proposal'],
        ['records.opportunity_stage_changed.v1', 'closed_won'],
        ['records.proposal_status_changed.v1', 'closed_won'],
        ['records.record_updated.v1', 'closed_won'],
      ]);
    });

    it('emits a deleted event carrying the record as it was', async () => {
      const lead = await h.service.leads.create(A, { body: { firstName: 'Ada', lastName: 'L', email: 'gone@x.io' } });
      await h.service.leads.delete(A, lead.id);
      await eventually(() => h.published.some((m) => m.type === 'records.record_deleted.v1'));
      const deleted = h.published.find((m) => m.type === 'records.record_deleted.v1')!;
      expect(deleted.payload).toMatchObject({ workspaceId: 'ws_a', recordType: 'lead', recordId: lead.id, record: { email: 'gone@x.io' } });
    });

    it('publishes after a restart what an earlier process left pending', async () => {
      const crashed = await recordsHarness({ relay: 'manual' });
      await crashed.service.contacts.create(A, { body: { firstName: 'Ada', email: 'a@x.io' } });
      expect(crashed.published).toHaveLength(0);
      expect(await crashed.store.forWorkspace('ws_a').count(outbox, [{ field: 'status', op: 'eq', value: 'pending' }])).toBe(1);
      const restarted = await recordsHarness({ store: crashed.store });
      try {
        await restarted.relay.start();
        await eventually(() => restarted.published.length === 1);
        expect(restarted.published[0]!.type).toBe('records.contact_created.v1');
      } finally {
        await restarted.close();
        await crashed.close();
      }
    });
  });

  describe('batch create', () => {
    it('creates once per key and reports duplicates by email', async () => {
      const existing = await contact(A, { email: 'Dup@Example.com' });
      const rows = [
        { row: 1, body: { firstName: 'One', email: 'one@x.io' } },
        { row: 2, body: { firstName: 'Two', email: 'dup@example.com' } },
        { row: 3, body: { firstName: 'Three', email: 'ONE@x.io' } },
        { row: 4, body: { firstName: 'Four', email: 'nope' } },
      ];
      const first = await h.service.contactBatches.create(A, { idempotencyKey: 'job-1:0', rows, importJobId: 'job-1' });
      expect(first.created.map((c) => c.row)).toEqual([1]);
      expect(first.duplicates).toEqual([
        { row: 2, email: 'dup@example.com', existingContactId: existing.id, sameImport: false },
        { row: 3, email: 'ONE@x.io', existingContactId: '', sameImport: true },
      ]);
      expect(first.errors).toEqual([{ row: 4, message: 'email: Enter a valid email address.' }]);
      const again = await h.service.contactBatches.create(A, { idempotencyKey: 'job-1:0', rows, importJobId: 'job-1' });
      expect(again).toEqual({ ...first, replayed: true });
      expect((await h.service.contacts.list(A, {})).total).toBe(2);
      const next = await h.service.contactBatches.create(A, {
        idempotencyKey: 'job-1:1',
        rows: [{ row: 5, body: { firstName: 'F', email: 'one@x.io' } }],
        importJobId: 'job-1',
      });
      expect(next.duplicates).toEqual([{ row: 5, email: 'one@x.io', existingContactId: first.created[0]!.contactId, sameImport: true }]);
    });

    it('answers a dry run as the batch would be, without writing it or keeping the answer under its key', async () => {
      const existing = await contact(A, { email: 'Dup@Example.com' });
      const rows = [
        { row: 1, body: { firstName: 'One', email: 'one@x.io' } },
        { row: 2, body: { firstName: 'Two', email: 'dup@example.com' } },
        { row: 3, body: { firstName: 'Three', email: 'nope' } },
      ];
      const dry = await h.service.contactBatches.create(A, { idempotencyKey: 'dry', rows, dryRun: true });
      expect(dry).toEqual({
        created: [{ row: 1, contactId: '' }],
        duplicates: [{ row: 2, email: 'dup@example.com', existingContactId: existing.id, sameImport: false }],
        errors: [{ row: 3, message: 'email: Enter a valid email address.' }],
        replayed: false,
      });
      expect((await h.service.contacts.list(A, {})).total).toBe(1);
      await expect(h.service.contactBatches.get(A, 'dry')).rejects.toMatchObject({ kind: 'not_found' });
      const real = await h.service.contactBatches.create(A, { idempotencyKey: 'dry', rows });
      expect(real.replayed).toBe(false);
      expect(real.created).toEqual([{ row: 1, contactId: expect.stringMatching(/^cnt_/) }]);
    });

    it('answers what a batch created by its key, in its workspace only, and not_found for a key never committed', async () => {
      const rows = [{ row: 7, body: { firstName: 'Seven', email: 'seven@x.io' } }];
      const created = await h.service.contactBatches.create(A, { idempotencyKey: 'job-9:0', rows });
      const { replayed: _replayed, ...stored } = created;
      expect(await h.service.contactBatches.get(A, 'job-9:0')).toEqual(stored);
      await expect(h.service.contactBatches.get(B, 'job-9:0')).rejects.toMatchObject({ kind: 'not_found' });
      await expect(h.service.contactBatches.get(A, 'job-9:1')).rejects.toMatchObject({ kind: 'not_found' });
      await expect(h.service.contactBatches.get(A, '')).rejects.toMatchObject({ kind: 'invalid_argument' });
    });

    it('publishes one contacts_created event per batch, listing the contacts it created', async () => {
      const rows = [
        { row: 1, body: { firstName: 'One', email: 'one@x.io' } },
        { row: 2, body: { firstName: 'Two', email: 'two@x.io' } },
        { row: 3, body: { firstName: 'Bad', email: 'nope' } },
      ];
      const result = await h.service.contactBatches.create(A, { idempotencyKey: 'events', rows });
      await eventually(() => h.published.length === 1);
      await h.relay.sweep();
      expect(h.published).toHaveLength(1);
      expect(h.published[0]!.type).toBe('records.contacts_created.v1');
      const payload = h.published[0]!.payload as { workspaceId: string; events: { recordId: string; record: { email: string } }[] };
      expect(payload.workspaceId).toBe('ws_a');
      expect(payload.events.map((e) => e.recordId)).toEqual(result.created.map((c) => c.contactId));
      expect(payload.events.map((e) => e.record.email)).toEqual(['one@x.io', 'two@x.io']);
    });

    it('creates nothing twice when the same batch runs concurrently', async () => {
      const rows = [{ row: 1, body: { firstName: 'One', email: 'one@x.io' } }];
      const [a, b] = await Promise.all([
        h.service.contactBatches.create(A, { idempotencyKey: 'k', rows }),
        h.service.contactBatches.create(A, { idempotencyKey: 'k', rows }),
      ]);
      expect(a.created).toEqual(b.created);
      expect(await h.store.forWorkspace('ws_a').count(contacts)).toBe(1);
      // One audit entry for it, not one per run (an imported contact has no activity of its own).
      expect((await h.service.auditLog.history(A, 'contact', a.created[0]!.contactId, {})).items).toHaveLength(1);
    });

    it('creates each email once when two imports of overlapping files race', async () => {
      const emails = Array.from({ length: 60 }, (_, n) => `person${n}@x.io`);
      // File 1 has people 0-39, file 2 people 20-59 (upper-cased): 20 addresses in both.
      const file1 = emails.slice(0, 40).map((email, i) => ({ row: i + 1, body: { firstName: 'One', email } }));
      const file2 = emails.slice(20).map((email, i) => ({ row: i + 1, body: { firstName: 'Two', email: email.toUpperCase() } }));
      const chunks = (rows: typeof file1, job: string) =>
        [0, 1, 2, 3].map((c) => ({ idempotencyKey: `${job}:${c}`, rows: rows.slice(c * 10, c * 10 + 10), importJobId: job }));
      // Every chunk of both imports at once, as the chunk workers of two jobs would run them.
      const batches = [...chunks(file1, 'job-1'), ...chunks(file2, 'job-2')];
      const results = await Promise.all(batches.map((batch) => h.service.contactBatches.create(A, batch)));

      const stored = await h.store.forWorkspace('ws_a').find(contacts, {});
      expect(stored).toHaveLength(60);
      expect(new Set(stored.map((c) => c.emailKey)).size).toBe(60);
      const created = results.flatMap((r) => r.created);
      const duplicates = results.flatMap((r) => r.duplicates);
      expect(created).toHaveLength(60);
      expect(duplicates).toHaveLength(20);
      const idByEmail = new Map(stored.map((c) => [c.emailKey, c.id]));
      for (const d of duplicates) expect(d.existingContactId).toBe(idByEmail.get(d.email.toLowerCase()));
      expect(results.flatMap((r) => r.errors)).toEqual([]);
    });

    it("frees an imported contact's address for the next import once it is changed or deleted, and lets API creates share it", async () => {
      const rows = (email: string) => [{ row: 1, body: { firstName: 'I', email } }];
      const first = await h.service.contactBatches.create(A, { idempotencyKey: 'a', rows: rows('moved@x.io'), importJobId: 'j1' });
      const second = await h.service.contactBatches.create(A, { idempotencyKey: 'b', rows: rows('gone@x.io'), importJobId: 'j1' });
      // Contacts made through the API may share an email with an imported one, as before.
      await contact(A, { email: 'MOVED@x.io' });
      await h.service.contacts.update(A, first.created[0]!.contactId, { body: { email: 'elsewhere@x.io' } });
      await h.service.contacts.delete(A, second.created[0]!.contactId);
      // The API-made contact now holds moved@ (a duplicate); gone@ is free again.
      const again = await h.service.contactBatches.create(A, {
        idempotencyKey: 'c',
        rows: [...rows('gone@x.io'), { row: 2, body: { firstName: 'I', email: 'moved@x.io' } }],
        importJobId: 'j2',
      });
      expect(again.created.map((c) => c.row)).toEqual([1]);
      expect(again.duplicates.map((d) => d.row)).toEqual([2]);
      // Once no contact has it, moved@ can be imported again although the first contact held it.
      const apiMade = (
        await h.store.forWorkspace('ws_a').find(contacts, { where: [{ field: 'emailKey', op: 'eq', value: 'moved@x.io' }] })
      )[0]!;
      await h.service.contacts.delete(A, apiMade.id);
      const last = await h.service.contactBatches.create(A, { idempotencyKey: 'd', rows: rows('moved@x.io'), importJobId: 'j3' });
      expect(last.created).toHaveLength(1);
      const moved = await h.store.forWorkspace('ws_a').get(contacts, first.created[0]!.contactId);
      expect(moved).toMatchObject({ emailKey: 'elsewhere@x.io', importEmailKey: null });
    });

    it('stamps the source name and refuses an unknown source', async () => {
      const source = await h.service.related.createSource(A, 'Trade fair');
      const result = await h.service.contactBatches.create(A, {
        idempotencyKey: 's',
        sourceUid: source.id,
        rows: [{ row: 1, body: { firstName: 'S', email: 's@x.io' } }],
      });
      expect((await h.service.contacts.get(A, result.created[0]!.contactId)).source).toBe('Trade fair');
      expect(await kindOf(h.service.contactBatches.create(B, { idempotencyKey: 's2', sourceUid: source.id, rows: [] }))).toBe('not_found');
    });
  });
});
