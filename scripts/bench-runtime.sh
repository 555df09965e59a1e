#!/usr/bin/env bash
# bench-runtime.sh — the kernel runtime's figures on this machine: the
# overhead of one measurement (fork, kernel build and map, clock
# calibration) and its share, and the repeatability of 20 kernels measured
# 5 times each (cycles per body, spread). Prints figures; asserts nothing.
#
# Usage: scripts/bench-runtime.sh
set -euo pipefail
cd "$(dirname "$0")/.."
grep -m1 "model name" /proc/cpuinfo 2>/dev/null || true
cargo test --release --lib runtime_figures -- --ignored --nocapture 2>&1 \
  | grep -v -E "^(running|test |$)|Compiling|Finished|Running"
