#!/usr/bin/env bash
# winic-page.sh — the last job of measure-partitions.sh: one page per arch
# of the partitions' databases, labelled by partition, the first
# partition's first. A partition without a database (its job failed) is
# named and left out.
set -uo pipefail
# The settings measure-partitions.sh wrote for this job.
# shellcheck source=/dev/null
source "${1:?usage: $0 SETTINGS-FILE (written by measure-partitions.sh)}"
: "${WINIC_OUT:?}" "${WINIC_BINARIES:?}" "${WINIC_PARTITIONS:?}"
bin="$WINIC_BINARIES/winic-$(uname -m)-linux"
IFS=, read -ra parts <<<"$WINIC_PARTITIONS"
declare -A dbs labels
for p in "${parts[@]}"; do
  if [ ! -s "$WINIC_OUT/$p/db.yaml" ]; then
    echo "winic-page: $p has no database (see $WINIC_OUT/$p/job.log); left out" >&2
    continue
  fi
  a=$(cat "$WINIC_OUT/$p/arch")
  dbs[$a]+=" $WINIC_OUT/$p/db.yaml"
  labels[$a]+=" --label $p"
done
[ ${#dbs[@]} -gt 0 ] || { echo "winic-page: no partition has a database" >&2; exit 1; }
st=0
for a in "${!dbs[@]}"; do
  # shellcheck disable=SC2086 # lists of words built above (no spaces in paths or names)
  "$bin" html ${dbs[$a]} ${labels[$a]} -o "$WINIC_OUT/page-$a" || st=1
done
exit $st
