# shellcheck shell=bash
# The options scripts/package-deb and scripts/package-rpm share (sourced):
#   --version V    the package version (default: package.json's)
#   --release DIR  a release tree already built (default: build/release/parasol,
#                  built afresh every time, so the package holds the current code)
#   --out DIR      where the package goes (default: build/packages)
# shellcheck disable=SC2034 # used by the scripts that source this
version=$(node -p 'require("./package.json").version')
release=
out=build/packages
while [[ $# -gt 0 ]]; do
  case $1 in
    --version) version=$2; shift 2 ;;
    --release) release=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--version V] [--release DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
if [[ -z $release ]]; then
  release=build/release/parasol
  scripts/build-release --out "$release" >&2
fi
[[ -x "$release/embedded/bin/node" ]] || { echo "$0: $release is not a release tree (scripts/build-release makes one)" >&2; exit 2; }
mkdir -p "$out"
