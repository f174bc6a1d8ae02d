#!/usr/bin/env bash
# npm test: lint, type check, Vitest on SQLite (under Node 26) and on PostgreSQL, the production build, the
# black-box API tests against the started server, the benchmark harness in smoke mode, and the
# studio tests in Chromium.
# Stops at the first failing step.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
PG_URL="${ATELIER_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
mkdir -p test-results

# shellcheck source=step-times.sh
source scripts/step-times.sh
trap print_times EXIT

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
# Two Node lines in one run, for CI's 20 minutes: the unit tests on SQLite run under the current
# LTS (26: scripts/test-node-lts.sh, its own step times printed with it), everything after under
# Node 20, the oldest supported (the PostgreSQL pass, the build, the server the end-to-end tests talk to).
step "unit and store tests on SQLite, under Node 26"
bash scripts/test-node-lts.sh
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
step "API tests over HTTP against the started server"
PLAYWRIGHT_JSON_OUTPUT_NAME="$PWD/test-results/e2e-api.json" npx playwright test --config e2e/api/playwright.config.ts --reporter=list,json
step "benchmark harness, smoke mode (asserts nothing about speed)"
npx tsx bench/run.ts --smoke

step "studio tests in Chromium"
PLAYWRIGHT_JSON_OUTPUT_NAME="$PWD/test-results/e2e-studio.json" npx playwright test --config e2e/studio/playwright.config.ts --reporter=list,json

node scripts/test-summary.mjs test-results/vitest-sqlite-node26.json test-results/vitest-postgres.json test-results/e2e-api.json test-results/e2e-studio.json
