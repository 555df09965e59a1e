#!/usr/bin/env bash
# emulated-full-run.sh — winic TP and LAT with the static aarch64 and riscv64
# binaries under qemu-user, once per CPU model, as a test of completeness:
# values under emulation mean nothing, but the run must finish, winic must
# never crash, and a CPU model without SVE/SME (neoverse-n1) or without V
# (rva22u64) must skip those forms by feature detection before they run.
#
# Usage: scripts/emulated-full-run.sh [--sample N] [--out DIR] [MODEL...]
#   MODEL    ARCH:CPU as qemu names it; default: aarch64:max
#            aarch64:neoverse-n1 riscv64:max riscv64:rva22u64
#   --sample N  about N forms per arch, every k-th real form of
#            `winic list` (spread over all extensions, the same on every
#            run); default: every form (minutes to an hour per model)
#   --out DIR   where reports, databases and summaries go (default: a new
#            directory under /tmp); kept
#   --vtypes LIST  RISC-V: the vector types measured besides e32 m1
#            (winic's --vtypes; default: all, with --sample
#            e8mf8,e16m2,e64m8 to keep CI short)
# Needs: scripts/build-static.sh (dist/), qemu-user >= 10 (setup-cross.sh).
#
# Prints per model: forms measured, skipped by reason, failed by reason,
# and every form caught only by the SIGILL net, then a `coverage:` line
# (measured, ran but timed only noise, skipped, no kernel, SIGILL, other). Fails when winic exits
# non-zero or dies of a signal, or when a model that lacks SVE/SME (resp.
# V) lets a form needing them run into a SIGILL instead of skipping it.
set -euo pipefail

WINIC_SCRIPT=emulated-full-run
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/cross-env.sh"

sample=0
out=
vtypes=
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --sample) sample=${2:?--sample needs a number}; shift 2 ;;
    --vtypes) vtypes=${2:?--vtypes needs a list}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    aarch64:* | riscv64:*) models+=("$1"); shift ;;
    *) echo "emulated-full-run: unknown argument '$1' (valid: --sample N, --out DIR, --vtypes LIST, aarch64:CPU, riscv64:CPU)" >&2; exit 2 ;;
  esac
done
if [ -z "$vtypes" ]; then
  if [ "$sample" != 0 ]; then vtypes=e8mf8,e16m2,e64m8; else vtypes=all; fi
fi
case "$sample" in
  '' | *[!0-9]*) echo "emulated-full-run: --sample '$sample' is not a number of forms" >&2; exit 2 ;;
esac
[ ${#models[@]} -gt 0 ] || models=(aarch64:max aarch64:neoverse-n1 riscv64:max riscv64:rva22u64)
out=${out:-$(mktemp -d /tmp/winic-emulated.XXXXXX)}
mkdir -p "$out"

failures=0
fail() { echo "emulated-full-run: FAIL: $*" >&2; failures=$((failures + 1)); }

# What a model without the vector extension must skip, by the features in
# `winic show`'s `requires:` line.
vector_features() {
  case "$1" in
    aarch64:neoverse-n1) echo 'sve|sme' ;;
    riscv64:rva22u64) echo 'zve|zvl|zvk|zvb|zvf' ;;
    *) echo '' ;;
  esac
}

# sample_args ARCH: `-i NAME` for every k-th real form (none: all forms).
sample_args() {
  local arch=$1 names n k
  [ "$sample" -gt 0 ] || return 0
  names=$("$repo/dist/winic-x86_64-linux" list --arch "$arch" 2>/dev/null | awk '{ print $2 }')
  n=$(printf '%s\n' "$names" | wc -l)
  k=$(( n / sample )); [ "$k" -ge 1 ] || k=1
  printf '%s\n' "$names" | awk -v k="$k" 'NR % k == 1 || k == 1 { printf "-i %s\n", $1 }'
}

