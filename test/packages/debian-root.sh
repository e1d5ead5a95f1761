#!/usr/bin/env bash
# Prepares (or reuses) the cached minimal Debian root the package tests run in:
# debootstrap --variant=minbase of the host's Debian release from the host's
# own apt mirror, plus the few tools the checks use inside it.
# Usage: test/packages/debian-root.sh CACHE_DIR  → prints the root's path.
set -euo pipefail

SUITE=bookworm
INCLUDE=curl,procps,logrotate,ca-certificates

cache_dir=$1
root="$cache_dir/debian-$SUITE-root"
marker="$root.ready"
wanted="$SUITE minbase $INCLUDE"

# shellcheck disable=SC2016 # apt's own $(FIELD) placeholders
host_mirror() {
  apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 'Created-By: Packages' 2>/dev/null |
    awk -v suite="$SUITE" '$1 == suite { print $2; exit }'
}

if [[ -f "$marker" && "$(cat "$marker")" == "$wanted" ]]; then
  echo "$root"
  exit 0
fi

mirror=${PARASOL_DEBIAN_MIRROR:-$(host_mirror)}
if [[ -z "$mirror" ]]; then
  # apt names its sources only once it has read their lists.
  apt-get update -qq
  mirror=$(host_mirror)
fi
if [[ -z "$mirror" ]]; then
  echo "debian-root: no apt source for $SUITE on this host; set PARASOL_DEBIAN_MIRROR" >&2
  exit 1
fi
rm -rf "$root" "$marker"
mkdir -p "$cache_dir"
echo "debian-root: debootstrap $SUITE from $mirror into $root (once; cached after)" >&2
debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$root" "$mirror" >"$root.log" 2>&1 || {
  tail -n 30 "$root.log" >&2
  exit 1
}
# A fresh system has no packages cache worth keeping.
chroot "$root" apt-get clean
echo "$wanted" >"$marker"
echo "$root"
