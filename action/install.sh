#!/usr/bin/env bash
# The Action's install step: the skillmod wheel of SKILLMOD_VERSION into its own venv under
# RUNNER_TEMP, put on PATH for the next steps (GITHUB_PATH). pip's own settings apply (a test sets
# PIP_NO_INDEX and PIP_FIND_LINKS to install a local wheel).
set -euo pipefail
venv="${RUNNER_TEMP:?}/skillmod-venv"
# `-I`: a pull request's `venv/` in the working folder is not the venv module Python runs.
python3 -I -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "skillmod==${SKILLMOD_VERSION:?}"
"$venv/bin/skillmod" --version
echo "$venv/bin" >>"${GITHUB_PATH:?}"
