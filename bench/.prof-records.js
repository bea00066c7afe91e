const { startLocalCluster } = require('../scripts/local-cluster.js');
const { GrpcClient, loadInternalTls } = require('../libs/grpc/dist');
const { Agent, request } = require('undici');
(async () => {
  const c = await startLocalCluster({
    gateways: 1,
    withWorkers: false,
    logLevel: 'warn',
    nodeArgs: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'],
  });
  const agent = new Agent({ connect: { ca: c.ca } });
  const r = await request(c.gateways[0].url + '/api/auth/signup/', {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workspaceName: 'P', email: 'p@example.com', password: 'password-123', firstName: 'A', lastName: 'B' }),
  });
  const body = await r.body.json();
  const ctx = { workspaceId: body.user.workspaceId, actorId: body.user.id, actorKind: 'user' };
  const records = new GrpcClient(
    'records/v1/records.proto',
    'records.v1.RecordsService',
    c.recordsAddress,
    loadInternalTls(c.internalTlsDirs['import-worker']),
  );
  let t = Date.now();
  for (let b = 0; b < 10; b++) {
    const rows = Array.from({ length: 500 }, (_, i) => ({
      row: i + 1,
      firstName: 'F' + i,
      lastName: 'L' + b,
      email: `p${b}_${i}@example.com`,
    }));
    await records.call('BatchCreateContacts', { idempotencyKey: 'k' + b, rows }, ctx, { timeoutMs: 60000 });
  }
  console.log('batch: 5000 rows in', Date.now() - t, 'ms');
  t = Date.now();
  for (let i = 0; i < 300; i++) {
    const res = await request(c.gateways[0].url + '/api/contacts/', {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + body.access },
      body: JSON.stringify({ firstName: 'X', email: `x${i}@example.com` }),
    });
    await res.body.text();
  }
  console.log('create: 300 sequential in', Date.now() - t, 'ms');
  t = Date.now();
  for (let i = 0; i < 50; i++) {
    const res = await request(c.gateways[0].url + '/api/contacts/?search=p3_1', {
      dispatcher: agent,
      headers: { authorization: 'Bearer ' + body.access },
    });
    await res.body.text();
  }
  console.log('search: 50 sequential in', Date.now() - t, 'ms');
  records.close();
  await c.stop();
})();
