#!/usr/bin/env bash
# The .deb on a fresh Debian: install, start with the init script, browse,
# create an admin, publish a backend and call it with a key, status, rotate
# the log, restart, reload, crash recovery, upgrade (config, data kept,
# migrations run), remove (data kept) and purge (data gone).
#   DEB          the package under test
#   DEB_UPGRADE  the same release rebuilt with a higher version and one more migration
#   UPGRADE_MIGRATION  that migration's number (the store's user_version after the upgrade)
set -uo pipefail
# shellcheck source=test/packages/lib.sh
source "$(dirname "$0")/lib.sh"
: "${DEB:?}" "${DEB_UPGRADE:?}" "${UPGRADE_MIGRATION:?}"

enter_namespace
BASE=http://127.0.0.1
INIT=/etc/init.d/parasol
ADMIN_PASSWORD='correct horse battery staple'
UPSTREAM_PORT=9999

dpkg_install() {
  cp "$1" "$ROOT/tmp/" && in_root env DEBIAN_FRONTEND=noninteractive dpkg -i "/tmp/$(basename "$1")" </dev/null
}

# systemd's own check of the unit, against the installed files (/opt bound
# from the root in this flow's private mount namespace only).
verify_unit() {
  local out code=0
  mount --bind "$ROOT/opt" /opt || return 1
  out=$(systemd-analyze verify --man=no "$ROOT/lib/systemd/system/parasol.service" 2>&1) || code=$?
  umount /opt
  [[ $code == 0 && -z $out ]] || { echo "$out"; return 1; }
}

service_pid() { cat "$ROOT/run/parasol.pid"; }

admin_get() { http GET "$BASE/api-umbrella/v1/$1" -H "X-Admin-Auth-Token: $TOKEN"; }

echo "== .deb: install $(basename "$DEB")"
check "dpkg -i installs the package" dpkg_install "$DEB"
check "the bundled runtime is Node.js 20 or newer" \
  bash -c "in_root /opt/parasol/embedded/bin/node -p 'process.versions.node.split(\".\")[0] >= 20 || process.exit(1)'"
check "/etc/parasol/parasol.yml is a conffile" bash -c "in_root dpkg-query -W -f='\${Conffiles}' parasol | grep -q /etc/parasol/parasol.yml"
check "the config listens on port 80 with data_dir /var/lib/parasol" \
  grep -Eq '^data_dir: /var/lib/parasol' "$ROOT/etc/parasol/parasol.yml"
check "postinst created the system user parasol" bash -c "in_root getent passwd parasol | grep -q ':/usr/sbin/nologin$'"
check "/var/lib/parasol and /var/log/parasol belong to parasol" \
  bash -c "[[ \$(in_root stat -c %U /var/lib/parasol /var/log/parasol | sort -u) == parasol ]]"
check "the config (it may hold secret_key and the SMTP password) is root's to write and parasol's to read" \
  bash -c "[[ \$(in_root stat -c %U:%G:%a /etc/parasol/parasol.yml) == root:parasol:640 ]]"
check "/usr/bin/parasol config check reads /etc/parasol/parasol.yml" \
  bash -c "in_root /usr/bin/parasol config check | grep -q '\"config_file\":\"/etc/parasol/parasol.yml\"'"
check "/usr/bin/parasol --version names the packaged version" \
  bash -c "[[ \$(in_root /usr/bin/parasol --version) == \"parasol \$(in_root /opt/parasol/embedded/bin/node -p 'require(\"/opt/parasol/package.json\").version')\" ]]"
check "the systemd unit and logrotate config are installed" \
  test -f "$ROOT/lib/systemd/system/parasol.service" -a -f "$ROOT/etc/logrotate.d/parasol"
check "systemd-analyze verify finds nothing wrong in parasol.service" verify_unit
check_exit "installing does not start the service (status 3)" 3 in_root $INIT status

echo "== .deb: start with $INIT"
check "$INIT start exits 0" in_root $INIT start
check "the health endpoint answers on port 80" wait_healthy 80
check_exit "$INIT status exits 0 while running" 0 in_root $INIT status
check "/usr/bin/parasol health answers green on the packaged port" \
  bash -c "in_root /usr/bin/parasol health | grep -qF '\"status\":\"green\"'"
check "/usr/bin/parasol status names the service's process" \
  bash -c "in_root /usr/bin/parasol status | grep -qF '\"running\":true,\"pid\":$(service_pid),'"
check "the service runs as parasol" bash -c "[[ \$(in_root ps -o user= -p $(service_pid)) == parasol ]]"
check "the service holds no capability but binding port 80" \
  grep -q '^CapEff:[[:space:]]*0000000000000400$' "$ROOT/proc/$(service_pid)/status"
check_exit "a second start exits 0 and keeps the same process" 0 in_root $INIT start
check_page "GET / is the homepage" "$BASE/"
check_page "GET /admin/ is the admin (or its first-admin page)" "$BASE/admin/"
check_page "GET /signup/ is the signup page" "$BASE/signup/"

