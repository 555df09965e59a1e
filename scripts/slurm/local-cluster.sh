#!/usr/bin/env bash
# local-cluster.sh — a one-node Slurm cluster on this machine with two
# partitions (alpha, beta) on the same node, to try the recipe of
# measure-partitions.sh for real: it installs Debian's slurm-wlm and
# munge, starts munged, slurmctld and slurmd, measures a small selection
# on both partitions, checks the page, and tears the cluster down. As
# root (it writes /etc/slurm and /etc/munge, and starts daemons).
#
# Usage: sudo scripts/slurm/local-cluster.sh [OUT]
#   OUT  where the databases and the page go (default target/slurm-test)
# Env:   WINIC_SLURM_ARGS  the runs' options (default: a few integer forms)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$repo/target/slurm-test}
args=${WINIC_SLURM_ARGS:---filter ^(ADD|IMUL|SHL)64r[ri]$}
die() { echo "local-cluster: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "run as root: it writes /etc/slurm and starts daemons"

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
[ -x "$repo/dist/winic-$(uname -m)-linux" ] || "$repo/scripts/build-static.sh" "$(uname -m)"

host=$(hostname -s)
node=$(slurmd -C | head -1)   # NodeName=... CPUs=... RealMemory=...
# Run as root, state under /var: a throwaway cluster.
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge /etc/munge
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=winic-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ReturnToService=2
$node State=UNKNOWN
PartitionName=alpha Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=beta Nodes=$host MaxTime=INFINITE State=UP
CONF
[ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; }
chown -R munge:munge /etc/munge /run/munge 2>/dev/null || true
chmod 400 /etc/munge/munge.key

down() {
  scancel --user=root 2>/dev/null || true
  pkill -x slurmd 2>/dev/null || true
  pkill -x slurmctld 2>/dev/null || true
  pkill -x munged 2>/dev/null || true
  sleep 1
  echo "local-cluster: stopped slurmd, slurmctld and munged"
}
trap down EXIT
down >/dev/null
runuser -u munge -- munged --force 2>/dev/null || munged --force
slurmctld -c -i
slurmd -c
for _ in $(seq 60); do
  sinfo -h -o '%T' 2>/dev/null | grep -q idle && break
  sleep 1
done
sinfo
sinfo -h -o '%T' | grep -q idle || die "the node did not come up idle (see /var/log/slurm/)"

rm -rf "$out"
start=$(date +%s)
"$here/measure-partitions.sh" --out "$out" --winic-args "$args" --time 0:30:00 --wait
echo "local-cluster: the jobs took $(($(date +%s) - start)) s"
page="$out/page-$(uname -m)/index.html"
[ -s "$page" ] || die "no page at $page (see $out/*/job.log, $out/page.log)"
for p in alpha beta; do
  [ -s "$out/$p/db.yaml" ] || die "no database of partition $p"
  grep -q "\"label\":\"$p\"" "$page" || die "the page has no column group $p"
done
sacct -n -X -o JobID,JobName,Partition,State,Elapsed 2>/dev/null || squeue
echo "local-cluster: ok: $page compares partitions alpha and beta"