# coverage SUMMARY: one line from a TP summary (its forms, before any RVV
# sweep): how many were measured, ran but gave only timing noise (both
# kernels ran to the end: a fault would be named), were skipped with a
# reason, had no kernel, failed otherwise, or were caught by the SIGILL net.
coverage() {
  awk '
    /^RVV at / { exit }
    /^TP: [0-9]+ forms/ { total = $2 }
    /^  measured: / { measured = $2 }
    /^  no kernel: / { nokernel = $3 }
    /^  skipped: / { skipped = $2 }
    /^  [a-z]/ { section = $1 }
    section == "failed:" && /^ +[0-9]+  / {
      n = $1; $1 = ""
      if ($0 ~ /not positive/) noise += n
      else if ($0 ~ /SIGILL/) sigill += n
      else { other += n; kinds = kinds (kinds ? "; " : "") n " " substr($0, 2) }
    }
    END {
      printf "coverage: %d forms: %d measured, %d ran but timed only noise, %d skipped with a reason, %d without a kernel, %d died of SIGILL, %d failed otherwise%s\n",
        total, measured, noise, skipped, nokernel, sigill, other, (other ? " (" kinds ")" : "")
    }' "$1"
}

for model in "${models[@]}"; do
  arch=${model%%:*} cpu=${model#*:}
  bin=$repo/dist/winic-$arch-linux
  [ -x "$bin" ] || "$here/build-static.sh" "$arch"
  [ -x "$repo/dist/winic-x86_64-linux" ] || "$here/build-static.sh" x86_64
  winic_qemu_check "$arch"
  dir=$out/$arch-$cpu
  mkdir -p "$dir"
  mapfile -t picks < <(sample_args "$arch" | tr ' ' '\n')
  echo "=== $arch -cpu $cpu: $( [ "$sample" -gt 0 ] && echo "$(( ${#picks[@]} / 2 )) sampled forms" || echo "every form" )"
  qemu-"$arch" -cpu "$cpu" "$bin" host > "$dir/host.txt" 2>&1 || fail "$model: winic host exited $?"
  grep -E '^(CPU|Features|SVE|SME|Vector)' "$dir/host.txt" | cut -c1-160 | sed 's/^/  /'
  for mode in TP LAT; do
    t0=$(date +%s)
    set +e
    # -f 1: under an emulator the clock calibration measures nothing (it
    # came out 0 or negative), and the values mean nothing anyway.
    (cd "$dir" && WINIC_EMULATED=1 qemu-"$arch" -cpu "$cpu" "$bin" -f 1 "$mode" "${picks[@]}" \
        --vtypes "$vtypes" -o "$dir/winic.yaml" > "$dir/$mode.summary" 2> "$dir/$mode.stderr")
    rc=$?
    set -e
    secs=$(( $(date +%s) - t0 ))
    echo "--- $mode ($secs s, exit $rc)"
    [ "$rc" = 0 ] || { fail "$model $mode: winic exited $rc (see $dir/$mode.stderr)"; tail -n 5 "$dir/$mode.stderr" >&2; continue; }
    # The summary without the per-value failure lines beyond the top ones.
    sed 's/^/  /' "$dir/$mode.summary"
    if [ "$mode" = TP ]; then echo "  $(coverage "$dir/$mode.summary")"; fi
    pattern=$(vector_features "$model")
    if [ -n "$pattern" ]; then
      leaked=0
      for form in $(awk '/SIGILL net:/ { on = 1; next } on && /^    [A-Za-z0-9_]+  \(/ { print $1 }' "$dir/$mode.summary"); do
        if "$repo/dist/winic-x86_64-linux" show --arch "$arch" "$form" | grep -E '^  requires:' | grep -Eq "$pattern"; then
          fail "$model $mode: $form needs what -cpu $cpu lacks but was not skipped (SIGILL)"
          leaked=$((leaked + 1))
        fi
      done
      skipped=$(grep -Ec "needs .*($pattern).*which this CPU lacks" "$dir/$mode.summary" || true)
      echo "  detection: $leaked vector forms ran into SIGILL; $skipped skip reasons name $pattern"
    fi
  done
done

echo
echo "emulated-full-run: outputs in $out"
if [ "$failures" -gt 0 ]; then
  echo "emulated-full-run: $failures failure(s)" >&2
  exit 1
fi
echo "emulated-full-run: all passed"
