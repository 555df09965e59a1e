#!/usr/bin/env bash
# Proves winic's encoders against LLVM's assembler: every register/immediate
# form's example instruction, as `winic selfcheck --examples` prints it, is
# assembled with llvm-mc-19 -show-encoding and the bytes compared.
#   scripts/cross-check.sh [ARCH...]     (default: x86_64 aarch64 riscv64)
# Installs llvm-19 with apt if llvm-mc-19 is missing. Prints per-arch
# agreement and every difference; exits 1 if an arch is below its target.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v "${LLVM_MC:-llvm-mc-19}" >/dev/null; then
    echo "cross-check: llvm-mc-19 not found; installing llvm-19 with apt" >&2
    sudo_if() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
    sudo_if apt-get update -qq
    sudo_if env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq llvm-19 >/dev/null
fi
echo "cross-check: $("${LLVM_MC:-llvm-mc-19}" --version | grep -m1 -i 'llvm version' | sed 's/^ *//')"

arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 aarch64 riscv64)
cargo build --locked --quiet
for a in "${arches[@]}"; do
    # selfcheck exits 1 on a capstone mismatch; the cross-check still runs.
    target/debug/winic selfcheck --arch "$a" --examples || true
done | python3 scripts/cross_check.py
