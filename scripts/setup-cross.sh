#!/usr/bin/env bash
# setup-cross.sh — install what building and testing winic for aarch64 and
# riscv64 needs on an x86-64 Debian bookworm machine. Idempotent; run as root.
# Used by .ci/run and by developers.
#
# Installs: the arm64 foreign architecture; the bookworm-backports suite
# (mirroring the existing Debian apt source); cross gcc/libc for aarch64 and
# riscv64; qemu-user >= 10 from backports; and, unless rustup already has the
# targets, Debian's rustc-web/cargo-web with the matching arm64 std
# (libstd-rust-web-dev:arm64) and rust-web-src (riscv64 std is built from it
# with -Zbuild-std). Prints the versions it found.
#
# Usage: sudo scripts/setup-cross.sh
set -euo pipefail

die() { echo "setup-cross: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (it uses dpkg and apt-get)"
command -v apt-get >/dev/null || die "needs a Debian-based system with apt-get"
export DEBIAN_FRONTEND=noninteractive

updated=0
apt_update() { [ $updated = 1 ] || { apt-get update -qq >/dev/null; updated=1; }; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# --- sources ----------------------------------------------------------------
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  dpkg --add-architecture arm64
  updated=0
fi
backports=/etc/apt/sources.list.d/winic-backports.sources
if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  # Reuse the mirror the existing Debian source names; never hard-code one.
  uri=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  elif [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ {print $2; exit}' /etc/apt/sources.list)
  fi
  [ -n "$uri" ] || die "no Debian bookworm apt source found to mirror for bookworm-backports"
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" > "$backports"
  echo "setup-cross: added bookworm-backports from $uri"
  updated=0
fi

# --- cross toolchains and qemu ----------------------------------------------
want=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu
      gcc-riscv64-linux-gnu libc6-dev-riscv64-cross binutils-riscv64-linux-gnu)
missing=()
for p in "${want[@]}"; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt_update
  apt-get install -y -qq "${missing[@]}" >/dev/null
  echo "setup-cross: installed ${missing[*]}"
fi

qemu_major() { qemu-aarch64 --version 2>/dev/null | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -1; }
if [ "$(qemu_major || true)" = "" ] || [ "$(qemu_major)" -lt 10 ]; then
  apt_update
  apt-get install -y -qq -t bookworm-backports qemu-user >/dev/null \
    || die "cannot install qemu-user from bookworm-backports"
  echo "setup-cross: installed qemu-user $(qemu_major) from bookworm-backports"
fi
[ "$(qemu_major)" -ge 10 ] || die "qemu-user is $(qemu_major), winic's cross tests need >= 10 (for riscv64 -cpu max)"

# --- Rust for the targets -----------------------------------------------------
rustup_has() { command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -qx "$1"; }
if rustup_has aarch64-unknown-linux-gnu && rustup_has riscv64gc-unknown-linux-gnu; then
  echo "setup-cross: rustup has both targets; using rustup's toolchain"
elif [ -n "$(dpkg-query -W -f='${Version}' rustc-web 2>/dev/null)" ] \
    && [ "$(dpkg-query -W -f='${Version}' rustc-web)" = "$(dpkg-query -W -f='${Version}' libstd-rust-web-dev:arm64 2>/dev/null)" ] \
    && installed cargo-web && installed rust-web-src; then
  echo "setup-cross: Debian rustc-web $(dpkg-query -W -f='${Version}' rustc-web) with the matching arm64 std is installed"
else
  # rustc-web and the arm64 std must be the very same version: pick the
  # newest version both architectures offer and pin the pair.
  apt_update
  amd=$(apt-cache madison rustc-web | awk '{print $3}')
  arm=$(apt-cache madison libstd-rust-web-dev:arm64 | awk '{print $3}')
  ver=$(comm -12 <(echo "$amd" | sort -u) <(echo "$arm" | sort -u) | sort -V | tail -1)
  [ -n "$ver" ] || die "no version of rustc-web (amd64: ${amd//$'\n'/ }) matches libstd-rust-web-dev:arm64 (${arm//$'\n'/ }); try again after the archive syncs"
  have=$(dpkg-query -W -f='${Version}' rustc-web 2>/dev/null || true)
  have_arm=$(dpkg-query -W -f='${Version}' libstd-rust-web-dev:arm64 2>/dev/null || true)
  if [ "$have" != "$ver" ] || [ "$have_arm" != "$ver" ] || ! installed cargo-web || ! installed rust-web-src; then
    apt-get install -y -qq --allow-downgrades "rustc-web=$ver" "libstd-rust-web-dev=$ver" \
      "libstd-rust-web-dev:arm64=$ver" "cargo-web" "rust-web-src=$ver" >/dev/null
    echo "setup-cross: installed rustc-web, libstd-rust-web-dev:arm64, rust-web-src $ver and cargo-web"
  fi
fi

echo "setup-cross: ready:"
echo "  $(aarch64-linux-gnu-gcc --version | head -1)"
echo "  $(riscv64-linux-gnu-gcc --version | head -1)"
echo "  $(qemu-aarch64 --version | head -1)"
echo "  $(qemu-riscv64 --version | head -1)"
if installed rustc-web; then echo "  $(/usr/bin/rustc --version) (Debian rustc-web, /usr/bin/rustc)"; fi
