#!/usr/bin/env bash
# npm test: lint, type check, Vitest on SQLite and on PostgreSQL, the production build, and the
# black-box API tests against the started server (with Vitest on SQLite under Node 26 beside them),
# the benchmark harness in smoke mode, and the studio tests in Chromium.
# Stops at the first failing step.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
PG_URL="${ATELIER_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
mkdir -p test-results

# shellcheck source=step-times.sh
source scripts/step-times.sh
# A step that fails ends the run: the Node 26 tests running beside it end too.
stop_background() { if [ -n "${node_lts_pid:-}" ]; then pkill -TERM -P "$node_lts_pid" 2>/dev/null || true; fi; }
trap 'stop_background; print_times' EXIT

step "lint and type check"
# ESLint and tsc each keep one core busy: side by side they take the time of the longer one.
tsc_log=test-results/typecheck.log
npx tsc --noEmit -p . >"$tsc_log" 2>&1 &
tsc_pid=$!
lint_status=0
npm run --silent lint || lint_status=$?
tsc_status=0
wait "$tsc_pid" || tsc_status=$?
cat "$tsc_log"
if [ "$lint_status" -ne 0 ] || [ "$tsc_status" -ne 0 ]; then
  echo "Lint exited $lint_status, the type check $tsc_status (its output above)." >&2
  exit 1
fi
step "unit and store tests on SQLite"
npx vitest run --reporter=default --reporter=json --outputFile=test-results/vitest-sqlite.json
step "store tests on PostgreSQL"
# Model, provider, ffmpeg and blob-store tests never touch the store: once, on the SQLite pass, is enough.
# The provider tests that do run on both: outages shared through the store, and the remote catalog
# kept in the store (lib/providers/stored-catalog).
STORE_TEST_DATABASE_URL="$PG_URL" npx vitest run --exclude 'lib/models/**' --exclude 'lib/media/**' --exclude 'lib/blobs/**' --exclude 'lib/providers/*.test.ts' --exclude 'lib/providers/!(stored-catalog)/**/!(shared-health).test.ts' --reporter=default --reporter=json --outputFile=test-results/vitest-postgres.json
step "production build"
# A first `npm start` runs this build: it must print no bundler warnings (docs/getting-started.md).
npx next build 2>&1 | tee test-results/next-build.log
if grep -qE "^Warning:|build encountered [0-9]+ warning" test-results/next-build.log; then
  echo "The production build printed warnings (see above): remove their causes." >&2
  exit 1
fi
# The same unit tests under the current Node LTS (26), beside the API tests, which leave a core
# mostly idle while their servers wait on each other: one Vitest worker, at a lower priority.
node_lts_log=test-results/node-lts.log
nice -n 10 bash scripts/test-node-lts.sh --maxWorkers=1 >"$node_lts_log" 2>&1 &
node_lts_pid=$!
step "API tests over HTTP against the started server"
PLAYWRIGHT_JSON_OUTPUT_NAME="$PWD/test-results/e2e-api.json" npx playwright test --config e2e/api/playwright.config.ts --reporter=list,json
step "benchmark harness, smoke mode (asserts nothing about speed)"
npx tsx bench/run.ts --smoke

step "unit tests under Node 26 (run beside the API tests)"
node_lts_status=0
wait "$node_lts_pid" || node_lts_status=$?
tail -n 12 "$node_lts_log"
if [ "$node_lts_status" -ne 0 ]; then
  echo "The unit tests under Node 26 failed (exit $node_lts_status): all of it in $node_lts_log." >&2
  exit 1
fi

step "studio tests in Chromium"
PLAYWRIGHT_JSON_OUTPUT_NAME="$PWD/test-results/e2e-studio.json" npx playwright test --config e2e/studio/playwright.config.ts --reporter=list,json

node scripts/test-summary.mjs test-results/vitest-sqlite.json test-results/vitest-postgres.json test-results/vitest-sqlite-node26.json test-results/e2e-api.json test-results/e2e-studio.json
