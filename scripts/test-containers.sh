#!/usr/bin/env bash
# npm run test:containers: builds every image (reusing cached layers), then runs the platform,
# records, import and automation cross suites against the system started from those images
# (CRM_TEST_CLUSTER=containers: scripts/container-cluster.js, 2 replicas of every server, podman on
# the host's network with the machine's Redis and RabbitMQ), then the replica stop/start scenario
# (tests/containers/). Prints each step's duration. Needs root, podman and the base image:
# bash ../shared/tools/node-base-image.sh (once per machine).
#   bash scripts/test-containers.sh [suite paths...]   # default: the four suite folders
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  echo 'Usage: npm run test:containers [-- <suite paths>]'
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi

current=""
started=$SECONDS
step() {
  [[ -n "$current" ]] && echo "== test:containers: $current took $((SECONDS - started)) s"
  current="$1"
  started=$SECONDS
  echo "== test:containers: $current"
}
trap 'step "end (total ${SECONDS} s)"' EXIT
# Every test step runs even when one before it failed; the exit status says whether any did.
failed=0

# The suites where running from images and across replicas can differ from local processes: keys,
# sessions and limits shared by two gateways, records through replicated servers, import and its
# workers (OCR and PDF native code in the image), automation and webhooks. Left out, to keep CI
# under its budget: the suites that test one service's rules (validation, lists, tenancy, cursors,
# merge, ETags, members, sign-up and login flows, exit conditions: the host cross run covers them,
# and records-crud and api-keys below already take records and auth through their replicas),
# one-process (npm start, no cluster), ci-brokers and store-open-race (no cluster), key-rotation
# and outbox-relay (they start a second auth or records process of their own on the host beside
# the cluster). errors.test.ts runs on its own with one replica per server: it stops the auth
# service and expects 503s, which a second auth replica would rightly prevent.
default_suites=(
  tests/platform/api-keys.test.ts tests/platform/rate-limits.test.ts tests/platform/sessions.test.ts
  tests/records/records-crud.test.ts
  tests/records/idempotent-writes.test.ts
  # Custom field definitions written through one records replica are read by the other at once.
  tests/records/custom-fields.test.ts
  tests/import/import-api.test.ts tests/import/import-reliability.test.ts tests/import/upload-limits.test.ts
  tests/import/sync-import.test.ts
  tests/automation/automation.test.ts tests/webhooks/webhooks.test.ts
)
suites=("$@")
((${#suites[@]})) || suites=("${default_suites[@]}")

step "build on the host (the tests' own clients use libs/*/dist)"
npm run build --silent

step "build the images"
node scripts/build-images.js

step "${#suites[@]} cross suites against containers"
CRM_TEST_CLUSTER=containers npx jest --selectProjects cross --runInBand "${suites[@]}" || failed=1
if (($# == 0)); then
  step "errors suite against containers, one replica per server"
  CRM_TEST_CLUSTER=containers CRM_TEST_REPLICAS=1 npx jest --selectProjects cross --runInBand tests/platform/errors.test.ts || failed=1
fi

step "replicas of every kind stopped and started under load"
CRM_TEST_CLUSTER=containers npx jest --selectProjects containers --runInBand || failed=1
exit "$failed"
