#!/usr/bin/env bash
# Codemod step for multi-repo runs: migrate and commit the skills of each repository given, and print
# one JSON line per repository (its path, skillmod's exit status, and skillmod's JSON report).
# Exit status: 0 when every repository succeeded, 1 otherwise. Needs skillmod on PATH (or SKILLMOD).
# usage: scripts/migrate-repos.sh REPO...
set -uo pipefail
skillmod="${SKILLMOD:-skillmod}"
status=0
for repo in "$@"; do
  # The report is pretty-printed; JSON strings never hold raw newlines, so joining lines is safe.
  report="$(cd "$repo" && "$skillmod" migrate --commit --no-backup --quiet --format json -- . | tr "\n" " ")"
  code=$?
  [ "$code" = 0 ] || status=1
  printf '{"repo": "%s", "exit_status": %d, "report": %s}\n' "$repo" "$code" "${report:-null}"
done
exit "$status"
