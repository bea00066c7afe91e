// Batch suite: POST /api/contacts/batch/ upserting 100,000 realistic contacts (bench/make-contacts.mjs,
// faker with its fixed seed) matched on email, in batches of 1,000 through the gateway, half of them
// new and half existing with a changed field (every batch 500 of each), as records per minute; and
// as a ratio to the store's own bulk upsert of the same rows in the same run: the same contacts
// looked up by emailKey and committed as updates and inserts, 1,000 a commit, into a fresh SQLite
// file with the records service's contacts collection, in this process (no activities, no events,
// no gateway, no gRPC: what the endpoint adds on top is its cost). The aims (issue 32): at least
// 100,000 records a minute in `npm start`, and at least 0.5 of the store's bulk upsert.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Readable } = require('node:stream');
const { Agent, request } = require('undici');
const { signUpUnlimited } = require('../support');
const { clusterPids, cpuWindow } = require('../cpu-time');

const ROOT = path.resolve(__dirname, '../..');
const ROWS = Number(process.env.BENCH_BATCH_ROWS ?? 100_000);
const BATCH = 1000;
/** Batches in flight at once, as an integration with a small worker pool sends them. */
const CONCURRENCY = 2;

/** The generator's rows (First Name, Last Name, Email, Phone, Title, Tags) as contact bodies. */
async function realisticContacts(rows, log) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'crm-bench-batch-')), 'contacts.csv');
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'bench/make-contacts.mjs'), String(rows), file, '--max-bytes', '1000000000'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const { parse } = require('fast-csv');
    const bodies = [];
    await new Promise((resolve, reject) => {
      Readable.from([fs.readFileSync(file)])
        .pipe(parse({ headers: true }))
        .on('data', (row) =>
          bodies.push({
            firstName: row['First Name'],
            lastName: row['Last Name'],
            email: row.Email,
            phone: row.Phone,
            title: row.Title,
            tags: row.Tags ? row.Tags.split(';') : [],
          }),
        )
        .on('error', reject)
        .on('end', resolve);
    });
    if (bodies.length !== rows) throw new Error(`make-contacts wrote ${bodies.length} rows, not ${rows}`);
    log(`data: ${rows} realistic contacts from make-contacts.mjs`);
    return bodies;
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

/** The change each existing contact gets in the measured run: a field a reader sees. */
const changed = (body) => ({ ...body, title: `${body.title} (updated)` });

/**
 * The measured batches: every batch holds 500 existing contacts with a change and 500 new ones, so
 * each one commits as many updates as inserts.
 */
function measuredBatches(bodies) {
  const half = bodies.length / 2;
  const batches = [];
  for (let start = 0; start < half; start += BATCH / 2) {
    batches.push([...bodies.slice(start, start + BATCH / 2).map(changed), ...bodies.slice(half + start, half + start + BATCH / 2)]);
  }
  return batches;
}

async function sendAll(base, agent, token, batches, operation, concurrency) {
  let next = 0;
  const counts = { created: 0, updated: 0, unchanged: 0, error: 0 };
  const latencies = [];
  const worker = async () => {
    while (next < batches.length) {
      const records = batches[next++];
      const t0 = process.hrtime.bigint();
      const res = await request(`${base}/api/contacts/batch/`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ operation, matchOn: 'email', records }),
        headersTimeout: 120_000,
        bodyTimeout: 120_000,
      });
      const answer = JSON.parse(await res.body.text());
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (res.statusCode !== 200) throw new Error(`batch refused: ${res.statusCode} ${JSON.stringify(answer).slice(0, 500)}`);
      for (const [status, n] of Object.entries(answer.counts)) counts[status] = (counts[status] ?? 0) + n;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  latencies.sort((a, b) => a - b);
  return { counts, batchMs: { p50: latencies[Math.floor(latencies.length / 2)], max: latencies.at(-1) } };
}

/**
 * The store's own bulk upsert: the first half inserted (not timed), then the same measured batches
 * looked up by emailKey and committed as updates of the found and inserts of the rest, 1,000 a commit.
 */
