import { randomBytes } from 'node:crypto';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';

// With no OTLP endpoint nothing is exported, yet trace ids are still made and carried: a client's
// W3C traceparent reaches the gateway's access log, and, through gRPC, records' outbox and two
// RabbitMQ hops, the automation worker's log line for the email the request caused.

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, workers: 1, logLevel: 'info' });
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

function logLines(process: string): Record<string, unknown>[] {
  return t.cluster.processes
    .get(process)!
    .tail(100_000)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

it('puts the caller’s trace id on the log lines of every process the request reaches', async () => {
  const owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  const api = t.api.withToken(owner.access);
  const rule = await api.post('/api/automations/rules/', {
    name: 'Welcome',
    trigger: 'lead_created',
    steps: [{ type: 'send_email', order: 1, config: { mode: 'template', templateId: 'lead_follow_up' } }],
  });
  expect((await api.post(`/api/automations/rules/${rule.body.id}/activate/`)).status).toBe(200);

  const traceId = randomBytes(16).toString('hex');
  const created = await api.post(
    '/api/leads/',
    { firstName: 'Traced', lastName: 'Lead', email: `traced-${traceId.slice(0, 8)}@example.com`, company: 'Logs' },
    { headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-00` } },
  );
  expect(created.status).toBe(201);

  let access: Record<string, unknown> | undefined;
  const logged = Date.now() + 10_000;
  while (!access && Date.now() < logged) {
    access = logLines('gateway-1').find((line) => line.requestId === created.headers['x-request-id']);
    if (!access) await new Promise((r) => setTimeout(r, 100));
  }
  expect({ access, requestId: created.headers['x-request-id'], tail: t.cluster.processes.get('gateway-1')!.tail(3) }).toMatchObject({
    access: { trace_id: traceId, status: 201 },
  });

  const deadline = Date.now() + 30_000;
  let email: Record<string, unknown> | undefined;
  while (!email && Date.now() < deadline) {
    email = logLines('automation-worker-1').find(
      (line) => String(line.msg).startsWith('email handed to the log transport') && line.trace_id === traceId,
    );
    if (!email) await new Promise((r) => setTimeout(r, 250));
  }
  const emailLines = logLines('automation-worker-1').filter((line) => String(line.msg).startsWith('email handed'));
  expect({ found: Boolean(email), emailLines: emailLines.map((l) => l.trace_id) }).toMatchObject({ found: true });
  // Lines outside any request carry no trace id rather than a made-up one.
  expect(logLines('records').find((line) => String(line.msg).includes('listening'))).not.toHaveProperty('trace_id');
});
