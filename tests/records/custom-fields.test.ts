/**
 * Custom fields through the gateway (contract-decisions "Round 3", custom fields): the settings
 * endpoints and their refusals, values on every kind (create, partial PATCH, clearing, required,
 * unique, types), filters, `?customFields.<key>=`, ordering and search on custom fields, deletion,
 * options in use, the 100-field limit, admins only, and tenancy.
 */
import { CLUSTER_RETRY_MS, type TestCluster } from '../support/cluster';
import {
  allPages,
  memberOf,
  createAccount,
  createContact,
  createLead,
  createOpportunity,
  startRecordsCluster,
  unique,
  workspace,
  type Workspace,
} from './records-fixtures';

let t: TestCluster;
let mine: Workspace;
let theirs: Workspace;

beforeAll(async () => {
  t = await startRecordsCluster();
  [mine, theirs] = await Promise.all([workspace(t), workspace(t)]);
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

async function define(w: Workspace, body: Record<string, unknown>): Promise<any> {
  const response = await w.api.post('/api/settings/custom-fields/', { label: String(body.key), ...body });
  if (response.status !== 201) throw new Error(`define ${String(body.key)}: ${response.status} ${response.text}`);
  return response.body;
}

const KINDS = [
  { kind: 'contact', path: 'contacts' },
  { kind: 'lead', path: 'leads' },
  { kind: 'account', path: 'accounts' },
  { kind: 'opportunity', path: 'opportunities' },
] as const;

async function createOf(w: Workspace, kind: string, body: Record<string, unknown>): Promise<any> {
  switch (kind) {
    case 'contact':
      return createContact(w, body);
    case 'lead':
      return createLead(w, body);
    case 'account':
      return createAccount(w, body);
    default: {
      const account = await createAccount(w);
      return createOpportunity(w, account.id, body);
    }
  }
}

describe('the settings endpoints', () => {
  it('create, read, list, change and delete a definition in the contract’s shape', async () => {
    const created = await mine.api.post('/api/settings/custom-fields/', {
      kind: 'lead',
      key: 'budgetBand',
      label: 'Budget band',
      type: 'select',
      options: ['small', 'large'],
      description: 'Rough size',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^fld_/),
      kind: 'lead',
      key: 'budgetBand',
      label: 'Budget band',
      type: 'select',
      options: ['small', 'large'],
      required: false,
      unique: false,
      description: 'Rough size',
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    const id = created.body.id;
    expect((await mine.api.get(`/api/settings/custom-fields/${id}/`)).body).toEqual(created.body);
    const list = await mine.api.get('/api/settings/custom-fields/?kind=lead');
    expect(list.status).toBe(200);
    expect(list.body.results.map((f: any) => f.id)).toContain(id);
    expect(list.body.count).toBe(list.body.results.length);

    const patched = await mine.api.patch(`/api/settings/custom-fields/${id}/`, { label: 'Budget', options: ['small', 'large', 'huge'] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ label: 'Budget', options: ['small', 'large', 'huge'] });

    const fixed = await mine.api.patch(`/api/settings/custom-fields/${id}/`, { type: 'text', key: 'other', kind: 'contact' });
    expect(fixed.status).toBe(422);
    expect(Object.keys(fixed.body).sort()).toEqual(['key', 'kind', 'type']);

    expect((await mine.api.delete(`/api/settings/custom-fields/${id}/`)).status).toBe(204);
    expect((await mine.api.get(`/api/settings/custom-fields/${id}/`)).status).toBe(404);
  });

  it('refuses bad definitions with 422 on the failing field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'contact', key: 'Bad-Key', label: 'x', type: 'text' }, 'key'],
      [{ kind: 'contact', key: 'email', label: 'x', type: 'text' }, 'key'],
      [{ kind: 'contact', key: 'customFields', label: 'x', type: 'text' }, 'key'],
      [{ kind: 'contact', key: 'ok1', label: 'x', type: 'colour' }, 'type'],
      [{ kind: 'case', key: 'ok2', label: 'x', type: 'text' }, 'kind'],
      [{ kind: 'contact', key: 'ok3', label: 'x', type: 'select' }, 'options'],
      [{ kind: 'contact', key: 'ok4', label: 'x', type: 'select', options: ['a', 'a'] }, 'options'],
      [{ kind: 'contact', key: 'ok5', label: 'x', type: 'text', options: ['a'] }, 'options'],
      [{ kind: 'contact', key: 'ok6', label: 'x', type: 'boolean', unique: true }, 'unique'],
      [{ kind: 'contact', key: 'ok7', type: 'text' }, 'label'],
    ];
    for (const [body, field] of cases) {
      const response = await mine.api.post('/api/settings/custom-fields/', body);
      expect({ body, status: response.status, fields: Object.keys(response.body) }).toEqual({ body, status: 422, fields: [field] });
    }
    await define(mine, { kind: 'account', key: 'twice', type: 'text' });
    const again = await mine.api.post('/api/settings/custom-fields/', { kind: 'account', key: 'twice', label: 'x', type: 'number' });
    expect(again.status).toBe(422);
    expect(again.body.key).toBeDefined();
  });

  it('allows at most 100 fields per kind: the 101st is 422 on key', async () => {
    const w = await workspace(t);
    for (let i = 0; i < 100; i += 1) await define(w, { kind: 'opportunity', key: `f${i}`, type: 'text' });
    const extra = await w.api.post('/api/settings/custom-fields/', { kind: 'opportunity', key: 'f100', label: 'x', type: 'text' });
    expect(extra.status).toBe(422);
    expect(extra.body.key[0]).toMatch(/100/);
    // Another kind still has room.
    await define(w, { kind: 'lead', key: 'f100', type: 'text' });
    // Every record answer carries the 100 keys.
    const account = await createAccount(w);
    const deal = await createOpportunity(w, account.id);
    expect(Object.keys(deal.customFields)).toHaveLength(100);
  }, 120_000);

  it('is for admins to change: a member reads but cannot create, change or delete', async () => {
    const field = await define(mine, { kind: 'contact', key: 'memberCheck', type: 'text' });
    const as = await memberOf(t, mine);
    expect((await t.api.get('/api/settings/custom-fields/', as)).status).toBe(200);
    expect((await t.api.post('/api/settings/custom-fields/', { kind: 'contact', key: 'nope', label: 'x', type: 'text' }, as)).status).toBe(
      403,
    );
    expect((await t.api.patch(`/api/settings/custom-fields/${field.id}/`, { label: 'y' }, as)).status).toBe(403);
    expect((await t.api.delete(`/api/settings/custom-fields/${field.id}/`, as)).status).toBe(403);
  });
});

describe('values on records', () => {
  let w: Workspace;
  beforeAll(async () => {
    w = await workspace(t);
    for (const { kind } of KINDS) {
      await define(w, { kind, key: 'code', type: 'text', unique: true });
      await define(w, { kind, key: 'score', type: 'integer' });
      await define(w, { kind, key: 'ratio', type: 'number' });
      await define(w, { kind, key: 'active', type: 'boolean' });
      await define(w, { kind, key: 'renewal', type: 'date' });
      await define(w, { kind, key: 'seenAt', type: 'datetime' });
      await define(w, { kind, key: 'tier', type: 'select', options: ['gold', 'silver'] });
      await define(w, { kind, key: 'regions', type: 'multiselect', options: ['emea', 'apac', 'amer'] });
      await define(w, { kind, key: 'site', type: 'url' });
      await define(w, { kind, key: 'billing', type: 'email' });
    }
  }, 120_000);

  it.each(KINDS)('$path: every type is written, answered, partially changed and cleared', async ({ kind, path }) => {
    const values = {
      code: `C-${unique()}`,
      score: 7,
      ratio: 0.5,
      active: true,
      renewal: '2027-01-31',
      seenAt: '2026-11-28T10:00:00+01:00',
      tier: 'gold',
      regions: ['emea', 'apac'],
      site: 'https://example.com/x',
      billing: 'Billing@Example.com',
    };
    const record = await createOf(w, kind, { customFields: values });
    expect(record.customFields).toEqual({ ...values, seenAt: '2026-11-28T09:00:00Z' });
    const read = await w.api.get(`/api/${path}/${record.id}/`);
    expect(read.body.customFields).toEqual(record.customFields);
    const listed = await w.api.get(`/api/${path}/?customFields.code=${values.code}`);
    expect(listed.status).toBe(200);
    expect(listed.body.results.map((r: any) => r.id)).toEqual([record.id]);
    expect(listed.body.results[0].customFields).toEqual(record.customFields);

    const patched = await w.api.patch(`/api/${path}/${record.id}/`, { customFields: { score: 8, tier: null } });
    expect(patched.status).toBe(200);
    expect(patched.body.customFields).toEqual({ ...record.customFields, score: 8, tier: null });
  });

  it('carries a lead’s values to the contact, account and opportunity its conversion makes; a clash on a unique field refuses it', async () => {
    const values = { code: `L-${unique()}`, score: 3, tier: 'silver', regions: ['amer'] };
    const lead = await createLead(w, { customFields: values });
    const converted = await w.api.post(`/api/leads/${lead.id}/convert/`, { createAccount: true, createOpportunity: true });
    expect(converted.status).toBe(200);
    for (const [part, path] of [
      ['contact', 'contacts'],
      ['account', 'accounts'],
      ['opportunity', 'opportunities'],
    ]) {
      const made = await w.api.get(`/api/${path}/${converted.body[part!].id}/`);
      expect(made.body.customFields).toMatchObject(values);
    }
    // The lead's code is free among leads, but a contact holds it already.
    const taken = `T-${unique()}`;
    await createContact(w, { customFields: { code: taken } });
    const twin = await createLead(w, { customFields: { code: taken } });
    const refused = await w.api.post(`/api/leads/${twin.id}/convert/`, {});
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body)).toEqual(['customFields.code']);
    expect((await w.api.get(`/api/leads/${twin.id}/`)).body.status).toBe('new');
  });

  it('refuses unknown keys, wrong types, values outside the options, with 422 keyed customFields.<key>, and writes nothing', async () => {
    const response = await w.api.post('/api/contacts/', {
      firstName: 'Refused',
      email: `refused-${unique()}@example.com`,
      customFields: {
        nope: 1,
        score: 1.5,
        ratio: 'x',
        active: 'yes',
        renewal: '31/01/2027',
        tier: 'bronze',
        regions: ['mars'],
        site: 'ftp://x',
        billing: 'not-an-email',
      },
    });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body).sort()).toEqual(
      ['nope', 'score', 'ratio', 'active', 'renewal', 'tier', 'regions', 'site', 'billing'].map((k) => `customFields.${k}`).sort(),
    );
    const notObject = await w.api.post('/api/contacts/', {
      firstName: 'Refused',
      email: `refused-${unique()}@example.com`,
      customFields: [1],
    });
    expect(notObject.status).toBe(422);
    expect(notObject.body.customFields).toBeDefined();
    // A word hex cannot spell: the workspace's other contacts have random hex in their emails and codes.
    const search = await w.api.get('/api/contacts/?search=Refused');
    expect(search.body.count).toBe(0);
  });

  it('keeps a unique field unique per kind and workspace, one winner among racing creates, and frees a value when it goes', async () => {
    const code = `U-${unique()}`;
    const first = await createContact(w, { customFields: { code } });
    const clash = await w.api.post('/api/contacts/', { firstName: 'Two', email: `two-${unique()}@example.com`, customFields: { code } });
    expect(clash.status).toBe(422);
    expect(Object.keys(clash.body)).toEqual(['customFields.code']);
    // Another kind may hold the same value; so may another workspace (without such a field it is unknown there).
    await createLead(w, { customFields: { code } });
    // Racing creates of one value: exactly one wins.
    const racing = `R-${unique()}`;
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() =>
        w.api.post('/api/contacts/', { firstName: 'Race', email: `race-${unique()}@example.com`, customFields: { code: racing } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 422, 422, 422]);
    // The value is free again once its holder changes it or goes.
    expect((await w.api.patch(`/api/contacts/${first.id}/`, { customFields: { code: null } })).status).toBe(200);
    expect(
      (await w.api.post('/api/contacts/', { firstName: 'Three', email: `three-${unique()}@example.com`, customFields: { code } })).status,
    ).toBe(201);
    const winner = answers.find((a) => a.status === 201)!.body;
    expect((await w.api.delete(`/api/contacts/${winner.id}/`)).status).toBe(204);
    expect(
      (await w.api.post('/api/contacts/', { firstName: 'Four', email: `four-${unique()}@example.com`, customFields: { code: racing } }))
        .status,
    ).toBe(201);
  });

  it('keeps a unique value held through a merge: the survivor takes a merged record’s value and holds it', async () => {
    const code = `M-${unique()}`;
    const survivor = await createContact(w);
    const merged = await createContact(w, { customFields: { code } });
    const answer = await w.api.post(`/api/contacts/${survivor.id}/merge/`, { mergeIds: [merged.id] });
    expect(answer.status).toBe(200);
    expect(answer.body.customFields.code).toBe(code);
    const clash = await w.api.post('/api/contacts/', {
      firstName: 'After',
      email: `after-${unique()}@example.com`,
      customFields: { code },
    });
    expect(clash.status).toBe(422);
    expect(Object.keys(clash.body)).toEqual(['customFields.code']);
    // The survivor lets it go like any holder.
    expect((await w.api.patch(`/api/contacts/${survivor.id}/`, { customFields: { code: null } })).status).toBe(200);
    expect((await createContact(w, { customFields: { code } })).customFields.code).toBe(code);
  });

  it('lets a batch upsert match on a unique custom field', async () => {
    const code = `B-${unique()}`;
    const batch = (extra: Record<string, unknown>) =>
      w.api.post('/api/contacts/batch/', {
        operation: 'upsert',
        matchOn: 'customFields.code',
        records: [{ firstName: 'Batch', email: `batch-${unique()}@example.com`, customFields: { code, ...extra } }],
      });
    const first = await batch({});
    expect(first.status).toBe(200);
    expect(first.body.results[0]).toMatchObject({ status: 'created' });
    const second = await batch({ score: 3 });
    expect(second.body.results[0]).toMatchObject({ status: 'updated', id: first.body.results[0].id });
    expect((await w.api.get(`/api/contacts/${first.body.results[0].id}/`)).body.customFields).toMatchObject({ code, score: 3 });
    const notUnique = await w.api.post('/api/contacts/batch/', { operation: 'upsert', matchOn: 'customFields.score', records: [{}] });
    expect(notUnique.status).toBe(422);
    expect(Object.keys(notUnique.body)).toEqual(['matchOn']);
  });

  it('requires a required field on create (not on records made before it), and refuses clearing it', async () => {
    const w2 = await workspace(t);
    const before = await createAccount(w2);
    await define(w2, { kind: 'account', key: 'region', type: 'text', required: true });
    const missing = await w2.api.post('/api/accounts/', { name: 'No region' });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body)).toEqual(['customFields.region']);
    const ok = await createAccount(w2, { customFields: { region: 'north' } });
    expect(ok.customFields).toEqual({ region: 'north' });
    expect((await w2.api.patch(`/api/accounts/${before.id}/`, { name: 'Still none' })).status).toBe(200);
    const cleared = await w2.api.patch(`/api/accounts/${ok.id}/`, { customFields: { region: null } });
    expect(cleared.status).toBe(422);
    expect(Object.keys(cleared.body)).toEqual(['customFields.region']);
  });
});

