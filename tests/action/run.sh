#!/usr/bin/env bash
# Runs the shell steps of action.yml as GitHub's runner would (GITHUB_ACTION_PATH, RUNNER_TEMP,
# GITHUB_PATH), installing the wheel from WHEELHOUSE with no package index, on a repository with
# a legacy skill: annotations and exit 1 by default, a valid SARIF file with `format: sarif`.
# usage: tests/action/run.sh WHEELHOUSE
set -euo pipefail
wheelhouse="$(realpath "${1:?usage: tests/action/run.sh WHEELHOUSE}")"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The steps' `run:` lines are the scripts this test runs.
grep -q 'run: bash "$GITHUB_ACTION_PATH/action/install.sh"' "$repo/action.yml"
grep -q 'run: bash "$GITHUB_ACTION_PATH/action/check.sh"' "$repo/action.yml"
version="$(python3 -c 'import re,sys; print(re.search(r"version:\n(?:.*\n)*?    default: \"([0-9.]+)\"", open(sys.argv[1]).read()).group(1))' "$repo/action.yml")"
export GITHUB_ACTION_PATH="$repo" RUNNER_TEMP="$work/runner" GITHUB_PATH="$work/github_path"
mkdir -p "$RUNNER_TEMP"
: >"$GITHUB_PATH"
PIP_NO_INDEX=1 PIP_FIND_LINKS="$wheelhouse" SKILLMOD_VERSION="$version" \
  bash "$repo/action/install.sh" >/dev/null
PATH="$(cat "$GITHUB_PATH"):$PATH"
export PATH

mkdir -p "$work/checkout/skills/a" "$work/checkout/tools"
printf '#!/bin/sh\necho "SUCCESS"\n' >"$work/checkout/skills/a/execute.sh"
printf '#!/bin/sh\necho "Created: x"\n' >"$work/checkout/tools/build.sh"
cd "$work/checkout"
git init -q

status=0
INPUT_PATHS="." INPUT_FORMAT=github INPUT_ARGS="" INPUT_OUTPUT="" \
  bash "$repo/action/check.sh" >"$work/log" || status=$?
[ "$status" = 1 ] || { cat "$work/log"; echo "FAIL: default run exited $status, not 1" >&2; exit 1; }
grep -q '^::error file=skills/a/execute.sh,line=2' "$work/log" || { cat "$work/log"; echo "FAIL: no annotation" >&2; exit 1; }
echo "ok: annotations, exit 1"

status=0
INPUT_PATHS="skills tools" INPUT_FORMAT=sarif INPUT_ARGS="--include '*.sh' --exit-zero" \
  INPUT_OUTPUT="$work/report.sarif" bash "$repo/action/check.sh" || status=$?
[ "$status" = 0 ] || { echo "FAIL: sarif run with --exit-zero exited $status" >&2; exit 1; }
python3 - "$work/report.sarif" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
assert log["version"] == "2.1.0", log["version"]
files = sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"])
assert files == ["skills/a/execute.sh", "tools/build.sh"], files
PY
echo "ok: SARIF file with both findings (quoted --include honoured), exit 0"

# A quote left open stops the step (exit 2) instead of dropping the arguments.
status=0
INPUT_PATHS="." INPUT_FORMAT=github INPUT_ARGS="--exit-zero --include '*.sh" INPUT_OUTPUT="" \
  bash "$repo/action/check.sh" >"$work/log" 2>&1 || status=$?
[ "$status" = 2 ] && grep -q "INVALID_ARGUMENT" "$work/log" || { cat "$work/log"; echo "FAIL: open quote gave exit $status" >&2; exit 1; }
echo "ok: an open quote in args stops the step (exit 2)"
# A quoted path with blanks is one path.
mkdir -p "dir with space/b"
cp skills/a/execute.sh "dir with space/b/execute.sh"
status=0
INPUT_PATHS="'dir with space'" INPUT_FORMAT=github INPUT_ARGS="" INPUT_OUTPUT="" \
  bash "$repo/action/check.sh" >"$work/log" 2>&1 || status=$?
[ "$status" = 1 ] && grep -q "dir with space/b/execute.sh" "$work/log" || { cat "$work/log"; echo "FAIL: quoted path gave exit $status" >&2; exit 1; }
echo "ok: a quoted path with blanks (exit 1)"

# An input is data: a `$(…)` in it is an argument, never run.
status=0
INPUT_PATHS="." INPUT_FORMAT=github INPUT_ARGS='$(touch pwned)' INPUT_OUTPUT="" \
  bash "$repo/action/check.sh" >"$work/log" 2>&1 || status=$?
[ ! -e pwned ] || { echo "FAIL: an input was run as a command" >&2; exit 1; }
echo "ok: inputs are not evaluated (exit $status)"

# A path named like an option is a path: a pull request's file list cannot turn the gate off.
mkdir -p -- "skills/--exit-zero"
cp skills/a/execute.sh "skills/--exit-zero/execute.sh"
cp skills/a/execute.sh ./--exit-zero
status=0
INPUT_PATHS="skills/--exit-zero --exit-zero" INPUT_FORMAT=github INPUT_ARGS="" INPUT_OUTPUT="" \
  bash "$repo/action/check.sh" >"$work/log" 2>&1 || status=$?
