//! RVV vector types: an element width (SEW) and a register grouping
//! (LMUL), and which of them a form is defined at, with the register group
//! each operand takes there.
//!
//! WINIC measures every vector form once, at `e32, m1`. LLVM's RISC-V
//! scheduling models are written per LMUL and SEW, and so is LLVM's code
//! generator: for each vector instruction it has one pseudo per legal
//! LMUL (`PseudoVADD_VV_M2`), and per SEW too where the SEW decides
//! legality or timing (`PseudoVFADD_VV_M2_E16`, `PseudoVDIV_VV_M8_E64`).
//! A pseudo's operand classes are the register groups its operands take
//! at that LMUL (`VRM4` for the destination of `PseudoVWADD_VV_M2`, `VR`
//! for the mask result of `PseudoVMSEQ_VV_M8`). So the pseudos in
//! `isa-data/` say which (SEW, LMUL) a form exists at and how large each
//! operand's group is; only what LLVM leaves to its instruction selector
//! is stated here, from the V specification: the SEW/LMUL every vtype
//! needs (3.4.2), the doubled element width of widening and narrowing
//! forms (11.2, 11.7) and the source width of vsext/vzext (11.3).

use crate::isa::{Arch, Instr, Isa, Operand};
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

/// A register grouping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lmul {
    /// One eighth of a register.
    Mf8,
    /// A quarter of a register.
    Mf4,
    /// Half a register.
    Mf2,
    /// One register.
    M1,
    /// Groups of 2.
    M2,
    /// Groups of 4.
    M4,
    /// Groups of 8.
    M8,
}

impl Lmul {
    /// Every grouping, smallest first.
    pub const ALL: [Lmul; 7] = [
        Lmul::Mf8,
        Lmul::Mf4,
        Lmul::Mf2,
        Lmul::M1,
        Lmul::M2,
        Lmul::M4,
        Lmul::M8,
    ];

    /// As the assembler writes it: `mf8` … `m8`.
    pub fn name(self) -> &'static str {
        ["mf8", "mf4", "mf2", "m1", "m2", "m4", "m8"][self as usize]
    }

    /// The `vlmul` field of `vtype` (V specification, 3.4.2).
    fn vlmul(self) -> i64 {
        [5, 6, 7, 0, 1, 2, 3][self as usize]
    }

    /// LMUL in eighths (mf8 is 1, m8 is 64).
    pub fn eighths(self) -> u32 {
        1 << (self as u32)
    }

    /// Registers a group of this LMUL takes (fractions take one).
    pub fn registers(self) -> usize {
        (self.eighths() as usize / 8).max(1)
    }

    fn from_llvm(s: &str) -> Option<Lmul> {
        let k = ["MF8", "MF4", "MF2", "M1", "M2", "M4", "M8"]
            .iter()
            .position(|n| *n == s)?;
        Some(Lmul::ALL[k])
    }
}

/// An element width and a grouping, always tail and mask agnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VType {
    /// Element width in bits: 8, 16, 32 or 64.
    pub sew: u32,
    /// The grouping.
    pub lmul: Lmul,
}

/// The element widths, smallest first.
pub const SEWS: [u32; 4] = [8, 16, 32, 64];

impl VType {
    /// WINIC's vector type, the one every RVV form is measured at first.
    pub const DEFAULT: VType = VType {
        sew: 32,
        lmul: Lmul::M1,
    };

    /// All 28 (SEW, LMUL) pairs, SEW first.
    pub fn all() -> impl Iterator<Item = VType> {
        SEWS.into_iter()
            .flat_map(|sew| Lmul::ALL.into_iter().map(move |lmul| VType { sew, lmul }))
    }

    /// The immediate of `vsetvli rd, rs1, e<sew>, <lmul>, ta, ma`: vlmul
    /// in bits 2:0, vsew in 5:3, vta bit 6, vma bit 7.
    pub fn vtypei(self) -> i64 {
        let vsew = self.sew.trailing_zeros() as i64 - 3;
        self.lmul.vlmul() | vsew << 3 | 1 << 6 | 1 << 7
    }