describe('querying custom fields', () => {
  let w: Workspace;
  let ids: Record<string, string>;
  beforeAll(async () => {
    w = await workspace(t);
    await define(w, { kind: 'contact', key: 'seats', type: 'integer' });
    await define(w, { kind: 'contact', key: 'plan', type: 'select', options: ['free', 'pro', 'team'] });
    await define(w, { kind: 'contact', key: 'nickname', type: 'text' });
    await define(w, { kind: 'contact', key: 'langs', type: 'multiselect', options: ['en', 'fr', 'de'] });
    await define(w, { kind: 'account', key: 'segment', type: 'select', options: ['smb', 'enterprise'] });
    const big = await createAccount(w, { name: 'Big', customFields: { segment: 'enterprise' } });
    const small = await createAccount(w, { name: 'Small', customFields: { segment: 'smb' } });
    const a = await createContact(w, {
      lastName: 'A',
      accountId: big.id,
      customFields: { seats: 50, plan: 'team', nickname: 'Zed the Great', langs: ['en', 'fr'] },
    });
    const b = await createContact(w, { lastName: 'B', accountId: small.id, customFields: { seats: 5, plan: 'pro', langs: ['de'] } });
    const c = await createContact(w, { lastName: 'C', customFields: { seats: 20, plan: 'pro', nickname: 'Cee' } });
    const d = await createContact(w, { lastName: 'D' });
    ids = { a: a.id, b: b.id, c: c.id, d: d.id };
  }, 120_000);

  const names = (body: any) => body.results.map((r: any) => r.lastName);

  it('filters with the tree on custom fields and the linked account’s, ordered by a custom field, counted', async () => {
    const filter = {
      and: [
        { field: 'customFields.seats', operator: 'gte', value: 5 },
        {
          or: [
            { field: 'customFields.plan', operator: 'eq', value: 'pro' },
            { field: 'account.customFields.segment', operator: 'eq', value: 'enterprise' },
          ],
        },
        { not: { field: 'customFields.langs', operator: 'contains', value: 'de' } },
      ],
    };
    const response = await w.api.post('/api/contacts/query/', { filter, ordering: '-customFields.seats' });
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(2);
    expect(names(response.body)).toEqual(['A', 'C']);
  });

  it('orders GET lists by custom fields, unset last ascending, walked by cursor', async () => {
    const asc = await w.api.get('/api/contacts/?ordering=customFields.seats');
    expect(asc.status).toBe(200);
    expect(names(asc.body)).toEqual(['B', 'C', 'A', 'D']);
    const pages = await allPages(w, '/api/contacts/?ordering=customFields.plan,-customFields.seats&limit=1');
    expect(pages.flatMap((p) => names(p))).toEqual(['C', 'B', 'A', 'D']);
  });

  it('takes the same filter on GET lists and ?customFields.<key>= exact filters typed by the field', async () => {
    const filter = encodeURIComponent(JSON.stringify({ field: 'customFields.nickname', operator: 'is_empty' }));
    const empty = await w.api.get(`/api/contacts/?filter=${filter}&ordering=lastName`);
    expect(names(empty.body)).toEqual(['B', 'D']);
    expect(names((await w.api.get('/api/contacts/?customFields.seats=20')).body)).toEqual(['C']);
    expect(names((await w.api.get('/api/contacts/?customFields.langs=fr')).body)).toEqual(['A']);
    expect((await w.api.get('/api/contacts/?customFields.seats=many')).status).toBe(400);
    const unknown = await w.api.get('/api/contacts/?customFields.nope=1');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ 'customFields.nope': [expect.any(String)] });
  });

  it('finds records by text custom fields in search', async () => {
    expect(names((await w.api.get('/api/contacts/?search=the%20great')).body)).toEqual(['A']);
  });

  it('refuses unknown custom fields, wrong operators and wrong types in filters and ordering', async () => {
    const bad = [
      { field: 'customFields.nope', operator: 'eq', value: 1 },
      { field: 'customFields.seats', operator: 'contains', value: '1' },
      { field: 'customFields.seats', operator: 'eq', value: 'ten' },
      { field: 'customFields.plan', operator: 'eq', value: 'enterprise' },
    ];
    for (const filter of bad) {
      const response = await w.api.post('/api/contacts/query/', { filter });
      expect({ filter, status: response.status, keys: Object.keys(response.body) }).toEqual({ filter, status: 400, keys: ['filter'] });
    }
    expect((await w.api.post('/api/contacts/query/', { ordering: 'customFields.langs' })).status).toBe(400);
    expect((await w.api.get('/api/contacts/?ordering=customFields.nope')).status).toBe(400);
  });

  it('refuses to remove an option a record holds, and lets an unused one go', async () => {
    const list = await w.api.get('/api/settings/custom-fields/?kind=contact');
    const plan = list.body.results.find((f: any) => f.key === 'plan');
    const inUse = await w.api.patch(`/api/settings/custom-fields/${plan.id}/`, { options: ['free', 'team'] });
    expect(inUse.status).toBe(422);
    expect(Object.keys(inUse.body)).toEqual(['options']);
    const unused = await w.api.patch(`/api/settings/custom-fields/${plan.id}/`, { options: ['pro', 'team'] });
    expect(unused.status).toBe(200);
  });

  it('deletes a field with its values: answers lose the key, and a new field of that key starts empty', async () => {
    const list = await w.api.get('/api/settings/custom-fields/?kind=contact');
    const nickname = list.body.results.find((f: any) => f.key === 'nickname');
    const deleted = await w.api.delete(`/api/settings/custom-fields/${nickname.id}/`);
    expect(deleted.status).toBe(204);
    const read = await w.api.get(`/api/contacts/${ids.a}/`);
    expect(read.body.customFields).not.toHaveProperty('nickname');
    // Each record that held a value has an audit entry of its removal, found by the delete's request id.
    const audit = await w.api.get(`/api/audit-log/?requestId=${encodeURIComponent(deleted.headers['x-request-id']!)}`);
    expect(audit.status).toBe(200);
    expect(audit.body.results.map((e: any) => [e.action, e.recordKind, e.recordId, e.changes]).sort()).toEqual(
      [
        ['updated', 'contact', ids.a, { 'customFields.nickname': { from: 'Zed the Great', to: null } }],
        ['updated', 'contact', ids.c, { 'customFields.nickname': { from: 'Cee', to: null } }],
      ].sort(),
    );
    const sent = await w.api.patch(`/api/contacts/${ids.a}/`, { customFields: { nickname: 'back' } });
    expect(sent.status).toBe(422);
    await define(w, { kind: 'contact', key: 'nickname', type: 'text' });
    expect((await w.api.get(`/api/contacts/${ids.a}/`)).body.customFields.nickname).toBeNull();
  });
});

