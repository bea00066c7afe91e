// Audit suite: what the audit log adds to a write. Issue 33's aims: an audited PATCH costs at most
// 1.2× an unaudited one, and an import's rows/s falls by at most 10% with its audit entries.
// Measured in-process, in the same run, on the records service over its embedded store (a file,
// as in the cluster): the same PATCHes and the same import batches once as built, once with
// RecordWriter.audit and auditCreations made no-ops (no entry or group staged, nothing else
// changed), rounds interleaved so both see the same machine. The cluster around it is not used:
// gateway and gRPC costs are the same for both and would only dilute the ratio.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const dist = (p) => require(path.join(ROOT, 'services/records/dist', p));
const ROUNDS = 6;
const PATCHES_PER_ROUND = 400;
const IMPORT_ROWS_PER_ROUND = 5000;
const IMPORT_BATCH = 500;

async function harness(dir, name) {
  const { openStore } = require(path.join(ROOT, 'libs/store/dist'));
  const { createRecordsResources } = dist('application/records-resources');
  const { RecordsRepository } = dist('store/records-repository');
  const { recordsCollections } = dist('store/collections');
  const { StaticUserDirectory } = dist('adapters/user-directory');
  const store = await openStore({ location: { kind: 'sqlite', file: path.join(dir, `${name}.db`) }, collections: recordsCollections });
  const service = createRecordsResources({
    repository: new RecordsRepository(store),
    users: new StaticUserDirectory({ usr_bench: { workspaceId: 'ws_bench', name: 'Bench User' } }),
    relay: { register: async () => undefined, poke: () => undefined },
  });
  return { store, service };
}

const caller = (requestId) => ({ workspaceId: 'ws_bench', actor: { id: 'usr_bench', type: 'user' }, correlationId: requestId });

async function timePatches(service, ids, round) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < PATCHES_PER_ROUND; i += 1) {
    const id = ids[i % ids.length];
    await service.contacts.update(caller(`bench-${round}-${i}`), id, { body: { title: `Title ${round}-${i}`, phone: `+1 555 ${i}` } });
  }
  // A PATCH's entry is staged in its commit and moved into the log with others later (audit-staging.ts):
  // the round is timed until every entry it staged is in the log, so the move is counted in it.
  await service.context.auditStaging.move('ws_bench');
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** The import's rows: the shared generator's (bench/make-contacts.mjs), as the CSV import maps them. */
function realisticBodies(count) {
  const { contactsCsv, csvFields } = require('../realistic-contacts');
  const lines = contactsCsv(count).split('\n').slice(1).filter(Boolean).slice(0, count);
  return lines.map((line) => {
    const [firstName, lastName, email, phone, title, tags] = csvFields(line);
    return {
      firstName,
      lastName,
      email,
      phone,
      title,
      tags: tags
        ? tags
            .split(';')
            .map((t) => t.trim())
            .filter(Boolean)
        : [],
    };
  });
}

async function timeImport(service, bodies, round, tag) {
  const started = process.hrtime.bigint();
  for (let b = 0; b < IMPORT_ROWS_PER_ROUND / IMPORT_BATCH; b += 1) {
    const rows = Array.from({ length: IMPORT_BATCH }, (_, i) => {
      const n = round * IMPORT_ROWS_PER_ROUND + b * IMPORT_BATCH + i;
      return { row: i + 1, body: bodies[n] };
    });
    await service.contactBatches.create(caller(`import-${tag}-${round}-${b}`), { idempotencyKey: `${tag}-${round}-${b}`, rows });
  }
  return Number(process.hrtime.bigint() - started) / 1e6;
}

module.exports = async function auditSuite({ log }) {
  const { RecordWriter } = dist('application/record-writer');
  const { audit, auditCreations } = RecordWriter.prototype;
  const bodies = realisticBodies(ROUNDS * IMPORT_ROWS_PER_ROUND);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-audit-'));
  const setAudit = (on) => {
    RecordWriter.prototype.audit = on ? audit : (changes) => changes;
    RecordWriter.prototype.auditCreations = on ? auditCreations : (changes) => changes;
  };
  const open = [];
  /** A pair of stores, audited and not, for one phase (closed at its end). */
  const pair = async (phase) => {
    const stores = { audited: await harness(dir, `${phase}-audited`), unaudited: await harness(dir, `${phase}-unaudited`) };
    open.push(stores.audited, stores.unaudited);
    return stores;
  };
  /** Rounds of `work` on each store of the pair, in alternating order so warm-up and drift fall on both. */
  const interleaved = async (phase, stores, work) => {
    const totals = { audited: 0, unaudited: 0 };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const name of round % 2 === 0 ? ['audited', 'unaudited'] : ['unaudited', 'audited']) {
        setAudit(name === 'audited');
        totals[name] += await work(stores[name], name, round);
      }
      log(`${phase}: round ${round + 1}/${ROUNDS} done`);
    }
    return totals;
  };
  try {
    // The PATCHes and the import each on stores of their own, one after the other: the log pages
    // one phase leaves the checkpointer would otherwise be paid for in the other's time.
    const patchStores = await pair('patch');
    const ids = {};
    for (const [name, h] of Object.entries(patchStores)) {
      setAudit(name === 'audited');
      ids[name] = [];
      for (let i = 0; i < 200; i += 1)
        ids[name].push(
          (await h.service.contacts.create(caller('seed'), { body: { firstName: 'P', lastName: `${i}`, email: `p${i}@example.com` } })).id,
        );
    }
    const totals = {
      patch: await interleaved('PATCH', patchStores, (h, name, round) => timePatches(h.service, ids[name], round)),
      import: await interleaved('import', await pair('import'), (h, name, round) => timeImport(h.service, bodies, round, name)),
    };
    const patches = ROUNDS * PATCHES_PER_ROUND;
    const rows = ROUNDS * IMPORT_ROWS_PER_ROUND;
    const patchRatio = totals.patch.audited / totals.patch.unaudited;
    const importRowsPerSecond = {
      audited: rows / (totals.import.audited / 1000),
      unaudited: rows / (totals.import.unaudited / 1000),
    };
    const importDrop = 1 - importRowsPerSecond.audited / importRowsPerSecond.unaudited;
    return {
      name: 'audit: audited vs unaudited PATCH and import on the records service (same run)',
      ratio: patchRatio,
      target: 'audited PATCH ≤ 1.2× unaudited; import rows/s falls ≤ 10%',
      patchMs: { audited: totals.patch.audited / patches, unaudited: totals.patch.unaudited / patches },
      importRowsPerSecond,
      importDrop,
      met: patchRatio <= 1.2 && importDrop <= 0.1,
    };
  } finally {
    Object.assign(RecordWriter.prototype, { audit, auditCreations });
    for (const h of open) await h.store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
};
