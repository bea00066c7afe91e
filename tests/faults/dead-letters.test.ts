/**
 * A chunk whose handler keeps failing (records stopped) backs off with growing delays, is
 * dead-lettered once its retry budget (20 s here) is spent, shows in the worker's metrics and in
 * `npm run crm -- dead-letters list`, and once records is back `npm run crm -- dead-letters replay`
 * puts it back: the import completes with every row once.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { listeningSockets } from '../support/listening-sockets';
import { expectEveryRowOnce, peopleCsv, RecordsReader, uploadCsv } from '../import/import-support';

jest.setTimeout(300_000);

const run = promisify(execFile);
const ROOT = join(__dirname, '../..');
const ROWS = 50;

let t: TestCluster;
let records: RecordsReader;

beforeAll(async () => {
  // A short budget so the dead letter comes within the test; a long stall time so the sweeper does not re-drive the job first.
  t = await startTestCluster({ gateways: 1, workers: 1, env: { CHUNK_RETRY_BUDGET_MS: '20000', IMPORT_STALL_MS: '600000' } });
  records = new RecordsReader(t.cluster);
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  records?.close();
  await t?.stop();
}, 60_000);

/** `npm run crm -- dead-letters …`, as an operator runs it, with the run's broker settings. */
async function crm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, AMQP_URL: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', ...t.cluster.busEnv };
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', 'crm', '--', 'dead-letters', ...args], {
      cwd: ROOT,
      env,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

function httpText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

/** The worker's Prometheus text: whichever of its listening ports answers /metrics. */
async function workerMetrics(): Promise<string> {
  const worker = t.cluster.processes.get('import-worker-1') as unknown as { child: { pid: number } };
  for (const socket of listeningSockets(worker.child.pid)) {
    const text = await httpText(`http://127.0.0.1:${socket.port}/metrics`).catch(() => '');
    if (text.includes('# HELP')) return text;
  }
  throw new Error('the import worker serves no /metrics');
}

/** Pino lines of the worker's log with this message, oldest first. */
function logged(message: string): { at: number; [key: string]: unknown }[] {
  const logFile = (t.cluster.processes.get('import-worker-1') as unknown as { logFile: string }).logFile;
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes(`"${message}"`))
    .map((line) => JSON.parse(line))
    .map((entry) => ({ ...entry, at: Date.parse(entry.time) }));
}

it('backs a failing chunk off, dead-letters it after its budget, counts and lists it, and replays it through the CLI', async () => {
  const owner = await signUp(t.api);
  // The upload needs records; the chunk must meet it stopped: hold the worker back until then.
  const worker = t.cluster.processes.get('import-worker-1')!;
  await worker.stop();
  const uid = await uploadCsv(t.api, owner.access, peopleCsv(ROWS, `dead-${randomBytes(3).toString('hex')}`));
  await t.cluster.processes.get('records')!.stop();
  worker.start();

  let listed: any;
  for (const giveUpAt = Date.now() + 120_000; ;) {
    const list = await crm(['list', '--queue', 'import.chunks', '--json']);
    expect(list.stderr).toBe('');
    listed = JSON.parse(list.stdout);
    if (listed.total > 0 || Date.now() > giveUpAt) break;
    await new Promise((r) => setTimeout(r, 2000));
  }
  expect(listed.total).toBe(1);
  expect(listed.letters[0]).toMatchObject({ type: 'import.chunk.v1', correlationId: uid, reason: 'rejected' });

  // Delivered again after growing delays (1 s, 5 s, then what is left of the 20 s), then dead-lettered.
  const retries = logged('handler failed; the message comes back later');
  expect(retries.map((line) => line.retryInMs)).toEqual([1000, 5000, expect.any(Number)]);
  const failures = [
    ...logged('chunk failed; it will be retried'),
    ...logged('chunk failed on its last attempt and a batch of it could not be looked up'),
  ];
  const gaps = failures.slice(1).map((line, i) => line.at - failures[i]!.at);
  expect(gaps).toHaveLength(3);
  expect(gaps[1]!).toBeGreaterThan(gaps[0]!);
  expect(gaps[2]!).toBeGreaterThan(gaps[1]!);
  expect(logged('message dead-lettered')).toHaveLength(1);

  const metrics = await workerMetrics();
  expect(metrics).toMatch(/bus_messages_dead_lettered_total\{queue="import\.chunks",reason="budget_spent"\} 1\n/);
  expect(metrics).toMatch(/bus_dead_letter_depth\{queue="import\.chunks"\} 1\n/);
  expect(metrics).toMatch(/bus_message_retries_total\{queue="import\.chunks"\} 3\n/);
  expect((await t.api.get(`/api/crm/contacts/import-jobs/${uid}/`, { token: owner.access })).body.status).toBe('processing');

  await t.cluster.restart('records');
  const replay = await crm(['replay', '--queue', 'import.chunks', '--all']);
  expect(replay).toMatchObject({ code: 0, stdout: 'Replayed 1 message(s) into import.chunks.\n' });

  await expectEveryRowOnce(t.api, records, owner, uid, ROWS);
  expect(JSON.parse((await crm(['list', '--queue', 'import.chunks', '--json'])).stdout).total).toBe(0);
});

it('explains itself and refuses a replay with nothing chosen', async () => {
  const help = await crm(['--help']);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('crm dead-letters replay --queue <queue>');
  const refused = await crm(['replay', '--queue', 'import.chunks']);
  expect(refused.code).toBe(64);
  expect(refused.stderr).toContain('replay needs --id <message id> or --all.');
});