async function storeBulkUpsert(bodies) {
  const { openStore } = require(path.join(ROOT, 'libs/store/dist'));
  const { contacts } = require(path.join(ROOT, 'services/records/dist/store/collections'));
  const { newContact, contactChanges } = require(path.join(ROOT, 'services/records/dist/domain/contact-rules'));
  const { NO_REFERENCES } = require(path.join(ROOT, 'services/records/dist/domain/field-rules'));
  const { newId } = require(path.join(ROOT, 'services/records/dist/domain/ids'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-bench-store-'));
  try {
    const store = await openStore({ location: { kind: 'sqlite', file: path.join(dir, 'records.db') }, collections: [contacts] });
    const scoped = store.forWorkspace('wsp_bench_bulk');
    const now = new Date().toISOString().slice(0, 19) + 'Z';
    const build = (body) => newContact({ body, references: NO_REFERENCES }, newId('cnt'), 'wsp_bench_bulk', now);
    const seed = bodies.slice(0, bodies.length / 2).map(build);
    for (let i = 0; i < seed.length; i += BATCH)
      await scoped.commit(seed.slice(i, i + BATCH).map((document) => ({ kind: 'insert', collection: contacts, document })));
    const started = process.hrtime.bigint();
    for (const batch of measuredBatches(bodies)) {
      const keys = batch.map((b) => b.email.toLowerCase());
      const found = new Map(
        (await scoped.find(contacts, { where: [{ field: 'emailKey', op: 'in', values: keys }] })).map((c) => [c.emailKey, c]),
      );
      const ops = batch.map((body) => {
        const current = found.get(body.email.toLowerCase());
        if (!current) return { kind: 'insert', collection: contacts, document: build(body) };
        const set = contactChanges(current, { body, references: NO_REFERENCES }, now);
        return { kind: 'update', collection: contacts, id: current.id, change: { set, inc: { version: 1 } }, where: [], required: true };
      });
      await scoped.commit(ops);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await store.close();
    return { rows: bodies.length, seconds, recordsPerMinute: (bodies.length / seconds) * 60 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = async function batchSuite({ cluster, api, log }) {
  const signup = await signUpUnlimited(cluster, api, 'batch');
  const token = signup.access;
  const bodies = await realisticContacts(ROWS, log);

  const bulk = await storeBulkUpsert(bodies);
  log(`store bulk upsert (contacts, same indexes, 1,000 a commit): ${Math.round(bulk.recordsPerMinute)} records/min`);

  const agent = new Agent({ connect: { ca: cluster.ca }, connections: CONCURRENCY });
  const base = cluster.gateways[0].url;
  try {
    log(`seeding the first ${ROWS / 2} contacts through the endpoint (create, not timed)`);
    const seedBatches = [];
    for (let i = 0; i < ROWS / 2; i += BATCH) seedBatches.push(bodies.slice(i, i + BATCH));
    const seeded = await sendAll(base, agent, token, seedBatches, 'create', CONCURRENCY);
    if (seeded.counts.created !== ROWS / 2) throw new Error(`seeding created ${seeded.counts.created}`);

    log(`measured: ${ROWS} upserts on email in batches of ${BATCH}, ${CONCURRENCY} in flight`);
    const pids = cluster.processes ? clusterPids(cluster) : { loadGenerator: process.pid, 'npm start': cluster.pid };
    delete pids.redis;
    const cpu = cpuWindow(pids);
    const started = process.hrtime.bigint();
    const run = await sendAll(base, agent, token, measuredBatches(bodies), 'upsert', CONCURRENCY);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpuMsPer1000Records = cpu.stop(ROWS / 1000);
    if (run.counts.created !== ROWS / 2 || run.counts.updated !== ROWS / 2)
      throw new Error(`expected ${ROWS / 2} created and ${ROWS / 2} updated, got ${JSON.stringify(run.counts)}`);
    const recordsPerMinute = (ROWS / seconds) * 60;
    log(
      `batch upsert: ${Math.round(recordsPerMinute)} records/min (${seconds.toFixed(1)} s); CPU ms per 1,000 ${JSON.stringify(cpuMsPer1000Records)}`,
    );
    return {
      name: `batch (${cluster.target ?? 'local cluster'}): upsert of ${ROWS} realistic contacts on email, ${BATCH} a batch, half new and half changed`,
      ratio: recordsPerMinute / bulk.recordsPerMinute,
      target: "≥ 0.5 of the store's bulk upsert, and ≥ 100,000 records/min in npm start",
      baseline: {
        what: "the store's own bulk upsert of the same rows (look-up by emailKey, then updates and inserts, 1,000 a commit) into a fresh SQLite file with records' contacts collection, this process",
        ...bulk,
      },
      measured: { rows: ROWS, seconds, recordsPerMinute, counts: run.counts, batchMs: run.batchMs, concurrency: CONCURRENCY },
      meetsRecordsPerMinute: recordsPerMinute >= 100_000,
      cpuMsPer1000Records,
    };
  } finally {
    await agent.close();
  }
};
module.exports.targets = ['cluster', 'npm-start'];
