// Automation suite: (1) enrollments per second when 10,000 leads matching an active rule are
// created fast through records gRPC; (2) how late delayed steps fire (p50/p99 of actual minus due)
// for waits of seconds to a minute and a half under CRM_WAIT_TIME_SCALE=0.001, against the target
// p99 < 2% of the delay + 250 ms. Runs its own local cluster (2 automation workers) because the
// time scale is a start-up setting.
'use strict';
const path = require('node:path');
const { Agent } = require('undici');
const { gatewayApi, internalTls, warnAboutDeadProcesses } = require('../support');
const { startLocalCluster } = require('../../scripts/local-cluster.js');

const ROOT = path.resolve(__dirname, '../..');
const LEADS = Number(process.env.BENCH_AUTOMATION_LEADS || 10_000);
const SCALE = 0.001;
// Waits (in the rule's units) and how many leads wait on each: 1.8 s, 3.6 s, 18 s, 36 s, 86.4 s scaled.
const WAITS = [
  { duration: 30, unit: 'minutes', leads: 60 },
  { duration: 1, unit: 'hours', leads: 60 },
  { duration: 5, unit: 'hours', leads: 60 },
  { duration: 10, unit: 'hours', leads: 60 },
  { duration: 1, unit: 'days', leads: 60 },
];
const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

