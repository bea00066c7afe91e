// Custom fields suite (issue 31): a workspace of 100,000 realistic contacts (bench/make-contacts.mjs)
// each holding 20 custom field values, through gateway → gRPC → records at 4 connections:
// - POST /api/contacts/query/ with a three-leaf filter on custom fields and `ordering` by one,
//   counted (aim: p99 under 50 ms);
// - GET /api/contacts/?customFields.<key>=<value>, an exact filter on a custom field (aim: p99
//   under 20 ms);
// - creating a contact with 20 custom field values against creating one without, in the same
//   run (aim: at most 1.3 times the cost, i.e. at least 0.77 of the plain create's requests/s).
// - the same query right after a write in its workspace, one at a time: a count is kept only while
//   the workspace's contacts stand, so this is its cost read anew.
// Baseline in the same run: the gateway's GET /api/auth/me/ at 4 connections. The contacts are
// made by the records service's own rules and written straight into its store (SQLite only).
'use strict';
const { load, timeAfterWrites } = require('../load');
const { signUpUnlimited } = require('../support');
const { contactDocuments, insertContacts } = require('../realistic-contacts');

const CONTACTS = 100_000;
const FEW_CONNECTIONS = 4;
const AFTER_WRITES = 100;

const PLANS = ['free', 'starter', 'pro', 'team', 'enterprise'];
const REGIONS = ['emea', 'apac', 'amer', 'latam'];
const INDUSTRIES = ['software', 'retail', 'finance', 'health', 'education', 'energy', 'media', 'logistics'];
const LANGUAGES = ['en', 'fr', 'de', 'es', 'pt', 'ja'];

/** The 20 fields: every type, as a sales team would define them. */
const FIELDS = [
  { key: 'plan', type: 'select', options: PLANS },
  { key: 'region', type: 'select', options: REGIONS },
  { key: 'industry', type: 'select', options: INDUSTRIES },
  { key: 'languages', type: 'multiselect', options: LANGUAGES },
  { key: 'seats', type: 'integer' },
  { key: 'arr', type: 'number' },
  { key: 'healthScore', type: 'number' },
  { key: 'nps', type: 'integer' },
  { key: 'churnRisk', type: 'boolean' },
  { key: 'newsletter', type: 'boolean' },
  { key: 'renewalDate', type: 'date' },
  { key: 'firstSeen', type: 'date' },
  { key: 'lastLoginAt', type: 'datetime' },
  { key: 'linkedinUrl', type: 'url' },
  { key: 'website', type: 'url' },
  { key: 'billingEmail', type: 'email' },
  { key: 'nickname', type: 'text' },
  { key: 'department', type: 'text' },
  { key: 'crmOwnerNote', type: 'text' },
  { key: 'partnerCode', type: 'text' },
];

const pick = (list, n) => list[n % list.length];
const day = (n) => new Date(Date.UTC(2024, 0, 1) + (n % 1000) * 86_400_000).toISOString().slice(0, 10);

/** Contact n's 20 values, varied and deterministic. */
function values(n) {
  return {
    plan: pick(PLANS, n * 7),
    region: pick(REGIONS, n * 3),
    industry: pick(INDUSTRIES, n * 11),
    languages: [pick(LANGUAGES, n), pick(LANGUAGES, n * 5 + 1)].filter((v, i, all) => all.indexOf(v) === i),
    seats: (n * 37) % 500,
    arr: ((n * 7919) % 1_000_000) / 10,
    healthScore: ((n * 13) % 1000) / 10,
    nps: ((n * 17) % 21) - 10,
    churnRisk: n % 9 === 0,
    newsletter: n % 2 === 0,
    renewalDate: day(n * 3),
    firstSeen: day(n),
    lastLoginAt: `${day(n * 5)}T${String(n % 24).padStart(2, '0')}:15:00Z`,
    linkedinUrl: `https://www.linkedin.com/in/person-${n}`,
    website: `https://example-${n % 5000}.com`,
    billingEmail: `billing-${n % 20_000}@example-${n % 5000}.com`,
    nickname: `nick ${n}`,
    department: pick(['Sales', 'Marketing', 'Engineering', 'Finance', 'Operations', 'Support'], n * 19),
    crmOwnerNote: `Met at conference ${n % 300}; follow up in Q${(n % 4) + 1}`,
    partnerCode: `P-${(n * 97) % 100_000}`,
  };
}

async function defineFields(api, access) {
  for (const field of FIELDS) await api('POST', '/api/settings/custom-fields/', { kind: 'contact', label: field.key, ...field }, access);
  const listed = await api('GET', '/api/settings/custom-fields/?kind=contact&limit=100', undefined, access);
  if (listed.count !== FIELDS.length) throw new Error(`expected ${FIELDS.length} custom fields, listed ${listed.count}`);
  return listed.results;
}

