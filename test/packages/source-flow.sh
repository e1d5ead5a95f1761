#!/usr/bin/env bash
# Install from source, as the README says (after `npm ci`): `npm start`
# builds and serves, the homepage answers, Ctrl-C stops it gracefully; and
# `node dist/main.js serve`, the command for a service manager, stops on
# SIGTERM with exit code 0. Runs in the checkout itself, in this flow's own
# network namespace, with its data in a scratch folder.
#   DATA_DIR  the scratch data_dir
set -uo pipefail
# shellcheck source=test/packages/lib.sh
source "$(dirname "$0")/lib.sh"
: "${DATA_DIR:?}"

enter_namespace
PORT=8080
LOG=$DATA_DIR.log
export PARASOL_DATA_DIR=$DATA_DIR

# stops_gracefully NAME PID: PID is gone within 20 s, after Parasol logged its shutdown.
stops_gracefully() {
  check "$1 stops within 20 s" timeout 20 tail --pid="$2" -f /dev/null
  check "$1 ran Parasol's graceful shutdown" grep -q '"msg":"shutting down"' "$LOG"
  kill -KILL "$2" 2>/dev/null || true
}

echo "== source: npm start"
# Its own process group, as in a terminal, where Ctrl-C signals the whole group.
setsid npm start >"$LOG" 2>&1 &
pid=$!
check "npm start serves health on port $PORT" wait_healthy $PORT
check_page "GET / is the homepage" "http://127.0.0.1:$PORT/"
check "the store is created in data_dir" test -f "$DATA_DIR/parasol.db"
kill -INT -- "-$pid"
stops_gracefully "Ctrl-C on npm start" "$pid"

echo "== source: node dist/main.js serve"
node dist/main.js serve >"$LOG" 2>&1 &
pid=$!
check "node dist/main.js serve serves health on port $PORT" wait_healthy $PORT
kill -TERM "$pid"
stops_gracefully "SIGTERM on node dist/main.js serve" "$pid"
code=0
wait "$pid" || code=$?
check_exit "... and exits with code 0" 0 exit "$code"
