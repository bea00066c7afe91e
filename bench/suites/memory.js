// Memory suite (`npm run bench -- --only memory --target npm-start`): the resident set of the one
// `npm start` process idle, after a 100,000-contact CSV import through the gateway, and after a
// list and search load over that workspace, read from /proc, with V8's share of it from the process's
// own metrics. The budget is 400 MB.
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

module.exports = async function memorySuite({ cluster, api, seconds, log }) {
  const pid = cluster.pid;
  const idle = residentMb(pid);
  const idleHeap = await heapMb(cluster.metricsUrl);
  const { access } = await signUpUnlimited(cluster, api, 'memory');
  const agent = new Agent({ connect: { ca: cluster.ca } });
  try {
    await importContacts(cluster, agent, access, log);
  } finally {
    await agent.close();
  }
  const afterImport = residentMb(pid);
  const afterImportHeap = await heapMb(cluster.metricsUrl);
  log(`RSS idle ${idle.rss.toFixed(0)} MB, after the import ${afterImport.rss.toFixed(0)} MB (V8 heap ${JSON.stringify(afterImportHeap)})`);
  const gateway = cluster.gateways[0].url;
  const queries = {
    listPage: '/api/contacts/?limit=20',
    searchCommon: '/api/contacts/?search=asa1',
    searchRare: '/api/contacts/?search=surname4242',
    searchMiss: '/api/contacts/?search=zzzz',
    searchShort: '/api/contacts/?search=a4',
  };
  const latency = {};
  for (const [name, query] of Object.entries(queries)) {
    const result = await load({ url: `${gateway}${query}`, headers: { authorization: `Bearer ${access}` }, seconds, connections: 4 });
    if (result.failed > 0) throw new Error(`${name}: ${result.failed} failed requests`);
    latency[name] = { requestsPerSecond: result.requestsPerSecond, p99: result.p99 };
  }
  const afterLoad = residentMb(pid);
  const afterLoadHeap = await heapMb(cluster.metricsUrl);
  log(
    `RSS after the search load ${afterLoad.rss.toFixed(0)} MB (peak ${afterLoad.peak.toFixed(0)} MB; V8 heap ${JSON.stringify(afterLoadHeap)})`,
  );
  return {
    name: `memory (npm start): resident set after a ${ROWS.toLocaleString('en')}-contact import and a search load`,
    ratio: afterLoad.rss / BUDGET_MB,
    target: `< 1 (the RSS over a ${BUDGET_MB} MB budget)`,
    baseline: { what: 'the same process idle, before the import', rssMb: idle.rss, v8HeapMb: idleHeap },
    measured: {
      rssAfterImportMb: afterImport.rss,
      rssAfterSearchLoadMb: afterLoad.rss,
      peakRssMb: afterLoad.peak,
      v8HeapMb: { afterImport: afterImportHeap, afterSearchLoad: afterLoadHeap },
    },
    searchLoad: { connections: 4, seconds, latency },
  };
};
module.exports.targets = ['npm-start'];
