# shellcheck shell=bash
# cross-env.sh — the one place that decides how winic is built for each arch.
#
# Sourced (never run) by build-static.sh, test-cross.sh and setup-cross.sh.
# Sourcing only defines functions; nothing is exported until you call
#
#   winic_cross_env ARCH        # ARCH: x86_64 | aarch64 | riscv64
#
# which picks the Rust toolchain for ARCH, exports the cargo environment for
# it into the current shell (call it in a subshell per arch) and sets:
#
#   WINIC_TRIPLE     the Rust target triple
#   WINIC_TOOLCHAIN  what builds it, for messages ("rustup 1.95.0", ...)
#   WINIC_CARGO      array: cargo plus the flags every command needs
#                    (-Zbuild-std for riscv64 with Debian's compiler)
#   WINIC_QEMU       the emulator command ("" for x86_64)
#
# Toolchain choice (WINIC_RUST=auto|rustup|debian, default auto):
#   rustup  when `rustup target list --installed` lists the triple (the normal
#           path with internet access: `rustup target add <triple>`);
#   debian  otherwise: Debian bookworm's rustc-web/cargo-web in /usr/bin —
#           aarch64 with the prebuilt libstd-rust-web-dev:arm64, riscv64 with
#           std built from rust-web-src (RUSTC_BOOTSTRAP=1 -Zbuild-std).
#           x86_64 uses Debian's compiler only when rustup is missing.
# Every target is linked statically (-C target-feature=+crt-static) with the
# cross gcc as linker and C compiler (capstone's C part is built by `cc`).
# Flags go through CARGO_TARGET_<TRIPLE>_* variables, so a plain
# `cargo build` in the same shell is not affected. A RUSTFLAGS already set is
# folded into the per-target flags (RUSTFLAGS would otherwise override them).

WINIC_QEMU_MIN_MAJOR=10
WINIC_DEBIAN_RUSTC=/usr/bin/rustc
WINIC_DEBIAN_CARGO=/usr/bin/cargo
WINIC_DEBIAN_RUSTDOC=/usr/bin/rustdoc

winic_die() { echo "${WINIC_SCRIPT:-cross-env}: error: $*" >&2; exit 1; }

winic_triple() {
  case "$1" in
    x86_64) echo x86_64-unknown-linux-gnu ;;
    aarch64) echo aarch64-unknown-linux-gnu ;;
    riscv64) echo riscv64gc-unknown-linux-gnu ;;
    *) winic_die "unknown arch '$1' (valid: x86_64 aarch64 riscv64)" ;;
  esac
}

# The GNU prefix of the cross gcc/binutils for an arch ("" for the host).
winic_gnu_prefix() {
  case "$1" in
    x86_64) echo "" ;;
    aarch64) echo aarch64-linux-gnu- ;;
    riscv64) echo riscv64-linux-gnu- ;;
  esac
}

# Targets rustup has installed (empty without rustup). Under sudo, asks the
# invoking user's rustup when root has none.
winic_rustup_targets() {
  if command -v rustup >/dev/null 2>&1; then
    rustup target list --installed 2>/dev/null || true
  elif [ -n "${SUDO_USER:-}" ] && [ "$(id -u)" = 0 ] && command -v sudo >/dev/null 2>&1; then
    sudo -u "$SUDO_USER" -i sh -c 'command -v rustup >/dev/null && rustup target list --installed' 2>/dev/null || true
  fi
}

# Prints "rustup" or "debian": which toolchain builds ARCH.
winic_rust_choice() {
  local arch=$1 triple
  triple=$(winic_triple "$arch")
  case "${WINIC_RUST:-auto}" in
    rustup | debian) echo "$WINIC_RUST"; return ;;
    auto) ;;
    *) winic_die "WINIC_RUST='$WINIC_RUST' (valid: auto rustup debian)" ;;
  esac
  if [ "$arch" = x86_64 ] && command -v rustup >/dev/null 2>&1; then
    echo rustup  # rustup always has its own host std
  elif winic_rustup_targets | grep -qx "$triple"; then
    echo rustup
  else
    echo debian
  fi
}

winic_major_version() { sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p' | head -n1; }

# Checks the emulator for ARCH is there and new enough; sets WINIC_QEMU.
winic_qemu_check() {
  local arch=$1 bin major
  case "$arch" in
    x86_64) WINIC_QEMU=""; return ;;
    aarch64) bin=qemu-aarch64 ;;
    riscv64) bin=qemu-riscv64 ;;
  esac
  command -v "$bin" >/dev/null 2>&1 ||
    winic_die "$bin not found: install qemu-user >= $WINIC_QEMU_MIN_MAJOR (sudo scripts/setup-cross.sh)"
  major=$("$bin" --version | winic_major_version)
  [ -n "$major" ] && [ "$major" -ge "$WINIC_QEMU_MIN_MAJOR" ] ||
    winic_die "$bin is version ${major:-unknown}, need >= $WINIC_QEMU_MIN_MAJOR (bookworm-backports; sudo scripts/setup-cross.sh)"
  WINIC_QEMU="$bin -cpu max"
}