describe('every list endpoint', () => {
  it.each(KINDS)('$path: GET list, POST query and aggregate take a custom field in filter and ordering', async ({ kind, path }) => {
    const w = await workspace(t);
    await define(w, { kind, key: 'rank', type: 'integer' });
    await define(w, { kind, key: 'band', type: 'select', options: ['a', 'b'] });
    const made = [];
    for (const [rank, band] of [
      [3, 'a'],
      [1, 'b'],
      [2, 'a'],
      [null, 'a'],
    ] as const)
      made.push(await createOf(w, kind, { customFields: { rank, band } }));
    const filter = { field: 'customFields.band', operator: 'eq', value: 'a' };
    const listed = await w.api.get(`/api/${path}/?filter=${encodeURIComponent(JSON.stringify(filter))}&ordering=-customFields.rank`);
    expect(listed.status).toBe(200);
    // Descending: the unset rank first, then 3, then 2.
    expect(listed.body.results.map((r: any) => r.id)).toEqual([made[3].id, made[0].id, made[2].id]);
    const queried = await w.api.post(`/api/${path}/query/`, { filter, ordering: 'customFields.rank' });
    // Ascending: 2, then 3, then the unset rank last.
    expect(queried.body.results.map((r: any) => r.id)).toEqual([made[2].id, made[0].id, made[3].id]);
    expect(queried.body.count).toBe(3);
    const aggregate = await w.api.get(
      `/api/${path}/aggregate/?groupBy=customFields.band&metrics=count,sum:customFields.rank&customFields.band=a`,
    );
    expect(aggregate.status).toBe(200);
    expect(aggregate.body.total.count).toBe(3);
    expect(aggregate.body.groups).toEqual([expect.objectContaining({ key: { 'customFields.band': 'a' }, count: 3 })]);
  });
});

