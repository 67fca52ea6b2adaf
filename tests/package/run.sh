#!/usr/bin/env bash
# Installs what scripts/package.sh built, as users would, with no package index: the wheel with
# pip into a venv, the npm tarballs into a project; then runs skillmod through each and checks the
# version, that exit statuses pass through, SKILLMOD_BINARY, and a missing platform package.
# usage: tests/package/run.sh OUT
set -euo pipefail
out="$(realpath "${1:?usage: tests/package/run.sh OUT}")"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0
check() {  # check WANTED_STATUS DESCRIPTION COMMAND...
  local want="$1" what="$2" got=0
  shift 2
  "$@" >"$work/out.txt" 2>&1 || got=$?
  if [ "$got" != "$want" ]; then
    cat "$work/out.txt"
    echo "FAIL: $what: exit $got, expected $want" >&2
    exit 1
  fi
  passed=$((passed + 1))
  echo "ok: $what (exit $got)"
}
has() {
  grep -q -- "$1" "$work/out.txt" || { cat "$work/out.txt"; echo "FAIL: no '$1' in the output" >&2; exit 1; }
}

# A skill with a legacy line: check exits 1 on it.
mkdir -p "$work/skills/a"
printf '#!/bin/sh\necho "SUCCESS"\n' >"$work/skills/a/execute.sh"

# The wheel, with pip and no index.
python3 -m venv "$work/venv"
PIP_NO_INDEX=1 "$work/venv/bin/pip" install --quiet --find-links "$out" "skillmod==$version"
check 0 "wheel: skillmod --version" "$work/venv/bin/skillmod" --version
has "skillmod $version"
check 1 "wheel: check's exit status" "$work/venv/bin/skillmod" check "$work/skills"

# npm: the launcher and this platform's package, offline.
mkdir -p "$work/project" && cd "$work/project"
echo '{"name": "p", "version": "1.0.0", "private": true}' >package.json
npm install --offline --silent --no-audit --no-fund \
  "$out/skillmod-linux-x64-gnu-$version.tgz" "$out/skillmod-$version.tgz" >/dev/null
check 0 "npm: npx skillmod --version" npx --offline skillmod --version
has "skillmod $version"
check 1 "npm: check's exit status passes through" npx --offline skillmod check "$work/skills"
check 2 "npm: a usage error's status passes through" npx --offline skillmod check --no-such-flag
check 3 "npm: SKILLMOD_BINARY runs another binary" env SKILLMOD_BINARY=/bin/sh \
  npx --offline skillmod -c "exit 3"
check 2 "npm: a SKILLMOD_BINARY that cannot run" env SKILLMOD_BINARY="$work/none" \
  npx --offline skillmod --version
has "BINARY_NOT_RUNNABLE"
has "SKILLMOD_BINARY names it"
# The launcher alone (its platform package left out, as a lockfile from another OS can do).
rm -rf node_modules/@skillmod
check 2 "npm: no platform package" npx --offline skillmod --version
has "BINARY_NOT_FOUND"
has "npm install @skillmod/linux-x64-gnu"
echo "packages: $passed passed, 0 failed"