winic_cross_env() {
  local arch=$1 choice prefix upper flags
  WINIC_TRIPLE=$(winic_triple "$arch")
  prefix=$(winic_gnu_prefix "$arch")
  upper=$(echo "$WINIC_TRIPLE" | tr 'a-z-' 'A-Z_')
  choice=$(winic_rust_choice "$arch")

  # C compiler and linker: the cross gcc (capstone-sys builds C with `cc`).
  if [ -n "$prefix" ]; then
    command -v "${prefix}gcc" >/dev/null 2>&1 ||
      winic_die "${prefix}gcc not found: install gcc-${prefix%-} and its libc (sudo scripts/setup-cross.sh)"
    export "CC_${WINIC_TRIPLE//-/_}=${prefix}gcc"
    export "AR_${WINIC_TRIPLE//-/_}=${prefix}ar"
    export "CARGO_TARGET_${upper}_LINKER=${prefix}gcc"
  else
    command -v cc >/dev/null 2>&1 || winic_die "no C compiler 'cc': apt-get install gcc libc6-dev"
  fi

  # Static linking, for the target only (not for build scripts/proc macros).
  flags="-C target-feature=+crt-static"
  if [ -n "${RUSTFLAGS:-}" ]; then
    flags="$RUSTFLAGS $flags"
    unset RUSTFLAGS
  fi
  [ -z "${CARGO_ENCODED_RUSTFLAGS:-}" ] ||
    winic_die "CARGO_ENCODED_RUSTFLAGS is set and would override the static-linking flags; unset it"
  export "CARGO_TARGET_${upper}_RUSTFLAGS=$flags"
  # Doctests are linked by rustdoc, which does not see the flags above.
  export RUSTDOCFLAGS="${RUSTDOCFLAGS:+$RUSTDOCFLAGS }-C target-feature=+crt-static"

  WINIC_QEMU=""
  if [ "$arch" != x86_64 ]; then
    winic_qemu_check "$arch"
    export "CARGO_TARGET_${upper}_RUNNER=$WINIC_QEMU"
    # Lets qemu also run anything that ended up dynamically linked.
    export QEMU_LD_PREFIX="/usr/${prefix%-}"
  fi

  case "$choice" in
    rustup)
      command -v rustup >/dev/null 2>&1 ||
        winic_die "WINIC_RUST=rustup but rustup is not installed"
      rustup target list --installed 2>/dev/null | grep -qx "$WINIC_TRIPLE" ||
        winic_die "rustup has no $WINIC_TRIPLE: rustup target add $WINIC_TRIPLE (or WINIC_RUST=debian)"
      WINIC_CARGO=(cargo)
      WINIC_TOOLCHAIN="rustup $(rustc --version | awk '{print $2}')"
      ;;
    debian)
      [ -x "$WINIC_DEBIAN_RUSTC" ] && [ -x "$WINIC_DEBIAN_CARGO" ] ||
        winic_die "Debian's rustc-web/cargo-web are not installed ($WINIC_DEBIAN_RUSTC, $WINIC_DEBIAN_CARGO): sudo scripts/setup-cross.sh"
      # PATH may start with rustup's proxies: name Debian's tools explicitly.
      export RUSTC=$WINIC_DEBIAN_RUSTC RUSTDOC=$WINIC_DEBIAN_RUSTDOC
      unset RUSTUP_TOOLCHAIN
      WINIC_CARGO=("$WINIC_DEBIAN_CARGO")
      WINIC_TOOLCHAIN="Debian rustc-web $("$RUSTC" --version | awk '{print $2}')"
      local sysroot
      sysroot=$("$RUSTC" --print sysroot)
      case "$arch" in
        riscv64)
          # No prebuilt riscv64 std in bookworm: build it from rust-web-src,
          # which the sysroot links at lib/rustlib/src/rust.
          [ -f "$sysroot/lib/rustlib/src/rust/library/std/Cargo.toml" ] ||
            winic_die "std sources missing at $sysroot/lib/rustlib/src/rust/library: apt-get install rust-web-src=$(dpkg-query -W -f='${Version}' rustc-web 2>/dev/null) (sudo scripts/setup-cross.sh)"
          # `test` too, though the static binary does not need it: cargo
          # test adds it, which changed std's build and rebuilt every
          # dependency for the tests after build-static.sh (the test build
          # 5 min 9 s; with the same crates in both, 2 min 12 s, zen3
          # guest, 2026-12-01).
          export RUSTC_BOOTSTRAP=1
          WINIC_CARGO+=(-Zbuild-std=std,panic_abort,test)
          WINIC_TOOLCHAIN+=" + -Zbuild-std"
          ;;
        *)
          [ -d "$sysroot/lib/rustlib/$WINIC_TRIPLE/lib" ] ||
            winic_die "Debian's rustc has no std for $WINIC_TRIPLE: apt-get install libstd-rust-web-dev:${arch/aarch64/arm64}=$(dpkg-query -W -f='${Version}' rustc-web 2>/dev/null) (sudo scripts/setup-cross.sh)"
          ;;
      esac
      ;;
  esac
}
