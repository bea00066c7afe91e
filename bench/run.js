#!/usr/bin/env node
// `npm run bench`: starts a local cluster (1 gateway, real Redis and RabbitMQ) and runs each suite
// in bench/suites/, reporting every figure as a ratio against a baseline measured in the same run.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { Agent } = require('undici');
const { gatewayApi, warnAboutDeadProcesses } = require('./support');
const { startLocalCluster } = require('../scripts/local-cluster.js');
const { startNpmStart } = require('./npm-start');
const { startContainerCluster } = require('../scripts/container-cluster.js');

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    seconds: { type: 'string' },
    'cpu-prof': { type: 'string' },
    target: { type: 'string' },
    help: { type: 'boolean' },
  },
});
const suitesDir = path.join(__dirname, 'suites');
const suites = fs
  .readdirSync(suitesDir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => f.replace(/\.js$/, ''));
/** The suites that run with `--target target` (each suite's `targets`, the local cluster by default). */
function suitesFor(target) {
  return suites.filter((name) => (require(path.join(suitesDir, `${name}.js`)).targets ?? ['cluster']).includes(target)).join(', ');
}
if (values.help) {
  console.log(
    [
      'Usage: npm run bench [-- --only <suite>] [--seconds N] [--cpu-prof DIR] [--target cluster|npm-start|containers]',
      `  Suites: ${suites.join(', ')}`,
      '  --target npm-start  runs scripts/start.js (one process, fresh CRM_DATA_DIR) instead of the local cluster;',
      `                      only the suites that support it (${suitesFor('npm-start')}) run`,
      '  --target containers  the system from its images, one replica of each kind, as test:containers runs it',
      `                      (root, podman, images built by npm run test:containers); only the suites that support it (${suitesFor('containers')}) run`,
      '  --cpu-prof DIR  every cluster process writes a V8 CPU profile (.cpuprofile) to DIR when it stops',
      '  Results are printed and written to bench/results/ (or $BENCH_RESULTS_DIR).',
      "  npm run bench:node24 runs the same on Node 24, the images' runtime (scripts/bench-node24.sh).",
    ].join('\n'),
  );
  process.exit(0);
}

async function main() {
  const target = values.target ?? 'cluster';
  if (!['cluster', 'npm-start', 'containers'].includes(target)) throw new Error(`--target ${target}: cluster, npm-start or containers`);
  const selected = values.only ? values.only.split(',') : suites;
  const seconds = Number(values.seconds ?? 10);
  const log = (message) => process.stderr.write(`[bench] ${message}\n`);
  log(`starting ${{ cluster: 'the local cluster', 'npm-start': 'npm start (scripts/start.js)', containers: 'the images' }[target]}`);
  const profileDir = values['cpu-prof'] ? path.resolve(values['cpu-prof']) : undefined;
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const cluster = await {
    cluster: () => startLocalCluster({ gateways: 1, workers: 1, logLevel: 'warn', nodeArgs }),
    'npm-start': () => startNpmStart({ nodeArgs }),
    containers: () => startContainerCluster({ gateways: 1, workers: 1, replicas: 1, logLevel: 'warn' }),
  }[target]();
  const agent = new Agent({ connect: { ca: cluster.ca } });
  const api = gatewayApi(cluster, agent);
  const results = [];
  try {
    for (const name of selected) {
      const suite = require(path.join(suitesDir, `${name}.js`));
      const targets = suite.targets ?? ['cluster'];
      if (!targets.includes(target)) {
        log(`suite ${name}: skipped, it runs with --target ${targets.join(' or ')} only`);
        continue;
      }
      log(`suite ${name}`);
      results.push(await suite({ cluster, api, seconds, log, nodeArgs }));
    }
  } finally {
    await agent.close();
    if (cluster.processes) warnAboutDeadProcesses(cluster, log);
    else if (!cluster.running()) log(`WARNING: npm start exited during the run; the figures are suspect. Its output:\n${cluster.tail()}`);
    await cluster.stop();
  }
  for (const r of results) {
    console.log(`\n${r.name}`);
    console.log(`  ratio ${r.ratio.toFixed(2)} (target ${r.target})`);
    console.log(
      JSON.stringify(r, null, 2)
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n'),
    );
  }
  const outDir = process.env.BENCH_RESULTS_DIR || path.join(__dirname, 'results');
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ node: process.version, results }, null, 2));
  log(`written to ${process.env.BENCH_RESULTS_DIR ? file : path.relative(process.cwd(), file)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
