#!/usr/bin/env bash
# Exercises .pre-commit-hooks.yaml for real: installs pre-commit, then runs `pre-commit try-repo`
# against this checkout on a temp git repo with an unmigrated and a migrated skill, and asserts
# that skillmod-check fails, skillmod-migrate rewrites, and skillmod-check then passes; then the
# same hooks in a real `git commit`.
# usage: tests/precommit/run.sh [WHEELHOUSE]
#   with WHEELHOUSE (scripts/package.sh's output): the `language: python` hooks, installed offline
#   from the wheel there (no Rust toolchain involved); without: the `-src` hooks, built by cargo.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet pre-commit
export PATH="$work/venv/bin:$PATH"
export PRE_COMMIT_HOME="$work/cache"
if [ -n "${1:-}" ]; then
  suffix=""
  # The placeholder's build backend, fetched now; then no index at all: the hook gets the wheel
  # from the wheelhouse or fails.
  "$work/venv/bin/pip" download --quiet --only-binary=:all: -d "$work/links" "setuptools>=61"
  export PIP_NO_INDEX=1
  export PIP_FIND_LINKS="$(realpath "$1") $work/links"
else
  suffix="-src"
  # pre-commit builds the hook with `cargo install` for each try-repo; one shared target folder
  # and a light release profile keep that to one quick build (its speed is not tested here).
  export CARGO_TARGET_DIR="$work/cargo-target"
  export CARGO_PROFILE_RELEASE_LTO=false
  export CARGO_PROFILE_RELEASE_OPT_LEVEL=0
fi

target="$work/target"
mkdir -p "$target/skills/old" "$target/skills/new"
cp "$repo/fixtures/example/skills/generate-api/execute.sh" "$target/skills/old/execute.sh"
cp "$repo/fixtures/example/skills/already-json/execute.sh" "$target/skills/new/execute.sh"
cd "$target"
git init -q -b main
git config user.email ci@example.com
git config user.name CI
git add -A
git commit -qm "skills"

expect() {
  local want="$1"; shift
  local got=0
  "$@" >"$work/out.txt" 2>&1 || got=$?
  if { [ "$want" = fail ] && [ "$got" = 0 ]; } || { [ "$want" = pass ] && [ "$got" != 0 ]; }; then
    cat "$work/out.txt"
    echo "FAIL: expected '$*' to $want (exit $got)" >&2
    exit 1
  fi
  echo "ok: '$*' did $want (exit $got)"
}

# Fails the run, showing the hook's output, when `grep -q PATTERN` does not match it (or, with
# `absent`, when it does).
output_has() {
  local found=0
  grep -q -- "$2" "$work/out.txt" || found=$?
  if { [ "$1" = present ] && [ "$found" != 0 ]; } || { [ "$1" = absent ] && [ "$found" = 0 ]; }; then
    cat "$work/out.txt"
    echo "FAIL: expected '$2' to be $1 in the hook output" >&2
    exit 1
  fi
}

started=$(date +%s)
expect fail pre-commit try-repo "$repo" "skillmod-check$suffix" --all-files
echo "first run of skillmod-check$suffix, hook install included: $(($(date +%s) - started)) s"
output_has present "skills/old/execute.sh:"
output_has absent "skills/new/execute.sh:"
expect fail pre-commit try-repo "$repo" "skillmod-migrate$suffix" --all-files
output_has present "files were modified by this hook"
# --quiet prints problems only: the runtime file the migration created is not named (the check
# hook names one left out of a commit, RUNTIME_UNTRACKED, below).
output_has absent "skillmod-runtime.sh"
git add -A
expect pass pre-commit try-repo "$repo" "skillmod-check$suffix" --all-files
git commit -qm "migrated"

# A normal `git commit` with both hooks installed from this repository at its current commit:
# a new legacy skill is staged (beside an unstaged edit elsewhere, which pre-commit stashes).
cat >.pre-commit-config.yaml <<CONFIG
repos:
  - repo: $repo
    rev: $(git -C "$repo" rev-parse HEAD)
    hooks:
      - id: skillmod-migrate$suffix
      - id: skillmod-check$suffix
CONFIG
git add .pre-commit-config.yaml
git commit -qm "hooks" --no-verify
pre-commit install >/dev/null
mkdir -p skills/fresh
cp "$repo/fixtures/example/skills/lint-check/execute.sh" skills/fresh/execute.sh
git add skills/fresh/execute.sh
echo "# unstaged note" >>skills/new/execute.sh
expect fail git commit -m "add fresh skill"
output_has present "files were modified by this hook"
grep -q "skillmod-runtime.sh" skills/fresh/execute.sh || { echo "FAIL: not migrated" >&2; exit 1; }
grep -q "# unstaged note" skills/new/execute.sh || { echo "FAIL: unstaged edit lost" >&2; exit 1; }
git add skills/fresh/execute.sh
# The script alone: its runtime would be left out of the commit, and the check hook says so.
expect fail git commit -m "add fresh skill"
output_has present "RUNTIME_UNTRACKED"
git add skills/fresh/skillmod-runtime.sh
expect pass git commit -m "add fresh skill"
# A migration that fails says why, even with --quiet.
mkdir -p skills/clash
printf '#!/bin/sh\n__skm_rec() { :; }\necho SUCCESS\n' >skills/clash/execute.sh
git add skills/clash/execute.sh
expect fail git commit -m "clash"
output_has present "NAME_CLASH"
git reset -q skills/clash && rm -rf skills/clash
# A script with neither a .sh name nor the executable bit, in a skill folder (pre-commit's `shell`
# type needs one or the other): the hooks still take it.
mkdir -p skills/deploy/scripts
echo "# deploy" >skills/deploy/SKILL.md
printf '#!/usr/bin/env bash\necho SUCCESS\n' >skills/deploy/scripts/deploy
chmod 644 skills/deploy/scripts/deploy
git add skills/deploy
expect fail git commit -m "deploy"
output_has present "files were modified by this hook"
grep -q "skillmod-runtime.sh" skills/deploy/scripts/deploy || { echo "FAIL: deploy not migrated" >&2; exit 1; }
echo "pre-commit hooks (skillmod-check$suffix, skillmod-migrate$suffix): 9 passed, 0 failed"