    /// Whether a core whose widest element is `elen` bits can set this
    /// vtype at all: SEW ≤ ELEN and SEW ≤ LMUL × ELEN (3.4.2; mf8 needs
    /// e8 where ELEN is 64).
    pub fn settable(self, elen: u32) -> bool {
        self.sew <= elen && self.sew * 8 <= elen * self.lmul.eighths()
    }

    /// `e8m2`, `e16mf2`, `e8,m2` or `e8 m2`, or an error naming what is
    /// valid.
    pub fn parse(s: &str) -> Result<VType, String> {
        let bad = || {
            format!(
                "'{s}' is not a vector type: write e<SEW><LMUL> with SEW 8, 16, 32 or 64 and \
                 LMUL mf8, mf4, mf2, m1, m2, m4 or m8 (e8m2, e16mf2)"
            )
        };
        let t: String = s
            .trim()
            .to_ascii_lowercase()
            .chars()
            .filter(|c| !matches!(c, ',' | ' ' | '_'))
            .collect();
        let rest = t.strip_prefix('e').ok_or_else(bad)?;
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let sew: u32 = rest[..digits].parse().map_err(|_| bad())?;
        let lmul = Lmul::ALL
            .into_iter()
            .find(|l| l.name() == &rest[digits..])
            .ok_or_else(bad)?;
        if !SEWS.contains(&sew) {
            return Err(bad());
        }
        Ok(VType { sew, lmul })
    }
}

impl fmt::Display for VType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{} {}", self.sew, self.lmul.name())
    }
}

/// One of LLVM's vector pseudos of a form: the registers each of its
/// operands takes, in the order of the form's register operands (see
/// [`register_operands`]).
#[derive(Clone, Debug)]
struct Pseudo {
    /// Registers per operand: 0 for scalar registers, the group size for
    /// vector ones.
    groups: Vec<usize>,
    /// Whether its result is `@earlyclobber`: it may not overlap any
    /// source (a wide result over narrow sources, a mask over a group;
    /// LLVM states this on the pseudos, not on the MC forms).
    early_clobber: bool,
}

/// What LLVM's pseudos say of one form.
#[derive(Default, Debug)]
struct Variants {
    /// Per LMUL, per SEW (`None` when the pseudo names no SEW).
    at: HashMap<(Lmul, Option<u32>), Pseudo>,
}

impl Variants {
    fn names_sew(&self) -> bool {
        self.at.keys().any(|(_, s)| s.is_some())
    }
}

/// The registers a register class's member takes: `VRM4` 4, `VR` and
/// `VMV0` 1, scalar classes 0.
fn group_of(class: &str) -> usize {
    let base = class.strip_suffix("NoV0").unwrap_or(class);
    match base {
        "VR" | "VMV0" => 1,
        "VRM2" => 2,
        "VRM4" => 4,
        "VRM8" => 8,
        _ => 0,
    }
}

/// The operands whose groups are compared between a form and its
/// pseudos: registers, not the mask operand (`vm`, absent from unmasked
/// pseudos), not the vector length (`vl`), and not an input tied to an
/// output (the pseudo's `merge`, the form's `vd` of `vmacc`): each such
/// pair counts once, as its output.
fn register_operands(ops: impl Iterator<Item = Operand>) -> Vec<Operand> {
    ops.filter(|o| {
        o.ty().class().is_some()
            && o.ty().name() != "VMaskOp"
            && o.ty().name() != "AVL"
            && (o.tied_to().is_none() || o.is_def())
    })
    .collect()
}