async function seed(cluster, workspaceId, definitions, log) {
  const started = Date.now();
  const documents = contactDocuments(workspaceId, CONTACTS, values, definitions);
  await insertContacts(cluster, workspaceId, documents, 'custom fields');
  log(`seeded ${documents.length} contacts with ${FIELDS.length} custom fields in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return (Date.now() - started) / 1000;
}

module.exports = async function customFieldsSuite({ cluster, api, seconds, log }) {
  const { access, user } = await signUpUnlimited(cluster, api, 'custom-fields');
  const definitions = await defineFields(api, access);
  const seedSeconds = await seed(cluster, user.workspaceId, definitions, log);
  const gateway = cluster.gateways[0].url;
  const headers = { authorization: `Bearer ${access}`, 'content-type': 'application/json' };

  const query = {
    filter: {
      and: [
        { field: 'customFields.plan', operator: 'in', value: ['pro', 'team'] },
        { field: 'customFields.seats', operator: 'gte', value: 100 },
        { field: 'customFields.churnRisk', operator: 'eq', value: false },
      ],
    },
    ordering: '-customFields.arr',
    limit: 20,
  };
  const exact = '/api/contacts/?customFields.partnerCode=P-4850';
  const queried = await api('POST', '/api/contacts/query/', query, access);
  const exactAnswer = await api('GET', exact, undefined, access);
  log(`the query matches ${queried.count} contacts; the exact filter ${exactAnswer.count}`);
  if (!(queried.count > 0) || !(exactAnswer.count > 0)) throw new Error('the measured queries match nothing');

  const plain = { firstName: 'Bench', lastName: 'Create', email: 'bench-create@example.com' };
  const withValues = { ...plain, customFields: values(4242) };
  const runs = {
    query: { url: `${gateway}/api/contacts/query/`, method: 'POST', body: JSON.stringify(query) },
    exactFilter: { url: `${gateway}${exact}` },
    createPlain: { url: `${gateway}/api/contacts/`, method: 'POST', body: JSON.stringify(plain) },
    createWithCustomFields: { url: `${gateway}/api/contacts/`, method: 'POST', body: JSON.stringify(withValues) },
  };
  log('warming up');
  for (const run of Object.values(runs)) await load({ ...run, headers, seconds: 1, connections: FEW_CONNECTIONS });
  log(`baseline: gateway GET /api/auth/me/, ${FEW_CONNECTIONS} connections, ${seconds} s`);
  const me = await load({ url: `${gateway}/api/auth/me/`, headers, seconds, connections: FEW_CONNECTIONS });
  const measured = {};
  // The creates alternate, twice each, and each keeps its better run: the store's background work
  // (checkpoints, the outbox relay) falls on both alike.
  for (const name of ['query', 'exactFilter', 'createPlain', 'createWithCustomFields', 'createPlain', 'createWithCustomFields']) {
    const run = runs[name];
    log(`${name}: ${run.method ?? 'GET'} ${run.url.replace(gateway, '')}, ${FEW_CONNECTIONS} connections, ${seconds} s`);
    const result = await load({ ...run, headers, seconds, connections: FEW_CONNECTIONS });
    if (!measured[name] || result.requestsPerSecond > measured[name].requestsPerSecond) measured[name] = result;
  }
  const createCost = measured.createPlain.requestsPerSecond / Math.max(measured.createWithCustomFields.requestsPerSecond, 0.001);

  log(`query after a write: ${AFTER_WRITES} times a contact created, then the query alone`);
  const queryAfterWrite = await timeAfterWrites(
    AFTER_WRITES,
    (i) => api('POST', '/api/contacts/', { firstName: 'After', lastName: `Write ${i}`, email: `after-write-${i}@example.com` }, access),
    () => api('POST', '/api/contacts/query/', query, access),
  );

  // A neighbour: another workspace's first page of contacts, alone and while this workspace runs
  // its counted custom-field query at the same connections (a tenant must not slow another).
  const neighbour = await signUpUnlimited(cluster, api, 'custom-fields-neighbour');
  const neighbourHeaders = { authorization: `Bearer ${neighbour.access}` };
  for (let n = 0; n < 50; n++) {
    await api(
      'POST',
      '/api/contacts/',
      { firstName: 'Near', lastName: `Neighbour ${n}`, email: `near-${n}@example.com` },
      neighbour.access,
    );
  }
  const neighbourList = { url: `${gateway}/api/contacts/?limit=20`, headers: neighbourHeaders, connections: FEW_CONNECTIONS };
  log(`neighbour alone: another workspace's GET /api/contacts/?limit=20, ${FEW_CONNECTIONS} connections, ${seconds} s`);
  const neighbourAlone = await load({ ...neighbourList, seconds });
  log(`neighbour beside the query: the same, while this workspace runs its query at ${FEW_CONNECTIONS} connections`);
  const [neighbourBeside] = await Promise.all([
    load({ ...neighbourList, seconds }),
    load({ ...runs.query, headers, seconds, connections: FEW_CONNECTIONS }),
  ]);
  return {
    name: `custom fields: ${CONTACTS} realistic contacts with ${FIELDS.length} custom fields, ${FEW_CONNECTIONS} connections`,
    // The headline: the query aim's 50 ms over its p99 (above 1 meets it).
    ratio: 50 / Math.max(measured.query.p99, 0.001),
    target:
      'query p99 under 50 ms (ratio above 1); exact filter p99 under 20 ms (exactAimRatio above 1); a create with 20 values at most 1.3x a plain one (createCost at most 1.3)',
    exactAimRatio: 20 / Math.max(measured.exactFilter.p99, 0.001),
    // The query read anew after each write, one at a time (the aim's 50 ms over its p99).
    afterWriteAimRatio: 50 / Math.max(queryAfterWrite.p99, 0.001),
    queryAfterWrite,
    createCost,
    // Another workspace's p99 beside this one's query over its p99 alone (1 is no harm).
    neighbourSlowdown: neighbourBeside.p99 / Math.max(neighbourAlone.p99, 0.001),
    neighbour: { alone: neighbourAlone, besideQuery: neighbourBeside },
    matches: { query: queried.count, exactFilter: exactAnswer.count },
    seedSeconds,
    baselines: { gatewayMeAtFourConnections: me },
    measured,
  };
};
