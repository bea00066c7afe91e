// Exports suite: POST /api/exports/ of 100,000 realistic contacts (bench/make-contacts.mjs, the
// shared generator with its fixed seed) as CSV, polled to `complete` and downloaded through the
// gateway: rows/s from the POST to the download's last byte, against the aim of 50,000
// rows/s and against the same run's baseline, the records store's own walk over the same
// contacts (the snapshot's cursor pages, in this process, nothing formatted or sent). The resident
// set of every process on the path is sampled before and during the export. SQLite only: the
// contacts are written straight into the records store's file (safe across processes). Runs
// against the local cluster or `npm start` (`--target npm-start`, one process).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { request } = require('undici');
const { signUpUnlimited } = require('../support');
const { contactDocuments, insertContacts, recordsFile } = require('../realistic-contacts');

const ROOT = path.resolve(__dirname, '../..');
const ROWS = 100_000;
const PAGE = 1000;

async function seed(cluster, workspaceId, log) {
  const documents = contactDocuments(workspaceId, ROWS);
  await insertContacts(cluster, workspaceId, documents, 'exports');
  log(`seeded ${documents.length} contacts`);
  return documents.length;
}

/** The baseline: the store's own cursor walk over the workspace's contacts, newest first, from one snapshot. */
async function storeWalk(cluster, workspaceId) {
  const { openStore, listPage } = require(path.join(ROOT, 'libs/store/dist'));
  const { contacts } = require(path.join(ROOT, 'services/records/dist/store/collections'));
  const store = await openStore({
    location: { kind: 'sqlite', file: recordsFile(cluster) },
    collections: [contacts],
  });
  try {
    const started = process.hrtime.bigint();
    const snapshot = await store.openSnapshot();
    let rows = 0;
    let cursor;
    do {
      const page = await listPage(snapshot.forWorkspace(workspaceId), contacts, {
        where: [],
        sort: { field: 'createdAt', direction: 'desc' },
        offset: 0,
        limit: PAGE,
        cursor,
        owner: workspaceId,
      });
      rows += page.items.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    await snapshot.close();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { rows, seconds, rowsPerSecond: rows / seconds };
  } finally {
    await store.close();
  }
}

/** VmRSS of a process, in MB. */
function rssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) / 1024;
}

function pathPids(cluster) {
  if (!cluster.processes) return { 'npm start': cluster.pid };
  const pids = {};
  for (const [name, proc] of cluster.processes) {
    if ((name.startsWith('gateway-') || name === 'records' || name.startsWith('import')) && proc.child?.pid) pids[name] = proc.child.pid;
  }
  return pids;
}

/** Samples every process's RSS until stopped; the highest each reached. */
function rssSampler(pids) {
  const peak = Object.fromEntries(Object.keys(pids).map((name) => [name, 0]));
  const timer = setInterval(() => {
    for (const [name, pid] of Object.entries(pids)) peak[name] = Math.max(peak[name], rssMb(pid));
  }, 25);
  return () => {
    clearInterval(timer);
    return Object.fromEntries(Object.entries(peak).map(([name, mb]) => [name, Math.round(mb)]));
  };
}

async function exportOnce(cluster, access, log) {
  const base = cluster.gateways[0].url;
  const { Agent } = require('undici');
  // Generous timeouts: on a loaded machine a first connection can wait its turn for seconds.
  const agent = new Agent({ connect: { ca: cluster.ca, timeout: 60_000 }, headersTimeout: 120_000, bodyTimeout: 120_000 });
  const headers = { authorization: `Bearer ${access}`, 'content-type': 'application/json' };
  try {
    const started = process.hrtime.bigint();
    let created;
    let job;
    // A loaded machine can make a service answer 503 at first (a deadline passed): asked again.
    for (let attempt = 1; ; attempt++) {
      created = await request(`${base}/api/exports/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ kind: 'contact', format: 'csv' }),
        dispatcher: agent,
      });
      job = await created.body.json();
      if (created.statusCode !== 503 || attempt >= 5) break;
      log('export answered 503; again in 3 s');
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
    if (created.statusCode !== 202) throw new Error(`export refused: ${created.statusCode} ${JSON.stringify(job)}`);
    let polled;
    for (;;) {
      const answer = await request(`${base}/api/exports/${job.id}/`, { headers, dispatcher: agent });
      polled = await answer.body.json();
      if (polled.status === 'complete') break;
      if (polled.status === 'failed') throw new Error(`export failed: ${polled.errorMessage}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const ready = process.hrtime.bigint();
    const download = await request(`${base}/api/exports/${job.id}/download/`, { headers, dispatcher: agent });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of download.body) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    }
    const finished = process.hrtime.bigint();
    const seconds = Number(finished - started) / 1e9;
    const rows = lines - 1;
    log(`export: ${rows} rows, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(2)} s`);
    return {
      rows,
      rowCount: polled.rowCount,
      bytes,
      seconds,
      rowsPerSecond: rows / seconds,
      jobSeconds: Number(ready - started) / 1e9,
      downloadSeconds: Number(finished - ready) / 1e9,
    };
  } finally {
    await agent.close();
  }
}

/** A workspace without a rate limit, asked again while a loaded machine makes auth answer 503. */
async function signedUp(cluster, api, log) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await signUpUnlimited(cluster, api, `exports${attempt}`);
    } catch (error) {
      if (attempt >= 10 || !/503/.test(String(error))) throw error;
      log(`sign-up answered 503 (attempt ${attempt}); again in 3 s`);
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  }
}

module.exports = exportsSuite;
module.exports.targets = ['cluster', 'npm-start'];

async function exportsSuite({ cluster, api, log }) {
  const { access, user } = await signedUp(cluster, api, log);
  const seeded = await seed(cluster, user.workspaceId, log);
  const pids = pathPids(cluster);
  const baseline = await storeWalk(cluster, user.workspaceId);
  log(`baseline: the store's own snapshot walk, ${Math.round(baseline.rowsPerSecond)} rows/s`);
  // A warm-up export (first statements prepared, first connections opened), then the measured one.
  await exportOnce(cluster, access, log);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, Math.round(rssMb(pid))]));
  const stop = rssSampler(pids);
  const measured = await exportOnce(cluster, access, log);
  const during = stop();
  if (measured.rows !== seeded || measured.rowCount !== seeded)
    throw new Error(`exported ${measured.rows} rows (rowCount ${measured.rowCount}) of ${seeded}`);
  return {
    name: `exports: ${seeded} realistic contacts as CSV, POST to the download's last byte`,
    ratio: measured.rowsPerSecond / 50_000,
    target: 'at least 50,000 rows/s (ratio above 1)',
    vsStoreWalk: measured.rowsPerSecond / baseline.rowsPerSecond,
    baselines: { storeSnapshotWalk: baseline },
    measured,
    rssMb: { before, duringPeak: during },
  };
}