module.exports = async function automationSuite({ log, nodeArgs }) {
  log('automation: starting a cluster with CRM_WAIT_TIME_SCALE=0.001 and 2 automation workers');
  const cluster = await startLocalCluster({
    gateways: 1,
    workers: 2,
    logLevel: 'warn',
    nodeArgs,
    env: { CRM_WAIT_TIME_SCALE: String(SCALE), SWEEP_INTERVAL_MS: '2000' },
  });
  const agent = new Agent({ connect: { ca: cluster.ca }, connections: 8 });
  const { GrpcClient } = require(path.join(ROOT, 'libs/grpc/dist'));
  const { openStore } = require(path.join(ROOT, 'libs/store/dist'));
  const { automationCollections, enrollments } = require(path.join(ROOT, 'services/automation/dist/store/collections'));
  const recordsAddress = `127.0.0.1:${cluster.processes.get('records').env.GRPC_PORT}`;
  const records = new GrpcClient('records/v1/records.proto', 'records.v1.RecordsService', recordsAddress, internalTls(cluster, 'gateway'));
  const api = gatewayApi(cluster, agent);
  let store;
  try {
    const signup = await api('POST', '/api/auth/signup/', {
      workspaceName: 'Bench',
      email: `bench-auto-${Date.now()}@example.com`,
      password: 'bench-password-123',
      firstName: 'Bench',
      lastName: 'Mark',
    });
    const token = signup.access;
    const workspaceId = signup.user.workspaceId;
    const context = { workspaceId, actorId: signup.user.id, actorKind: 'user' };
    const rule = async (company, steps) => {
      const created = await api(
        'POST',
        '/api/automations/rules/',
        {
          name: `Bench ${company}`,
          trigger: 'lead_created',
          triggerConditions: [{ field: 'company', operator: 'eq', value: company }],
          steps,
        },
        token,
      );
      await api('POST', `/api/automations/rules/${created.id}/activate/`, undefined, token);
      return created.id;
    };
    const createLeads = async (count, company, concurrency = 32) => {
      let next = 0;
      const worker = async () => {
        while (next < count) {
          const i = next++;
          await records.call(
            'CreateLead',
            {
              lead: {
                firstName: 'Lead',
                lastName: String(i),
                email: `lead-${company.replace(/\W/g, '')}-${i}-${Date.now()}@example.com`,
                company,
              },
            },
            context,
            { timeoutMs: 30_000 },
          );
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };
    store = await openStore({
      location: { kind: 'sqlite', file: path.join(cluster.dataDir, 'automation', 'automation.db') },
      collections: automationCollections,
    });
    const scoped = store.forWorkspace(workspaceId);
    const count = (ruleId, extra = []) => scoped.count(enrollments, [{ field: 'ruleId', op: 'eq', value: ruleId }, ...extra]);

    // 1. Enrollment throughput.
    const throughputRule = await rule('Throughput Co', [
      { type: 'send_notification', order: 1, config: { recipients: ['assigned_user'], message: 'Hi {{lead.firstName}}' } },
    ]);
    log(`automation: creating ${LEADS} matching leads through records gRPC`);
    const started = Date.now();
    await createLeads(LEADS, 'Throughput Co');
    const createdMs = Date.now() - started;
    let enrolled = 0;
    for (;;) {
      enrolled = await count(throughputRule);
      if (enrolled >= LEADS || Date.now() - started > 600_000) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const enrolledMs = Date.now() - started;
    for (;;) {
      const done = await count(throughputRule, [{ field: 'status', op: 'eq', value: 'completed' }]);
      if (done >= LEADS || Date.now() - started > 900_000) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const completedMs = Date.now() - started;
    log(`automation: ${enrolled} enrolled in ${enrolledMs} ms (leads created in ${createdMs} ms), all steps done in ${completedMs} ms`);

    // 2. Lateness of delayed steps.
    const waitRules = [];
    for (const wait of WAITS) {
      const company = `Wait ${wait.duration} ${wait.unit}`;
      const ruleId = await rule(company, [
        { type: 'wait', order: 1, config: { duration: wait.duration, unit: wait.unit } },
        { type: 'send_notification', order: 2, config: { recipients: ['assigned_user'], message: 'Waited' } },
      ]);
      waitRules.push({ ...wait, ruleId, delayMs: wait.duration * UNIT_MS[wait.unit] * SCALE });
    }
    log('automation: creating leads that wait 1.8 s to 86.4 s');
    await Promise.all(waitRules.map((w) => createLeads(w.leads, `Wait ${w.duration} ${w.unit}`, 8)));
    const total = waitRules.reduce((n, w) => n + w.leads, 0);
    const deadline = Date.now() + 300_000;
    for (;;) {
      let done = 0;
      for (const w of waitRules) done += await count(w.ruleId, [{ field: 'status', op: 'eq', value: 'completed' }]);
      if (done >= total || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const byDelay = [];
    const all = [];
    let withinTarget = 0;
    for (const w of waitRules) {
      const logs = await scoped.find(enrollments, { where: [{ field: 'ruleId', op: 'eq', value: w.ruleId }] });
      const late = logs
        .map((l) => l.stepResults[0]?.lateMs)
        .filter((v) => typeof v === 'number')
        .sort((a, b) => a - b);
      const target = 0.02 * w.delayMs + 250;
      withinTarget += late.filter((v) => v <= target).length;
      all.push(...late);
      byDelay.push({
        delayMs: w.delayMs,
        steps: late.length,
        p50LateMs: percentile(late, 50),
        p99LateMs: percentile(late, 99),
        maxLateMs: late[late.length - 1] ?? null,
        targetP99Ms: target,
      });
    }
    all.sort((a, b) => a - b);
    const p99Ratios = byDelay.map((d) => (d.p99LateMs ?? Infinity) / d.targetP99Ms);
    return {
      name: 'automation: enrollments per second and lateness of delayed steps',
      ratio: Math.max(...p99Ratios),
      target: '≤ 1 (p99 lateness / (2% of delay + 250 ms), worst delay)',
      enrollment: {
        leads: LEADS,
        enrolled,
        leadsCreatedPerSecond: Math.round((LEADS / createdMs) * 1000),
        enrollmentsPerSecond: Math.round((enrolled / enrolledMs) * 1000),
        firstStepCompletedPerSecond: Math.round((LEADS / completedMs) * 1000),
      },
      lateness: {
        steps: all.length,
        p50LateMs: percentile(all, 50),
        p99LateMs: percentile(all, 99),
        withinTarget: `${withinTarget}/${all.length}`,
        byDelay,
      },
    };
  } finally {
    warnAboutDeadProcesses(cluster, log);
    records.close();
    if (store) await store.close();
    await agent.close();
    await cluster.stop();
  }
};
