/**
 * A client generated from the OpenAPI document (openapi-typescript types, openapi-fetch calls) does
 * a realistic flow with no casts: the flow type-checks against the document (tsc over the tests, in
 * `npm test` and `npm run typecheck`), so a document that stops describing what clients send and
 * read breaks the build, and it runs against a real cluster, so the types describe real answers.
 * The calls go through ApiClient, so every answer is also checked against the document.
 */
import { randomBytes } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, startTestCluster, type TestCluster } from '../support/cluster';
import type { paths } from '../../clients/typescript/src/generated/crm-api';

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, withWorkers: false });
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

/** openapi-fetch's fetch, carried by the suite's ApiClient (its TLS trust, its conformance check). */
function fetchThrough(api: ApiClient): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const text = await request.text();
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const answer = await api.call(request.method, `${url.pathname}${url.search}`, {
      headers,
      ...(text.length > 0 ? { body: JSON.parse(text) } : {}),
    });
    return new Response(answer.status === 204 || answer.text.length === 0 ? null : answer.text, {
      status: answer.status,
      headers: answer.headers,
    });
  };
}

function required<T>(value: T | undefined, what: string, error?: unknown): T {
  if (value === undefined) throw new Error(`${what} failed: ${JSON.stringify(error)}`);
  return value;
}

describe('a client generated from the OpenAPI document', () => {
  it('signs up, logs in, and works with accounts, contacts, leads, opportunities and automation rules', async () => {
    const baseUrl = t.api.baseUrl;
    const fetch = fetchThrough(t.api);
    const anonymous = createClient<paths>({ baseUrl, fetch });
    const suffix = randomBytes(4).toString('hex');
    const email = `typed-${suffix}@example.com`;
    const password = `pw-${randomBytes(9).toString('base64url')}`;

    const signedUp = await anonymous.POST('/api/auth/signup/', {
      body: { workspaceName: `Typed ${suffix}`, email, password, firstName: 'Grace', lastName: 'Hopper' },
    });
    expect(signedUp.response.status).toBe(201);
    const workspaceId = required(signedUp.data, 'signup', signedUp.error).user.workspaceId;

    const loggedIn = await anonymous.POST('/api/auth/login/', { body: { email, password } });
    const session = required(loggedIn.data, 'login', loggedIn.error);
    expect(session.user).toMatchObject({ email, workspaceId, firstName: 'Grace' });

    const api = createClient<paths>({ baseUrl, fetch, headers: { authorization: `Bearer ${session.access}` } });

    const accountAnswer = await api.POST('/api/accounts/', {
      body: { name: `Analytical Engines ${suffix}`, industry: 'Computing', tags: ['key'] },
    });
    const account = required(accountAnswer.data, 'account create', accountAnswer.error);
    expect(accountAnswer.response.status).toBe(201);

    const contactAnswer = await api.POST('/api/contacts/', {
      body: { firstName: 'Ada', lastName: `Lovelace${suffix}`, email: `ada-${suffix}@example.com`, accountId: account.id, tags: ['vip'] },
    });
    const contact = required(contactAnswer.data, 'contact create', contactAnswer.error);
    expect(contact.accountId).toBe(account.id);
    expect(contact.accountName).toBe(account.name);

    const leadAnswer = await api.POST('/api/leads/', {
      body: {
        firstName: 'Charles',
        lastName: 'Babbage',
        email: `charles-${suffix}@example.com`,
        company: `Difference ${suffix}`,
        leadScore: 70,
      },
    });
    const lead = required(leadAnswer.data, 'lead create', leadAnswer.error);
    expect(lead.status).toBe('new');

    const converted = await api.POST('/api/leads/{id}/convert/', {
      params: { path: { id: lead.id } },
      body: { createAccount: true, createOpportunity: true, opportunityValue: 5000, opportunityStage: 'proposal' },
    });
    const conversion = required(converted.data, 'lead conversion', converted.error);
    expect(conversion.lead.status).toBe('converted');
    const opportunityId = required(conversion.opportunity?.id, 'the converted opportunity');

    const page = await api.GET('/api/contacts/', { params: { query: { search: `Lovelace${suffix}`, limit: 1, page: 1 } } });
    const contacts = required(page.data, 'contact list', page.error);
    expect(contacts.count).toBe(1);
    expect(contacts.results.map((c) => c.email)).toEqual([contact.email]);
    expect(contacts.previous).toBeNull();

    const updated = await api.PATCH('/api/opportunities/{id}/', {
      params: { path: { id: opportunityId } },
      body: { stage: 'negotiation', value: 7500, closeDate: null },
    });
    const opportunity = required(updated.data, 'opportunity update', updated.error);
    expect({ stage: opportunity.stage, value: opportunity.value, closeDate: opportunity.closeDate }).toEqual({
      stage: 'negotiation',
      value: 7500,
      closeDate: null,
    });

    const ruleAnswer = await api.POST('/api/automations/rules/', {
      body: {
        name: `Welcome ${suffix}`,
        trigger: 'lead_created',
        steps: [
          { type: 'wait', order: 1, config: { duration: 1, unit: 'hours' } },
          { type: 'send_email', order: 2, config: { mode: 'ai_generated', prompt: 'Welcome {{lead.firstName}} to {{workspace.name}}.' } },
        ],
      },
    });
    const rule = required(ruleAnswer.data, 'rule create', ruleAnswer.error);
    expect(ruleAnswer.response.status).toBe(201);
    expect(rule.steps.map((step) => step.type)).toEqual(['wait', 'send_email']);

    const refused = await api.POST('/api/contacts/', { body: { firstName: 'No', email: 'not-an-email' } });
    expect(refused.response.status).toBe(422);
    expect(refused.data).toBeUndefined();
  });
});
