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

const { values } = parseArgs({
  options: { only: { type: 'string' }, seconds: { type: 'string' }, 'cpu-prof': { type: 'string' }, help: { type: 'boolean' } },
});
const suitesDir = path.join(__dirname, 'suites');
const suites = fs
  .readdirSync(suitesDir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => f.replace(/\.js$/, ''));
if (values.help) {
  console.log(
    [
      'Usage: npm run bench [-- --only <suite>] [--seconds N] [--cpu-prof DIR]',
      `  Suites: ${suites.join(', ')}`,
      '  --cpu-prof DIR  every cluster process writes a V8 CPU profile (.cpuprofile) to DIR when it stops',
      '  Results are printed and written to bench/results/.',
    ].join('\n'),
  );
  process.exit(0);
}

async function main() {
  const selected = values.only ? values.only.split(',') : suites;
  const seconds = Number(values.seconds ?? 10);
  const log = (message) => process.stderr.write(`[bench] ${message}\n`);
  log('starting the local cluster');
  const profileDir = values['cpu-prof'] ? path.resolve(values['cpu-prof']) : undefined;
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const cluster = await startLocalCluster({ gateways: 1, workers: 1, logLevel: 'warn', nodeArgs });
  const agent = new Agent({ connect: { ca: cluster.ca } });
  const api = gatewayApi(cluster, agent);
  const results = [];
  try {
    for (const name of selected) {
      log(`suite ${name}`);
      results.push(await require(path.join(suitesDir, `${name}.js`))({ cluster, api, seconds, log, nodeArgs }));
    }
  } finally {
    await agent.close();
    warnAboutDeadProcesses(cluster, log);
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
  const outDir = path.join(__dirname, 'results');
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ node: process.version, results }, null, 2));
  log(`written to ${path.relative(process.cwd(), file)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
