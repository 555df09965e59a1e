#!/usr/bin/env bash
# build-static.sh — build statically linked, stripped release binaries of
# winic: dist/winic-<arch>-linux for x86_64, aarch64 and riscv64. They need
# nothing on the target machine: no LLVM, no assembler, no libraries.
#
# Usage: scripts/build-static.sh [x86_64|aarch64|riscv64|all]   (default: all)
# aarch64 and riscv64 need the cross toolchains: sudo scripts/setup-cross.sh
# Prints, per arch, the output file, its size and the build time.
set -euo pipefail

WINIC_SCRIPT=build-static
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/cross-env.sh"
which=${1:-all}
case "$which" in
  all) archs=(x86_64 aarch64 riscv64) ;;
  x86_64 | aarch64 | riscv64) archs=("$which") ;;
  *) echo "build-static: unknown arch '$which' (valid: x86_64 aarch64 riscv64 all)" >&2; exit 2 ;;
esac

mkdir -p "$repo/dist"
target_dir=${CARGO_TARGET_DIR:-$repo/target}
for arch in "${archs[@]}"; do
  (
    winic_cross_env "$arch"
    start=$(date +%s)
    cd "$repo"
    echo "build-static: $arch ($WINIC_TRIPLE) with $WINIC_TOOLCHAIN"
    "${WINIC_CARGO[@]}" build --release --quiet --locked --target "$WINIC_TRIPLE" --bin winic
    out=$repo/dist/winic-$arch-linux
    cp "$target_dir/$WINIC_TRIPLE/release/winic" "$out"
    "$here/check-static.sh" "$out"
    size=$(stat -c %s "$out")
    awk -v a="$arch" -v s="$size" -v t="$(($(date +%s) - start))" \
      'BEGIN { printf "build-static: %-8s dist/winic-%s-linux  %.1f MB  static  %d s\n", a, a, s / 1e6, t }'
  )
done
