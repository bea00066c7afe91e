/**
 * The README is a test. Its first-request walk runs as written, one command after another in one
 * shell, in a folder laid out like a fresh clone (every entry of this checkout but `data/`), against
 * `npm start` started there as the README says (`npm install` is what ran before this suite). Every
 * command of its commands table answers its `--help`. A step fails when it exits non-zero, prints
 * nothing, or answers something other than what the README says it does.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { npmStart, type RunningNpmStart } from '../support/npm-start';
import { readmeSection, shellBlock, shellSteps, type ShellStep } from './readme-steps';

const ROOT = path.resolve(__dirname, '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const WALK = shellSteps(shellBlock(readmeSection(README, 'A first request')));
const PORT = 8443; // the README's walk names it

interface Outcome {
  out: string;
  err: string;
  code: number;
}
interface Walk {
  clone: string;
  /** What the README says the workspace's limit is at this point of the walk. */
  limit: string;
}

const json = (text: string) => JSON.parse(text) as Record<string, any>;
const header = (text: string, name: string) => new RegExp(`^${name}: *(\\S+)`, 'im').exec(text)?.[1];

/**
 * What each command of the walk must answer, found by the first pattern that matches it. A command
 * with no entry fails the suite: a new README command needs its expectation here.
 */
const EXPECTATIONS: { command: RegExp; check(outcome: Outcome, walk: Walk): void; printsNothing?: true }[] = [
  { command: /\/api\/auth\/signup\//, check: ({ out }) => expect(json(out).user).toMatchObject({ email: 'ada@example.com' }) },
  { command: /^ACCESS=/, check: ({ out }) => expect(out).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/) },
  {
    command: /curl -sk -i https:\/\/localhost:8443\/api\/auth\/me\//,
    check: ({ out }, walk) => {
      expect(out).toMatch(/^HTTP\/1\.1 200/);
      expect(header(out, 'x-ratelimit-limit')).toBe(walk.limit);
      expect(header(out, 'x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(header(out, 'x-ratelimit-reset')).toMatch(/^\d+$/);
    },
  },
  { command: /--cacert data\/tls\/localhost\.crt/, check: ({ out }) => expect(json(out)).toMatchObject({ email: 'ada@example.com' }) },
  { command: /\/api\/settings\/api-keys\//, check: ({ out }) => expect(json(out).key).toMatch(/^crm_/) },
  { command: /^LEAD=/, check: ({ out }) => expect(out).toMatch(/^ld_\w+$/) },
  {
    command: /\/convert\//,
    check: ({ out }) =>
      expect(json(out)).toMatchObject({
        lead: { status: 'converted' },
        contact: { id: expect.stringMatching(/^cnt_/) },
        account: { name: 'Navy' },
        opportunity: { value: 50000 },
      }),
  },
  {
    command: /\/api\/contacts\/\?search=grace/,
    check: ({ out }) => expect(json(out).results.map((c: { email: string }) => c.email)).toContain('grace@example.com'),
  },
  {
    command: /\/api\/settings\/custom-fields\//,
    check: ({ out }) =>
      expect(json(out)).toMatchObject({ id: expect.stringMatching(/^fld_/), kind: 'contact', key: 'tier', type: 'select' }),
  },
  { command: /"customFields":\{"tier":"gold"\}/, check: ({ out }) => expect(json(out).customFields).toEqual({ tier: 'gold' }) },
  {
    command: /customFields\.tier=gold/,
    check: ({ out }) => expect(json(out).results.map((c: { customFields: object }) => c.customFields)).toEqual([{ tier: 'gold' }]),
  },
  {
    command: /^printf .* > data\/people\.csv$/,
    printsNothing: true,
    check: (_outcome, walk) =>
      expect(fs.readFileSync(path.join(walk.clone, 'data', 'people.csv'), 'utf8')).toBe(
        'First Name,Last Name,E-mail\nAda,Lovelace,ada.l@example.com\n',
      ),
  },
  { command: /^JOB=/, check: ({ out }) => expect(out).toMatch(/^[0-9a-f-]{36}$/) },
  { command: /^until curl/, printsNothing: true, check: ({ code }) => expect(code).toBe(0) },
  {
    command: /\/import-jobs\/\$JOB\/ /,
    check: ({ out }) => expect(json(out)).toMatchObject({ status: 'complete', totalRows: 1, successCount: 1, errorCount: 0 }),
  },
  {
    command: /^printf .* > data\/alan\.vcf$/,
    printsNothing: true,
    check: (_outcome, walk) =>
      expect(fs.readFileSync(path.join(walk.clone, 'data', 'alan.vcf'), 'utf8')).toBe(
        'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Alan Turing\r\nEMAIL:alan@example.com\r\nEND:VCARD\r\n',
      ),
  },
  {
    command: /\/api\/contacts\/import\/\?dryRun=true/,
    check: ({ out }) =>
      expect(json(out)).toEqual({
        created: [expect.objectContaining({ id: null, firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com' })],
        errors: [],
        duplicates: [],
        dryRun: true,
      }),
  },
  {
    command: /\/api\/contacts\/import\/ -H/,
    check: ({ out }) =>
      expect(json(out)).toMatchObject({ created: [{ id: expect.stringMatching(/^cnt_/), email: 'alan@example.com' }], dryRun: false }),
  },
  {
    command: /\/api\/automations\/templates\/\?category=lead_management/,
    check: ({ out }) => expect(json(out).results.map((t: { id: string }) => t.id)).toContain('tmpl_new_lead_welcome'),
  },
  { command: /^RULE=/, check: ({ out }) => expect(out).toMatch(/^rul_\w+$/) },
  {
    command: /\/rules\/\$RULE\/activate\//,
    check: ({ out }) => expect(json(out)).toMatchObject({ isActive: true, name: 'Welcome new leads' }),
  },
  { command: /^WS=/, check: ({ out }) => expect(out).toMatch(/^ws_\w+$/) },
  {
    command: /^npm run crm -- change-plan --workspace \$WS --plan growth$/,
    check: ({ out }, walk) => {
      expect(out).toMatch(/Updated ws_\w+ +Acme +plan=growth +300\/min/);
      walk.limit = '300';
    },
  },
];

/** Table rows that name no `--help` form, and why they are not run here. */
const NOT_RUN_HERE: Record<string, string> = {
  '`npm run lint` / `npm run format`': 'CI runs `npm run lint` as a step of its own; `format` rewrites files',
};

function expectationFor(step: ShellStep) {
  return EXPECTATIONS.find((e) => e.command.test(step.command));
}

/** A folder laid out like a fresh clone: links to every entry of this checkout except its data. */
function freshClone(): string {
  const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-readme-'));
  for (const entry of fs.readdirSync(ROOT)) {
    if (['data', '.git', '.jest'].includes(entry)) continue;
    fs.symlinkSync(path.join(ROOT, entry), path.join(clone, entry));
  }
  return clone;
}

function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** The environment a newcomer's shell has: none of the variables that would change what npm start does. */
function newcomerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  for (const name of Object.keys(env)) if (/^(CRM_|REDIS_URL|AMQP_URL|MONGO_URL|METRICS_PORT|AUTH_GRPC_ADDR)/.test(name)) delete env[name];
  return env;
}

/** Runs the walk's commands in one bash, each one's output and exit code kept apart. */
function runWalk(clone: string): Outcome[] {
  const results = path.join(clone, '.walk');
  fs.mkdirSync(results);
  const script = WALK.map((step, i) => {
    const file = (kind: string) => JSON.stringify(path.join(results, `${i}.${kind}`));
    const assigned = /^([A-Z_]+)=\$\(/.exec(step.command)?.[1];
    return assigned
      ? `{ ${step.command}\n} 2>${file('err')}; echo $? >${file('code')}; printf '%s' "\${${assigned}-}" >${file('out')}`
      : `{ ${step.command}\n} >${file('out')} 2>${file('err')}; echo $? >${file('code')}`;
  }).join('\n');
  const run = spawnSync('bash', ['-c', script], { cwd: clone, env: newcomerEnv(), timeout: 240_000, encoding: 'utf8' });
  if (run.error) throw run.error;
  return WALK.map((_step, i) => {
    const read = (kind: string) => {
      const file = path.join(results, `${i}.${kind}`);
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    };
    return { out: read('out').trim(), err: read('err'), code: Number(read('code') || 'NaN') };
  });
}

describe('the README', () => {
  it('holds a walk whose every command this suite knows how to check', () => {
    expect(WALK.length).toBeGreaterThan(10);
    const unchecked = WALK.filter((step) => !expectationFor(step)).map((step) => step.command);
    expect(unchecked).toEqual([]);
  });

  describe('its first-request walk, run as written against npm start', () => {
    let clone: string;
    let server: RunningNpmStart | undefined;
    let outcomes: Outcome[] = [];
    const walk: Walk = { clone: '', limit: '100' };

    beforeAll(async () => {
      if (await portTaken(PORT)) throw new Error(`Port ${PORT} is taken: the README's walk needs it (is an npm start running?).`);
      clone = freshClone();
      walk.clone = clone;
      server = await npmStart(clone, newcomerEnv(), PORT);
      expect(server.output()).toMatch(/Demo login: demo@example\.com \/ \S+/);
      outcomes = runWalk(clone);
    }, 420_000);

    afterAll(async () => {
      await server?.stop();
      if (clone) fs.rmSync(clone, { recursive: true, force: true });
    }, 30_000);

    it('writes the certificate where the README says', () => {
      expect(fs.existsSync(path.join(clone, 'data/tls/localhost.crt'))).toBe(true);
      expect(fs.existsSync(path.join(clone, 'data/demo-credentials.json'))).toBe(true);
    });

    WALK.forEach((step, i) => {
      it(`step ${i + 1}: ${step.comment || step.command.split('\n')[0]!.slice(0, 80)}`, () => {
        const outcome = outcomes[i]!;
        const expectation = expectationFor(step)!;
        const context = `${step.command}\nexit ${outcome.code}\nstdout: ${outcome.out.slice(0, 2000)}\nstderr: ${outcome.err.slice(0, 2000)}`;
        if (outcome.code !== 0 || (!expectation.printsNothing && outcome.out === ''))
          throw new Error(`README step failed or printed nothing:\n${context}`);
        try {
          expectation.check(outcome, walk);
        } catch (error) {
          throw new Error(`README step answered something else than the README says:\n${context}\n\n${(error as Error).message}`);
        }
      });
    });
  });

  describe('its commands table', () => {
    const rows = readmeSection(README, 'Commands')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split(' | ')[0]!.slice(2));
    const helpForms = (row: string) => {
      const line = readmeSection(README, 'Commands')
        .split('\n')
        .find((l) => l.startsWith(`| ${row} |`))!;
      return [...line.matchAll(/`([^`]*--help)`/g)].map((m) => m[1]!);
    };

    it('shows a --help form for every command, or says why it is not run here', () => {
      const bare = rows.filter((row) => helpForms(row).length === 0 && !(row in NOT_RUN_HERE));
      expect(bare).toEqual([]);
    });

    for (const row of rows)
      for (const command of helpForms(row)) {
        it(`${command} prints its usage and exits 0`, () => {
          const run = spawnSync('bash', ['-c', command], { cwd: ROOT, env: newcomerEnv(), timeout: 120_000, encoding: 'utf8' });
          expect({ command, status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ command, status: 0, stderr: '' });
          expect(run.stdout).toMatch(/usage/i);
        }, 130_000);
      }
  });
});
