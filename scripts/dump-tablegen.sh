#!/usr/bin/env bash
# dump-tablegen.sh — regenerate isa-data/ from LLVM's TableGen records.
#
# The offline step of winic (never needed to build or run it): runs
# `llvm-tblgen --dump-json` on X86.td, AArch64.td and RISCV.td, compacts the
# raw dumps (90-180 MB each, never committed) with compact_tablegen.py into
# isa-data/<arch>.json and writes isa-data/provenance.json. Running it twice
# on the same LLVM gives identical bytes.
#
# Default: LLVM 19.1.7 from Debian bookworm — llvm-tblgen-19 (package llvm-19)
# and the .td sources from `apt-get source llvm-toolchain-19` (a deb-src entry
# mirroring the existing Debian source is added if none exists; needs root).
#
# Environment:
#   LLVM_SRC=<dir>      an llvm-project checkout (or its llvm/ dir) to use
#                       instead of Debian's source package
#   LLVM_TBLGEN=<bin>   the llvm-tblgen to use (default: llvm-tblgen-19, then
#                       llvm-tblgen); should be of the same release as the source
#   RAW_DIR=<dir>       where raw dumps go (default: $TMPDIR/winic-tablegen)
#   ARCHS="x86_64 aarch64 riscv64"   a subset to regenerate
#
# Usage: scripts/dump-tablegen.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
out="$repo/isa-data"
RAW_DIR=${RAW_DIR:-${TMPDIR:-/tmp}/winic-tablegen}
ARCHS=${ARCHS:-"x86_64 aarch64 riscv64"}
DEBIAN_LLVM=19
mkdir -p "$RAW_DIR" "$out"

die() { echo "dump-tablegen: $*" >&2; exit 1; }
sha256() { sha256sum "$1" | cut -d' ' -f1; }

command -v python3 >/dev/null || die "python3 is needed for the compaction step (apt-get install python3)"