/// `Pseudo<BASE>_<LMUL>[_E<SEW>][_<index LMUL>]` (`PseudoVADD_VV_M2`,
/// `PseudoVFADD_VV_M2_E16`, `PseudoVRGATHEREI16_VV_M2_E32_M1`), masked,
/// tied and other variants left out; the FP scalar's width is taken out of
/// the base (`VFADD_VFPR16` is `VFADD_VF`).
///
/// A trailing LMUL is that of an index operand of fixed width
/// (`vrgatherei16`: 16 bits), whose group is `LMUL × 16 / SEW`: the
/// other index groups LLVM defines serve its instruction selection, not
/// this form at this SEW, and are left out too. Without a SEW it is the
/// single element group of a Zvkned/Zvksed `.vs` form.
fn parse_pseudo(name: &str) -> Option<(String, Lmul, Option<u32>)> {
    let rest = name.strip_prefix("Pseudo")?;
    let parts: Vec<&str> = rest.split('_').collect();
    let at = parts.iter().position(|p| Lmul::from_llvm(p).is_some())?;
    if at == 0 {
        return None;
    }
    let lmul = Lmul::from_llvm(parts[at])?;
    let mut tail = &parts[at + 1..];
    let mut sew = None;
    if let Some(e) = tail.first().and_then(|p| p.strip_prefix('E')) {
        sew = Some(e.parse().ok()?);
        tail = &tail[1..];
    }
    match (tail, sew) {
        ([], _) => {}
        ([index], Some(sew)) => {
            let index = Lmul::from_llvm(index)?;
            if index.eighths() * sew != lmul.eighths() * 16 {
                return None;
            }
        }
        // Zvkned/Zvksed `.vs` forms: vs2 is one element group, a single
        // register (or the data's fraction).
        ([single], None) if Lmul::from_llvm(single)? == lmul.min(Lmul::M1) => {}
        _ => return None,
    }
    let mut base = parts[..at].join("_");
    for w in ["FPR16", "FPR32", "FPR64"] {
        base = base.replace(w, "F");
    }
    // `VFADD_VFPR16` became `VFADD_VF`; `VFMERGE_VFPR16M` `VFMERGE_VFM`.
    let base = base.replace("_VFF", "_VF").replace("_WFF", "_WF");
    Some((base, lmul, sew))
}

fn index() -> &'static HashMap<&'static str, Variants> {
    static INDEX: OnceLock<HashMap<&'static str, Variants>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let isa = Isa::get(Arch::Riscv64);
        let mut out: HashMap<&'static str, Variants> = HashMap::new();
        for p in isa.instrs().filter(|i| i.name().starts_with("PseudoV")) {
            let Some((base, lmul, sew)) = parse_pseudo(p.name()) else {
                continue;
            };
            let Some(form) = isa.instr(&base).filter(|f| f.is_real()) else {
                continue;
            };
            let mine = register_operands(form.operands());
            let theirs = register_operands(p.operands());
            let kinds_agree = mine.len() == theirs.len()
                && mine.iter().zip(&theirs).all(|(a, b)| {
                    let (ca, cb) = (a.ty().class(), b.ty().class());
                    let vector =
                        |c: Option<crate::isa::RegClass>| c.is_some_and(|c| group_of(c.name()) > 0);
                    vector(ca) == vector(cb)
                });
            if !kinds_agree {
                continue;
            }
            let groups = theirs
                .iter()
                .map(|o| o.ty().class().map_or(0, |c| group_of(c.name())))
                .collect();
            let early_clobber = p.operands().any(|o| o.is_def() && o.early_clobber());
            out.entry(form.name())
                .or_default()
                .at
                .entry((lmul, sew))
                .or_insert(Pseudo {
                    groups,
                    early_clobber,
                });
        }
        out
    })
}