echo "== .deb: admin, backend, key"
TOKEN=
capture "parasol admins create prints an admin token" TOKEN admin_auth_token \
  in_root /usr/bin/parasol admins create --email ops@example.com --password "$ADMIN_PASSWORD"
check "files the CLI wrote as root belong to parasol" bash -c "[[ -z \$(in_root find /var/lib/parasol ! -user parasol) ]]"
check "a test upstream listens on 127.0.0.1:$UPSTREAM_PORT" start_upstream $UPSTREAM_PORT
check_http "POST /api-umbrella/v1/apis creates a backend" 201 '"api"' POST "$BASE/api-umbrella/v1/apis" \
  -H "X-Admin-Auth-Token: $TOKEN" -H 'Content-Type: application/json' -d "{\"api\":{
    \"name\":\"Package test\",\"frontend_host\":\"127.0.0.1\",\"backend_host\":\"127.0.0.1\",
    \"servers\":[{\"host\":\"127.0.0.1\",\"port\":$UPSTREAM_PORT}],
    \"url_matches\":[{\"frontend_prefix\":\"/package-test/\",\"backend_prefix\":\"/\"}]}}"
API_ID=$(json_field api.id <<<"$HTTP_BODY" 2>/dev/null)
check_http "POST /api-umbrella/v1/config/publish publishes it" 201 . POST "$BASE/api-umbrella/v1/config/publish" \
  -H "X-Admin-Auth-Token: $TOKEN" -H 'Content-Type: application/json' -d "{\"config\":{\"apis\":{\"$API_ID\":{\"publish\":\"1\"}}}}"
check_http "POST /api-umbrella/v1/users creates a key" 201 '"api_key"' POST "$BASE/api-umbrella/v1/users" \
  -H "X-Admin-Auth-Token: $TOKEN" -H 'Content-Type: application/json' \
  -d '{"user":{"email":"developer@example.com","first_name":"Package","last_name":"Test"}}'
API_KEY=$(json_field user.api_key <<<"$HTTP_BODY" 2>/dev/null)

call_backend() {
  check_http "$1" 200 '"upstream_path":"/hello' GET "$BASE/package-test/hello" -H "X-Api-Key: $API_KEY"
}
call_backend "the published backend answers a call with the key"
check "parasol backup copies the running store, into a file of parasol's" bash -c \
  "in_root /usr/bin/parasol backup --to /var/lib/parasol/backup.db | grep -q '\"bytes\"' && [[ \$(in_root stat -c %U:%a /var/lib/parasol/backup.db) == parasol:600 ]]"
check_http "a call without a key is refused (403)" 403 API_KEY_MISSING GET "$BASE/package-test/hello"

echo "== .deb: logs"
LOG=$ROOT/var/log/parasol/parasol.log
check "the service logs JSON lines to /var/log/parasol/parasol.log" json_lines "$LOG"
check "the log never holds the API key" bash -c "! grep -qF '$API_KEY' '$LOG'"
check "logrotate rotates the log" bash -c "in_root logrotate --force /etc/logrotate.d/parasol && test -f $LOG.1"

echo "== .deb: restart, reload, crash"
OLD_PID=$(service_pid)
check "$INIT restart exits 0" in_root $INIT restart
check "restart started a new process" bash -c "[[ \$(cat $ROOT/run/parasol.pid) != $OLD_PID ]]"
check "after rotation the old process still logged, from the start of the new file" bash -c "head -c 1 '$LOG' | grep -q '{' && grep -q 'shutting down' '$LOG'"
check "the health endpoint answers after restart" wait_healthy 80
check_http "the admin token survives the restart" 200 'Package test' GET "$BASE/api-umbrella/v1/apis" -H "X-Admin-Auth-Token: $TOKEN"
call_backend "the key and the backend survive the restart"
cp "$ROOT/etc/parasol/parasol.yml" "$ROOT/tmp/parasol.yml.good"
echo 'no_such_key: 1' >>"$ROOT/etc/parasol/parasol.yml"
check_exit "reload with an invalid config exits 6" 6 in_root $INIT reload
check_exit "... and leaves the service running" 0 in_root $INIT status
cp "$ROOT/tmp/parasol.yml.good" "$ROOT/etc/parasol/parasol.yml"
RELOAD_PID=$(service_pid)
sed -i 's/^site_name: Parasol /site_name: Reloaded site /' "$ROOT/etc/parasol/parasol.yml"
check "$INIT reload exits 0" in_root $INIT reload
check "reload kept the process (SIGHUP, no restart)" bash -c "[[ \$(cat $ROOT/run/parasol.pid) == $RELOAD_PID ]]"
check_http "the reloaded config applies (site_name on the homepage)" 200 'Reloaded site' GET "$BASE/"
check "the health endpoint answers after reload" wait_healthy 80
cp "$ROOT/tmp/parasol.yml.good" "$ROOT/etc/parasol/parasol.yml"