# --- llvm-tblgen ----------------------------------------------------------
if [ -z "${LLVM_TBLGEN:-}" ]; then
  if command -v "llvm-tblgen-$DEBIAN_LLVM" >/dev/null; then
    LLVM_TBLGEN=$(command -v "llvm-tblgen-$DEBIAN_LLVM")
  elif [ -z "${LLVM_SRC:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "dump-tablegen: installing llvm-$DEBIAN_LLVM for llvm-tblgen-$DEBIAN_LLVM"
    apt-get install -y "llvm-$DEBIAN_LLVM" >/dev/null || { apt-get update >/dev/null && apt-get install -y "llvm-$DEBIAN_LLVM" >/dev/null; }
    LLVM_TBLGEN=$(command -v "llvm-tblgen-$DEBIAN_LLVM")
  elif command -v llvm-tblgen >/dev/null; then
    LLVM_TBLGEN=$(command -v llvm-tblgen)
  else
    die "no llvm-tblgen found: install llvm-$DEBIAN_LLVM (Debian) or set LLVM_TBLGEN=/path/to/llvm-tblgen"
  fi
fi
[ -x "$LLVM_TBLGEN" ] || die "LLVM_TBLGEN=$LLVM_TBLGEN is not an executable"
tblgen_version=$("$LLVM_TBLGEN" --version | sed -n 's/.*LLVM version \([0-9][0-9.]*\).*/\1/p' | head -1)
[ -n "$tblgen_version" ] || die "cannot read the version of $LLVM_TBLGEN"

# --- LLVM sources ---------------------------------------------------------
add_deb_src() {
  # Mirror the URIs/suites of the existing Debian source as deb-src.
  local f=/etc/apt/sources.list.d/winic-deb-src.sources
  [ -e "$f" ] && return 0
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed -e 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | grep -v '^#' > "$f"
  elif [ -f /etc/apt/sources.list ]; then
    grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > /etc/apt/sources.list.d/winic-deb-src.list
  else
    die "no Debian apt source found to mirror as deb-src; set LLVM_SRC instead"
  fi
  apt-get update >/dev/null
}

source_from_debian() {
  local cache=${WINIC_LLVM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/winic/llvm-toolchain-$DEBIAN_LLVM}
  mkdir -p "$cache"
  # A tree counts only once its marker is written, after a complete extraction.
  local marker tree tarball
  marker=$(find "$cache" -maxdepth 2 -name .winic-debian-source | sort | tail -1)
  if [ -z "$marker" ]; then
    [ "$(id -u)" = 0 ] || die "fetching Debian's llvm-toolchain-$DEBIAN_LLVM source needs root (apt); or set LLVM_SRC"
    apt-cache showsrc "llvm-toolchain-$DEBIAN_LLVM" 2>/dev/null | grep -q '^Package:' || add_deb_src
    echo "dump-tablegen: downloading llvm-toolchain-$DEBIAN_LLVM sources (apt-get source)" >&2
    (cd "$cache" && apt-get source --download-only "llvm-toolchain-$DEBIAN_LLVM" >/dev/null 2>&1) \
      || die "apt-get source llvm-toolchain-$DEBIAN_LLVM failed (is a deb-src line enabled?)"
    tarball=$(ls "$cache"/llvm-toolchain-"${DEBIAN_LLVM}"_*.orig.tar.xz | sort | tail -1)
    echo "dump-tablegen: extracting the .td files from $(basename "$tarball")" >&2
    # GNU tar's wildcards match across '/', so these cover every subdirectory.
    (cd "$cache" && tar -xJf "$tarball" --wildcards \
      '*/llvm/include/llvm/*.td' '*/llvm/include/llvm/Support/TargetOpcodes.def' \
      '*/llvm/lib/Target/*.td' '*/cmake/Modules/LLVMVersion.cmake') \
      || die "extracting $tarball failed"
    tree=$(find "$cache" -maxdepth 1 -type d -name "llvm-toolchain-${DEBIAN_LLVM}_*" | sort | tail -1)
    [ -d "$tree/llvm/lib/Target/X86" ] || die "no llvm/lib/Target/X86 in $tarball"
    basename "$(ls "$cache"/*.dsc | sort | tail -1)" .dsc > "$tree/.winic-debian-source"
    marker=$tree/.winic-debian-source
  fi
  dirname "$marker"
}

if [ -n "${LLVM_SRC:-}" ]; then
  [ -d "$LLVM_SRC" ] || die "LLVM_SRC=$LLVM_SRC is not a directory"
  llvm=$LLVM_SRC; [ -d "$llvm/llvm/lib/Target" ] && llvm=$llvm/llvm
  [ -d "$llvm/lib/Target/X86" ] || die "LLVM_SRC=$LLVM_SRC holds no llvm/lib/Target/X86 (give an llvm-project checkout)"
  source_desc="LLVM_SRC=$LLVM_SRC"
  if git -C "$llvm" rev-parse HEAD >/dev/null 2>&1; then
    source_desc="$source_desc (git $(git -C "$llvm" describe --always --tags 2>/dev/null || git -C "$llvm" rev-parse HEAD))"
  fi
else
  tree=$(source_from_debian)
  llvm=$tree/llvm
  source_desc="Debian source package $(cat "$tree/.winic-debian-source" 2>/dev/null || basename "$tree") (upstream tarball)"
fi
src_version=$(cat "$llvm/../cmake/Modules/LLVMVersion.cmake" "$llvm/CMakeLists.txt" 2>/dev/null \
  | sed -n 's/.*set(LLVM_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)).*/\2/p' | head -3 | paste -sd. || true)
[ -n "$src_version" ] || src_version=unknown
if [ "$src_version" != "$tblgen_version" ]; then
  echo "dump-tablegen: WARNING: llvm-tblgen is $tblgen_version but the sources are $src_version;" \
       "records may not parse. Set LLVM_TBLGEN to a tblgen of the same release." >&2
fi
echo "dump-tablegen: llvm-tblgen $tblgen_version ($LLVM_TBLGEN)"
echo "dump-tablegen: sources     $src_version ($source_desc)"

# --- dump and compact -----------------------------------------------------
declare -A target=([x86_64]=X86 [aarch64]=AArch64 [riscv64]=RISCV)
prov_archs=()
for arch in $ARCHS; do
  t=${target[$arch]:-}
  [ -n "$t" ] || die "unknown arch '$arch' in ARCHS (valid: x86_64 aarch64 riscv64)"
  raw=$RAW_DIR/$t.json
  start=$(date +%s)
  "$LLVM_TBLGEN" --dump-json -I "$llvm/include" -I "$llvm/lib/Target/$t" \
    "$llvm/lib/Target/$t/$t.td" -o "$raw" || die "llvm-tblgen failed on $t.td"
  python3 "$here/compact_tablegen.py" --arch "$arch" --dump "$raw" \
    --target-opcodes "$llvm/include/llvm/Support/TargetOpcodes.def" \
    --out "$out/$arch.json" --stats "$RAW_DIR/$arch.stats.json"
  echo "dump-tablegen: $arch: raw $(( $(stat -c %s "$raw") / 1000000 )) MB -> isa-data/$arch.json" \
       "$(( $(stat -c %s "$out/$arch.json") / 1000 )) kB in $(( $(date +%s) - start )) s"
  prov_archs+=("$arch" "$t" "$(sha256 "$raw")" "$(stat -c %s "$raw")" "$(sha256 "$out/$arch.json")" "$RAW_DIR/$arch.stats.json")
done

python3 - "$out/provenance.json" "$tblgen_version" "$src_version" "$source_desc" \
  "$("$LLVM_TBLGEN" --version | tr -s ' \n' ' ' | sed 's/ $//')" "${prov_archs[@]}" <<'EOF'
import json, os, sys
path, tblgen, src, desc, tblgen_full, *rest = sys.argv[1:]
prov = {}
if os.path.exists(path):
    with open(path) as f:
        prov = json.load(f)
prov.update({
    "llvm_version": src,
    "llvm_source": desc,
    "tblgen_version": tblgen_full,
    "generator": "scripts/dump-tablegen.sh + scripts/compact_tablegen.py",
    "command": "llvm-tblgen --dump-json -I llvm/include -I llvm/lib/Target/<T> llvm/lib/Target/<T>/<T>.td",
})
archs = prov.setdefault("archs", {})
for i in range(0, len(rest), 6):
    arch, t, raw_sha, raw_size, out_sha, stats = rest[i:i + 6]
    with open(stats) as f:
        counts = json.load(f)
    archs[arch] = {"td": f"{t}.td", "raw_dump_sha256": raw_sha, "raw_dump_bytes": int(raw_size),
                   "isa_data_sha256": out_sha, "counts": counts}
with open(path, "w") as f:
    json.dump(prov, f, indent=1, sort_keys=True)
    f.write("\n")
EOF
echo "dump-tablegen: wrote $out/provenance.json"
