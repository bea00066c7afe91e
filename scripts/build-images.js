#!/usr/bin/env node
// Builds every deployable's image from the root Dockerfile, one target each (the targets named in
// charts/crm/topology.yaml), tagged localhost/crm-<target>:latest, and prints each image's size.
// The build context is a snapshot of the working tree taken once, so the five images come from the
// same sources and the shared build stage is built once and found in the layer cache for the rest.
//   node scripts/build-images.js [--tag T]
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { imageSizes, readTopology } = require('./container-cluster');

const ROOT = path.resolve(__dirname, '..');
const BASE_IMAGE = 'docker.io/library/node:24-bookworm-slim';
// A fixed place, not a fresh temporary folder: the layer cache keys on content, not on paths, but
// a fixed place keeps repeated builds from leaving copies behind.
const CONTEXT = process.env.CRM_IMAGE_CONTEXT ?? '/var/tmp/crm-image-context';

const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;

function snapshotContext() {
  fs.mkdirSync(CONTEXT, { recursive: true });
  // .dockerignore still applies inside the build; these only keep the copy small and quick.
  const excludes = ['node_modules', 'dist', '.git', '*.tsbuildinfo', '.cluster', 'coverage', '.jest', 'bench/results', 'data'];
  execFileSync('rsync', ['-a', '--delete', ...excludes.flatMap((e) => ['--exclude', e]), `${ROOT}/`, `${CONTEXT}/`], { stdio: 'inherit' });
}

function build(target, tag) {
  const started = Date.now();
  execFileSync(
    'podman',
    [
      'build',
      '--network=host',
      '--pull=never',
      '--layers',
      '--target',
      target,
      '--tag',
      `localhost/crm-${target}:${tag}`,
      '--file',
      'Dockerfile',
      '.',
    ],
    { cwd: CONTEXT, stdio: ['ignore', process.env.BUILD_VERBOSE ? 'inherit' : 'ignore', 'inherit'] },
  );
  return Date.now() - started;
}

async function main() {
  const { values } = parseArgs({ options: { tag: { type: 'string', default: 'latest' } } });
  try {
    execFileSync('podman', ['image', 'exists', BASE_IMAGE]);
  } catch {
    throw new Error(`${BASE_IMAGE} is missing: run bash ../shared/tools/node-base-image.sh (as root, once per machine).`);
  }
  const started = Date.now();
  snapshotContext();
  const targets = [...new Set(Object.values(readTopology()).map((spec) => spec.target))];
  for (const target of targets) {
    const ms = build(target, values.tag);
    console.log(`built crm-${target} in ${(ms / 1000).toFixed(1)} s`);
  }
  const sizes = await imageSizes(values.tag);
  const base = Number(execFileSync('podman', ['image', 'inspect', '--format', '{{.Size}}', BASE_IMAGE]).toString().trim());
  for (const [image, size] of Object.entries(sizes)) console.log(`${image}: ${mb(size)} (${mb(size - base)} above the base image)`);
  console.log(`images built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
