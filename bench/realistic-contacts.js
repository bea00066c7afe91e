// Realistic contacts for the suites that seed the records store directly (exports, custom
// fields): the shared generator's rows (bench/make-contacts.mjs, fixed seed), made into contacts
// by the records service's own rules, and where the store's file is.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');

/** The generator's CSV, made once and kept in the temp directory (no byte cap, so all 100,000 rows). */
function contactsCsv(ROWS) {
  const file = path.join(os.tmpdir(), `crm-bench-export-contacts-${ROWS}.csv`);
  if (!fs.existsSync(file)) {
    const partial = `${file}.${process.pid}.tmp`;
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'bench/make-contacts.mjs'), String(ROWS), partial, '--max-bytes', '20000000'], {
        cwd: ROOT,
        stdio: 'ignore',
      });
    } catch (error) {
      throw new Error(`bench/make-contacts.mjs failed (it needs the dev dependency @faker-js/faker 10): ${error.message}`);
    }
    fs.renameSync(partial, file);
  }
  return fs.readFileSync(file, 'utf8');
}

/** One line's fields (RFC 4180; the generator's lines hold no line breaks). */
function csvFields(line) {
  const fields = [];
  let value = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        value += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else value += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(value);
      value = '';
    } else value += c;
  }
  fields.push(value);
  return fields;
}

/** The contacts as the records service makes them (its rules, search text, defaults). */
function contactDocuments(workspaceId, rows, customFields = () => ({}), definitions = []) {
  const { newContact } = require(path.join(ROOT, 'services/records/dist/domain/contact-rules'));
  const { NO_REFERENCES } = require(path.join(ROOT, 'services/records/dist/domain/field-rules'));
  const { newId } = require(path.join(ROOT, 'services/records/dist/domain/ids'));
  const lines = contactsCsv(rows).split('\n').slice(1).filter(Boolean).slice(0, rows);
  const start = Date.UTC(2025, 0, 1);
  return lines.map((line, n) => {
    const [firstName, lastName, email, phone, title, tags] = csvFields(line);
    const body = {
      firstName,
      lastName,
      email,
      phone,
      title,
      customFields: customFields(n),
      tags: tags
        ? tags
            .split(';')
            .map((t) => t.trim())
            .filter(Boolean)
        : [],
    };
    // Spread over two years, so the list's default order (newest first) is a real sort.
    const at = `${new Date(start + n * 600_000).toISOString().slice(0, 19)}Z`;
    return newContact({ body, references: { ...NO_REFERENCES, customFields: definitions } }, newId('cnt_'), workspaceId, at);
  });
}

/** The records store's file: a directory per service in the cluster, one directory for all in `npm start`. */
function recordsFile(cluster) {
  return cluster.processes ? path.join(cluster.dataDir, 'records', 'records.db') : path.join(cluster.dataDir, 'records.db');
}

/** Writes the contacts straight into the records store's file (safe across processes), 5,000 a commit. */
async function insertContacts(cluster, workspaceId, documents, suite) {
  const file = recordsFile(cluster);
  if (!fs.existsSync(file)) throw new Error(`no records store at ${file} (the ${suite} suite runs on SQLite only)`);
  const { openStore } = require(path.join(ROOT, 'libs/store/dist'));
  const { contacts } = require(path.join(ROOT, 'services/records/dist/store/collections'));
  const store = await openStore({ location: { kind: 'sqlite', file }, collections: [contacts] });
  try {
    const scoped = store.forWorkspace(workspaceId);
    for (let b = 0; b < documents.length; b += 5000) {
      await scoped.commit(documents.slice(b, b + 5000).map((document) => ({ kind: 'insert', collection: contacts, document })));
    }
  } finally {
    await store.close();
  }
}

module.exports = { contactsCsv, csvFields, contactDocuments, insertContacts, recordsFile };
