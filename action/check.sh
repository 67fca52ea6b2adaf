#!/usr/bin/env bash
# The Action's check step: `skillmod check --format INPUT_FORMAT INPUT_ARGS INPUT_PATHS`, its report
# in INPUT_OUTPUT when given; the exit status is check's (1: legacy lines found, 2: errors).
set -euo pipefail
read -r -a paths <<<"${INPUT_PATHS:-.}"
# Arguments are split as a shell would split them (`--include '*.sh'`), by Python's shlex, never
# evaluated: an input is data, whatever it holds.
mapfile -d '' -t args < <(python3 -c 'import shlex, sys; sys.stdout.write("".join(a + "\0" for a in shlex.split(sys.argv[1])))' "${INPUT_ARGS:-}")
command=(skillmod check --format "${INPUT_FORMAT:-github}" "${args[@]}" "${paths[@]}")
if [ -n "${INPUT_OUTPUT:-}" ]; then
  "${command[@]}" >"$INPUT_OUTPUT"
else
  "${command[@]}"
fi