/// Why `form` is not measured at `v` on a core with `elen`-bit elements,
/// or the registers each of its machine operands takes there (0 for
/// scalars and immediates; a tied input and the mask take what their
/// partner resp. `v0` take).
pub fn groups(form: Instr, v: VType, elen: u32) -> Result<Vec<usize>, String> {
    let variants = index().get(form.name()).ok_or_else(|| {
        "LLVM has no per-LMUL pseudo of it (an LMUL-independent form: masks, scalar moves, \
         whole-register moves, loads and stores)"
            .to_string()
    })?;
    let pseudo = if variants.names_sew() {
        variants.at.get(&(v.lmul, Some(v.sew))).ok_or_else(|| {
            let mut defined: Vec<VType> = variants
                .at
                .keys()
                .filter_map(|(l, s)| {
                    Some(VType {
                        sew: (*s)?,
                        lmul: *l,
                    })
                })
                .collect();
            defined.sort();
            format!(
                "not defined at {v} (LLVM defines it at {})",
                defined
                    .iter()
                    .map(|d| format!("e{}{}", d.sew, d.lmul.name()))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })?
    } else {
        variants.at.get(&(v.lmul, None)).ok_or_else(|| {
            let lmuls: Vec<&str> = Lmul::ALL
                .into_iter()
                .filter(|l| variants.at.contains_key(&(*l, None)))
                .map(Lmul::name)
                .collect();
            format!(
                "not defined at LMUL {} (LLVM defines it at {})",
                v.lmul.name(),
                lmuls.join(" ")
            )
        })?
    };
    if !v.settable(elen) {
        return Err(format!(
            "{v} cannot be set with {elen}-bit elements (SEW ≤ LMUL × ELEN)"
        ));
    }
    // Element widths LLVM leaves to instruction selection.
    let wide = variants
        .at
        .get(&(Lmul::M1, None))
        .or_else(|| variants.at.get(&(Lmul::M1, Some(v.sew))))
        .unwrap_or(pseudo)
        .groups
        .contains(&2);
    if wide && 2 * v.sew > elen {
        return Err(format!(
            "a widening or narrowing form needs 2 × SEW ≤ ELEN ({elen} bits), not SEW {}",
            v.sew
        ));
    }
    if let Some(n) = extension_factor(form) {
        if v.sew / n < 8 {
            return Err(format!(
                "vsext/vzext.vf{n} reads SEW/{n}-bit elements: needs SEW ≥ {}",
                8 * n
            ));
        }
    }
    let cond = form.required_features().unwrap_or_default();
    if is_fp(form) && !variants.names_sew() && v.sew == 8 {
        return Err("FP elements are 16 (Zvfh), 32 or 64 bits wide, not 8".into());
    }
    // LLVM's pseudos have e32 variants too (a shared multiclass); the
    // specification defines BF16 forms only at SEW 16.
    if form.name().contains("BF16") && v.sew != 16 {
        return Err(format!(
            "BF16 forms are defined only at SEW 16 (Zvfbfmin, Zvfbfwma), not {}",
            v.sew
        ));
    }
    if cond.contains("zvbc") && v.sew != 64 {
        return Err(format!("Zvbc is defined only at SEW 64, not {}", v.sew));
    }
    if let Some(egs) = element_group_size(&cond) {
        let sews: &[u32] = if cond.contains("zvknh") {
            &[32, 64]
        } else {
            &[32]
        };
        if !sews.contains(&v.sew) {
            let list: Vec<String> = sews.iter().map(|s| s.to_string()).collect();
            return Err(format!(
                "Zvk* element groups are defined at SEW {}, not {}",
                list.join(" or "),
                v.sew
            ));
        }
        let egw = egs * v.sew;
        let vlen = host_vlen();
        if vlen * v.lmul.eighths() < egw * 8 {
            return Err(format!(
                "element groups of {egs} x {} bits need VLEN x LMUL >= {egw}; VLEN is {vlen} bits \
                 here",
                v.sew
            ));
        }
    }
    expand(form, &pseudo.groups)
}

/// The elements per element group of a Zvk* form with predicates `cond`
/// (Zvksh's SM3: 8, the other vector crypto extensions: 4; V crypto
/// specification, 1.2), `None` for element-wise forms (Zvbb, Zvkb).
fn element_group_size(cond: &str) -> Option<u32> {
    if cond.contains("zvksh") {
        return Some(8);
    }
    ["zvkned", "zvksed", "zvkg", "zvknha", "zvknhb"]
        .iter()
        .any(|e| cond.contains(e))
        .then_some(4)
}

/// This host's VLEN in bits; 128 (the V extension's least) where winic
/// cannot tell.
fn host_vlen() -> u32 {
    super::host::detected()
        .and_then(|(_, vlen)| *vlen)
        .unwrap_or(128)
}

/// Whether `form` computes on FP elements (its predicates ask for vector
/// FP).
fn is_fp(form: Instr) -> bool {
    form.required_features()
        .is_some_and(|c| c.contains("zve32f") || c.contains("zve64d") || c.contains("zvfh"))
}

/// Whether the result of `form` may not overlap its sources at `v`
/// (LLVM's `@earlyclobber` on the pseudo of that type; `false` where the
/// form has none).
pub fn early_clobber_at(form: Instr, v: VType) -> bool {
    index().get(form.name()).is_some_and(|variants| {
        [Some(v.sew), None]
            .iter()
            .find_map(|s| variants.at.get(&(v.lmul, *s)))
            .is_some_and(|p| p.early_clobber)
    })
}

/// `n` of `VSEXT_VF<n>` / `VZEXT_VF<n>`.
fn extension_factor(form: Instr) -> Option<u32> {
    let name = form.name();
    let rest = name
        .strip_prefix("VSEXT_VF")
        .or_else(|| name.strip_prefix("VZEXT_VF"))?;
    rest.parse().ok()
}

/// The groups of [`register_operands`] spread over the form's machine
/// operands.
fn expand(form: Instr, groups: &[usize]) -> Result<Vec<usize>, String> {
    let regs = register_operands(form.operands());
    let mc = form.mc_operands();
    let of = |o: Operand| -> usize {
        if o.ty().name() == "VMaskOp" {
            return 1;
        }
        let o = match o.tied_to() {
            Some(t) if !o.is_def() => form.operands().find(|p| p.index() == t).unwrap_or(o),
            _ => o,
        };
        regs.iter()
            .position(|r| r.index() == o.index())
            .map_or(0, |k| groups[k])
    };
    Ok(mc.iter().map(|m| of(m.operand)).collect())
}

/// The features a form needs at `v` beyond its own predicates: FP
/// elements of 16 bits need Zvfh, of 64 bits Zve64d (V specification,
/// 18.2–18.4); SHA-512 (`vsha2*` at SEW 64) Zvknhb.
pub fn features_at(form: Instr, v: VType) -> Vec<&'static str> {
    if form.name().starts_with("VSHA2") && v.sew == 64 {
        return vec!["zvknhb"];
    }
    if !is_fp(form) || form.name().contains("BF16") {
        return Vec::new();
    }
    let widest = if groups_are_wide(form) {
        2 * v.sew
    } else {
        v.sew
    };
    let mut out = Vec::new();
    if v.sew <= 16 {
        out.push("zvfh");
    }
    if widest == 64 {
        out.push("zve64d");
    }
    out
}