echo "== .deb: the init script where systemd is the init"
# The script hands actions to systemd when /run/systemd/system exists; a
# stand-in systemctl records what it was asked.
mkdir "$ROOT/run/systemd" "$ROOT/run/systemd/system"
[[ -e $ROOT/usr/bin/systemctl ]] && mv "$ROOT/usr/bin/systemctl" "$ROOT/tmp/systemctl.real"
printf '#!/bin/sh\necho "$*" >>/tmp/systemctl.calls\n' >"$ROOT/usr/bin/systemctl"
chmod +x "$ROOT/usr/bin/systemctl"
echo 'no_such_key: 1' >>"$ROOT/etc/parasol/parasol.yml"
check_exit "reload with an invalid config exits 6" 6 in_root $INIT reload
check "... and does not restart the unit" test ! -e "$ROOT/tmp/systemctl.calls"
cp "$ROOT/tmp/parasol.yml.good" "$ROOT/etc/parasol/parasol.yml"
check "reload of a valid config reloads the unit" bash -c "in_root $INIT reload && grep -qx 'reload parasol.service' '$ROOT/tmp/systemctl.calls'"
check "PARASOL_INIT_NO_SYSTEMD=1 keeps the script's own restart (the variable is not taken for a config key)" \
  in_root env PARASOL_INIT_NO_SYSTEMD=1 $INIT restart
check "the health endpoint answers after that restart" wait_healthy 80
rm -f "$ROOT/usr/bin/systemctl" "$ROOT/tmp/systemctl.calls"
[[ -e $ROOT/tmp/systemctl.real ]] && mv "$ROOT/tmp/systemctl.real" "$ROOT/usr/bin/systemctl"
rmdir "$ROOT/run/systemd/system" "$ROOT/run/systemd"
kill -KILL "$(service_pid)"
sleep 0.5
check_exit "status after a crash is 1 (dead, pid file left)" 1 in_root $INIT status
check "start after a crash exits 0" in_root $INIT start
check "the health endpoint answers after the crash" wait_healthy 80

echo "== .deb: upgrade to $(basename "$DEB_UPGRADE")"
sed -i 's/^site_name: .*/site_name: Upgrade Check Site/' "$ROOT/etc/parasol/parasol.yml"
check "$INIT restart with an edited config exits 0" in_root $INIT restart
BEFORE_PID=$(service_pid)
check "dpkg -i of a higher version upgrades" dpkg_install "$DEB_UPGRADE"
check "the installed version is the new one" \
  bash -c "[[ \$(in_root dpkg-query -W -f='\${Version}' parasol) == '$(dpkg-deb -f "$DEB_UPGRADE" Version)' ]]"
check "the edited config is kept" grep -q '^site_name: Upgrade Check Site' "$ROOT/etc/parasol/parasol.yml"
check_exit "the service that ran before the upgrade runs again" 0 in_root $INIT status
check "... as a new process" bash -c "[[ \$(cat $ROOT/run/parasol.pid) != $BEFORE_PID ]]"
check "the health endpoint answers after the upgrade" wait_healthy 80
check "the new migration ran (user_version $UPGRADE_MIGRATION)" bash -c "[[ \$(in_root /opt/parasol/embedded/bin/node -e \"
    const Database = require('/opt/parasol/node_modules/better-sqlite3');
    console.log(new Database('/var/lib/parasol/parasol.db', { readonly: true }).pragma('user_version', { simple: true }));
  \") == $UPGRADE_MIGRATION ]]"
check_http "the admin token survives the upgrade" 200 'Package test' GET "$BASE/api-umbrella/v1/apis" -H "X-Admin-Auth-Token: $TOKEN"
call_backend "the key and the backend survive the upgrade"
check_http "the homepage shows the kept config's site_name" 200 'Upgrade Check Site' GET "$BASE/"

echo "== .deb: stop, remove, purge"
check "$INIT stop exits 0" in_root $INIT stop
check_exit "$INIT status after stop is 3" 3 in_root $INIT status
check "nothing listens on port 80 after stop" wait_port_closed 80
check "a second stop exits 0" in_root $INIT stop
check "parasol restore puts back the backup made before the upgrade, migrated, in files of parasol's" bash -c \
  "in_root /usr/bin/parasol restore --from /var/lib/parasol/backup.db | grep -q '\"schema_version\":$UPGRADE_MIGRATION,' && [[ -z \$(in_root find /var/lib/parasol ! -user parasol) ]]"
check "$INIT start exits 0 again" in_root $INIT start
check "the health endpoint answers after the restore" wait_healthy 80
call_backend "the key and the backend of the backup answer after the restore"
check "dpkg -r removes the package" in_root dpkg -r parasol
check "remove stopped the service" wait_port_closed 80
check "remove deleted /opt/parasol and /usr/bin/parasol" bash -c "! test -e $ROOT/opt/parasol && ! test -e $ROOT/usr/bin/parasol"
check "remove kept the data and the config" test -f "$ROOT/var/lib/parasol/parasol.db" -a -f "$ROOT/etc/parasol/parasol.yml"
check "dpkg --purge purges the package" in_root dpkg --purge parasol
check "purge deleted the data, the logs and the config" \
  bash -c "! test -e $ROOT/var/lib/parasol && ! test -e $ROOT/var/log/parasol && ! test -e $ROOT/etc/parasol"
check "purge removed the init links" bash -c "! ls $ROOT/etc/rc2.d | grep -q parasol"
