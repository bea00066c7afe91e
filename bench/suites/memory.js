// Memory suite (`npm run bench -- --only memory --target npm-start`): the resident set of the one
// `npm start` process idle, after a 100,000-contact CSV import through the gateway, and after a
// list and search load over that workspace, read from /proc, with V8's share of it from the process's
// own metrics. The budget is 400 MB. With `--target containers`, the same for every replica
// of the system run from its images, each against its pod's memory limit in the chart's values.
'use strict';
const fs = require('node:fs');
const { Agent, fetch, FormData } = require('undici');
const { load } = require('../load');
const { signUpUnlimited } = require('../support');

const ROWS = 100_000;
const BUDGET_MB = 400;

/** VmRSS (now) and VmHWM (the peak since start) of a process, in MB. */
function residentMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)[1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** Where the resident set goes, from the process's own metrics: V8's heap (used and reserved) and what V8 knows lives outside it, in MB. */
async function heapMb(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const mb = (metric) => Math.round(Number(new RegExp(`^${metric} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20);
  return {
    heapUsed: mb('nodejs_heap_size_used_bytes'),
    heapTotal: mb('nodejs_heap_size_total_bytes'),
    external: mb('nodejs_external_memory_bytes'),
  };
}

/** A CSV whose first names repeat (Asa0…Asa499), so searches find many, few or no contacts. */
function contactsCsv(rows) {
  let text = 'email,first name,last name,company\n';
  for (let n = 0; n < rows; n++) text += `member${n}@example${n % 50}.org,Asa${n % 500},Surname${n},Company ${n % 1000}\n`;
  return text;
}

async function importContacts(cluster, agent, token, log) {
  const form = new FormData();
  form.append('file', new Blob([contactsCsv(ROWS)], { type: 'text/csv' }), 'memory.csv');
  const base = cluster.gateways[0].url;
  const auth = { authorization: `Bearer ${token}` };
  const started = await fetch(`${base}/api/crm/contacts/import/start/`, { method: 'POST', headers: auth, body: form, dispatcher: agent });
  const { uid } = await started.json();
  if (started.status !== 202) throw new Error(`import refused: ${started.status}`);
  for (;;) {
    const job = await (await fetch(`${base}/api/crm/contacts/import-jobs/${uid}/`, { headers: auth, dispatcher: agent })).json();
    if (job.status === 'complete' && job.successCount === ROWS) return;
    if (job.status === 'complete' || job.status === 'failed') throw new Error(`import ended ${job.status}: ${job.successCount}/${ROWS}`);
    log(`import ${job.progressPercent}%`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/** Resident set and V8 heap of every measured process, by name. */
async function snapshot(processes) {
  const entries = await Promise.all(processes.map(async (p) => [p.name, { ...residentMb(p.pid), heap: await heapMb(p.metricsUrl) }]));
  return Object.fromEntries(entries);
}

module.exports = async function memorySuite({ cluster, api, seconds, log }) {
  const containers = typeof cluster.measuredProcesses === 'function';
  const processes = containers
    ? await cluster.measuredProcesses()
    : [{ name: 'npm start', pid: cluster.pid, metricsUrl: cluster.metricsUrl, limitMb: BUDGET_MB }];
  const idle = await snapshot(processes);
  const { access } = await signUpUnlimited(cluster, api, 'memory');
  const agent = new Agent({ connect: { ca: cluster.ca } });
  try {
    await importContacts(cluster, agent, access, log);
  } finally {
    await agent.close();
  }
  const afterImport = await snapshot(processes);
  for (const p of processes)
    log(
      `${p.name}: RSS idle ${Math.round(idle[p.name].rss)} MB, after the import ${Math.round(afterImport[p.name].rss)} MB (V8 heap ${JSON.stringify(afterImport[p.name].heap)})`,
    );
  const gateway = cluster.gateways[0].url;
  const queries = {
    listPage: '/api/contacts/?limit=20',
    searchCommon: '/api/contacts/?search=asa1',
    searchRare: '/api/contacts/?search=surname4242',
    searchMiss: '/api/contacts/?search=zzzz',
    searchShort: '/api/contacts/?search=a4',
    // The first list load runs straight after the import, while the process still collects the
    // import's garbage and compiles the list path; this one is the same page once that is done.
    listPageWarm: '/api/contacts/?limit=20',
  };
  const latency = {};
  for (const [name, query] of Object.entries(queries)) {
    const result = await load({ url: `${gateway}${query}`, headers: { authorization: `Bearer ${access}` }, seconds, connections: 4 });
    if (result.failed > 0) throw new Error(`${name}: ${result.failed} failed requests`);
    latency[name] = { requestsPerSecond: result.requestsPerSecond, p99: result.p99 };
  }
  const afterLoad = await snapshot(processes);
  const byProcess = Object.fromEntries(
    processes.map((p) => [
      p.name,
      {
        limitMb: p.limitMb,
        rssMb: {
          idle: Math.round(idle[p.name].rss),
          afterImport: Math.round(afterImport[p.name].rss),
          afterSearchLoad: Math.round(afterLoad[p.name].rss),
        },
        peakRssMb: Math.round(afterLoad[p.name].peak),
        v8HeapMb: { idle: idle[p.name].heap, afterImport: afterImport[p.name].heap, afterSearchLoad: afterLoad[p.name].heap },
      },
    ]),
  );
  for (const [name, m] of Object.entries(byProcess))
    log(
      `${name}: RSS after the search load ${m.rssMb.afterSearchLoad} MB (peak ${m.peakRssMb} of ${m.limitMb} MB; V8 heap ${JSON.stringify(m.v8HeapMb.afterSearchLoad)})`,
    );
  // The ratio is the process closest to its bound: the budget for npm start, the pod's limit for a container.
  const ratio = Math.max(...processes.map((p) => (containers ? byProcess[p.name].peakRssMb : afterLoad[p.name].rss) / p.limitMb));
  const [only] = processes;
  return containers
    ? {
        name: `memory (images, one replica of each kind): peak resident set of each container through a ${ROWS.toLocaleString('en')}-contact import and a search load`,
        ratio,
        target: "< 1 (each container's peak RSS over its pod's memory limit in charts/crm/values.yaml)",
        baseline: {
          what: 'each container idle, before the import',
          rssMb: Object.fromEntries(processes.map((p) => [p.name, Math.round(idle[p.name].rss)])),
        },
        measured: byProcess,
        searchLoad: { connections: 4, seconds, latency },
      }
    : {
        name: `memory (npm start): resident set after a ${ROWS.toLocaleString('en')}-contact import and a search load`,
        ratio,
        target: `< 1 (the RSS over a ${BUDGET_MB} MB budget)`,
        baseline: { what: 'the same process idle, before the import', rssMb: idle[only.name].rss, v8HeapMb: idle[only.name].heap },
        measured: {
          rssAfterImportMb: afterImport[only.name].rss,
          rssAfterSearchLoadMb: afterLoad[only.name].rss,
          peakRssMb: afterLoad[only.name].peak,
          v8HeapMb: { afterImport: afterImport[only.name].heap, afterSearchLoad: afterLoad[only.name].heap },
        },
        searchLoad: { connections: 4, seconds, latency },
      };
};
module.exports.targets = ['npm-start', 'containers'];
