#!/usr/bin/env bash
# winic-job.sh — one partition's measurement (submitted by
# measure-partitions.sh): the static binary of this node's arch copied to
# local disk, then `winic TP` and `winic LAT` into one database, copied
# with its reports and raw files to WINIC_OUT.
set -euo pipefail
# The settings measure-partitions.sh wrote for this job.
# shellcheck source=/dev/null
source "${1:?usage: $0 SETTINGS-FILE (written by measure-partitions.sh)}"
: "${WINIC_OUT:?}" "${WINIC_BINARIES:?}" "${WINIC_MODES:?}" "${WINIC_PARTITION:?}"
arch=$(uname -m)
bin="$WINIC_BINARIES/winic-$arch-linux"
[ -x "$bin" ] || { echo "winic-job: no $bin for this node's arch ($arch)" >&2; exit 2; }
local=$(mktemp -d "${TMPDIR:-/tmp}/winic-job.XXXXXX")
trap 'rm -rf "$local"' EXIT
cp "$bin" "$local/winic"
cd "$local"
echo "winic-job: $WINIC_PARTITION on $(hostname) ($arch), CPUs $(taskset -pc $$ 2>/dev/null | sed 's/.*: //'), $(date -u +%FT%TZ)"
"$local/winic" host | head -5
for mode in $WINIC_MODES; do
  # shellcheck disable=SC2086 # the extra options are words
  "$local/winic" "$mode" -o db.yaml ${WINIC_ARGS:-} | tail -12
done
echo "$arch" > arch
cp -p db.yaml db.yaml.*.raw report_* arch "$WINIC_OUT"/
echo "winic-job: $WINIC_PARTITION done $(date -u +%FT%TZ)"
