#!/usr/bin/env node
// `npm test`: type-checks the tests, runs the unit project (parallel) and the cross-service project
// (one file at a time: each starts its own local cluster), and ends with one summary line,
// `tests: N passed, N failed, N skipped`, so CI can read the count whatever the runner.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

if (process.argv.includes('--help')) {
  console.log(
    'Usage: npm test [-- <jest args>]\n  Builds, type-checks, runs jest projects "unit" then "cross", and prints a summary line.',
  );
  process.exit(0);
}

const root = path.resolve(__dirname, '..');
const outDir = path.join(root, '.jest');
fs.mkdirSync(outDir, { recursive: true });
const extra = process.argv.slice(2);

const typecheck = spawnSync('npx', ['tsc', '-p', 'tsconfig.tests.json', '--noEmit'], { cwd: root, stdio: 'inherit' });
if (typecheck.status !== 0) {
  console.error('tests: type check of the test files failed');
  process.exit(1);
}

const runs = [
  ['unit', []],
  ['cross', ['--runInBand']],
];
const totals = { passed: 0, failed: 0, skipped: 0, suitesFailed: 0 };
let exitCode = 0;
for (const [project, args] of runs) {
  const outputFile = path.join(outDir, `${project}.json`);
  fs.rmSync(outputFile, { force: true });
  const result = spawnSync('npx', ['jest', '--selectProjects', project, '--json', `--outputFile=${outputFile}`, ...args, ...extra], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) exitCode = 1;
  if (!fs.existsSync(outputFile)) {
    console.error(`tests: jest wrote no results for the ${project} project`);
    exitCode = 1;
    continue;
  }
  const report = JSON.parse(fs.readFileSync(outputFile, 'utf8'));
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += report.numPendingTests + report.numTodoTests;
  totals.suitesFailed += report.numFailedTestSuites;
}
if (totals.suitesFailed > 0) console.error(`${totals.suitesFailed} test file(s) failed to run or had failures`);
console.log(
  `tests: ${totals.passed} passed, ${totals.failed + (totals.failed === 0 && totals.suitesFailed ? totals.suitesFailed : 0)} failed, ${totals.skipped} skipped`,
);
process.exit(exitCode || (totals.failed > 0 ? 1 : 0));
