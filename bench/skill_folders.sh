#!/usr/bin/env bash
# Issue 29's figures: N skill folders (each a SKILL.md and gen_skills.py's execute.sh) in one git
# repository, for each skillmod binary given: the dry run's size and time, and a warm check after
# the migration is committed. Prints one markdown table.
# usage: bench/skill_folders.sh N BINARY [BINARY...]   (e.g. a 0.2.0 build and target/release)
# Needs: python3, git, hyperfine (Debian package).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
n="$1"
shift
gen_skills="${GEN_SKILLS:-$here/../../shared/bench/gen_skills.py}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$gen_skills" "$n" "$work/corpus" >/dev/null
for skill in "$work"/corpus/*/; do
  printf -- '---\nname: %s\ndescription: benchmark skill\n---\n' "$(basename "$skill")" >"$skill/SKILL.md"
done
echo "| binary | skill folders | dry run: diff lines | dry run: MB | dry run: s | runtime files | warm check: s |"
echo "|---|---|---|---|---|---|---|"
for bin in "$@"; do
  repo="$work/repo-$(basename "$(dirname "$bin")")-$RANDOM"
  cp -r "$work/corpus" "$repo"
  git -C "$repo" init -q
  git -C "$repo" add -A
  git -C "$repo" -c user.email=b@b -c user.name=b commit -qm corpus
  (cd "$repo" && "$bin" migrate --dry-run --color never . >"$work/diff.txt" 2>/dev/null) || true
  lines=$(wc -l <"$work/diff.txt")
  mb=$(python3 -c "import os,sys; print(f'{os.path.getsize(sys.argv[1])/1e6:.1f}')" "$work/diff.txt")
  dry=$(cd "$repo" && hyperfine -N --runs 3 --export-json "$work/dry.json" "$bin migrate --dry-run --color never ." >/dev/null 2>&1 \
    && python3 -c "import json,sys; print(f\"{json.load(open(sys.argv[1]))['results'][0]['median']:.2f}\")" "$work/dry.json")
  (cd "$repo" && "$bin" migrate --no-backup --quiet . >/dev/null 2>&1) || true
  runtimes=$(find "$repo" -name 'skillmod-runtime*.sh' | wc -l)
  git -C "$repo" add -A
  git -C "$repo" -c user.email=b@b -c user.name=b commit -qm migrated
  warm=$(cd "$repo" && hyperfine -N --warmup 2 --runs 5 -i --export-json "$work/warm.json" "$bin check --quiet ." >/dev/null 2>&1 \
    && python3 -c "import json,sys; print(f\"{json.load(open(sys.argv[1]))['results'][0]['median']:.3f}\")" "$work/warm.json")
  echo "| $("$bin" --version | head -1) | $n | $lines | $mb | $dry | $runtimes | $warm |"
done