describe('the OpenAPI document a workspace reads', () => {
  it('types its custom fields under customFields with a Bearer credential, and leaves them open without', async () => {
    const w = await workspace(t);
    await define(w, { kind: 'contact', key: 'tier', type: 'select', options: ['gold', 'silver'] });
    await define(w, { kind: 'contact', key: 'seats', type: 'integer' });
    const find = (document: any): any => {
      const schema = document.paths['/api/contacts/{id}/'].get.responses['200'].content['application/json'].schema;
      const resolved = schema.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema;
      return resolved.properties.customFields;
    };
    const typed = find((await w.api.get('/api/openapi.json')).body);
    expect(Object.keys(typed.properties)).toEqual(['tier', 'seats']);
    expect(typed.properties.tier.enum).toEqual(['gold', 'silver', null]);
    expect(typed.properties.seats.type).toEqual(['integer', 'null']);
    const open = find((await t.api.get('/api/openapi.json')).body);
    expect(open.properties ?? {}).toEqual({});
    // Another workspace sees its own (none).
    expect(find((await theirs.api.get('/api/openapi.json')).body).properties ?? {}).toEqual({});
  });
});

describe('events', () => {
  it('carry the custom values in data.record.customFields (the change feed holds the webhook envelopes)', async () => {
    const w = await workspace(t);
    await define(w, { kind: 'lead', key: 'budget', type: 'number' });
    const lead = await createLead(w, { customFields: { budget: 1200.5 } });
    let envelope: any;
    for (let attempt = 0; attempt < 100 && !envelope; attempt += 1) {
      const feed = await w.api.get('/api/events/');
      envelope = feed.body.results?.find((e: any) => e.data?.record?.id === lead.id);
      if (!envelope) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(envelope?.data?.record?.customFields).toEqual({ budget: 1200.5 });
  });
});

describe('tenancy', () => {
  it('keeps one workspace’s fields invisible to another, which cannot write or filter on them', async () => {
    const field = await define(mine, { kind: 'contact', key: 'secretCode', type: 'text' });
    expect((await theirs.api.get(`/api/settings/custom-fields/${field.id}/`)).status).toBe(404);
    expect((await theirs.api.patch(`/api/settings/custom-fields/${field.id}/`, { label: 'x' })).status).toBe(404);
    expect((await theirs.api.delete(`/api/settings/custom-fields/${field.id}/`)).status).toBe(404);
    const listed = await theirs.api.get('/api/settings/custom-fields/');
    expect(listed.body.results.map((f: any) => f.id)).not.toContain(field.id);
    const write = await theirs.api.post('/api/contacts/', {
      firstName: 'X',
      email: `x-${unique()}@example.com`,
      customFields: { secretCode: 'a' },
    });
    expect(write.status).toBe(422);
    const contact = await createContact(theirs);
    expect(contact.customFields).toEqual({});
    expect((await theirs.api.get('/api/contacts/?customFields.secretCode=a')).status).toBe(400);
  });
});
