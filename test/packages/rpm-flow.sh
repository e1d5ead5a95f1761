#!/usr/bin/env bash
# The .rpm: its metadata and file list, then `rpm --root` into a fresh Debian
# root and the start/homepage/stop check with its init script, and erase.
# The root is Debian's, whose packages are not in an RPM database: the
# install uses --nodeps (the dependencies are checked here from the metadata).
#   RPM  the package under test
set -uo pipefail
# shellcheck source=test/packages/lib.sh
source "$(dirname "$0")/lib.sh"
: "${RPM:?}"

enter_namespace
INIT=/etc/rc.d/init.d/parasol

has_lines() {
  local listing=$1 missing
  shift
  missing=$(comm -13 <(sort -u <<<"$listing") <(printf '%s\n' "$@" | sort -u))
  [[ -z $missing ]] || { echo "missing: $missing"; return 1; }
}

echo "== .rpm: metadata of $(basename "$RPM")"
check "name, version, architecture and license" \
  bash -c "[[ \$(rpm -qp --qf '%{NAME} %{ARCH} %{LICENSE}' '$RPM') == 'parasol x86_64 MIT' ]]"
check "the file list has the layout of the .deb" has_lines "$(rpm -qpl "$RPM")" \
  /opt/parasol/embedded/bin/node /opt/parasol/bin/parasol /opt/parasol/dist/main.js /opt/parasol/migrations \
  /opt/parasol/views /opt/parasol/public /opt/parasol/node_modules/better-sqlite3 /usr/bin/parasol \
  /etc/parasol/parasol.yml /etc/rc.d/init.d/parasol /etc/logrotate.d/parasol /usr/lib/systemd/system/parasol.service
check "the configs are marked %config" has_lines "$(rpm -qpc "$RPM")" /etc/parasol/parasol.yml /etc/logrotate.d/parasol
check "it requires glibc 2.34 and GCC 11's libstdc++ (the bundled runtime's addons)" \
  has_lines "$(rpm -qpR "$RPM")" 'libc.so.6(GLIBC_2.34)(64bit)' 'libstdc++.so.6(GLIBCXX_3.4.29)(64bit)'
check "it does not require a system Node.js" bash -c "! rpm -qpR '$RPM' | grep -qi node"
check "its scriptlets set up the service and stop it on erase" \
  bash -c "rpm -qp --scripts '$RPM' | grep -q 'parasol-service setup' && rpm -qp --scripts '$RPM' | grep -q 'parasol-service stop'"

echo "== .rpm: rpm --root into a fresh root"
check "rpm --root --nodeps -i installs it" bash -c "rpm --root '$ROOT' --initdb && rpm --root '$ROOT' -i --nodeps '$RPM'"
check "%post created the user parasol and its folders" \
  bash -c "in_root getent passwd parasol >/dev/null && [[ \$(in_root stat -c %U /var/lib/parasol /var/log/parasol | sort -u) == parasol ]]"
check "the config is root's to write and parasol's to read" \
  bash -c "[[ \$(in_root stat -c %U:%G:%a /etc/parasol/parasol.yml) == root:parasol:640 ]]"
check "$INIT start exits 0" in_root $INIT start
check "the health endpoint answers on port 80" wait_healthy 80
check_page "GET / is the homepage" http://127.0.0.1/
check "$INIT stop exits 0" in_root $INIT stop
check_exit "$INIT status after stop is 3" 3 in_root $INIT status
check "nothing listens on port 80 after stop" wait_port_closed 80
check "rpm -e erases it and keeps the data" \
  bash -c "rpm --root '$ROOT' -e parasol && ! test -e $ROOT/opt/parasol && test -f $ROOT/var/lib/parasol/parasol.db"
