// Bulk isolation suite (issue 36 item 8): does one workspace's import slow another's interactive
// requests? Workspace A imports ~90,000 realistic rows (the shared generator, cut to the upload
// limit) while workspace B lists its contacts (`GET /api/contacts/?limit=20`, 4 connections).
// Same-run ratios: B's p99 during A's import over B's p99 idle (aim ≤ 2), and A's import speed with
// B's load over its speed alone (aim ≥ 0.8). Runs against the local cluster or `npm start`.
'use strict';
const autocannon = require('autocannon');
const { Agent, request } = require('undici');
const { signUpUnlimited, startImport } = require('../support');
const { contactsCsv } = require('../realistic-contacts');

const UPLOAD_LIMIT = 10 * 1024 * 1024;
const CONNECTIONS = 4;

/** The generator's CSV cut to whole lines under the upload limit (with room for the multipart frame). */
function importFile() {
  const csv = contactsCsv(100_000);
  const cut = csv.lastIndexOf('\n', UPLOAD_LIMIT - 4096);
  const text = csv.slice(0, cut + 1);
  return { bytes: Buffer.from(text), rows: text.split('\n').length - 2 };
}

/** Uploads the file as `token`'s workspace and polls the job to its end; rows/s from upload to complete. */
async function runImport(base, agent, token, file) {
  const started = process.hrtime.bigint();
  const accepted = await startImport(base, agent, token, file.bytes);
  for (;;) {
    const poll = await request(`${base}/api/crm/contacts/import-jobs/${accepted.uid}/`, {
      dispatcher: agent,
      headers: { authorization: `Bearer ${token}` },
    });
    const job = JSON.parse(await poll.body.text());
    if (job.status === 'failed') throw new Error(`import failed: ${job.errorMessage}`);
    if (job.status === 'complete') {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      return {
        rows: job.successCount + job.duplicateCount + job.errorCount,
        created: job.successCount,
        seconds,
        rowsPerSecond: file.rows / seconds,
      };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** B's list load until `until` settles (or `seconds` pass): requests/s and latency percentiles. */
function listLoad(url, token, { seconds, until }) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        headers: { authorization: `Bearer ${token}` },
        connections: CONNECTIONS,
        duration: seconds,
        tlsOptions: { rejectUnauthorized: false },
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          requestsPerSecond: result.requests.average,
          p50: result.latency.p50,
          p90: result.latency.p90,
          p99: result.latency.p99,
          max: result.latency.max,
          total: result.requests.total,
          failed: result.non2xx + result.errors + result.timeouts,
        });
      },
    );
    until?.then(
      () => instance.stop(),
      () => instance.stop(),
    );
  });
}

module.exports = async function bulkIsolationSuite({ cluster, api, log, seconds }) {
  const base = cluster.gateways[0].url;
  const agent = new Agent({ connect: { ca: cluster.ca } });
  try {
    const file = importFile();
    log(`file: ${file.rows} realistic rows, ${(file.bytes.length / 1024 / 1024).toFixed(2)} MiB`);
    const alone = await signUpUnlimited(cluster, api, 'bulk-alone');
    const beside = await signUpUnlimited(cluster, api, 'bulk-beside');
    const neighbour = await signUpUnlimited(cluster, api, 'bulk-neighbour');
    // B has a page to list: a small import of its own (the file's first 2,000 rows).
    const small = { bytes: file.bytes.subarray(0, file.bytes.indexOf('\n', 200_000) + 1) };
    small.rows = small.bytes.toString().split('\n').length - 2;
    await runImport(base, agent, neighbour.access, small);
    const listUrl = `${base}/api/contacts/?limit=20`;

    log(`B idle: GET /api/contacts/?limit=20, ${CONNECTIONS} connections, ${seconds} s`);
    await listLoad(listUrl, neighbour.access, { seconds: 2 }); // warm-up
    const idle = await listLoad(listUrl, neighbour.access, { seconds });
    log(`B idle: p99 ${idle.p99} ms, ${Math.round(idle.requestsPerSecond)} req/s`);

    log('A alone: the import with nothing beside it');
    const importAlone = await runImport(base, agent, alone.access, file);
    log(`A alone: ${Math.round(importAlone.rowsPerSecond)} rows/s (${importAlone.seconds.toFixed(1)} s)`);

    log("A beside B: the same import in a fresh workspace while B lists, for the import's whole run");
    const importing = runImport(base, agent, beside.access, file);
    const [importBeside, during] = await Promise.all([importing, listLoad(listUrl, neighbour.access, { seconds: 600, until: importing })]);
    log(
      `A beside B: ${Math.round(importBeside.rowsPerSecond)} rows/s; B during: p99 ${during.p99} ms, ${Math.round(during.requestsPerSecond)} req/s`,
    );
    if (importAlone.created !== file.rows || importBeside.created !== file.rows)
      throw new Error(`imports created ${importAlone.created} and ${importBeside.created} of ${file.rows} rows`);

    const idleAgain = await listLoad(listUrl, neighbour.access, { seconds });
    const idleP99 = Math.max(idle.p99, 1);
    return {
      name: `bulk isolation (${cluster.target ?? 'local cluster'}): another workspace's list during a ${file.rows}-row import`,
      ratio: during.p99 / idleP99,
      target: "≤ 2 (B's p99 during A's import over B's p99 idle), with A's import ≥ 0.8 of its speed alone",
      baseline: { what: `B's GET /api/contacts/?limit=20 idle, ${CONNECTIONS} connections, ${seconds} s`, ...idle },
      measured: { what: "the same during A's import (its whole run)", ...during },
      idleAfter: idleAgain,
      importSpeed: {
        ratio: importBeside.rowsPerSecond / importAlone.rowsPerSecond,
        target: '≥ 0.8',
        alone: importAlone,
        besideB: importBeside,
      },
    };
  } finally {
    await agent.close();
  }
};
module.exports.targets = ['cluster', 'npm-start'];
