#!/usr/bin/env bash
# test-cross.sh — run winic's whole test suite as AArch64 and as RISC-V under
# qemu-user, then smoke-test the static binaries in dist/ under qemu.
#
# Usage: scripts/test-cross.sh [aarch64|riscv64|all]   (default: all)
# Needs: sudo scripts/setup-cross.sh, and scripts/build-static.sh for the
# smoke tests (they are built here if dist/ lacks them).
#
# `cargo test --profile cross-test --target <triple>` runs every test
# binary under `qemu-<arch> -cpu max` (cargo's target runner); the
# profile (Cargo.toml) is `dev` at opt-level 1, which runs several times
# faster under the emulator and keeps the debug assertions; every test
# binary runs even after one fails (--no-fail-fast), so that one
# failure does not hide the rest; the CLI tests start the
# winic that cargo built for the target, through the same emulator
# (WINIC_TEST_RUNNER). WINIC_EMULATED=1 tells tests that expect timings of
# real hardware to skip, each printing why.
set -euo pipefail

WINIC_SCRIPT=test-cross
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/cross-env.sh"
which=${1:-all}
case "$which" in
  all) archs=(aarch64 riscv64) ;;
  aarch64 | riscv64) archs=("$which") ;;
  *) echo "test-cross: unknown arch '$which' (valid: aarch64 riscv64 all)" >&2; exit 2 ;;
esac

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
    echo "test-cross: $arch: cargo test --profile cross-test --target $WINIC_TRIPLE under '$WINIC_QEMU' ($WINIC_TOOLCHAIN)"
    start=$(date +%s)
    # (`set -e` does not act inside a subshell tested by `if`: the status
    # is kept and returned explicitly.)
    st=0
    "${WINIC_CARGO[@]}" test --locked --no-fail-fast --profile cross-test --target "$WINIC_TRIPLE" 2>&1 | tee "$log" || st=$?
    echo "test-cross: $arch: cargo test took $(($(date +%s) - start)) s"
    exit "$st"
  ); then
    fail "$arch: cargo test --target failed"
  fi
  # One summary line per arch: the sums of every `test result:` line.
  awk -v a="$arch" '/^test result:/ {
      for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^(passed|failed|ignored)/) n[$(i+1)] += $i }
      ok = ok && $3 == "ok."; seen = 1 }
    BEGIN { ok = 1 }
    END { if (!seen) ok = 0; printf "test result (%s): %s. %d passed; %d failed; %d ignored\n", a, ok ? "ok" : "FAILED", n["passed;"], n["failed;"], n["ignored;"] }' "$log"
  grep -h '^winic-test: skipped' "$log" | sort | uniq -c | sed "s/^/test-cross: $arch: /" || true
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
