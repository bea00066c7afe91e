#!/usr/bin/env bash
# Runs the unit suite, and the cross suites named as arguments, on Node 24 — the runtime the images
# ship — from a copy of this checkout whose native modules are rebuilt for it (scripts/node24-copy.sh).
# Development machines run Node 20; this is how a Node 24 regression (such as better-sqlite3
# aborting when it garbage-collects a statement) shows before an image does.
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

status=0
source "$(dirname "$0")/node24-copy.sh" || status=$?
if [[ $status == 2 ]]; then
  echo "SKIPPED the Node 24 check: node@24 could not be installed"
  exit 0
fi
[[ $status == 0 ]] || exit "$status"

echo "== unit suite on $(node -v)"
npx jest --selectProjects unit --silent
if [[ $# -gt 0 ]]; then
  echo "== cross suites on $(node -v): $*"
  npx jest "$@" --selectProjects cross --runInBand --silent
fi
echo "== Node 24 check passed"
