#!/usr/bin/env bash
# Benchmark: instructions encoded + printed + decode-checked per second on
# one core, per arch (issue 3's goal: >= 50,000/s). Runs the release
# `winic selfcheck --json` pinned to one CPU, best of N runs (default 5),
# since this machine is shared and noisy.
#   scripts/bench-encode.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
case $runs in ''|*[!0-9]*|0) echo "bench-encode: RUNS must be a positive integer, got '$runs'" >&2; exit 2;; esac
cargo build --release --locked --quiet
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//' || uname -m)
pin=(); command -v taskset >/dev/null && pin=(taskset -c 0)
echo "bench-encode: $cpu; one core; best of $runs runs"
summarise='
import json, sys
runs = [json.loads(l) for l in sys.stdin if l.strip()]
best = min(runs, key=lambda r: r["seconds"])
rate = best["total"] / best["seconds"]
verdict = "met" if rate >= 50000 else "NOT met"
print("%-8s %6d forms in %7.1f ms: %9.0f instructions/s (goal 50,000: %s)"
      % (best["arch"], best["total"], best["seconds"] * 1000, rate, verdict))
'
for arch in x86_64 aarch64 riscv64; do
    for _ in $(seq "$runs"); do
        "${pin[@]}" target/release/winic selfcheck --arch "$arch" --json || true
    done | python3 -c "$summarise"
done
