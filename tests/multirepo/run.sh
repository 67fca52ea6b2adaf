#!/usr/bin/env bash
# Runs docs/multi-repo.md's all-repos autofixer as the page gives it: installs all-repos 1.33.0 in a
# temp venv, makes three local repositories with a legacy skill (and one without), clones them with
# all-repos (json_file source, merge_to_master push), runs the python block taken from the page with
# skillmod on PATH, then clones a migrated repository afresh and checks that its skill
# prints one JSON document `skillmod validate --strict` accepts. Any failure exits non-zero.
# usage: tests/multirepo/run.sh [SKILLMOD]
#   SKILLMOD: the binary to test (CI passes the one the npm platform package ships); without it,
#   a release build of this checkout.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/bin"
if [ -n "${1:-}" ]; then
  ln -s "$(realpath "$1")" "$work/bin/skillmod"
else
  (cd "$repo" && cargo build --release --locked --quiet)
  ln -s "${CARGO_TARGET_DIR:-$repo/target}/release/skillmod" "$work/bin/skillmod"
fi
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet all-repos==1.33.0
export PATH="$work/bin:$work/venv/bin:$PATH"
[ "$(command -v skillmod)" = "$work/bin/skillmod" ] || fail "skillmod on PATH is $(command -v skillmod)"

# Commits by all-repos and by this script: a fixed identity, no signing, whatever the machine says.
export GIT_AUTHOR_NAME=CI GIT_AUTHOR_EMAIL=ci@example.com
export GIT_COMMITTER_NAME=CI GIT_COMMITTER_EMAIL=ci@example.com
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=commit.gpgsign GIT_CONFIG_VALUE_0=false

# The autofixer, exactly as docs/multi-repo.md has it: its one python block.
awk '/^```python$/ { inside = 1; next } /^```$/ { inside = 0 } inside' \
  "$repo/docs/multi-repo.md" >"$work/skillmod_fix.py"
[ "$(grep -c '^```python$' "$repo/docs/multi-repo.md")" = 1 ] \
  || fail "docs/multi-repo.md should have one python block (the autofixer)"
grep -q '^def main' "$work/skillmod_fix.py" || fail "the autofixer in docs/multi-repo.md has no main"

# The remotes: bare repositories made from a seed each; three with a legacy skill, one without.
names=(alpha beta gamma clean)
for name in "${names[@]}"; do
  seed="$work/seed/$name"
  mkdir -p "$seed/skills/demo"
  printf -- '---\nname: demo\ndescription: writes out.txt\n---\nRun execute.sh.\n' \
    >"$seed/skills/demo/SKILL.md"
  if [ "$name" = clean ]; then
    printf '#!/bin/bash\ntrue\n' >"$seed/skills/demo/execute.sh"
  else
    printf '#!/bin/bash\necho "Created: out.txt"\necho "SUCCESS"\n' >"$seed/skills/demo/execute.sh"
  fi
  chmod +x "$seed/skills/demo/execute.sh"
  git -C "$seed" init -q -b main
  git -C "$seed" add -A
  git -C "$seed" commit -qm "legacy skill"
  git clone -q --bare "$seed" "$work/remotes/$name.git"
done

cd "$work"
python3 - "$work" "${names[@]}" <<'PY'
import json, os, sys
work, names = sys.argv[1], sys.argv[2:]
with open('repos.json', 'w') as f:
    json.dump({n: f'{work}/remotes/{n}.git' for n in names}, f)
with open('all-repos.json', 'w') as f:
    json.dump({
        'output_dir': 'output',
        'source': 'all_repos.source.json_file',
        'source_settings': {'filename': f'{work}/repos.json'},
        'push': 'all_repos.push.merge_to_master',
        'push_settings': {},
    }, f)
os.chmod('all-repos.json', 0o600)
PY
all-repos-clone -C all-repos.json >"$work/clone.log" 2>&1 || { cat "$work/clone.log"; fail "all-repos-clone"; }

# The commands the page gives.
before_clean="$(git -C remotes/clean.git rev-parse main)"
status=0
python skillmod_fix.py -C all-repos.json >"$work/fix.log" 2>&1 || status=$?
[ "$status" = 0 ] || { cat "$work/fix.log"; fail "skillmod_fix.py exited $status"; }
if grep -q "Errored" "$work/fix.log"; then cat "$work/fix.log"; fail "all-repos reported an errored repository"; fi
echo "ok: the autofixer from docs/multi-repo.md ran"

# Each legacy repository got one commit with the migrated script and the runtime file; the clean
# one, which find_repos left out, got none.
for name in alpha beta gamma; do
  files="$(git -C "remotes/$name.git" diff --name-only main~1 main --)" || fail "$name: no new commit on main"
  # The runtime file, wherever this skillmod writes it (the project root, or the skill's folder).
  for want in 'skills/demo/execute.sh' '(.*/)?skillmod-runtime\.sh'; do
    grep -qxE "$want" <<<"$files" || { cat "$work/fix.log"; fail "$name: $want not in the autofix commit (it has: $files)"; }
  done
done
[ "$(git -C remotes/clean.git rev-parse main)" = "$before_clean" ] || fail "clean: find_repos did not leave it out"
echo "ok: alpha, beta, gamma committed with skillmod-runtime.sh; clean left alone"

# A fresh clone of a migrated repository: the skill runs and prints one valid JSON document.
git clone -q remotes/beta.git fresh
status=0
(cd fresh && bash skills/demo/execute.sh >"$work/skill.out" 2>"$work/skill.err") || status=$?
[ "$status" = 0 ] || { cat "$work/skill.out" "$work/skill.err"; fail "the migrated skill exited $status in a fresh clone"; }
python3 -c 'import json,sys; json.loads(open(sys.argv[1]).read())' "$work/skill.out" \
  || { cat "$work/skill.out"; fail "stdout is not one JSON document"; }
skillmod validate --strict - <"$work/skill.out" >"$work/validate.log" 2>&1 \
  || { cat "$work/skill.out" "$work/validate.log"; fail "skillmod validate --strict rejected the output"; }
echo "ok: a fresh clone's skill prints one JSON document validate --strict accepts"
echo "all-repos recipe (docs/multi-repo.md): 3 passed, 0 failed"
