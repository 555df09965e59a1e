#!/usr/bin/env bash
# run-check.sh — `winic runcheck` on every arch: the throughput kernel (up to
# 12 independent copies) and the latency kernel (a chain) of every
# register/immediate form run once each, natively on x86-64 and under
# qemu-user as AArch64 and RISC-V, with the static binaries in dist/.
#
# Usage: scripts/run-check.sh [x86_64|aarch64|riscv64|all]   (default: all)
# Needs: scripts/build-static.sh (dist/), qemu-user >= 10 (setup-cross.sh).
#
# CPU models: x86_64 the host; aarch64 `-cpu max` (SVE, SVE2, SME);
# riscv64 `-cpu max` and `-cpu rv64,v=true,vlen=256`.
# Fails when winic fails, when a kernel dies of anything but SIGILL (a
# SIGSEGV, SIGBUS, SIGFPE or hang means a wrong kernel; SIGILL means an
# extension this CPU model lacks, until winic reads the host's features),
# or when fewer forms run than a floor per arch (a broken frame shows
# there first; on x86 it depends on the host having AVX-512). Prints each summary and every non-SIGILL fault.
set -euo pipefail

WINIC_SCRIPT=run-check
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/cross-env.sh"
which=${1:-all}
case "$which" in
  all) archs=(x86_64 aarch64 riscv64) ;;
  x86_64 | aarch64 | riscv64) archs=("$which") ;;
  *) echo "run-check: unknown arch '$which' (valid: x86_64 aarch64 riscv64 all)" >&2; exit 2 ;;
esac

failures=0
fail() { echo "run-check: FAIL: $*" >&2; failures=$((failures + 1)); }

# check ARCH FLOOR EMULATOR...: runs winic runcheck and judges it.
check() {
  local arch=$1 floor=$2 out rows ran bad
  shift 2
  local bin=$repo/dist/winic-$arch-linux
  [ -x "$bin" ] || "$here/build-static.sh" "$arch"
  out=$(mktemp)
  echo "run-check: $arch: ${*:+$* }winic runcheck"
  if ! "$@" "$bin" runcheck --list >"$out" 2>/dev/null; then
    fail "$arch (${*:-native}): winic runcheck exited non-zero"
    rm -f "$out"
    return
  fi
  grep -v $'\t' "$out" | sed "s/^/run-check: $arch: /"
  ran=$(awk -F'\t' '$2 == "ran"' "$out" | wc -l)
  bad=$(awk -F'\t' '$2 == "fault" && $3 !~ /SIGILL/' "$out")
  if [ -n "$bad" ]; then
    fail "$arch (${*:-native}): kernels died of something other than SIGILL:"
    printf '%s\n' "$bad" | head -n 40 >&2
  fi
  if [ "$ran" -lt "$floor" ]; then
    fail "$arch (${*:-native}): only $ran forms ran, expected at least $floor"
  fi
  rm -f "$out"
}

for arch in "${archs[@]}"; do
  case "$arch" in
    # About 5600 forms run with AVX-512 (Zen 4), 1426 without (Zen 3):
    # the floor follows the host, as the forms that can run do.
    x86_64)
      if grep -qw avx512f /proc/cpuinfo; then floor=3000; else floor=1200; fi
      check x86_64 "$floor" ;;
    aarch64)
      winic_qemu_check aarch64
      check aarch64 3800 qemu-aarch64 -cpu max ;;
    riscv64)
      winic_qemu_check riscv64
      check riscv64 600 qemu-riscv64 -cpu max
      check riscv64 450 qemu-riscv64 -cpu rv64,v=true,vlen=256 ;;
  esac
done

if [ "$failures" -gt 0 ]; then
  echo "run-check: $failures failure(s)" >&2
  exit 1
fi
echo "run-check: all passed"
