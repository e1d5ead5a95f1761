#!/usr/bin/env bash
# The container image without a Docker engine: replays the Dockerfile's final
# stage in a fresh Debian root (its RUN, COPY, USER, WORKDIR, ENV), then
# starts its CMD the way the image does (that user, that directory, that
# environment), runs its HEALTHCHECK, and stops it with SIGTERM.
#   RELEASE  the release tree (what the build stage's scripts/build-release makes)
set -uo pipefail
# shellcheck source=test/packages/lib.sh
source "$(dirname "$0")/lib.sh"
: "${RELEASE:?}"

enter_namespace
IMAGE_ENV=() USER_NAME=root WORKDIR=/ PORT='' VOLUMES=() HEALTHCHECK=() CMD=()

df_run() { in_root /bin/sh -c "$1"; }
df_copy_from() {
  [[ $1 == build && $2 == release ]] || { echo "COPY --from=$1 $2: not the release tree"; return 1; }
  mkdir -p "$ROOT$(dirname "$3")" && cp -a "$RELEASE" "$ROOT$3"
}
df_copy() { install -D -m 0644 "$1" "$ROOT$2"; }
df_env() { IMAGE_ENV+=("$1=$2"); }
df_user() { USER_NAME=$1; }
df_workdir() { WORKDIR=$1; }
df_volume() { VOLUMES+=("$1"); }
df_expose() { PORT=$1; }
df_healthcheck() { HEALTHCHECK=("$@"); }
df_cmd() { CMD=("$@"); }
df_problem() { fail "Dockerfile: $1"; }

# as_image_user ENV... -- ARGV...: as the image's USER, in its WORKDIR, with its ENV and these.
as_image_user() {
  local extra=()
  while [[ $1 != -- ]]; do extra+=("$1"); shift; done
  shift
  # exec: run in the background, its pid is the image's process itself.
  # shellcheck disable=SC2016 # expanded by the image's sh
  exec chroot --userspec="$USER_NAME:$USER_NAME" "$ROOT" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin \
    HOME="$WORKDIR" "${IMAGE_ENV[@]}" "${extra[@]}" /bin/sh -c 'cd "$0" && exec "$@"' "$WORKDIR" "$@"
}

# run_image NAME PORT ENV...: start CMD, check health, healthcheck and homepage, then SIGTERM.
run_image() {
  local name=$1 port=$2 pid code=0
  shift 2
  as_image_user "$@" -- "${CMD[@]}" >"$ROOT/tmp/container-$name.log" 2>&1 &
  pid=$!
  check "$name: the CMD serves health on port $port" wait_healthy "$port"
  check "$name: the HEALTHCHECK command passes" as_image_user "$@" -- "${HEALTHCHECK[@]}"
  check_page "$name: GET / is the homepage" "http://127.0.0.1:$port/"
  check "$name: the process runs as $USER_NAME" bash -c "[[ \$(in_root stat -c %U /proc/$pid) == $USER_NAME ]]"
  kill -TERM "$pid"
  timeout 20 tail --pid="$pid" -f /dev/null || kill -KILL "$pid"
  wait "$pid" || code=$?
  check_exit "$name: SIGTERM stops it with exit code 0" 0 exit "$code"
}

echo "== container: the Dockerfile's final stage"
REPLAY=$(node "$(dirname "$0")/dockerfile.mjs" Dockerfile) || fail "Dockerfile: readable"
eval "$REPLAY"
[[ ${#CMD[@]} -gt 0 && -n $PORT ]] && pass "Dockerfile: replayed (USER $USER_NAME, EXPOSE $PORT, CMD ${CMD[*]})"
check "the image does not run as root" test "$USER_NAME" != root
check "the image declares the volume /var/lib/parasol" bash -c "[[ ' ${VOLUMES[*]} ' == *' /var/lib/parasol '* ]]"

echo "== container: CMD on the image's defaults"
run_image defaults "$PORT"
check "the store is in the volume and belongs to $USER_NAME" \
  bash -c "[[ \$(in_root stat -c %U /var/lib/parasol/parasol.db) == $USER_NAME ]]"

echo "== container: a mounted config and PARASOL_* overrides"
cat >"$ROOT/etc/parasol/parasol.yml" <<'YAML'
listen: { port: 8081 }
data_dir: /var/lib/parasol/mounted
YAML
run_image overrides 9090 PARASOL_LISTEN_PORT=9090
check "the mounted config's data_dir was used" test -f "$ROOT/var/lib/parasol/mounted/parasol.db"
