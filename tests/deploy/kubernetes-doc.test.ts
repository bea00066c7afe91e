// Walks docs/kubernetes.md: every command of its ```sh blocks either runs here (helm lint and
// helm template, with the real Helm 4 from scripts/chart-tools.sh) and must succeed, or needs what
// CI has not (a cluster, Docker, a registry) and is listed below with that reason.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const page = readFileSync(join(root, 'docs', 'kubernetes.md'), 'utf8');
const commands = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n').filter((line) => line.trim() !== ''));

// Commands that cannot run here, by their first words, and why.
const needsACluster: [RegExp, string][] = [
  [/^kind create cluster$/, 'Docker'],
  [/^skaffold dev\b/, 'Docker and a cluster'],
  [/^curl -k https:\/\/localhost:8443\//, 'the port skaffold forwards'],
  [/^kubectl (-n crm )?(create|delete)\b/, 'a cluster'],
  [/^helm (install|test)\b/, 'a cluster'],
];

let helm = '';
beforeAll(() => {
  const run = spawnSync('bash', [join(root, 'scripts', 'chart-tools.sh')], { encoding: 'utf8', timeout: 600_000 });
  if (run.status !== 0) throw new Error(`scripts/chart-tools.sh could not provide Helm:\n${run.stderr}`);
  helm = join(run.stdout.trim().split('\n').pop()!, 'bin', 'helm4');
}, 600_000);

test('the page has commands to walk', () => {
  expect(commands.filter((c) => /^helm (lint|template)\b/.test(c)).length).toBeGreaterThanOrEqual(4);
});

test('every command either runs here or needs a cluster, Docker or a registry', () => {
  expect(commands.filter((c) => !/^helm (lint|template)\b/.test(c) && !needsACluster.some(([pattern]) => pattern.test(c)))).toEqual([]);
});

test.each(commands.filter((c) => /^helm (lint|template)\b/.test(c)))('%s', (command) => {
  const args = command.split(/\s+/).slice(1);
  const result = spawnSync(helm, args, { cwd: root, encoding: 'utf8', timeout: 120_000 });
  expect(result.stderr.replace(/.*icon is recommended\n?/, '')).not.toMatch(/error/i);
  expect(result.status).toBe(0);
});