fn groups_are_wide(form: Instr) -> bool {
    index().get(form.name()).is_some_and(|v| {
        v.at.iter()
            .filter(|((l, _), _)| *l == Lmul::M1)
            .any(|(_, p)| p.groups.contains(&2))
    })
}

/// Whether LLVM's pseudos give `form` per-LMUL variants at all.
pub fn has_variants(form: Instr) -> bool {
    index().contains_key(form.name())
}

#[cfg(test)]
mod tests {
    use super::super::host;
    use super::*;

    fn form(name: &str) -> Instr {
        Isa::get(Arch::Riscv64).instr(name).unwrap()
    }

    fn at(sew: u32, lmul: Lmul) -> VType {
        VType { sew, lmul }
    }

    #[test]
    fn vtype_immediates_match_the_specification() {
        // vsetvli t0, x0, e32, m1, ta, ma is 0xd0; e8, mf8 0xc5; e64, m8 0xdb.
        assert_eq!(VType::DEFAULT.vtypei(), 0xd0);
        assert_eq!(at(8, Lmul::Mf8).vtypei(), 0xc5);
        assert_eq!(at(64, Lmul::M8).vtypei(), 0xdb);
        assert_eq!(VType::all().count(), 28);
        assert_eq!(VType::parse("e16mf2").unwrap(), at(16, Lmul::Mf2));
        assert_eq!(VType::parse("E8, M8").unwrap(), at(8, Lmul::M8));
        let e = VType::parse("e12m1").unwrap_err();
        assert!(
            e.contains("'e12m1'") && e.contains("SEW 8, 16, 32 or 64"),
            "{e}"
        );
        assert!(VType::parse("e8m3").is_err());
    }

