#!/usr/bin/env bash
# full-check.sh — everything CI leaves out, in one command: the whole test
# suite under qemu-user as AArch64 and as RISC-V (CI runs only the tests
# whose outcome can depend on the arch there; docs/cross.md), after the
# host suite and the static binaries. Run it before large changes (a new
# arch trait, the kernel frame, the test layout). On the zen5 guest
# (docs/machines.md, 2026-11-28) `test-cross.sh --all-tests aarch64` took
# 182 s with its build mostly cached (354 passed, 11 ignored); a cold
# `cross-test` build adds about 3 min per arch, the host suite and the
# static binaries about 8 min.
#
# Usage: scripts/full-check.sh [aarch64|riscv64|all]   (default: all)
# Needs: sudo scripts/setup-cross.sh once (cross gcc, qemu-user 10).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
which=${1:-all}
case "$which" in
  all | aarch64 | riscv64) ;;
  *) echo "full-check: unknown arch '$which' (valid: aarch64 riscv64 all)" >&2; exit 2 ;;
esac
t0=$(date +%s)
log=target/full-check-host.log
mkdir -p target
st=0
cargo test --locked 2>&1 | tee "$log" || st=$?
"$here/skips.sh" "x86_64 host" "$log"
[ "$st" = 0 ] || { echo "full-check: the host tests failed" >&2; exit 1; }
if [ "$which" = all ]; then "$here/build-static.sh" all; else "$here/build-static.sh" "$which"; fi
"$here/test-cross.sh" --all-tests "$which"
echo "full-check: all passed in $(($(date +%s) - t0)) s"
