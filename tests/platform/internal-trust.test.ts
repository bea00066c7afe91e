/**
 * Internal calls prove who sends them (mutual TLS with the run's internal CA), and a service
 * believes a caller's metadata only from an identity its caller table lets set it: a process on the
 * same network with no certificate, another CA's, or a service's own cannot act for a workspace.
 */
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import {
  authV1,
  ensureInternalCertificates,
  GrpcClient,
  loadInternalTls,
  recordsV1,
  type CallerContext,
  type InternalTls,
  type MethodMap,
} from '@crm/grpc';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { internalTlsOf } from '../support/internal-tls';

let t: TestCluster;
let owner: SignedUp;
let stranger: InternalTls;
let strangerRoot: string;
const clients: Array<{ close(): void }> = [];

/** Every gRPC server of the run, with one method each that acts for a workspace. */
const SERVICES = [
  { name: 'auth', proto: 'auth/v1/auth.proto', service: authV1.AuthServiceName, method: 'ListApiKeys' },
  { name: 'records', proto: 'records/v1/records.proto', service: recordsV1.RecordsServiceName, method: 'ListContacts' },
  { name: 'import', proto: 'import/v1/import.proto', service: 'import.v1.ImportService', method: 'ListImportJobs' },
  { name: 'automation', proto: 'automation/v1/automation.proto', service: 'automation.v1.AutomationService', method: 'ListRules' },
] as const;

function addressOf(name: string): string {
  const proc = t.cluster.processes.get(name) as unknown as { env: Record<string, string> };
  return `127.0.0.1:${proc.env.GRPC_PORT}`;
}

function client<M extends MethodMap<M> = Record<string, { request: object; response: object }>>(
  proto: string,
  service: string,
  name: string,
  tls: InternalTls | null,
): GrpcClient<M> {
  const made = new GrpcClient<M>(proto, service, addressOf(name), tls);
  clients.push(made);
  return made;
}

function forged(): Partial<CallerContext> {
  return { workspaceId: owner.user.workspaceId, actorId: owner.user.id, actorKind: 'user' };
}

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, withWorkers: false });
  owner = await signUp(t.api);
  strangerRoot = mkdtempSync(join(tmpdir(), 'crm-stranger-ca-'));
  const folders = await ensureInternalCertificates(strangerRoot, ['gateway']);
  stranger = loadInternalTls(folders.gateway!);
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  for (const c of clients) c.close();
  await t?.stop();
  if (strangerRoot) rmSync(strangerRoot, { recursive: true, force: true });
});

describe.each(SERVICES)('$name', ({ name, proto, service, method }) => {
  it('refuses a plaintext call that forges a user of the workspace', async () => {
    await expect(client(proto, service, name, null).call(method, {}, forged(), { timeoutMs: 3000 })).rejects.toMatchObject({
      kind: 'unavailable',
    });
  });

  it('refuses a TLS call with forged metadata and no client certificate', async () => {
    const ca = internalTlsOf(t.cluster, 'gateway').ca;
    const bare = new grpc.Client(addressOf(name), grpc.credentials.createSsl(ca), { 'grpc.ssl_target_name_override': name });
    clients.push(bare);
    const metadata = new grpc.Metadata();
    metadata.set('x-crm-workspace-id', owner.user.workspaceId);
    metadata.set('x-crm-actor-id', owner.user.id);
    metadata.set('x-crm-actor-kind', 'user');
    const code = await new Promise<grpc.status>((resolve) => {
      bare.makeUnaryRequest(
        `/${service}/${method}`,
        () => Buffer.alloc(0),
        () => ({}),
        {},
        metadata,
        { deadline: Date.now() + 3000 },
        (error) => resolve(error ? error.code : grpc.status.OK),
      );
    });
    expect(code).toBe(grpc.status.UNAVAILABLE);
  });

  it('refuses a certificate of another CA, even one named gateway', async () => {
    await expect(client(proto, service, name, stranger).call(method, {}, forged(), { timeoutMs: 3000 })).rejects.toMatchObject({
      kind: 'unavailable',
    });
  });

  it("refuses the import worker's certificate acting for a user outside its role", async () => {
    await expect(client(proto, service, name, internalTlsOf(t.cluster, 'import-worker')).call(method, {}, forged())).rejects.toMatchObject({
      kind: 'internal',
      message: expect.stringContaining('import-worker may not call'),
    });
  });

  it("serves the gateway's certificate acting for the user", async () => {
    await expect(client(proto, service, name, internalTlsOf(t.cluster, 'gateway')).call(method, {}, forged())).resolves.toBeDefined();
  });
});

