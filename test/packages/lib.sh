# shellcheck shell=bash
# Shared by the package test flows (sourced). Each flow runs as pid 1 of its
# own network, pid and mount namespaces (scripts/test-packages starts it with
# unshare): the service's port 80 is not this machine's, and every process it
# started dies with it.
#   ROOT     the Debian root this flow owns (a copy of the cached one)
#   RESULTS  file of "pass|fail<TAB>check" lines, one per check

: "${ROOT:?}" "${RESULTS:?}"

pass() {
  printf 'pass\t%s\n' "$1" >>"$RESULTS"
  echo "  ok    $1"
}

fail() {
  printf 'fail\t%s\n' "$1" >>"$RESULTS"
  echo "  FAIL  $1"
  [[ -z "${2:-}" ]] || printf '          %s\n' "${2//$'\n'/$'\n'          }"
}

# check NAME CMD...: passes when CMD exits 0, else shows the end of its output.
check() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$(tail -n 8 <<<"$out")"; fi
}

# check_exit NAME CODE CMD...: passes when CMD exits with CODE.
check_exit() {
  local name=$1 want=$2 out code=0
  shift 2
  out=$("$@" 2>&1) || code=$?
  if [[ $code == "$want" ]]; then pass "$name"; else fail "$name" "exit $code, expected $want: $(tail -n 8 <<<"$out")"; fi
}

# Loopback up, /proc for the root; the mount goes with the namespace, and on any exit.
enter_namespace() {
  ip link set lo up
  mount -t proc proc "$ROOT/proc"
  trap 'umount -l "$ROOT/proc" 2>/dev/null || true' EXIT
}

# A command inside the root, with a clean environment (nothing of this machine's).
in_root() {
  chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}
export -f in_root

# http METHOD URL [curl args...]: curl inside the root, following redirects.
# Sets HTTP_STATUS ("200"), HTTP_TYPE (content type) and HTTP_BODY.
http() {
  local method=$1 url=$2 meta
  shift 2
  meta=$(in_root curl -sS -L --max-time 10 -o /tmp/http-body -w '%{http_code} %{content_type}' -X "$method" "$@" "$url" 2>/dev/null) || true
  HTTP_STATUS=${meta%% *}
  HTTP_TYPE=${meta#* }
  HTTP_BODY=$(cat "$ROOT/tmp/http-body" 2>/dev/null || true)
}

# check_http NAME STATUS PATTERN METHOD URL [curl args...]: status and a body pattern (grep -E).
check_http() {
  local name=$1 status=$2 pattern=$3
  shift 3
  http "$@"
  if [[ $HTTP_STATUS == "$status" ]] && grep -Eq -- "$pattern" <<<"$HTTP_BODY"; then
    pass "$name"
  else
    fail "$name" "HTTP ${HTTP_STATUS:-none}, expected $status and /$pattern/: $(head -c 300 <<<"$HTTP_BODY")"
  fi
}

# check_page NAME URL: a 200 HTML page (after redirects).
check_page() {
  http GET "$2"
  if [[ $HTTP_STATUS == 200 && $HTTP_TYPE == text/html* ]]; then
    pass "$1"
  else
    fail "$1" "HTTP ${HTTP_STATUS:-none} ${HTTP_TYPE:-}, expected 200 text/html"
  fi
}

# Waits (at most 20 s) until the health endpoint on PORT answers 200.
wait_healthy() {
  local port=$1 tries=100
  while ((tries-- > 0)); do
    http GET "http://127.0.0.1:$port/api-umbrella/v1/health"
    [[ $HTTP_STATUS == 200 ]] && return 0
    sleep 0.2
  done
  return 1
}

# Waits (at most 20 s) until nothing answers on PORT.
wait_port_closed() {
  local port=$1 tries=100
  while ((tries-- > 0)); do
    in_root curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$port/" || return 0
    sleep 0.2
  done
  return 1
}

# json_field PATH <<<JSON: prints a value (a.b.c) of a JSON document, fails when absent.
# shellcheck disable=SC2016 # JavaScript, not shell
json_field() {
  node -e '
    let text = "";
    process.stdin.on("data", (d) => (text += d)).on("end", () => {
      const value = process.argv[1].split(".").reduce((o, k) => o?.[k], JSON.parse(text));
      if (value === undefined || value === null) process.exit(1);
      console.log(value);
    });' "$1"
}

# shellcheck disable=SC2016
# A tiny upstream API on 127.0.0.1:PORT inside this namespace: answers {"upstream_path": …}.
start_upstream() {
  node -e '
    require("node:http").createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ upstream_path: req.url }));
    }).listen(Number(process.argv[1]), "127.0.0.1");' "$1" >/dev/null 2>&1 &
  local tries=100
  until curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$1/"; do
    ((tries-- > 0)) || return 1
    sleep 0.1
  done
}

# shellcheck disable=SC2016
# Every line of a log file is a JSON object with a level.
json_lines() {
  node -e '
    const lines = require("node:fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean);
    if (lines.length === 0) throw new Error("the log is empty");
    for (const line of lines) if (typeof JSON.parse(line).level !== "number") throw new Error(`no level: ${line}`);' "$1"
}

# capture NAME VAR PATH CMD...: runs CMD, stores the JSON value at PATH of its output in VAR.
capture() {
  local name=$1 var=$2 path=$3 out value
  shift 3
  out=$("$@" 2>&1)
  if value=$(json_field "$path" <<<"$out" 2>/dev/null); then
    printf -v "$var" '%s' "$value"
    pass "$name"
  else
    fail "$name" "$out"
  fi
}
