#!/usr/bin/env bash
# Seed each target's corpus from the project's own fixtures and demos.
set -euo pipefail
cd "$(dirname "$0")"
root=..
seed() { # target, files...
    mkdir -p "corpus/$1"
    local t=$1
    shift
    for f in "$@"; do cp "$f" "corpus/$t/$(sha1sum "$f" | cut -c1-16)"; done
}
mapfile -t md < <(find "$root/tests/fixtures" "$root/demo-bank" -name '*.md')
seed article "${md[@]}"
seed stamp "${md[@]}"
mkdir -p corpus/bank
for f in "${md[@]}"; do (printf '\0'; cat "$f") > "corpus/bank/$(sha1sum "$f" | cut -c1-16)"; done
mapfile -t exch < <(find "$root/tests/fixtures/terms" -type f)
seed terms "${exch[@]}"
mapfile -t dv < <(find "$root/tests/fixtures/dejavu" "$root/demo-dejavu" -type f \( -name '*.md' -o -name '*.jsonl' -o -name '*.json' \))
seed dejavu "${dv[@]}"
mapfile -t ev < <(find "$root/tests/fixtures/everos-root" "$root/demo-everos" -name '*.md')
seed everos "${ev[@]}"
mkdir -p corpus/reply
printf '### FILE: 02_TERMINOLOGY/a.md\n---\nterm_source: a\n---\n# a\n' > corpus/reply/one
