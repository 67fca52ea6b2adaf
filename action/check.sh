#!/usr/bin/env bash
# The Action's check step: `skillmod check --format INPUT_FORMAT INPUT_ARGS -- INPUT_PATHS`, its report
# in INPUT_OUTPUT when given; the exit status is check's (1: legacy lines found, 2: errors).
set -euo pipefail
# Paths and arguments are split as a shell would split them (`--include '*.sh'`, a quoted path
# with blanks), by Python's shlex, never evaluated: an input is data, whatever it holds. A quote
# left open is an error that stops the step, never a silently dropped argument.
# `python3 -I`: the checkout is the working folder, and a pull request's `shlex.py` there must not
# be what Python imports (isolated mode leaves the working folder and PYTHON* variables out).
split() {
  python3 -I -c 'import shlex, sys; sys.stdout.write("".join(a + "\0" for a in shlex.split(sys.argv[2])))' "$1" "$2" \
    || { echo "error[INVALID_ARGUMENT]: the '$1' input does not split into arguments (a quote left open?): $2" >&2; exit 2; }
}
parts="$(mktemp -d)"
trap 'rm -rf "$parts"' EXIT
split paths "${INPUT_PATHS:-.}" >"$parts/paths"
split args "${INPUT_ARGS:-}" >"$parts/args"
mapfile -d '' -t paths <"$parts/paths"
mapfile -d '' -t args <"$parts/args"
# A path named `-` is the file of that name, not stdin.
for i in "${!paths[@]}"; do
  if [ "${paths[$i]}" = - ]; then paths[i]=./-; fi
done
# `--`: a path is never an option, whatever a pull request names its files (`--exit-zero`).
command=(skillmod check --format "${INPUT_FORMAT:-github}" "${args[@]}" -- "${paths[@]}")
if [ -n "${INPUT_OUTPUT:-}" ]; then
  # The report goes where the workflow says, never through a link the checkout holds: a folder
  # inside the workspace must stay inside it, and the file is written beside its place and
  # renamed over it (which replaces a symlink there instead of writing to its target).
  out_dir="$(dirname -- "$INPUT_OUTPUT")"
  workspace="$(pwd -P)"
  case "$out_dir" in /*) named="$out_dir" ;; *) named="$PWD/$out_dir" ;; esac
  case "$named/" in
    "$PWD"/* | "$workspace"/*)
      # The nearest folder that exists already decides, before anything is created under it.
      existing="$out_dir"
      while [ ! -e "$existing" ] && [ ! -L "$existing" ]; do existing="$(dirname -- "$existing")"; done
      case "$(cd -P -- "$existing" 2>/dev/null && pwd)/" in
        "$workspace"/*) ;;
        *)
          echo "error[OUTPUT_UNSAFE]: the 'output' folder $out_dir leads outside the workspace through a symlink; name a folder the checkout does not link elsewhere" >&2
          exit 2
          ;;
      esac
      ;;
  esac
  mkdir -p -- "$out_dir"
  if [ -d "$INPUT_OUTPUT" ] && [ ! -L "$INPUT_OUTPUT" ]; then
    echo "error[OUTPUT_UNSAFE]: the 'output' path $INPUT_OUTPUT is a folder; name a file" >&2
    exit 2
  fi
  report="$(mktemp -- "$out_dir/.skillmod-report.XXXXXX")"
  status=0
  "${command[@]}" >"$report" || status=$?
  # A link at the path (to a file or a folder) is the checkout's: it goes, and the report takes
  # its place (`mv` would move the report into a linked folder).
  if [ -L "$INPUT_OUTPUT" ]; then rm -f -- "$INPUT_OUTPUT"; fi
  mv -f -- "$report" "$INPUT_OUTPUT"
  exit "$status"
else
  "${command[@]}"
fi
