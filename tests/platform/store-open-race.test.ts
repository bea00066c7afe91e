/**
 * A service and its workers open one SQLite file at the same moment at every start. Without the
 * adapter's retry, about 1 open in 60 failed with "database is locked" when six processes opened
 * a new file together (SQLite's busy handler does not cover every step of opening a WAL database).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const ROUNDS = 30;
const PROCESSES = 6;

const OPEN = `
const { openStore } = require(${JSON.stringify(join(ROOT, 'libs/store/dist'))});
const { automationCollections } = require(${JSON.stringify(join(ROOT, 'services/automation/dist/store/collections'))});
openStore({ location: { kind: 'sqlite', file: process.argv[1] }, collections: automationCollections })
  .then((store) => store.close())
  .then(() => process.exit(0), (error) => { process.stderr.write(String(error && error.message)); process.exit(1); });
`;

function openInChild(file: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', OPEN, file], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

it(`opens one new file from ${PROCESSES} processes at once, ${ROUNDS} times, without a failure`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'crm-open-race-'));
  try {
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const file = join(dir, `round-${round}.db`);
      const results = await Promise.all(Array.from({ length: PROCESSES }, () => openInChild(file)));
      for (const { code, stderr } of results) if (code !== 0) failures.push(`round ${round}: ${stderr || `exit ${code}`}`);
    }
    expect(failures).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