describe("a service's certificate acts only within that service's role", () => {
  it('the import worker cannot delete a contact, and the contact stays', async () => {
    const created = await t.api.post(
      '/api/contacts/',
      { firstName: 'Kept', lastName: 'Safe', email: 'kept.safe@example.com' },
      { token: owner.access },
    );
    expect(created.status).toBe(201);
    const records = client<recordsV1.RecordsServiceMethods>(
      'records/v1/records.proto',
      recordsV1.RecordsServiceName,
      'records',
      internalTlsOf(t.cluster, 'import-worker'),
    );
    await expect(records.call('DeleteContact', { id: created.body.id }, forged())).rejects.toMatchObject({ kind: 'internal' });
    expect((await t.api.get(`/api/contacts/${created.body.id}/`, { token: owner.access })).status).toBe(200);
  });

  it('the import worker can neither mint an API key nor check a password', async () => {
    const auth = client<authV1.AuthServiceMethods>(
      'auth/v1/auth.proto',
      authV1.AuthServiceName,
      'auth',
      internalTlsOf(t.cluster, 'import-worker'),
    );
    await expect(auth.call('CreateApiKey', { name: 'stolen' }, forged())).rejects.toMatchObject({ kind: 'internal' });
    await expect(auth.call('LogIn', { email: owner.user.email, password: owner.password })).rejects.toMatchObject({ kind: 'internal' });
    const keys = await t.api.get('/api/settings/api-keys/', { token: owner.access });
    expect(keys.body.results.map((k: { name: string }) => k.name)).not.toContain('stolen');
  });

  it('records, which reads users for itself, cannot act as a user of the workspace', async () => {
    const auth = client<authV1.AuthServiceMethods>(
      'auth/v1/auth.proto',
      authV1.AuthServiceName,
      'auth',
      internalTlsOf(t.cluster, 'records'),
    );
    await expect(
      auth.call('GetUsers', { ids: [owner.user.id] }, { workspaceId: owner.user.workspaceId, actorId: 'records', actorKind: 'system' }),
    ).resolves.toMatchObject({
      users: [expect.objectContaining({ id: owner.user.id })],
    });
    await expect(auth.call('GetUsers', { ids: [owner.user.id] }, forged())).rejects.toMatchObject({ kind: 'internal' });
  });

  it("only the operator's certificate reaches the operator service, even with the operator token", async () => {
    for (const identity of ['gateway', 'auth']) {
      const operator = client<authV1.AuthOperatorServiceMethods>(
        'auth/v1/auth.proto',
        authV1.AuthOperatorServiceName,
        'auth',
        internalTlsOf(t.cluster, identity),
      );
      await expect(
        operator.call(
          'ListWorkspaces',
          {},
          { actorKind: 'operator', actorId: 'operator' },
          { metadata: { 'x-crm-operator-token': t.cluster.operatorToken } },
        ),
      ).rejects.toMatchObject({ kind: 'internal' });
    }
  });
});

describe('the upload endpoint', () => {
  const uploadPort = () => Number((t.cluster.processes.get('import') as unknown as { env: Record<string, string> }).env.UPLOAD_PORT);
  const callerHeaders = () => ({
    'content-type': 'text/plain',
    'x-crm-workspace-id': owner.user.workspaceId,
    'x-crm-actor-id': owner.user.id,
    'x-crm-actor-kind': 'user',
  });

  function post(tls: InternalTls | null, plaintext = false): Promise<number | string> {
    return new Promise((resolve) => {
      const options = {
        host: '127.0.0.1',
        port: uploadPort(),
        path: '/v1/uploads',
        method: 'POST',
        headers: callerHeaders(),
        timeout: 5000,
      };
      const req = plaintext
        ? httpRequest(options)
        : httpsRequest({
            ...options,
            ca: internalTlsOf(t.cluster, 'gateway').ca,
            servername: 'import',
            checkServerIdentity: () => undefined,
            ...(tls ? { cert: tls.cert, key: tls.key } : {}),
          });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      req.end('not a form');
    });
  }

  it('refuses a request without a client certificate, before reading anything', async () => {
    expect(await post(null)).not.toEqual(expect.any(Number));
  });

  it('refuses plain HTTP', async () => {
    expect(await post(null, true)).not.toEqual(expect.any(Number));
  });

  it("answers 403 to another identity's certificate, and reads the gateway's request", async () => {
    expect(await post(internalTlsOf(t.cluster, 'import-worker'))).toBe(403);
    // Past the identity check: the body is then judged (not multipart: 400).
    expect(await post(internalTlsOf(t.cluster, 'gateway'))).toBe(400);
  });
});
