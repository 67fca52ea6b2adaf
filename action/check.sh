#!/usr/bin/env bash
# The Action's check step: `skillmod check --format INPUT_FORMAT INPUT_ARGS -- INPUT_PATHS`, its report
# in INPUT_OUTPUT when given; the exit status is check's (1: legacy lines found, 2: errors).
set -euo pipefail
# Paths and arguments are split as a shell would split them (`--include '*.sh'`, a quoted path
# with blanks), by Python's shlex, never evaluated: an input is data, whatever it holds. A quote
# left open is an error that stops the step, never a silently dropped argument.
split() {
  python3 -c 'import shlex, sys; sys.stdout.write("".join(a + "\0" for a in shlex.split(sys.argv[2])))' "$1" "$2" \
    || { echo "error[INVALID_ARGUMENT]: the '$1' input does not split into arguments (a quote left open?): $2" >&2; exit 2; }
}
parts="$(mktemp -d)"
trap 'rm -rf "$parts"' EXIT
split paths "${INPUT_PATHS:-.}" >"$parts/paths"
split args "${INPUT_ARGS:-}" >"$parts/args"
mapfile -d '' -t paths <"$parts/paths"
mapfile -d '' -t args <"$parts/args"
# `--`: a path is never an option, whatever a pull request names its files (`--exit-zero`).
command=(skillmod check --format "${INPUT_FORMAT:-github}" "${args[@]}" -- "${paths[@]}")
if [ -n "${INPUT_OUTPUT:-}" ]; then
  mkdir -p "$(dirname "$INPUT_OUTPUT")"
  "${command[@]}" >"$INPUT_OUTPUT"
else
  "${command[@]}"
fi
