#!/usr/bin/env bash
# Times skillmod on three corpora, each against ast-grep and a bare tree-sitter parse, in one run:
#   synthetic  bench/gen_corpus.py N
#   realistic  ../shared/bench/gen_skills.py N (or $GEN_SKILLS): helpers that log with echo, usage
#              heredocs, `cmd && echo SUCCESS || echo FAILED`
#   machine    the shell scripts already on this machine: files under /usr/bin, /usr/sbin, /usr/lib,
#              /usr/share and /etc whose first line names sh, bash or dash (copied into the work
#              folder as DIR/NNNNN/execute.sh; nothing is committed)
# Prints one markdown table per corpus with each time as a ratio of ast-grep's in the same run.
# `find` over the same tree is the floor of any warm run
# (it only lists the folders).
# usage: bench/run.sh [N=10000] [WORKDIR=$(mktemp -d)]
# Needs: python3, hyperfine (Debian package), ast-grep (`pip install ast-grep-cli`), GNU time for
# memory. RUNS (default 5) sets hyperfine's runs; MEM_N (default 0: skipped) the number of realistic
# skills for the peak-memory run (100000 for the issue's figure: ~300 MB of scripts).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
n="${1:-10000}"
work="${2:-$(mktemp -d)}"
gen_skills="${GEN_SKILLS:-$here/../../shared/bench/gen_skills.py}"
command -v ast-grep >/dev/null || { echo "ast-grep not found: pip install ast-grep-cli" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine not found: apt-get install hyperfine" >&2; exit 2; }
cd "$here/.."
cargo build --release --quiet --bin skillmod --example parse_all
bin="$PWD/target/release/skillmod"
parse_all="$PWD/target/release/examples/parse_all"
mkdir -p "$work"

collect_machine_scripts() {
  python3 - "$1" <<'PY'
import os, re, shutil, sys
out = sys.argv[1]
shebang = re.compile(rb"^#!\s*\S*/(env\s+)?(sh|bash|dash)\b")
count = 0
for root in ["/usr/bin", "/usr/sbin", "/usr/lib", "/usr/share", "/etc"]:
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            try:
                with open(path, "rb") as f:
                    first = f.readline(200)
            except OSError:
                continue
            if shebang.match(first):
                dest = os.path.join(out, f"{count:05d}")
                os.makedirs(dest)
                shutil.copyfile(path, os.path.join(dest, "execute.sh"))
                count += 1
print(f"{count} scripts collected from this machine")
PY
}

corpora=()
[ -d "$work/synthetic" ] || python3 "$here/gen_corpus.py" "$n" "$work/synthetic" >/dev/null
corpora+=(synthetic)
if [ -f "$gen_skills" ]; then
  [ -d "$work/realistic" ] || python3 "$gen_skills" "$n" "$work/realistic" >/dev/null
  corpora+=(realistic)
else
  echo "skipping the realistic corpus: $gen_skills not found (set GEN_SKILLS)" >&2
fi
[ -d "$work/machine" ] || collect_machine_scripts "$work/machine"
corpora+=(machine)
[ -d "$work/plain-1000" ] || python3 "$here/gen_corpus.py" 1000 "$work/plain-1000" --plain >/dev/null

echo "machine: $(nproc) cores, $(uname -m); skillmod $("$bin" --version | cut -d' ' -f2), $(ast-grep --version)"
for corpus in "${corpora[@]}"; do
  dir="$work/$corpus"
  files=$(find "$dir" -name execute.sh | wc -l)
  bytes=$(find "$dir" -name execute.sh -printf "%s\n" | awk '{s+=$1} END {print s}')
  echo
  echo "## $corpus: $files scripts, $bytes bytes"
  cache="$work/cache-$corpus"  # one cache per corpus, so a warm run loads only its own entries
  rm -rf "$cache"
  # Fill it for the warm runs; the second run gives the settled files their place keys.
  for _ in 1 2; do "$bin" check -q --cache-dir "$cache" "$dir" >/dev/null 2>&1 || true; done
  # One --prepare per command: only the "fresh checkout" row touches every file first, which is
  # what a CI job restoring the cache onto a new clone sees (new inodes and times: every place key
  # misses, the content keys hit). It runs after the other check rows for that reason.
  touch_all="find $dir -name execute.sh -exec touch {} +"
  hyperfine -N -i --warmup 1 --runs "${RUNS:-5}" --style none \
    --prepare true --prepare true --prepare true --prepare true --prepare true \
    --prepare "$touch_all" --prepare true --prepare true --prepare true \
    -n "ast-grep run -p 'echo \"SUCCESS\"' -l bash" "ast-grep run -p 'echo \"SUCCESS\"' -l bash $dir" \
    -n "bare tree-sitter parse (examples/parse_all)" "$parse_all $dir" \
    -n "walk the tree (find -name execute.sh)" "find $dir -name execute.sh" \
    -n "skillmod check --no-cache" "$bin check --no-cache -q $dir" \
    -n "skillmod check (warm cache)" "$bin check -q --cache-dir $cache $dir" \
    -n "skillmod check (warm cache, fresh checkout)" "$bin check -q --cache-dir $cache $dir" \
    -n "skillmod migrate --dry-run (capture)" "$bin migrate --dry-run --no-backup -q $dir" \
    -n "skillmod migrate --dry-run --format json" "$bin migrate --dry-run --no-backup -q --format json $dir" \
    -n "skillmod migrate --dry-run --mode comment" "$bin migrate --dry-run --no-backup -q --mode comment $dir" \
    --export-json "$work/$corpus.json" >/dev/null
  python3 - "$work/$corpus.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
base = results[0]["mean"]
print("| command | mean | ratio to ast-grep |")
print("|---|---|---|")
for r in results:
    print(f"| `{r['command']}` | {r['mean']:.3f} s ± {r['stddev']:.3f} | {r['mean'] / base:.2f} |")
PY
done

echo
hyperfine -N -i --warmup 3 --runs 20 --style none -n plain "$bin check --no-cache -q $work/plain-1000" \
  --export-json "$work/plain.json" >/dev/null
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(f'check --no-cache on 1,000 ordinary scripts (no legacy text): {r[\"mean\"]*1000:.1f} ms ± {r[\"stddev\"]*1000:.1f}')" "$work/plain.json"

mem_n="${MEM_N:-0}"
if [ "$mem_n" -gt 0 ] && [ -f "$gen_skills" ] && [ -x /usr/bin/time ]; then
  big="$work/realistic-$mem_n"
  [ -d "$big" ] || python3 "$gen_skills" "$mem_n" "$big" >/dev/null
  /usr/bin/time -f "peak memory: %M KiB (check --no-cache, $mem_n realistic skills)" "$bin" check --no-cache -q "$big" >/dev/null || true
  /usr/bin/time -f "peak memory: %M KiB (migrate --dry-run, $mem_n realistic skills)" "$bin" migrate --dry-run --no-backup -q "$big" >/dev/null || true
fi
