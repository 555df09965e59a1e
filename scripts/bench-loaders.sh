#!/usr/bin/env bash
# Benchmark: winic's database and journal loaders on hostile input and at
# size (issue 46). Runs tests/loaders.rs in a release build, one test at a
# time (peak memory is per process): the property tests with CASES
# generated files per loader (default 100,000), then the loading benchmark,
# which prints the time and peak memory per 10,000 entries for databases
# and journals of 10,000 and 50,000 entries.
#   scripts/bench-loaders.sh [CASES]
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-100000}
case $cases in ''|*[!0-9]*|0) echo "bench-loaders: CASES must be a positive integer, got '$cases'" >&2; exit 2;; esac
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//' || uname -m)
echo "bench-loaders: $cpu; $cases cases per loader; $(date -u '+%Y-%m-%d %H:%M UTC')"
WINIC_FUZZ_CASES=$cases cargo test --release --locked --quiet --test loaders -- \
    --include-ignored --nocapture --test-threads=1 2>&1 |
    grep -E '^(database loader|journal reader|load|journal): |^test result|panicked|FAILED'
