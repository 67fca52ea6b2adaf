#!/usr/bin/env bash
# Times skillmod against rg and ast-grep on a synthetic corpus (bench/gen_corpus.py).
# usage: bench/run.sh [N=10000] [WORKDIR=$(mktemp -d)]
# Needs: python3, hyperfine, rg; ast-grep optional (pip install ast-grep-cli); GNU time for memory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
n="${1:-10000}"
work="${2:-$(mktemp -d)}"
cd "$here/.."
cargo build --release --quiet --bin skillmod --example parse_all
bin="$PWD/target/release/skillmod"
parse_all="$PWD/target/release/examples/parse_all"

corpus="$work/corpus-$n"
plain="$work/plain-1000"
[ -d "$corpus" ] || python3 "$here/gen_corpus.py" "$n" "$corpus"
[ -d "$plain" ] || python3 "$here/gen_corpus.py" 1000 "$plain" --plain
echo "corpus: $n skills, $(find "$corpus" -name execute.sh -printf "%s\n" | awk "{s+=\$1} END {print s}") bytes of scripts; machine: $(nproc) cores, $(uname -m)"

runs=(
  -n "check (cold, no cache)" "$bin check --no-cache -q $corpus"
  -n "check (warm cache)" "$bin check -q $corpus"
  -n "migrate --dry-run (capture)" "$bin migrate --dry-run --no-backup -q --mode capture $corpus"
  -n "migrate --dry-run (comment)" "$bin migrate --dry-run --no-backup -q --mode comment $corpus"
  -n "rg (all markers)" "rg -c 'SUCCESS|COMPLETE|Confidence:|Created:|Modified:' $corpus"
  -n "bare tree-sitter parse of every file" "$parse_all $corpus"
)
if command -v ast-grep >/dev/null; then
  runs+=(-n "ast-grep (one pattern)" "ast-grep run -p 'echo \"SUCCESS\"' -l bash $corpus")
fi
"$bin" check -q "$corpus" >/dev/null || true  # fill the cache for the warm run
hyperfine -N -i --warmup 1 --runs "${RUNS:-5}" "${runs[@]}" --export-markdown "$work/corpus.md"
hyperfine -N -i --warmup 3 --runs 20 -n "check 1,000 ordinary scripts" "$bin check --no-cache -q $plain" --export-markdown "$work/plain.md"
if command -v /usr/bin/time >/dev/null; then
  /usr/bin/time -f "peak memory: %M KiB (check --no-cache, $n skills)" "$bin" check --no-cache -q "$corpus" >/dev/null || true
  /usr/bin/time -f "peak memory: %M KiB (migrate --dry-run, $n skills)" "$bin" migrate --dry-run --no-backup -q "$corpus" >/dev/null || true
fi
echo "markdown tables: $work/corpus.md $work/plain.md"
