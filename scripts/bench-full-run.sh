#!/usr/bin/env bash
# bench-full-run.sh — wall time and repeatability of full TP runs on this
# machine: runs `winic TP` over every form RUNS times (default 2), each
# into its own directory, and prints per run the wall time, forms per
# second and the outcome counts, then the share of forms measured in every
# run whose values agree within 5% (max/min - 1 <= 0.05) and the forms
# that disagree most.
#
# Usage: scripts/bench-full-run.sh [RUNS] [-- extra winic TP options]
# Example: scripts/bench-full-run.sh 2 -- --filter '^V'
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
runs=${1:-2}
shift || true
[ "${1:-}" = "--" ] && shift
case "$runs" in '' | *[!0-9]*) echo "bench-full-run: RUNS must be a number, got '$runs'" >&2; exit 2 ;; esac

(cd "$repo" && cargo build --release --locked -q)
bin=$repo/target/release/winic
work=$(mktemp -d "${TMPDIR:-/tmp}/winic-bench-XXXXXX")
echo "bench-full-run: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) CPUs); results in $work"
for r in $(seq 1 "$runs"); do
  mkdir -p "$work/run$r"
  start=$(date +%s.%N)
  (cd "$work/run$r" && "$bin" TP -o db.yaml "$@" >summary.txt 2>/dev/null)
  end=$(date +%s.%N)
  awk -v r="$r" -v s="$start" -v e="$end" 'NR == 1 { print "run " r ": " $0 } NR > 1 && NR <= 5 { print "       " $0 }
    END { printf "       wall time %.1f s\n", e - s }' "$work/run$r/summary.txt"
done
# Values per form from the reports: "\tNAME [low;high]" lines, high taken;
# a form measured again (a better second measurement, or with a helper)
# has a later block, which holds its value.
for r in $(seq 1 "$runs"); do
  awk -F'[][;]' -v r="$r" '/^\t[^\t ]+ \[[0-9.?]+;[0-9.]+\]$/ { split($1, a, /[ \t]+/); v[a[2]] = $3 }
    END { for (f in v) print f, r, v[f] }' "$work"/run$r/report_TP_*.txt
done | awk -v runs="$runs" '
  { n[$1]++; v = $3 + 0; if (!($1 in lo) || v < lo[$1]) lo[$1] = v; if (!($1 in hi) || v > hi[$1]) hi[$1] = v }
  END {
    for (f in n) if (n[f] == runs) { total++; d = (lo[f] > 0) ? hi[f] / lo[f] - 1 : 0; if (d <= 0.05) ok++; else worst[f] = d }
    printf "repeatability: %d of %d forms measured in all %d runs agree within 5%% (%.1f%%)\n", ok, total, runs, total ? 100 * ok / total : 0
    m = 0; for (f in worst) { list[++m] = sprintf("%8.1f%%  %s (%.3f .. %.3f)", 100 * worst[f], f, lo[f], hi[f]) }
    # the ten worst
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (list[j] > list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
    for (i = 1; i <= m && i <= 10; i++) print "  " list[i]
  }'
