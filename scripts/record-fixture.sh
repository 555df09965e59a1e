#!/usr/bin/env bash
# record-fixture.sh ID — record this machine's TP, LAT and `ports` runs of
# one fixed selection of x86 forms as tests/fixtures/raw/ID/ (TP.raw.gz,
# LAT.raw.gz, ports.raw.gz) and write what `winic analyse` draws from them
# (expected.txt, expected-ports.txt), so that tests/recorded.rs checks
# every later rule change on this core too.
#
# ID names the core as docs/machines.md does (zen5, xeon-a7 ...): add its
# row there first. Run on a quiet machine (nothing else timing); it takes
# about 45 s. The selection: integer ALU, multiply, divide, moves and
# shifts (with TP's helpers), 128- to 512-bit floating-point and integer
# vector forms, loads and read-modify-write forms, and `and r64, imm8`
# and `movq r64, xmm` (the way back of a load's address chain, a
# gather's from its vector) with an extending load, the
# plain 16- to 64-byte loads and stores (the wide loads' data path), and
# every form of the published tables tests/fixtures/reference-*.yaml
# (which tests/recorded.rs holds the core to): 692 forms on zen4 (a full
# `ports` run with classes, and 20 held-back mixes), about 350 KB per core.
set -euo pipefail
cd "$(dirname "$0")/.."
id=${1:?usage: scripts/record-fixture.sh ID (a core of docs/machines.md)}
grep -q "\`$id\`" docs/machines.md || {
  echo "record-fixture.sh: $id is not a machine of docs/machines.md; add its row first" >&2
  exit 2
}
[ "$(uname -m)" = x86_64 ] || { echo "record-fixture.sh: the selection is x86's" >&2; exit 2; }
SELECTION='^(ADD|ADC|SBB|IMUL|MUL|DIV|CMP|MOV|SHL|SHR|RCL|LEA|POPCNT|LZCNT|BSWAP|XCHG|CMPXCHG)(8|16|32|64)(rr|ri|rm|mr|r1|rCL|r)$|^AND64ri8$|^MOVPQIto64rr$|^MOVZX32rm8$|^V?MOV(UPS|APS)(Y|Z)?(rm|mr)$|^V(ADD|MUL|FMADD231|DIV|SQRT|MAX)P[SD](Z|Z256|Z128|Y)?(rr|rm|r|m)$|^VP(ADD|MULL|SHUF|PERM|TERNLOG)[BWDQ]'
# With the forms of the published tables (tests/fixtures/reference-*.yaml),
# which tests/recorded.rs compares the recorded core's analysis with.
published=$(sed -n 's/^ *- llvmName: *\([A-Za-z0-9_]*\).*/\1/p' tests/fixtures/reference-{throughput,latency,memory}.yaml | sort -u | paste -sd'|')
[ -n "$published" ] || { echo "record-fixture.sh: no form in tests/fixtures/reference-*.yaml" >&2; exit 2; }
SELECTION="$SELECTION|^($published)\$"
cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for mode in TP LAT; do
  (cd "$work" && "$OLDPWD/target/release/winic" "$mode" --filter "$SELECTION" -o db.yaml --noReport >/dev/null)
done
(cd "$work" && "$OLDPWD/target/release/winic" ports --filter "$SELECTION" --held-back 20 >/dev/null)
out=tests/fixtures/raw/$id
mkdir -p "$out"
for mode in TP LAT; do
  gzip -9 -c "$work/db.yaml.$mode.raw" > "$out/$mode.raw.gz"
done
gzip -9 -c "$work/ports.raw" > "$out/ports.raw.gz"
WINIC_BLESS=1 cargo test --release --quiet --test recorded
echo "recorded $out: $(du -sh "$out" | cut -f1); check its expected.txt, then commit it"
