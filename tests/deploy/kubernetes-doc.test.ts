// Walks docs/kubernetes.md: every command of its ```sh blocks either runs here and must succeed, or
// needs what CI has not (a cluster, Docker, a forwarded port) and is listed below with that reason.
// What runs here: `helm lint` and `helm template` as written, `helm install` with --dry-run=client
// (Helm 4 renders the release, NOTES.txt included, without a cluster), `kubectl create` with
// --dry-run=client -o yaml (the objects it would create); the real Helm 4 and kubectl 1.35 from
// scripts/chart-tools.sh, with no kubeconfig, so nothing can reach a cluster.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { read, root, useChartTools } from './rendered-chart';

const page = read(join(root, 'docs', 'kubernetes.md'));
const commands = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n').filter((line) => line.trim() !== ''));

// Commands that cannot run here, and why.
const needsACluster: [RegExp, string][] = [
  [/^kind create cluster$/, 'Docker'],
  [/^skaffold dev\b/, 'Docker and a cluster'],
  [/^curl -k https:\/\/localhost:8443\//, 'the port skaffold forwards'],
  [/^kubectl (-n crm )?delete\b/, 'a cluster'],
  [/^helm test\b/, 'a cluster'],
];
const runsHere = (command: string) => /^helm (lint|template|install)\b/.test(command) || /^kubectl (-n crm )?create\b/.test(command);

const toolsDir = useChartTools();
let workDir = '';
beforeAll(() => {
  // The files the page's `kubectl create secret tls` reads.
  workDir = mkdtempSync(join(tmpdir(), 'crm-kubernetes-doc-'));
  const args = 'req -x509 -newkey rsa:2048 -nodes -keyout tls.key -out tls.crt -subj /CN=crm.example.com -days 1';
  const cert = spawnSync('openssl', args.split(' '), { cwd: workDir, encoding: 'utf8' });
  if (cert.status !== 0) throw new Error(`openssl could not make the test certificate: ${cert.stderr ?? cert.error}`);
});
afterAll(() => workDir && rmSync(workDir, { recursive: true, force: true }));

test('the page has commands to walk', () => {
  expect(commands.filter(runsHere).length).toBeGreaterThanOrEqual(8);
});

test('every command either runs here or needs a cluster, Docker or a forwarded port', () => {
  expect(commands.filter((c) => !runsHere(c) && !needsACluster.some(([pattern]) => pattern.test(c)))).toEqual([]);
});

test.each(commands.filter(runsHere))('%s', (command) => {
  const dryRun = command.startsWith('helm install')
    ? ' --dry-run=client'
    : command.startsWith('kubectl')
      ? ' --dry-run=client -o yaml'
      : '';
  const line =
    command.replace(/^helm /, `"${join(toolsDir(), 'bin', 'helm4')}" `).replace(/^kubectl /, `"${join(toolsDir(), 'bin', 'kubectl')}" `) +
    dryRun;
  // Relative chart paths are the repository's; the certificate files are in the work folder.
  const cwd = command.includes('--cert=') ? workDir : root;
  const result = spawnSync('bash', ['-c', line], {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, KUBECONFIG: '/nonexistent' },
  });
  expect(result.stderr.replace(/.*icon is recommended\n?/g, '')).not.toMatch(/error/i);
  expect(result.status).toBe(0);
  if (command.startsWith('helm install')) expect(result.stdout).toContain('The CRM API is installed as release crm in namespace crm.');
  if (command.startsWith('kubectl')) expect(result.stdout).toMatch(/^apiVersion: v1\n/);
});
