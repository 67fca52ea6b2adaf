#!/usr/bin/env python3
"""Generate a synthetic corpus of realistic skill folders for benchmarks.

usage: gen_corpus.py N OUT [--plain]

Each skill gets an execute.sh of about 3 KB with heredocs, functions, case, loops and &&/|| chains.
60% print legacy result lines, 20% already print the JSON block, the rest neither; every file holds
legacy-looking text inside a heredoc (so a plain text search finds all of them). With --plain, the
files are ordinary shell scripts with no legacy-looking text at all.
Deterministic: the same N gives the same bytes.
"""
import os
import random
import sys

FILLER_FUNCS = [
    'log() {\n  printf "%s %s\\n" "$(date +%s)" "$*" >&2\n}\n',
    'die() {\n  log "error: $*"\n  exit 1\n}\n',
    'require() {\n  command -v "$1" >/dev/null 2>&1 || die "missing $1"\n}\n',
    'cleanup() {\n  rm -rf "${TMP_DIR:-}"\n}\ntrap cleanup EXIT\n',
    'count_files() {\n  find "$1" -type f | wc -l\n}\n',
]

def heredoc(i):
    return (
        f'cat > "$WORK/README-{i}.md" <<EOF\n'
        f'# Skill {i}\n'
        'When the run is over the old skills would echo "SUCCESS" and then\n'
        'Confidence: 0.9 followed by Created: some/file.ts lines.\n'
        'Generated at $(date) by ${USER:-nobody}.\n'
        'EOF\n'
    )

def body(rng, i):
    parts = ['#!/bin/bash\n', f'# skill {i}: synthetic benchmark skill\n', 'set -euo pipefail\n\n']
    parts += rng.sample(FILLER_FUNCS, 3)
    parts.append('\nWORK="${1:-./out}"\nMODE="${2:-build}"\nmkdir -p "$WORK"\n\n')
    parts.append(heredoc(i))
    parts.append(
        'case "$MODE" in\n'
        '  build) log "building";;\n'
        '  test)\n    log "testing"\n    ;;\n'
        '  *) die "unknown mode $MODE";;\n'
        'esac\n\n'
    )
    parts.append(
        'for f in alpha beta gamma delta; do\n'
        '  if [ -f "$WORK/$f.txt" ]; then\n'
        '    log "exists: $f"\n'
        '  else\n'
        '    touch "$WORK/$f.txt" && log "made $f" || die "cannot make $f"\n'
        '  fi\n'
        'done\n\n'
    )
    n = 0
    while sum(len(p) for p in parts) < 2800:
        n += 1
        parts.append(
            f'step_{n}() {{\n'
            f'  local target="$WORK/step_{n}.out"\n'
            f'  grep -c "pattern_{n}" "$WORK"/*.txt > "$target" 2>/dev/null || true\n'
            f'  [ -s "$target" ] && log "step {n} wrote $target"\n'
            '}\n'
            f'step_{n}\n\n'
        )
    return parts

def legacy_tail(rng, i):
    lines = [f'echo "Created: $WORK/README-{i}.md"\n', 'echo "Created: src/generated.ts"\n']
    if rng.random() < 0.5:
        lines.append(f'echo "Confidence: 0.{rng.randint(50, 99)}"\n')
    else:
        lines.append('CONF=0.8\necho "Confidence: $CONF"\n')
    lines.append('if [ -d "$WORK" ]; then echo "SUCCESS"; fi\n')
    return lines

def migrated_tail():
    return [
        "# skillmod:json-output template=skill-output-v1\n",
        "cat <<'EOF_JSON'\n",
        '{\n  "success": true,\n  "confidence": 0.85,\n  "deliverables": [],\n  "metrics": {},\n  "errors": []\n}\n',
        "EOF_JSON\n",
    ]

def plain(rng, i):
    parts = ['#!/bin/sh\n', f'# ordinary script {i}\n', 'set -eu\n']
    for n in range(rng.randint(20, 40)):
        parts.append(f'if [ -e "/tmp/x{n}" ]; then rm -f "/tmp/x{n}"; fi\n')
    return parts

def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    count, out = int(sys.argv[1]), sys.argv[2]
    only_plain = "--plain" in sys.argv[3:]
    rng = random.Random(count)
    for i in range(count):
        folder = os.path.join(out, f"skill-{i:06d}")
        os.makedirs(folder, exist_ok=True)
        if only_plain:
            text = plain(rng, i)
        else:
            text = body(rng, i)
            share = i % 10
            if share < 6:
                text += legacy_tail(rng, i)
            elif share < 8:
                text += migrated_tail()
            text.append('exit 0\n')
        path = os.path.join(folder, "execute.sh")
        with open(path, "w") as f:
            f.write("".join(text))
        os.chmod(path, 0o755)

if __name__ == "__main__":
    main()
