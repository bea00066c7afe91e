#!/usr/bin/env bash
# Runs the unit suite, and the cross suites named as arguments, on Node 24 — the runtime the images
# ship — from a copy of this checkout whose native modules are rebuilt for it. Development machines
# run Node 20; this is how a Node 24 regression (such as better-sqlite3 aborting when it garbage-
# collects a statement) shows before an image does.
#
#   scripts/test-node24.sh                      # unit suite
#   scripts/test-node24.sh tests/records        # unit suite, then the records cross suites
#
# Environment: NODE24_WORKDIR (default: $TMPDIR/crm-node24) keeps the Node 24 binary and the copy.
set -euo pipefail

if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  echo 'Usage: npm run test:node24 [-- <cross suite paths>]'
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${NODE24_WORKDIR:-${TMPDIR:-/tmp}/crm-node24}"
mkdir -p "$WORK/runtime"

# The npm package node@24 ships the binary and its headers (needed to compile better-sqlite3).
if ! ls "$WORK"/runtime/node_modules/node/node_modules/node-*/bin/node >/dev/null 2>&1; then
  echo "== installing node@24 into $WORK/runtime"
  if ! (cd "$WORK/runtime" && npm install --no-save --no-audit --no-fund --no-package-lock node@24 >"$WORK/runtime-install.log" 2>&1); then
    echo "SKIPPED the Node 24 check: node@24 could not be installed from the npm registry (see $WORK/runtime-install.log)"
    exit 0
  fi
fi
NODE24_HOME="$(dirname "$(dirname "$(ls -d "$WORK"/runtime/node_modules/node/node_modules/node-*/bin/node | head -1)")")"
export PATH="$NODE24_HOME/bin:$PATH"
echo "== $(node -v) from $NODE24_HOME"

echo "== copying the checkout (with its node_modules and build output) to $WORK/repo"
mkdir -p "$WORK/repo"
# cp, not rsync: rsync is not on every machine. The copy is refreshed, not rebuilt, on later runs.
rm -rf "$WORK/repo"
cp -a "$ROOT" "$WORK/repo"
rm -rf "$WORK/repo/.git"
cd "$WORK/repo"

echo "== rebuilding native modules for Node 24 (better-sqlite3 compiles from source: ~60 s)"
npm_config_nodedir="$NODE24_HOME" npm rebuild better-sqlite3 argon2 >"$WORK/rebuild.log" 2>&1 || {
  echo "native rebuild for Node 24 failed; see $WORK/rebuild.log"
  exit 1
}

echo "== unit suite on $(node -v)"
npx jest --selectProjects unit --silent
if [[ $# -gt 0 ]]; then
  echo "== cross suites on $(node -v): $*"
  npx jest "$@" --selectProjects cross --runInBand --silent
fi
echo "== Node 24 check passed"