    #[test]
    fn groups_follow_llvm_pseudos() {
        // vadd.vv at m4: every vector operand a group of 4; the mask v0.
        let g = groups(form("VADD_VV"), at(8, Lmul::M4), 64).unwrap();
        assert_eq!(g, vec![4, 4, 4, 1]);
        // vwadd.vv at m2: the destination a group of 4.
        let g = groups(form("VWADD_VV"), at(16, Lmul::M2), 64).unwrap();
        assert_eq!(g, vec![4, 2, 2, 1]);
        // vwmacc.vx at m2: vd (tied) 4, the GPR none, vs2 2.
        let f = form("VWMACC_VX");
        let g = groups(f, at(16, Lmul::M2), 64).unwrap();
        let names: Vec<&str> = f.mc_operands().iter().map(|m| m.name).collect();
        for (n, k) in names.iter().zip(&g) {
            let want = match *n {
                "vd" | "vd_wb" => 4,
                "rs1" => 0,
                "vs2" => 2,
                "vm" => 1,
                other => panic!("unexpected operand {other}"),
            };
            assert_eq!(*k, want, "{n}");
        }
        // A compare writes one mask register whatever the LMUL.
        let g = groups(form("VMSEQ_VV"), at(8, Lmul::M8), 64).unwrap();
        assert_eq!(g, vec![1, 8, 8, 1]);
        // A reduction: vd and vs1 are single registers.
        let g = groups(form("VREDSUM_VS"), at(32, Lmul::M4), 64).unwrap();
        assert_eq!(g, vec![1, 4, 1, 1]);
        // Fractions take one register.
        let g = groups(form("VADD_VV"), at(8, Lmul::Mf8), 64).unwrap();
        assert_eq!(g, vec![1, 1, 1, 1]);
        // The FP scalar forms are found through their FPR pseudos.
        assert!(groups(form("VFADD_VF"), at(16, Lmul::M2), 64).is_ok());
    }

