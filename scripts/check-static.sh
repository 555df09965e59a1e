#!/usr/bin/env bash
# check-static.sh — fail unless every given ELF file is statically linked:
# no program interpreter (PT_INTERP) and no shared-library dependency
# (DT_NEEDED). Used by build-static.sh; usable alone.
#
# Usage: scripts/check-static.sh FILE…
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: check-static.sh FILE…" >&2; exit 2; }
status=0
for f in "$@"; do
  [ -f "$f" ] || { echo "check-static: $f: no such file" >&2; status=1; continue; }
  headers=$(readelf -lW "$f" 2>&1) || { echo "check-static: $f: not an ELF file" >&2; status=1; continue; }
  if grep -q "INTERP" <<<"$headers"; then
    echo "check-static: $f is dynamically linked (has a PT_INTERP: $(grep -o 'interpreter: [^]]*' <<<"$headers"))" >&2
    status=1
  fi
  needed=$(readelf -dW "$f" 2>/dev/null | grep "(NEEDED)" || true)
  if [ -n "$needed" ]; then
    echo "check-static: $f needs shared libraries:" >&2
    echo "$needed" >&2
    status=1
  fi
done
exit $status
