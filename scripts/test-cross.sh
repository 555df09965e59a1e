#!/usr/bin/env bash
# test-cross.sh — run winic's tests as AArch64 and as RISC-V under
# qemu-user, then smoke-test the static binaries in dist/ under qemu.
#
# Usage: scripts/test-cross.sh [--all-tests] [aarch64|riscv64|all]
#   (default: all arches, the arch-dependent tests only)
# Needs: sudo scripts/setup-cross.sh, and scripts/build-static.sh for the
# smoke tests (they are built here if dist/ lacks them).
#
# What runs under the emulator (docs/cross.md says why): the tests whose
# outcome can depend on the target arch: the unit tests of the arch,
# kernel, exec, probe, ELF, run-check and run-mode code, and the test
# files of CROSS_TESTS (the CLI tests that build and run kernels, host
# features, interrupts, leaks, the clock). The rest (YAML, parsing, the
# assembler, export, docs, solver maths: HOST_ONLY_MODULES and
# HOST_ONLY_TESTS) gives the same answer on every arch and runs on the
# host only (.ci/run's `cargo test`). `--all-tests` (scripts/full-check.sh)
# runs the whole suite under the emulator, as before large changes.
# A test file in neither list stops this script: classify it.
#
# `cargo test --target <triple>` runs every test binary under
# `qemu-<arch> -cpu max` (cargo's target runner). The arch-dependent
# tests build with `--release`, the profile of scripts/build-static.sh:
# after it (as in .ci/run) only winic's own test crates are compiled
# (72 s against 156 s for AArch64, zen5 guest, 2026-11-28); the host run
# keeps the debug assertions. `--all-tests` builds with the `cross-test`
# profile (Cargo.toml: `dev` at opt-level 1, debug assertions on, several
# times faster under the emulator than `dev`). Every test
# binary runs even after one fails (--no-fail-fast), so that one
# failure does not hide the rest; the CLI tests start the
# winic that cargo built for the target, through the same emulator
# (WINIC_TEST_RUNNER). WINIC_EMULATED=1 tells tests that expect timings of
# real hardware to skip, each with a `winic-test: skipped:` line that
# this script lists and counts per arch.
set -euo pipefail

WINIC_SCRIPT=test-cross
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/cross-env.sh"
scope=arch
if [ "${1:-}" = --all-tests ]; then
  scope=all
  shift
fi
which=${1:-all}
case "$which" in
  all) archs=(aarch64 riscv64) ;;
  aarch64 | riscv64) archs=("$which") ;;
  *) echo "test-cross: unknown arch '$which' (valid: aarch64 riscv64 all)" >&2; exit 2 ;;
esac

# Test files (tests/NAME.rs) whose outcome can depend on the target arch.
CROSS_TESTS=(analyse cli clock host_features interrupt no_leaks recorded)
# Test files that give the same answer on every arch: the export and
# OSACA (host python), the README and docs, the compaction scripts, the
# published tables (real hardware only), the validation harness (x86
# kernels read by winic's assembler).
HOST_ONLY_TESTS=(browser compaction export loaders readme reference validation)
# Unit-test modules (libtest name prefixes) that cannot depend on the
# target arch: the database and its YAML, the export, the tables' typed
# view, list/show, the lock, measurement maths, reports, the port and
# latency solvers, the assembler's text handling.
HOST_ONLY_MODULES=(asm:: db:: export:: html:: inspect:: isa:: lock:: measure:: mode::blocks::
  mode::lat::solve:: mode::ports:: mode::reason:: mode::tests:: raw:: report::)

