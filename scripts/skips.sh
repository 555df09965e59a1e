#!/usr/bin/env bash
# skips.sh — one test step's totals, and the tests that did not run, and why.
#
# Usage: scripts/skips.sh STEP LOG
#   STEP  a name for the step ("x86_64 host", "aarch64", ...)
#   LOG   the output of its `cargo test` (stdout and stderr together)
#
# First one line `test result (STEP): ok|FAILED. N passed; N failed; N
# ignored; N filtered out`, the sums of every `test result:` line (ok
# when there was one and each says ok; the step's exit status is still
# what decides). Then two kinds are listed, with a count each: tests skipped at run time
# (a `winic-test: skipped: TEST: WHY` line, written by
# winic::testing::skip, which the test harness does not capture), and
# the `#[ignore = "why"]` tests cargo reported as ignored (`test NAME ...
# ignored, WHY`). A test that returns early says so in one of these two
# ways, so the list is every test that passed without running.
set -euo pipefail
if [ $# -ne 2 ] || [ ! -r "$2" ]; then
  echo "usage: scripts/skips.sh STEP LOG (LOG: a readable cargo test output; got: $*)" >&2
  exit 2
fi
step=$1 log=$2
awk -v a="$step" '/^test result:/ {
    for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^(passed|failed|ignored|filtered)/) n[$(i+1)] += $i }
    ok = ok && $3 == "ok."; seen = 1 }
  BEGIN { ok = 1 }
  END { if (!seen) ok = 0; printf "test result (%s): %s. %d passed; %d failed; %d ignored; %d filtered out\n", a, ok ? "ok" : "FAILED", n["passed;"], n["failed;"], n["ignored;"], n["filtered"] }' "$log"
skipped=$(grep -ao 'winic-test: skipped: .*' "$log" | sed 's/^winic-test: skipped: //' | sort -u || true)
ignored=$(grep -a '^test .* \.\.\. ignored' "$log" | sed -E 's/^test (.*) \.\.\. ignored(, )?/\1: /' | sort -u || true)
count() { if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | wc -l; fi; }
echo "skipped at run time ($step): $(count "$skipped")"
[ -z "$skipped" ] || printf '%s\n' "$skipped" | sed 's/^/  /'
echo "ignored ($step): $(count "$ignored")"
[ -z "$ignored" ] || printf '%s\n' "$ignored" | sed 's/^/  /'
