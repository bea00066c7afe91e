import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { OtlpCollector } from '../support/otlp-collector';

// One trace from the gateway, through gRPC into records, and on through RabbitMQ (records' outbox
// relay publishes with the request's trace context) into the automation worker that handles the event.

let collector: OtlpCollector;
let t: TestCluster;

beforeAll(async () => {
  collector = await OtlpCollector.start();
  t = await startTestCluster({ gateways: 1, workers: 1, env: collector.env });
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
  await collector?.close();
});

it('follows a lead creation from the gateway through records and RabbitMQ into the automation worker', async () => {
  const owner = await signUp(t.api);
  const created = await t.api.post(
    '/api/leads/',
    { firstName: 'Trace', lastName: 'Me', email: 'trace@example.com', company: 'Spans' },
    { token: owner.access },
  );
  expect(created.status).toBe(201);

  // Wait until some trace holds the gateway, records and automation together.
  const servicesOf = (traceId: string) => new Set(collector.spans.filter((s) => s.traceId === traceId).map((s) => s.service));
  let joined: string | undefined;
  const deadline = Date.now() + 30_000;
  while (!joined && Date.now() < deadline) {
    const consumerTraces = new Set(collector.spans.filter((s) => s.service === 'crm-automation' && s.kind === 5).map((s) => s.traceId));
    joined = [...consumerTraces].find((id) => servicesOf(id).has('crm-gateway') && servicesOf(id).has('crm-records'));
    if (!joined) await new Promise((r) => setTimeout(r, 500));
  }
  const summary = [...new Set(collector.spans.map((s) => s.traceId))].map((id) => [...servicesOf(id)].sort().join('+'));
  expect({ joined: Boolean(joined), traces: summary }).toMatchObject({ joined: true });
  const spans = collector.spans.filter((s) => s.traceId === joined);
  // The gateway's server span is the root; records' gRPC server span and the worker's consumer span descend from it.
  const root = spans.find((s) => s.parentSpanId === '');
  expect(root?.service).toBe('crm-gateway');
  expect(spans.some((s) => s.service === 'crm-records' && s.kind === 2)).toBe(true);
});