[ "$status" = 1 ] && grep -q "^::error file=--exit-zero,line=2" "$work/log" || { cat "$work/log"; echo "FAIL: a path named --exit-zero gave exit $status" >&2; exit 1; }
echo "ok: a path named --exit-zero is a path (exit $status)"

# The checkout's own Python is never run: a `shlex.py` beside the paths (check step), a `venv/`
# package in the working folder (install step).
printf 'import pathlib\npathlib.Path("PWNED-shlex").touch()\nfrom shlex import *\n' >shlex.py
mkdir -p venv
printf 'import pathlib\npathlib.Path("PWNED-venv").touch()\n' >venv/__main__.py
: >venv/__init__.py
status=0
INPUT_PATHS="skills/a" INPUT_FORMAT=github INPUT_ARGS="" INPUT_OUTPUT="" \
  bash "$repo/action/check.sh" >"$work/log" 2>&1 || status=$?
[ "$status" = 1 ] && [ ! -e PWNED-shlex ] || { cat "$work/log"; echo "FAIL: the checkout's shlex.py ran (exit $status)" >&2; exit 1; }
mkdir -p "$work/runner2"
RUNNER_TEMP="$work/runner2" GITHUB_PATH="$work/github_path2" PIP_NO_INDEX=1 PIP_FIND_LINKS="$wheelhouse" \
  SKILLMOD_VERSION="$version" bash "$repo/action/install.sh" >/dev/null
[ ! -e PWNED-venv ] || { echo "FAIL: the working folder's venv/ ran in the install step" >&2; exit 1; }
rm -rf shlex.py venv
echo "ok: the checkout's shlex.py and venv/ are not run"

# The report never goes through a link the checkout holds: a symlink at the file is replaced,
# a folder linked outside the workspace stops the step.
echo "keep me" >"$work/victim"
ln -s "$work/victim" skillmod.sarif
status=0
INPUT_PATHS="skills/a" INPUT_FORMAT=sarif INPUT_ARGS="" INPUT_OUTPUT="skillmod.sarif" \
  bash "$repo/action/check.sh" >"$work/log" 2>&1 || status=$?
[ "$status" = 1 ] && [ "$(cat "$work/victim")" = "keep me" ] && [ ! -L skillmod.sarif ] \
  && grep -q '"version": "2.1.0"' skillmod.sarif \
  || { cat "$work/log"; echo "FAIL: the report was written through a symlink (exit $status)" >&2; exit 1; }
mkdir -p "$work/elsewhere"
ln -s "$work/elsewhere" reports
status=0
INPUT_PATHS="skills/a" INPUT_FORMAT=sarif INPUT_ARGS="" INPUT_OUTPUT="reports/out.sarif" \
  bash "$repo/action/check.sh" >"$work/log" 2>&1 || status=$?
[ "$status" = 2 ] && grep -q OUTPUT_UNSAFE "$work/log" && [ -z "$(ls -A "$work/elsewhere")" ] \
  || { cat "$work/log"; echo "FAIL: a report folder linked outside gave exit $status" >&2; exit 1; }
# A link to a folder outside at the file's place, and a report folder to be made under a linked
# one: nothing is written there.
rm -f skillmod.sarif
ln -s "$work/elsewhere" skillmod.sarif
status=0
INPUT_PATHS="skills/a" INPUT_FORMAT=sarif INPUT_ARGS="" INPUT_OUTPUT="skillmod.sarif" \
  bash "$repo/action/check.sh" >"$work/log" 2>&1 || status=$?
[ "$status" = 1 ] && [ -z "$(ls -A "$work/elsewhere")" ] && [ -f skillmod.sarif ] && [ ! -L skillmod.sarif ] \
  || { cat "$work/log"; echo "FAIL: a report linked to a folder gave exit $status" >&2; exit 1; }
status=0
INPUT_PATHS="skills/a" INPUT_FORMAT=sarif INPUT_ARGS="" INPUT_OUTPUT="reports/new/deeper/out.sarif" \
  bash "$repo/action/check.sh" >"$work/log" 2>&1 || status=$?
[ "$status" = 2 ] && [ -z "$(ls -A "$work/elsewhere")" ] \
  || { cat "$work/log"; echo "FAIL: folders were made under a linked report folder (exit $status)" >&2; exit 1; }
rm -f skillmod.sarif reports
echo "ok: the report is never written through a symlink"

# A path named `-` is that file, not stdin.
cp skills/a/execute.sh ./-
status=0
INPUT_PATHS="-" INPUT_FORMAT=github INPUT_ARGS="" INPUT_OUTPUT="" \
  bash "$repo/action/check.sh" >"$work/log" 2>&1 </dev/null || status=$?
[ "$status" = 1 ] && grep -q "^::error file=-,line=2" "$work/log" || { cat "$work/log"; echo "FAIL: a path named - gave exit $status" >&2; exit 1; }
echo "ok: a path named - is a file (exit $status)"
echo "action: 9 passed, 0 failed"
