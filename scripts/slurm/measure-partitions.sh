#!/usr/bin/env bash
# measure-partitions.sh — measure one node of every Slurm partition with
# winic's static binary and build the page that compares them.
#
# Usage: scripts/slurm/measure-partitions.sh --out DIR [options]
#   --out DIR          a directory on a file system every node sees: the
#                      databases (DIR/<partition>/db.yaml, with reports and
#                      raw files), the jobs' logs, and the pages
#                      (DIR/page-<arch>/index.html)
#   --partitions LIST  comma-separated (default: every partition sinfo lists)
#   --binaries DIR     where winic-<arch>-linux lie (default: dist/, from
#                      scripts/build-static.sh); each node takes its arch's
#   --modes "TP LAT"   the runs, in order, into one database (default TP LAT)
#   --winic-args ARGS  more options for each run (e.g. "--filter ^V")
#   --time T           each job's time limit (default 2:00:00)
#   --wait             return when the page is written (sbatch --wait)
#
# One job per partition (a job array's tasks share one partition): an
# exclusive node (no other job beside the measurement), the binary copied
# to the node's local disk, and winic pinning its measuring children to
# one CPU of the job. A last job, after all of them (afterany: a failed
# partition is named, not fatal), runs `winic html` over the databases of
# each arch, labelled by partition. Needs sbatch and sinfo.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "measure-partitions: $*" >&2; exit 2; }

out="" partitions="" binaries="$repo/dist" modes="TP LAT" args="" time="2:00:00" wait=""
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?}; shift 2 ;;
    --partitions) partitions=${2:?}; shift 2 ;;
    --binaries) binaries=${2:?}; shift 2 ;;
    --modes) modes=${2:?}; shift 2 ;;
    --winic-args) args=${2?}; shift 2 ;;
    --time) time=${2:?}; shift 2 ;;
    --wait) wait=--wait; shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[ -n "$out" ] || die "--out DIR is needed (a directory every node sees)"
command -v sbatch >/dev/null && command -v sinfo >/dev/null || die "no sbatch/sinfo on PATH: run this on a Slurm login node"
for m in $modes; do
  case $m in TP|LAT) ;; *) die "--modes: '$m' is not a run (valid: TP LAT)" ;; esac
done
ls "$binaries"/winic-*-linux >/dev/null 2>&1 || die "no winic-<arch>-linux in $binaries: run scripts/build-static.sh first, or give --binaries"
mkdir -p "$out"
out=$(cd "$out" && pwd)
binaries=$(cd "$binaries" && pwd)
if [ -z "$partitions" ]; then
  partitions=$(sinfo -h -o '%P' | tr -d '*' | sort -u | paste -sd,)
fi
[ -n "$partitions" ] || die "sinfo lists no partition"
known=" $(sinfo -h -o '%P' | tr -d '*' | tr '\n' ' ') "

ids=()
IFS=, read -ra parts <<<"$partitions"
for p in "${parts[@]}"; do
  [[ $known == *" $p "* ]] || die "no partition '$p' (sinfo lists:$known)"
  mkdir -p "$out/$p"
  # The job's settings in a file it reads: sbatch --export splits values
  # at commas.
  printf 'WINIC_PARTITION=%q\nWINIC_OUT=%q\nWINIC_BINARIES=%q\nWINIC_MODES=%q\nWINIC_ARGS=%q\n' \
    "$p" "$out/$p" "$binaries" "$modes" "$args" > "$out/$p/job.env"
  id=$(sbatch --parsable --partition="$p" --nodes=1 --exclusive --time="$time" \
    --job-name="winic-$p" --output="$out/$p/job.log" \
    "$here/winic-job.sh" "$out/$p/job.env")
  echo "measure-partitions: $p: job $id"
  ids+=("${id%%;*}")
done
deps=$(IFS=:; echo "${ids[*]}")
printf 'WINIC_OUT=%q\nWINIC_BINARIES=%q\nWINIC_PARTITIONS=%q\n' "$out" "$binaries" "$partitions" \
  > "$out/page.env"
# shellcheck disable=SC2086 # $wait is empty or one word
id=$(sbatch --parsable $wait --partition="${parts[0]}" --nodes=1 --time=0:20:00 \
  --job-name=winic-page --output="$out/page.log" --dependency="afterany:$deps" \
  "$here/winic-page.sh" "$out/page.env")
echo "measure-partitions: the page: job ${id%%;*} (after ${ids[*]}); $out/page-<arch>/index.html"
