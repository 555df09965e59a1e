//! The single `include!` site of the tables build.rs generates from
//! `isa-data/`. One module per arch; each defines the same statics
//! (`INSTRS`, `OPERANDS`, `OPERAND_TYPES`, `SUB_OPERANDS`, `REGISTERS`,
//! `CLASSES`, `FEATURES`, `PREDICATES`, `BY_NAME`, `POOL`, `STRS`).

#![allow(clippy::all)]

/// x86-64 tables (LLVM's X86 target).
pub mod x86_64 {
    use crate::isa::desc::*;
    include!(concat!(env!("OUT_DIR"), "/tables_x86_64.rs"));
}

/// AArch64 tables (LLVM's AArch64 target).
pub mod aarch64 {
    use crate::isa::desc::*;
    include!(concat!(env!("OUT_DIR"), "/tables_aarch64.rs"));
}

/// RISC-V tables (LLVM's RISCV target).
pub mod riscv64 {
    use crate::isa::desc::*;
    include!(concat!(env!("OUT_DIR"), "/tables_riscv64.rs"));
}
