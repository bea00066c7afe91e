/** Shared set-up of the records suites: a cluster, workspaces with their rate limit lifted, factories. */
import { GrpcClient, recordsV1 } from '@crm/grpc';
import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../support/api-client';
import { signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { internalTlsOf } from '../support/internal-tls';
import { liftRateLimit } from '../support/operator-cli';

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

export async function startRecordsCluster(): Promise<TestCluster> {
  return startTestCluster({ gateways: 1, withWorkers: false });
}

export interface Workspace extends SignedUp {
  /** A client carrying this workspace's user token. */
  api: ApiClient;
}

/** A new workspace whose rate limit won't get in the way of a suite's many calls. */
export async function workspace(t: TestCluster): Promise<Workspace> {
  const owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  return { ...owner, api: t.api.withToken(owner.access) };
}

export const unique = (): string => randomBytes(5).toString('hex');

/** A member (not an admin) of the owner's workspace, invited and signed in: their access token. */
export async function memberOf(t: TestCluster, owner: Workspace): Promise<{ token: string }> {
  const invited = await owner.api.post('/api/settings/users/', {
    email: `member-${unique()}@example.com`,
    firstName: 'Mem',
    lastName: 'Ber',
    role: 'member',
  });
  if (invited.status !== 201) throw new Error(`invite: ${invited.status} ${invited.text}`);
  const accepted = await t.api.post('/api/auth/invitations/accept/', {
    token: invited.body.inviteToken,
    password: 'a member password 123',
  });
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${accepted.text}`);
  return { token: accepted.body.access };
}

export async function createContact(w: Workspace, body: Record<string, unknown> = {}): Promise<any> {
  const response = await w.api.post('/api/contacts/', {
    firstName: 'Grace',
    lastName: 'Hopper',
    email: `grace-${unique()}@example.com`,
    ...body,
  });
  if (response.status !== 201) throw new Error(`create contact: ${response.status} ${response.text}`);
  return response.body;
}

export async function createLead(w: Workspace, body: Record<string, unknown> = {}): Promise<any> {
  const response = await w.api.post('/api/leads/', {
    firstName: 'Alan',
    lastName: 'Turing',
    email: `alan-${unique()}@example.com`,
    company: 'Bletchley',
    ...body,
  });
  if (response.status !== 201) throw new Error(`create lead: ${response.status} ${response.text}`);
  return response.body;
}

export async function createAccount(w: Workspace, body: Record<string, unknown> = {}): Promise<any> {
  const response = await w.api.post('/api/accounts/', { name: `Acme ${unique()}`, ...body });
  if (response.status !== 201) throw new Error(`create account: ${response.status} ${response.text}`);
  return response.body;
}

export async function createOpportunity(w: Workspace, accountId: string, body: Record<string, unknown> = {}): Promise<any> {
  const response = await w.api.post('/api/opportunities/', { name: `Deal ${unique()}`, accountId, ...body });
  if (response.status !== 201) throw new Error(`create opportunity: ${response.status} ${response.text}`);
  return response.body;
}

/**
 * Every page from a first page to the end: by `next` links, or, on the lists the spec answers with
 * count and results only (no links), by sending `nextCursor` back as `cursor`.
 */
export async function allPages(w: Workspace, firstPath: string): Promise<any[]> {
  const pages: any[] = [];
  let path: string | null = firstPath;
  while (path) {
    const response: { status: number; text: string; body: any } = await w.api.get(path);
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${response.text}`);
    pages.push(response.body);
    if ('next' in response.body) {
      const next: string | null = response.body.next;
      path = next ? next.replace(/^https:\/\/[^/]+/, '') : null;
    } else {
      const cursor: string | null = response.body.nextCursor;
      path = cursor ? `${firstPath}${firstPath.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` : null;
    }
    if (pages.length > 50) throw new Error('too many pages');
  }
  return pages;
}

/**
 * A task about a record, made the way automation's create_task step makes it (over gRPC, there is
 * no public create endpoint); everything else in these suites goes through HTTPS.
 */
export async function createTaskOver(t: TestCluster, w: Workspace, relatedTo: string): Promise<string> {
  const address = (t.cluster as unknown as { recordsAddress?: string }).recordsAddress;
  if (!address) throw new Error('the local cluster does not report recordsAddress');
  const client = new GrpcClient<recordsV1.RecordsServiceMethods>(
    'records/v1/records.proto',
    recordsV1.RecordsServiceName,
    address,
    internalTlsOf(t.cluster, 'automation-worker'),
  );
  try {
    const { task } = await client.call(
      'CreateTask',
      { name: 'Follow up', relatedTo },
      { workspaceId: w.user.workspaceId, actorId: 'system', actorKind: 'system', requestId: 'test' },
    );
    return task!.id;
  } finally {
    client.close();
  }
}
