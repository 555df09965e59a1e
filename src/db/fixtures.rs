//! Test data shared by the tests of the database's parts: excerpts of
//! two files WINIC wrote, and small builders.

use super::{Entry, Measured, OperandLatency};
use crate::isa::{Arch, Instr, Isa};
use std::fs;
use std::path::PathBuf;

/// The first entries of WINIC's SpaceMiT X60 database
/// (`data/spacemit_x60/spacemit_x60.yaml`) and some of its Neoverse V2
/// one (`data/neoverse-v2/gracehopper.yaml`), copied verbatim.
pub(super) const X60: &str = r#"---
- llvmName:        ZEXT_H_RV64
  name:            zext.h
  operands:
    - class:           register
      name:            GPR
      read:            false
      write:           true
    - class:           register
      name:            GPR
      read:            true
      write:           false
  latency:         1
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      1
      latencyMax:      1
  throughput:      0.5
  throughputMin:   0.5
  throughputMax:   0.5
- llvmName:        XORI
  name:            xori
  operands:
    - class:           register
      name:            GPR
      read:            false
      write:           true
    - class:           register
      name:            GPR
      read:            true
      write:           false
  latency:         1
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      1
      latencyMax:      1
  throughput:      0.5
  throughputMin:   0.5
  throughputMax:   0.5
- llvmName:        ADD
  name:            add
  operands:
    - class:           register
      name:            GPR
      read:            false
      write:           true
    - class:           register
      name:            GPR
      read:            true
      write:           false
    - class:           register
      name:            GPR
      read:            true
      write:           false
  latency:         1
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      1
      latencyMax:      1
    - sourceOperand:   '2'
      targetOperand:   '0'
      latencyMin:      1
      latencyMax:      1
  throughput:      0.5
  throughputMin:   0.5
  throughputMax:   0.5
- llvmName:        VADD_VV
  name:            vadd.vv
  operands:
    - class:           register
      name:            VR
      read:            false
      write:           true
    - class:           register
      name:            VR
      read:            true
      write:           false
    - class:           register
      name:            VR
      read:            true
      write:           false
    - class:           register
      name:            VMV0
      read:            true
      write:           false
  latency:         4
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      4
      latencyMax:      4
    - sourceOperand:   '2'
      targetOperand:   '0'
      latencyMin:      4
      latencyMax:      4
    - sourceOperand:   '3'
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
    - sourceOperand:   VTYPE
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
    - sourceOperand:   VL
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
  throughput:      2
  throughputMin:   2
  throughputMax:   2
...
"#;
pub(super) const V2: &str = r#"---
- llvmName:        ZIP2v8i8
  name:            zip2.8b
  operands:
    - class:           register
      name:            FPR64
      read:            false
      write:           true
    - class:           register
      name:            FPR64
      read:            true
      write:           false
    - class:           register
      name:            FPR64
      read:            true
      write:           false
  latency:         2
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
    - sourceOperand:   '2'
      targetOperand:   '0'
      latencyMin:      2
      latencyMax:      2
  throughput:      0.25
  throughputMin:   0.25
  throughputMax:   0.25
- llvmName:        ADDXrs
  name:            add
  operands:
    - class:           register
      name:            GPR64
      read:            false
      write:           true
    - class:           register
      name:            GPR64
      read:            true
      write:           false
  latency:         null
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
  throughput:      null
  throughputMin:   null
  throughputMax:   null
- llvmName:        FMLAv4f32
  name:            fmla.4s
  operands:
    - class:           register
      name:            FPR128
      read:            true
      write:           true
    - class:           register
      name:            FPR128
      read:            true
      write:           false
    - class:           register
      name:            FPR128
      read:            true
      write:           false
  latency:         4
  operandLatencies:
    - sourceOperand:   '0'
      targetOperand:   '0'
      latencyMin:      2
      latencyMax:      2
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      4
      latencyMax:      4
    - sourceOperand:   '2'
      targetOperand:   '0'
      latencyMin:      4
      latencyMax:      4
    - sourceOperand:   FPCR
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
  throughput:      0.3
  throughputMin:   0.3
  throughputMax:   0.3
- llvmName:        UMIN_ZI_S
  name:            umin
  operands:
    - class:           register
      name:            ZPR
      read:            true
      write:           true
    - class:           immediate
      imd:             int
      read:            true
      write:           false
  latency:         2
  operandLatencies:
    - sourceOperand:   '0'
      targetOperand:   '0'
      latencyMin:      2
      latencyMax:      2
  throughput:      0.25
  throughputMin:   0.25
  throughputMax:   0.25
- llvmName:        PACM
  name:            'hint	#39'
  operands:        []
  latency:         null
  operandLatencies: []
  throughput:      0.1
  throughputMin:   0.1
  throughputMax:   0.1
...
"#;

pub(super) fn form(arch: Arch, name: &str) -> Instr {
    Isa::get(arch).instr(name).unwrap()
}

pub(super) fn scratch_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("winic-db-{}-{tag}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

pub(super) fn entry(name: &str) -> Entry {
    Entry {
        llvm_name: name.into(),
        name: name.to_lowercase(),
        operands: vec![],
        measured: Measured::default(),
        vector_state: None,
        vector_configs: vec![],
        inferred_ports: vec![],
        inferred_ports_misfit: None,
        line_split_throughput: None,
        misaligned_throughput: None,
        own_line_throughput: None,
        repeated: Vec::new(),
        access_alone: None,
    }
}

pub(super) fn pair(source: &str, bounds: Option<(f64, f64)>) -> OperandLatency {
    OperandLatency {
        source_operand: source.into(),
        target_operand: "0".into(),
        latency_min: bounds.map(|b| b.0),
        latency_max: bounds.map(|b| b.1),
    }
}
