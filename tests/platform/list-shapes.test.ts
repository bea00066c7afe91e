/**
 * Every list the gateway serves answers with the top-level keys of the spec's kind of list. The spec
 * answers four lists with "count and results only" (contract decisions: `{count, results,
 * nextCursor}` and nothing else); every other list is paginated (`{count, next, previous, results}`
 * plus `nextCursor` where the list walks by cursor); the change feed is `{results, nextCursor}`. The lists come from the served OpenAPI document
 * (every GET whose 200 answer has `results`), so a new list must be classified here to pass.
 */
import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';

/** The spec's "count and results only" lists. */
const COUNT_AND_RESULTS = new Set([
  '/api/automations/rules/',
  '/api/automations/rules/{id}/logs/',
  '/api/automations/templates/',
  '/api/accounts/{id}/contacts/',
]);
const COUNTED_KEYS = ['count', 'nextCursor', 'results'];
/** The change feed (contract decisions, "Change feed"): `{results, nextCursor}`, no count, no links. */
const FEED_LISTS = new Set(['/api/events/']);
const FEED_KEYS = ['nextCursor', 'results'];
const PAGED_KEYS = ['count', 'next', 'nextCursor', 'previous', 'results'];

let t: TestCluster;
let api: ApiClient;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, withWorkers: false });
  api = t.api.withToken((await signUp(t.api)).access);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

type Schema = { properties?: Record<string, unknown>; $ref?: string };
type Document = {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>;
};

/** The templates of every GET whose 200 JSON answer is a list (has `results`). */
function listTemplates(document: Document): string[] {
  return Object.entries(document.paths)
    .filter(([, operations]) => {
      const schema = operations.get?.responses?.['200']?.content?.['application/json']?.schema;
      return schema?.properties !== undefined && 'results' in schema.properties;
    })
    .map(([template]) => template)
    .sort();
}

async function created(path: string, body: unknown): Promise<string> {
  const answer = await api.post(path, body);
  if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${answer.text}`);
  return answer.body.id as string;
}

describe("every list answers with the top-level keys of the spec's kind of list", () => {
  it('four lists are count and results only, every other list is paginated with links', async () => {
    const document = (await api.get('/api/openapi.json')).body as Document;
    const templates = listTemplates(document);
    for (const counted of COUNT_AND_RESULTS) expect(templates).toContain(counted);

    // One record behind every path parameter the lists take.
    const suffix = randomBytes(4).toString('hex');
    const accountId = await created('/api/accounts/', { name: `Shapes ${suffix}` });
    const contactId = await created('/api/contacts/', {
      firstName: 'Ada',
      lastName: 'Shape',
      email: `ada-${suffix}@example.com`,
      accountId,
    });
    const leadId = await created('/api/leads/', { firstName: 'Lee', lastName: 'Shape', email: `lee-${suffix}@example.com` });
    const opportunityId = await created('/api/opportunities/', { name: `Deal ${suffix}`, accountId });
    const ruleId = await created('/api/automations/rules/', {
      name: 'Shapes',
      trigger: 'lead_created',
      steps: [{ type: 'wait', order: 1, config: { duration: 1, unit: 'days' } }],
    });
    const webhookId = await created('/api/settings/webhooks/', { url: 'https://hooks.example.com/shapes', events: ['contact.created'] });
    const ids: Record<string, string> = {
      '/api/automations/rules/{id}/logs/': ruleId,
      '/api/accounts/{id}/contacts/': accountId,
      '/api/settings/webhooks/{id}/deliveries/': webhookId,
      '/api/contacts/{id}/history/': contactId,
      '/api/leads/{id}/history/': leadId,
      '/api/accounts/{id}/history/': accountId,
      '/api/opportunities/{id}/history/': opportunityId,
    };

    const seen: Array<[string, string[]]> = [];
    const expected: Array<[string, string[]]> = [];
    for (const template of templates) {
      const needsId = template.includes('{');
      if (needsId && !ids[template]) throw new Error(`${template}: a list with a path parameter this test does not fill in yet`);
      const path = needsId ? template.replace(/\{[^}]+\}/, ids[template]!) : template;
      const answer = await api.get(`${path}?limit=1`);
      expect([template, answer.status]).toEqual([template, 200]);
      seen.push([template, Object.keys(answer.body).sort()]);
      expected.push([template, FEED_LISTS.has(template) ? FEED_KEYS : COUNT_AND_RESULTS.has(template) ? COUNTED_KEYS : PAGED_KEYS]);
    }
    expect(seen).toEqual(expected);
  });
});
