#!/usr/bin/env bash
# Sourced, not run: makes a copy of this checkout that runs on Node 24, the runtime the images ship,
# for scripts/test-node24.sh and scripts/bench-node24.sh. Installs node@24 from the npm registry
# once, copies the checkout (with its node_modules and build output), rebuilds the native modules
# for Node 24, puts that Node first on PATH and changes into the copy.
#
# Sets: NODE24_HOME (the Node 24 install), NODE24_REPO (the copy). Returns 2 when node@24 could not
# be installed, so a caller can say it skipped rather than failed.
# Environment: NODE24_WORKDIR (default: $TMPDIR/crm-node24) keeps the Node 24 binary and the copy.

NODE24_SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE24_WORK="${NODE24_WORKDIR:-${TMPDIR:-/tmp}/crm-node24}"
mkdir -p "$NODE24_WORK/runtime" || return 1

# The npm package node@24 ships the binary and its headers (needed to compile better-sqlite3).
if ! ls "$NODE24_WORK"/runtime/node_modules/node/node_modules/node-*/bin/node >/dev/null 2>&1; then
  echo "== installing node@24 into $NODE24_WORK/runtime"
  if ! (cd "$NODE24_WORK/runtime" && npm install --no-save --no-audit --no-fund --no-package-lock node@24 >"$NODE24_WORK/runtime-install.log" 2>&1); then
    echo "node@24 could not be installed from the npm registry (see $NODE24_WORK/runtime-install.log)"
    return 2
  fi
fi
NODE24_HOME="$(dirname "$(dirname "$(ls -d "$NODE24_WORK"/runtime/node_modules/node/node_modules/node-*/bin/node | head -1)")")"
export PATH="$NODE24_HOME/bin:$PATH"
echo "== $(node -v) from $NODE24_HOME"

NODE24_REPO="$NODE24_WORK/repo"
echo "== copying the checkout (with its node_modules and build output) to $NODE24_REPO"
# cp, not rsync: rsync is not on every machine. The copy is made afresh on every run.
# Each step says how it fails: a caller that tests this file's status (`source … || status=$?`)
# turns `set -e` off inside it.
rm -rf "$NODE24_REPO" || return 1
cp -a "$NODE24_SOURCE" "$NODE24_REPO" || return 1
rm -rf "$NODE24_REPO/.git" || return 1
cd "$NODE24_REPO" || return 1

echo "== rebuilding native modules for Node 24 (better-sqlite3 compiles from source: ~60 s)"
npm_config_nodedir="$NODE24_HOME" npm rebuild better-sqlite3 argon2 >"$NODE24_WORK/rebuild.log" 2>&1 || {
  echo "native rebuild for Node 24 failed; see $NODE24_WORK/rebuild.log"
  return 1
}
