#!/usr/bin/env bash
# Runs `npm run bench` on Node 24 — the runtime the images ship — from a copy of this checkout whose
# native modules are rebuilt for it (scripts/node24-copy.sh). This machine's Node 20 pays more for
# TLS and HTTP/2 than Node 24 does, so the two runtimes' figures differ; compare like with like.
# The results are written to this checkout's bench/results/, like `npm run bench`'s.
#
#   scripts/bench-node24.sh --only gateway      # any of `npm run bench`'s options
#
# Environment: NODE24_WORKDIR (default: $TMPDIR/crm-node24) keeps the Node 24 binary and the copy.
set -euo pipefail

if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  echo 'Usage: npm run bench:node24 [-- <npm run bench options>]'
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi

results="$(cd "$(dirname "$0")/.." && pwd)/bench/results"
source "$(dirname "$0")/node24-copy.sh"
BENCH_RESULTS_DIR="$results" node bench/run.js "$@"
