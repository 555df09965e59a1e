//! Configurations besides the default at which forms are measured again:
//! RISC-V's vector types (`--vtypes`). The run asks its [`Target`] for
//! them ([`super::KernelFrame::variants`]) and never names an arch: on
//! x86-64 and AArch64 there are none.

use super::riscv64::vtype::{self, VType};
use super::Target;
use crate::isa::Instr;

/// `--vtypes`: the RVV vector types to measure besides WINIC's e32 m1
/// (`all`, `none`, or a list such as `e8m1,e16mf2`). Arches without vector
/// types ignore them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VectorTypes(Vec<VType>);

impl VectorTypes {
    /// Parses `all`, `none` or a comma-separated list of vector types;
    /// the error names the bad part and what is valid.
    pub fn parse(s: &str) -> Result<VectorTypes, String> {
        match s.trim() {
            "all" => Ok(VectorTypes(
                VType::all().filter(|v| *v != VType::DEFAULT).collect(),
            )),
            "none" => Ok(VectorTypes(Vec::new())),
            list => {
                let mut out = Vec::new();
                for part in list.split(',').filter(|p| !p.trim().is_empty()) {
                    let v = VType::parse(part).map_err(|e| format!("{e}; or all, or none"))?;
                    if !out.contains(&v) {
                        out.push(v);
                    }
                }
                Ok(VectorTypes(out))
            }
        }
    }

    /// As `--vtypes` spells it (`all`, `none`, `e8m1,e16mf2`): parsed
    /// back, the same types.
    pub fn spec(&self) -> String {
        let all: Vec<VType> = VType::all().filter(|v| *v != VType::DEFAULT).collect();
        if self.0 == all {
            return "all".into();
        }
        if self.0.is_empty() {
            return "none".into();
        }
        let keys: Vec<String> = self
            .0
            .iter()
            .map(|v| format!("e{}{}", v.sew, v.lmul.name()))
            .collect();
        keys.join(",")
    }

    /// How many types.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(super) fn types(&self) -> &[VType] {
        &self.0
    }
}

/// One configuration of a sweep.
pub trait Variant {
    /// The target whose kernels run in this configuration.
    fn target(&self) -> &'static dyn Target;
    /// As a key suffix and in the database (`e8m2`).
    fn key(&self) -> String;
    /// For people (`e8 m2`).
    fn label(&self) -> String;
    /// The element width and grouping the database records (`sew`,
    /// `lmul` of a vectorConfig).
    fn sew_lmul(&self) -> (u32, &'static str);
    /// Whether `form` has variants at all (vector forms); forms without
    /// are not counted.
    fn varies(&self, form: Instr) -> bool;
    /// Whether `form` is defined in this configuration (LLVM's pseudos,
    /// the V specification, the host's ELEN).
    fn defined(&self, form: Instr) -> bool;
    /// The features `form` needs in this configuration that the host
    /// lacks, as a reason; `None` when it has them or cannot tell.
    fn lacking(&self, form: Instr) -> Option<String>;
}

/// A RISC-V vector type as a [`Variant`].
pub(super) struct AtVType {
    pub(super) v: VType,
    pub(super) elen: u32,
}

impl Variant for AtVType {
    fn target(&self) -> &'static dyn Target {
        super::riscv64::at(self.v)
    }

    fn key(&self) -> String {
        format!("e{}{}", self.v.sew, self.v.lmul.name())
    }

    fn label(&self) -> String {
        self.v.to_string()
    }

    fn sew_lmul(&self) -> (u32, &'static str) {
        (self.v.sew, self.v.lmul.name())
    }

    fn varies(&self, form: Instr) -> bool {
        vtype::has_variants(form)
    }

    fn defined(&self, form: Instr) -> bool {
        vtype::groups(form, self.v, self.elen).is_ok()
    }

    fn lacking(&self, form: Instr) -> Option<String> {
        let (host, _) = super::riscv64::host::detected()?;
        let missing: Vec<&str> = vtype::features_at(form, self.v)
            .into_iter()
            .filter(|n| host.lookup(n) == Some(false))
            .collect();
        (!missing.is_empty()).then(|| format!("needs {} at {}", missing.join(" and "), self.v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_types_parse_and_name_the_bad_part() {
        assert_eq!(VectorTypes::parse("none").unwrap().len(), 0);
        // 4 widths × 7 groupings, less e32 m1.
        assert_eq!(VectorTypes::parse("all").unwrap().len(), 27);
        let two = VectorTypes::parse("e8m1, e16mf2,e8m1").unwrap();
        assert_eq!(two.types().len(), 2, "{two:?}");
        let e = VectorTypes::parse("e8m1,e7m1").unwrap_err();
        assert!(e.contains("e7m1") && e.contains("all, or none"), "{e}");
    }

    #[test]
    fn only_riscv_has_variants() {
        let all = VectorTypes::parse("all").unwrap();
        for arch in [crate::isa::Arch::X86_64, crate::isa::Arch::Aarch64] {
            assert!(super::super::target(arch).variants(&all).is_empty());
        }
        let rv = super::super::target(crate::isa::Arch::Riscv64).variants(&all);
        assert_eq!(rv.len(), 27);
        assert_eq!(rv[0].key(), "e8mf8");
        assert_eq!(rv[0].label(), "e8 mf8");
    }
}