    #[test]
    fn illegal_pairs_are_refused_with_the_rule() {
        let e = groups(form("VWADD_VV"), at(8, Lmul::M8), 64).unwrap_err();
        assert!(e.contains("LMUL m8"), "{e}");
        let e = groups(form("VWADD_VV"), at(64, Lmul::M1), 64).unwrap_err();
        assert!(e.contains("2 × SEW"), "{e}");
        let e = groups(form("VFADD_VV"), at(8, Lmul::M1), 64).unwrap_err();
        assert!(e.contains("not defined at e8 m1"), "{e}");
        let e = groups(form("VADD_VV"), at(16, Lmul::Mf8), 64).unwrap_err();
        assert!(e.contains("SEW ≤ LMUL × ELEN"), "{e}");
        let e = groups(form("VZEXT_VF4"), at(16, Lmul::M1), 64).unwrap_err();
        assert!(e.contains("SEW ≥ 32"), "{e}");
        assert!(groups(form("VZEXT_VF4"), at(32, Lmul::M1), 64).is_ok());
        let e = groups(form("VMV_X_S"), VType::DEFAULT, 64).unwrap_err();
        assert!(e.contains("LMUL-independent"), "{e}");
        let e = groups(form("VMFEQ_VV"), at(8, Lmul::M1), 64).unwrap_err();
        assert!(e.contains("not 8"), "{e}");
        let e = groups(form("VFWMACCBF16_VV"), VType::DEFAULT, 64).unwrap_err();
        assert!(e.contains("only at SEW 16"), "{e}");
        assert!(groups(form("VFWMACCBF16_VV"), at(16, Lmul::M1), 64).is_ok());
        let e = groups(form("VCLMUL_VV"), VType::DEFAULT, 64).unwrap_err();
        assert!(e.contains("only at SEW 64"), "{e}");
        assert!(groups(form("VCLMUL_VV"), at(64, Lmul::M1), 64).is_ok());
        // Element groups: SEW 32 (SHA-2 also 64), VLEN x LMUL >= EGW (with
        // VLEN unknown, 128: SM3's 256-bit groups need m2).
        assert!(groups(form("VAESEM_VV"), VType::DEFAULT, 64).is_ok());
        assert!(groups(form("VAESEM_VV"), at(64, Lmul::M1), 64).is_err());
        assert!(groups(form("VSHA2MS_VV"), at(64, Lmul::M2), 64).is_ok());
        assert!(groups(form("VSHA2MS_VV"), at(64, Lmul::M1), 64).is_err());
        if host::detected().is_none() {
            let e = groups(form("VSM3ME_VV"), VType::DEFAULT, 64).unwrap_err();
            assert!(e.contains("VLEN x LMUL >= 256"), "{e}");
            assert!(groups(form("VSM3ME_VV"), at(32, Lmul::M2), 64).is_ok());
        }
        // ELEN 32 (Zve32x): no e64 at all.
        assert!(groups(form("VADD_VV"), at(64, Lmul::M1), 32).is_err());
    }

    #[test]
    fn fp_forms_need_zvfh_at_16_bits_and_zve64d_at_64() {
        assert_eq!(features_at(form("VFADD_VV"), at(16, Lmul::M1)), ["zvfh"]);
        assert_eq!(features_at(form("VFADD_VV"), at(64, Lmul::M1)), ["zve64d"]);
        assert_eq!(
            features_at(form("VFWCVT_F_F_V"), at(32, Lmul::M1)),
            ["zve64d"]
        );
        assert!(features_at(form("VADD_VV"), at(16, Lmul::M1)).is_empty());
    }

    /// At e32 m1 the pseudos give the same register pairs as the name
    /// rule winic's kernels used before them ([`super::super::wide`]:
    /// widening `vd`, `_W` `vs2`), and more where the rule fell short.
    #[test]
    fn at_e32_m1_pseudos_agree_with_the_widening_rule() {
        let isa = Isa::get(Arch::Riscv64);
        let mut checked = 0;
        let mut differ = Vec::new();
        for f in isa.real_instrs() {
            // (Zvbc, BF16, SM3 and vzext.vf8 are not defined at e32 m1.)
            let Ok(g) = groups(f, VType::DEFAULT, 64) else {
                continue;
            };
            for (m, k) in f.mc_operands().iter().zip(&g) {
                // The rule named the tied input; the output copies it.
                if *k == 0 || m.ty.name() == "VMaskOp" || m.operand.tied_to().is_some() {
                    continue;
                }
                let old = if super::super::wide(&f, m.name) { 2 } else { 1 };
                // Where they differ the rule did not know SiFive's
                // quad-widening forms (xsfvqmacc, xsfvfnrclipxfqf).
                let vendor = f.required_features().is_some_and(|c| c.contains("xsf"));
                if *k != old && !(vendor && *k > old) {
                    differ.push(format!(
                        "{} {}: {k} registers, the rule {old}",
                        f.name(),
                        m.name
                    ));
                }
            }
            checked += 1;
        }
        assert!(differ.is_empty(), "{differ:#?}");
        assert!(checked > 380, "only {checked} forms have per-LMUL pseudos");
    }
}