for f in "$repo"/tests/*.rs; do
  n=$(basename "$f" .rs)
  if [[ " ${CROSS_TESTS[*]} ${HOST_ONLY_TESTS[*]} " != *" $n "* ]]; then
    echo "test-cross: tests/$n.rs is in neither CROSS_TESTS nor HOST_ONLY_TESTS: add it to one (and to docs/cross.md)" >&2
    exit 2
  fi
done
skips=()
if [ "$scope" = all ]; then
  selection=(--profile cross-test)
else
  selection=(--release --lib)
  for n in "${CROSS_TESTS[@]}"; do selection+=(--test "$n"); done
  for m in "${HOST_ONLY_MODULES[@]}"; do skips+=(--skip "$m"); done
fi

failures=0
fail() { echo "test-cross: FAIL: $*" >&2; failures=$((failures + 1)); }

# smoke ARCH EXPECTED_EXIT DESCRIPTION -- ARGS...: runs the dist binary under
# qemu and checks its exit code; the output is kept in $smoke_out.
smoke() {
  local want=$1 what=$2 code=0
  shift 3
  smoke_out=$($WINIC_QEMU "$bin" "$@" 2>&1) || code=$?
  if [ "$code" != "$want" ]; then
    fail "$arch: $what: 'winic $*' exited $code, expected $want"
    printf '%s\n' "$smoke_out" | head -n 20 >&2
    return 1
  fi
  echo "test-cross: $arch: ok: $what (winic $*, exit $code)"
}

for arch in "${archs[@]}"; do
  log=$(mktemp)
  if ! (
    set -o pipefail
    winic_cross_env "$arch"
    export WINIC_EMULATED=1 WINIC_TEST_RUNNER="$WINIC_QEMU"
    cd "$repo"
    echo "test-cross: $arch: cargo test --target $WINIC_TRIPLE ${selection[*]} -- ${skips[*]} under '$WINIC_QEMU' ($WINIC_TOOLCHAIN)"
    start=$(date +%s)
    # (`set -e` does not act inside a subshell tested by `if`: the status
    # is kept and returned explicitly.)
    st=0
    "${WINIC_CARGO[@]}" test --locked --no-fail-fast --target "$WINIC_TRIPLE" \
      "${selection[@]}" -- "${skips[@]}" 2>&1 | tee "$log" || st=$?
    echo "test-cross: $arch: cargo test took $(($(date +%s) - start)) s"
    exit "$st"
  ); then
    fail "$arch: cargo test --target failed"
  fi
  "$here/skips.sh" "$arch" "$log"
  rm -f "$log"

  # Smoke tests of the static binary itself.
  bin=$repo/dist/winic-$arch-linux
  [ -x "$bin" ] || "$here/build-static.sh" "$arch"
  (
    winic_qemu_check "$arch"
    "$here/check-static.sh" "$bin"
    case "$arch" in
      aarch64) form=ADDXrs listed=ADDXrs other=x86 other_form=ADD64rr ;;
      riscv64) form=ADD listed=VADD_VV other=x86 other_form=ADD64rr ;;
    esac
    st=0
    smoke 0 "version" -- --version || st=1
    grep -q '^winic ' <<<"$smoke_out" || { fail "$arch: --version printed: $smoke_out"; st=1; }
    smoke 0 "help" -- --help || st=1
    smoke 0 "list defaults to the host arch" -- list || st=1
    awk -v f="$listed" '$2 == f { found = 1 } END { exit !found }' <<<"$smoke_out" ||
      { fail "$arch: a bare 'winic list' did not list $listed"; st=1; }
    smoke 0 "list of another arch" -- list --arch "$other" --filter "^$other_form\$" || st=1
    smoke 0 "show a form of the host arch" -- show "$form" || st=1
    grep -q 'decodes as intended' <<<"$smoke_out" ||
      { fail "$arch: 'winic show $form' has no checked example: $smoke_out"; st=1; }
    smoke 0 "selfcheck of the host arch" -- selfcheck --arch "$arch" || st=1
    smoke 0 "selfcheck of all arches as JSON" -- selfcheck --json || st=1
    [ "$(grep -c '^{"arch"' <<<"$smoke_out")" = 3 ] ||
      { fail "$arch: 'winic selfcheck --json' did not print 3 objects"; st=1; }
    smoke 2 "unknown form is a usage error" -- show NO_SUCH_FORM_X || st=1
    # A kernel as a static ELF, written by the emulated winic, then run
    # under the same emulator: it must exit 0.
    elf=$(mktemp "${TMPDIR:-/tmp}/winic-$arch-XXXXXX.elf")
    if smoke 0 "emit a kernel as an ELF" -- emit --arch "$arch" -i "$form" --iterations 100000 --elf "$elf"; then
      code=0
      $WINIC_QEMU "$elf" || code=$?
      if [ "$code" = 0 ]; then
        echo "test-cross: $arch: ok: the emitted ELF ran under '$WINIC_QEMU' (exit 0)"
      else
        fail "$arch: the ELF of 'winic emit -i $form' exited $code under '$WINIC_QEMU', expected 0"
        st=1
      fi
    else
      st=1
    fi
    rm -f "$elf"
    smoke 2 "unknown arch is a usage error" -- list --arch sparc || st=1
    exit $st
  ) || failures=$((failures + 1))
done

if [ "$failures" -gt 0 ]; then
  echo "test-cross: $failures failure(s)" >&2
  exit 1
fi
echo "test-cross: all passed"
