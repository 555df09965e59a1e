//! From an LLVM X86 record to an iced-x86 [`Code`], computed from the
//! record's encoding fields (`OpEnc`, `OpMap`, `OpPrefix`, opcode, `Form`,
//! REX.W, VEX.L / EVEX.L'L, operand size) and its operand kinds, matched
//! against iced's [`OpCodeInfo`] table. No list of names: every `Code` is
//! indexed once by its structural key, and the candidates sharing a
//! record's key are told apart by their operand kinds.

use crate::isa::desc::OperandKind;
use crate::isa::{Instr, McOperand, X86Enc};
use iced_x86::{
    Code, EncodingKind, MandatoryPrefix, OpCodeInfo, OpCodeOperandKind as OK, OpCodeTableKind,
    Register,
};
use std::collections::HashMap;
use std::sync::OnceLock;

/// One piece of a printed operand, in the record's Intel `AsmString`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// The value of machine operand `i`.
    Mc(usize),
    /// A write mask `{kN}` from machine operand `i`.
    Mask(usize),
    /// Zeroing `{z}`.
    Zero,
    /// Literal text (`cl`, `st`, `{sae}`).
    Lit(&'static str),
}

/// Where the value of one iced operand comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Machine operand `i`.
    Mc(usize),
    /// A fixed register the `Code` implies (`cl` of `shl r64, cl`).
    Fixed(Register),
    /// The constant 1 of `shl r64, 1`.
    One,
}

/// How one record is encoded with iced and printed.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The iced code.
    pub code: Code,
    /// Value source of each iced operand, in iced's operand order.
    pub slots: Vec<Slot>,
    /// The machine operand holding the write mask.
    pub mask: Option<usize>,
    /// Zeroing masking (`{z}`).
    pub zeroing: bool,
    /// Suppress all exceptions (`{sae}`).
    pub sae: bool,
    /// The machine operand holding the static rounding mode.
    pub rc: Option<usize>,
    /// An embedded broadcast (`{1to8}`) of the memory operand.
    pub broadcast: bool,
    /// The mnemonic as LLVM's Intel syntax spells it.
    pub mnemonic: &'static str,
    /// The operands as printed, each a run of pieces.
    pub operands: Vec<Vec<Tok>>,
    /// Pseudo-prefix that pins the encoding llvm-mc must choose.
    pub pseudo: &'static str,
    /// The machine operand holding the condition (`$cond` of `cmov${cond}`,
    /// LLVM's `printCondCode`) with the iced code of each of its 16 values
    /// (the condition is added to the opcode: forms `*CC`).
    pub cond: Option<(usize, Vec<Code>)>,
}

impl Plan {
    /// The iced code of `inst`: [`Plan::code`], or for a condition form the
    /// code of its condition.
    pub fn code_of(&self, inst: &crate::arch::Inst) -> Result<Code, String> {
        let Some((k, codes)) = &self.cond else {
            return Ok(self.code);
        };
        match inst.ops.get(*k) {
            Some(crate::arch::OpValue::Imm(c)) => usize::try_from(*c)
                .ok()
                .and_then(|c| codes.get(c).copied())
                .ok_or_else(|| format!("condition code {c} outside 0..=15")),
            v => Err(format!("condition operand {v:?}")),
        }
    }
}

/// The plan of `form`, or why it has none. Computed once per record, when
/// first asked for (a run that needs a few forms plans only those).
pub fn plan(form: &Instr) -> Result<&'static Plan, &'static str> {
    type Lazy = OnceLock<Result<Plan, String>>;
    static PLANS: OnceLock<Vec<Lazy>> = OnceLock::new();
    let plans = PLANS.get_or_init(|| {
        (0..form.isa().instrs().count())
            .map(|_| Lazy::new())
            .collect()
    });
    match plans
        .get(form.opcode() as usize)
        .map(|slot| slot.get_or_init(|| make_plan(form)))
    {
        Some(Ok(p)) => Ok(p),
        Some(Err(e)) => Err(e.as_str()),
        None => Err("no such record"),
    }
}

/// The iced codes that share `form`'s opcode (its ModRM group, or that
/// group folded into the opcode): those [`plan`] chose among. Empty when
/// the record has no x86 encoding iced could hold.
pub fn candidate_codes(form: &Instr) -> Vec<Code> {
    let crate::isa::Encoding::X86(e) = form.encoding() else {
        return Vec::new();
    };
    let Ok(key) = llvm_key(&e) else {
        return Vec::new();
    };
    let alt = modrm_in_opcode(key);
    let mut out: Vec<Code> = index().get(&key).cloned().unwrap_or_default();
    if alt != key {
        out.extend(index().get(&alt).into_iter().flatten());
    }
    out
}

/// The structural key both sides are indexed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Key {
    enc: EncodingKind,
    table: OpCodeTableKind,
    /// 0 none, 1 66, 2 F3, 3 F2.
    prefix: u8,
    opcode: u32,
    /// ModRM.reg fixed by the opcode (`/4`), if any.
    group: Option<i32>,
    /// ModRM.rm fixed by the opcode (`0F 01 C1`), if any.
    rm_group: Option<i32>,
}

fn index() -> &'static HashMap<Key, Vec<Code>> {
    static INDEX: OnceLock<HashMap<Key, Vec<Code>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut m: HashMap<Key, Vec<Code>> = HashMap::new();
        for code in Code::values() {
            let info = code.op_code();
            if !info.is_instruction() || !info.mode64() {
                continue;
            }
            m.entry(iced_key(info)).or_default().push(code);
        }
        m
    })
}

fn iced_key(info: &OpCodeInfo) -> Key {
    let prefix = match info.mandatory_prefix() {
        MandatoryPrefix::P66 => 1,
        MandatoryPrefix::PF3 => 2,
        MandatoryPrefix::PF2 => 3,
        _ => 0,
    };
    Key {
        enc: info.encoding(),
        table: info.table(),
        prefix,
        opcode: info.op_code(),
        group: info.is_group().then(|| info.group_index()),
        rm_group: info.is_rm_group().then(|| info.rm_group_index()),
    }
}

/// The record's key, or why it cannot have one.
fn llvm_key(e: &X86Enc) -> Result<Key, String> {
    let (enc, table) = match (e.openc(), e.map()) {
        (_, "T_MAP4") => return Err("APX (EVEX map 4): iced-x86 1.22 has no APX".into()),
        (_, "T_MAP7") => return Err("USER_MSR (map 7): iced-x86 1.22 has no map 7".into()),
        ("EncNormal", "ThreeDNow") => (EncodingKind::D3NOW, OpCodeTableKind::T0F),
        (openc, map) => (encoding_kind(openc)?, table_kind(map)?),
    };
    let prefix = match e.prefix() {
        "PD" => 1,
        "XS" => 2,
        "XD" => 3,
        _ => 0,
    };
    let form = e.form();
    let (group, rm_group) = if let Some(n) = group_of(form) {
        (Some(n), None)
    } else if form == "MRMr0" {
        // The register in ModRM.reg, ModRM.rm fixed to 0 (`tilezero`).
        (None, Some(0))
    } else if let Some(hex) = form.strip_prefix("MRM_") {
        let b = i32::from_str_radix(hex, 16).map_err(|_| format!("form {form}"))?;
        (Some((b >> 3) & 7), Some(b & 7))
    } else {
        (None, None)
    };
    Ok(Key {
        enc,
        table,
        prefix,
        opcode: u32::from(e.opcode()),
        group,
        rm_group,
    })
}

/// The key with ModRM (mod 11, the group's reg field, rm 0 or the fixed
/// rm) folded into a two-byte opcode, as iced spells such forms.
fn modrm_in_opcode(key: Key) -> Key {
    let Some(reg) = key.group else {
        return key;
    };
    let modrm = 0xC0 | (reg as u32) << 3 | key.rm_group.unwrap_or(0) as u32;
    Key {
        opcode: key.opcode << 8 | modrm,
        group: None,
        rm_group: None,
        ..key
    }
}

/// `MRM4r` / `MRM4X` / `MRM4m` → 4.
fn group_of(form: &str) -> Option<i32> {
    let rest = form.strip_prefix("MRM")?;
    let (digit, tail) = rest.split_at(1.min(rest.len()));
    // `MRMXm`/`MRMXr`: the reg field is ignored, and LLVM's encoder
    // writes 0 there (`nop dword [m]` is `0F 1F /0`, `extrq` `66 0F 78 /0`).
    if digit == "X" {
        return matches!(tail, "r" | "m").then_some(0);
    }
    let n: i32 = digit.parse().ok()?;
    matches!(tail, "r" | "X" | "m").then_some(n)
}

fn encoding_kind(openc: &str) -> Result<EncodingKind, String> {
    Ok(match openc {
        "EncNormal" => EncodingKind::Legacy,
        "EncVEX" => EncodingKind::VEX,
        "EncEVEX" => EncodingKind::EVEX,
        "EncXOP" => EncodingKind::XOP,
        o => return Err(format!("encoding {o}")),
    })
}

fn table_kind(map: &str) -> Result<OpCodeTableKind, String> {
    Ok(match map {
        "OB" => OpCodeTableKind::Normal,
        "TB" => OpCodeTableKind::T0F,
        "T8" => OpCodeTableKind::T0F38,
        "TA" => OpCodeTableKind::T0F3A,
        "T_MAP5" => OpCodeTableKind::MAP5,
        "T_MAP6" => OpCodeTableKind::MAP6,
        "XOP8" => OpCodeTableKind::MAP8,
        "XOP9" => OpCodeTableKind::MAP9,
        "XOPA" => OpCodeTableKind::MAP10,
        m => return Err(format!("opcode map {m}")),
    })
}

/// Register file of a register operand, shared by LLVM classes and iced
/// operand kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cat {
    /// 8-bit general-purpose.
    R8,
    /// 16-bit general-purpose.
    R16,
    /// 32-bit general-purpose.
    R32,
    /// 64-bit general-purpose.
    R64,
    /// MMX.
    Mm,
    /// 128-bit vector.
    Xmm,
    /// 256-bit vector.
    Ymm,
    /// 512-bit vector.
    Zmm,
    /// Mask.
    K,
    /// Mask pair (`k2` names `k2:k3`).
    KPair,
    /// AMX tile.
    Tmm,
    /// x87 stack.
    St,
    /// Segment.
    Seg,
    /// Control.
    Cr,
    /// Debug.
    Dr,
}

/// The register file of an LLVM register class.
pub fn class_cat(class: &str) -> Option<Cat> {
    let c = class;
    Some(if c.starts_with("GR8") {
        Cat::R8
    } else if c.starts_with("GR16") {
        Cat::R16
    } else if c.starts_with("GR32") {
        Cat::R32
    } else if c.starts_with("GR64") {
        Cat::R64
    } else if c.starts_with("VR128") || c.starts_with("FR") {
        Cat::Xmm
    } else if c.starts_with("VR256") {
        Cat::Ymm
    } else if c.starts_with("VR512") {
        Cat::Zmm
    } else if c.starts_with("VK") && c.to_ascii_uppercase().ends_with("PAIR") {
        Cat::KPair
    } else if c.starts_with("VK") {
        Cat::K
    } else if c == "VR64" {
        Cat::Mm
    } else if c == "TILE" {
        Cat::Tmm
    } else if c == "RST" {
        Cat::St
    } else if c == "SEGMENT_REG" {
        Cat::Seg
    } else if c == "CONTROL_REG" {
        Cat::Cr
    } else if c == "DEBUG_REG" {
        Cat::Dr
    } else {
        return None;
    })
}

/// What an iced operand kind wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    Reg(Cat),
    Imm,
    Fixed(Register),
    One,
    /// A PC-relative branch target (`rel8`, `rel32`).
    Branch,
    Other,
}

fn want(k: OK) -> Want {
    use Cat::{Cr, Dr, KPair, Mm, Seg, St, Tmm, Xmm, Ymm, Zmm, R16, R32, R64, R8};
    match k {
        OK::r8_or_mem | OK::r8_reg | OK::r8_opcode => Want::Reg(R8),
        OK::r16_or_mem | OK::r16_reg | OK::r16_reg_mem | OK::r16_rm | OK::r16_opcode => {
            Want::Reg(R16)
        }
        OK::r32_or_mem
        | OK::r32_or_mem_mpx
        | OK::r32_reg
        | OK::r32_reg_mem
        | OK::r32_rm
        | OK::r32_opcode
        | OK::r32_vvvv => Want::Reg(R32),
        OK::r64_or_mem
        | OK::r64_or_mem_mpx
        | OK::r64_reg
        | OK::r64_reg_mem
        | OK::r64_rm
        | OK::r64_opcode
        | OK::r64_vvvv => Want::Reg(R64),
        OK::mm_or_mem | OK::mm_reg | OK::mm_rm => Want::Reg(Mm),
        OK::xmm_or_mem | OK::xmm_reg | OK::xmm_rm | OK::xmm_vvvv | OK::xmm_is4 | OK::xmm_is5 => {
            Want::Reg(Xmm)
        }
        OK::ymm_or_mem | OK::ymm_reg | OK::ymm_rm | OK::ymm_vvvv | OK::ymm_is4 | OK::ymm_is5 => {
            Want::Reg(Ymm)
        }
        OK::zmm_or_mem | OK::zmm_reg | OK::zmm_rm | OK::zmm_vvvv => Want::Reg(Zmm),
        OK::k_or_mem | OK::k_reg | OK::k_rm | OK::k_vvvv => Want::Reg(Cat::K),
        OK::kp1_reg => Want::Reg(KPair),
        OK::tmm_reg | OK::tmm_rm | OK::tmm_vvvv => Want::Reg(Tmm),
        OK::sti_opcode => Want::Reg(St),
        OK::seg_reg => Want::Reg(Seg),
        OK::cr_reg => Want::Reg(Cr),
        OK::dr_reg => Want::Reg(Dr),
        OK::imm4_m2z
        | OK::imm8
        | OK::imm8sex16
        | OK::imm8sex32
        | OK::imm8sex64
        | OK::imm16
        | OK::imm32
        | OK::imm32sex64
        | OK::imm64 => Want::Imm,
        OK::imm8_const_1 => Want::One,
        OK::br64_1 | OK::br64_4 => Want::Branch,
        OK::al => Want::Fixed(Register::AL),
        OK::cl => Want::Fixed(Register::CL),
        OK::ax => Want::Fixed(Register::AX),
        OK::dx => Want::Fixed(Register::DX),
        OK::eax => Want::Fixed(Register::EAX),
        OK::rax => Want::Fixed(Register::RAX),
        OK::st0 => Want::Fixed(Register::ST0),
        OK::es => Want::Fixed(Register::ES),
        OK::cs => Want::Fixed(Register::CS),
        OK::ss => Want::Fixed(Register::SS),
        OK::ds => Want::Fixed(Register::DS),
        OK::fs => Want::Fixed(Register::FS),
        OK::gs => Want::Fixed(Register::GS),
        _ => Want::Other,
    }
}

/// What a printed LLVM operand is, for matching.
#[derive(Clone, Copy, Debug)]
enum Have {
    Reg(Cat, usize),
    Mem(usize),
    Imm(usize),
    Branch(usize),
    Lit(&'static str),
}

/// The Intel `AsmString` of a record, split into mnemonic, pseudo-prefix
/// and operands.
struct Template {
    mnemonic: &'static str,
    pseudo: &'static str,
    operands: Vec<Vec<Tok>>,
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn parse_template(form: &Instr) -> Result<Template, String> {
    let t = form.asm_template();
    let mut rest = t.trim();
    let mut pseudo = "";
    if let Some(r) = rest.strip_prefix("{vex}") {
        pseudo = "{vex} ";
        rest = r.trim_start();
    }
    let (mn, ops) = match rest.find(|c: char| c.is_whitespace()) {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest, ""),
    };
    let names: Vec<&str> = form.mc_operands().iter().map(|m| m.name).collect();
    let mut operands = Vec::new();
    if !ops.is_empty() {
        for piece in ops.split(',') {
            operands.push(parse_operand(piece.trim(), &names)?);
        }
    }
    Ok(Template {
        mnemonic: leak(mn.to_string()),
        pseudo,
        operands,
    })
}

fn mc_index(names: &[&str], name: &str) -> Result<usize, String> {
    names
        .iter()
        .position(|n| *n == name)
        .ok_or_else(|| format!("operand ${name} of the AsmString is no machine operand"))
}

/// One printed operand: `$dst {${mask}} {z}`, `${src}`, `cl`, `{sae}`.
fn parse_operand(s: &str, names: &[&str]) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    for word in s.split_whitespace() {
        if let Some(inner) = word.strip_prefix("{${").and_then(|w| w.strip_suffix("}}")) {
            out.push(Tok::Mask(mc_index(names, inner)?));
        } else if word == "{z}" {
            out.push(Tok::Zero);
        } else if let Some(name) = word.strip_prefix('$') {
            // `${src2}{1to8}`: an embedded broadcast after the operand.
            let (name, bcst) = match name.find("}{1to") {
                Some(at) => (&name[..at + 1], Some(&name[at + 1..])),
                None => (name, None),
            };
            let name = name.trim_start_matches('{').trim_end_matches('}');
            out.push(Tok::Mc(mc_index(names, name)?));
            if let Some(b) = bcst {
                out.push(Tok::Lit(leak(b.to_string())));
            }
        } else {
            out.push(Tok::Lit(leak(word.to_string())));
        }
    }
    Ok(out)
}

/// LLVM's predicates of the APX features: extended GPRs (also for the
/// EVEX-promoted VEX forms in maps 2, 3 and 5, `_EVEX`/`_NF` records), new
/// data destination, conditional faulting, zero-upper, PPX, PUSH2/POP2.
const APX_PREDICATES: &[&str] = &[
    "HasEGPR",
    "HasNDD",
    "HasNF",
    "HasCF",
    "HasZU",
    "HasPPX",
    "HasPush2Pop2",
];

fn is_gpr_or_imm(m: &McOperand) -> bool {
    match m.ty.kind() {
        OperandKind::Reg => m.ty.class().is_some_and(|c| c.name().starts_with("GR")),
        _ => true,
    }
}

fn make_plan(form: &Instr) -> Result<Plan, String> {
    let crate::isa::Encoding::X86(e) = form.encoding() else {
        return Err("no encoding".into());
    };
    if e.form() == "PrefixByte" {
        return Err("prefix-only form: iced-x86 encodes no bare prefix".into());
    }
    if form.predicates().any(|p| p.name() == "Not64BitMode") {
        return Err("Not64BitMode: invalid in 64-bit mode".into());
    }
    // `mov al, [moffs16]`: the address-size prefix selects 32 bits in
    // 64-bit mode, so no 16-bit address exists there (LLVM 19 marks
    // `jcxz` Not64BitMode, the `moffs16` moves not).
    if e.adsize() == "AdSize16" {
        return Err("Not64BitMode: 16-bit addressing is invalid in 64-bit mode".into());
    }
    if let Some(p) = form
        .predicates()
        .find(|p| APX_PREDICATES.contains(&p.name()))
    {
        return Err(format!("APX ({}): iced-x86 1.22 has no APX", p.cond()));
    }
    if e.bits().has("evex_nf") {
        return Err("APX (EVEX.NF, no flags): iced-x86 1.22 has no APX".into());
    }
    // Before APX, EVEX encoded vector and mask instructions only; an EVEX
    // record without such operands is an APX promotion of a VEX form
    // (BLSR32rr_EVEX, MULX64rr_EVEX).
    if e.openc() == "EncEVEX" && e.map() != "T_MAP4" && form.mc_operands().iter().all(is_gpr_or_imm)
    {
        return Err("APX (EVEX-promoted GPR form): iced-x86 1.22 has no APX".into());
    }
    let key = llvm_key(&e)?;
    let tpl = parse_template(form)?;
    let mc = form.mc_operands();
    let mut haves = Vec::new();
    let (mut mask, mut zeroing, mut sae, mut rc) = (None, false, false, None);
    let mut broadcast = false;
    for op in &tpl.operands {
        for t in op {
            match *t {
                Tok::Mask(i) => mask = Some(i),
                Tok::Zero => zeroing = true,
                Tok::Lit("{sae}") => sae = true,
                Tok::Lit(l) if l.starts_with("{1to") => broadcast = true,
                Tok::Lit(l) => haves.push(Have::Lit(l)),
                Tok::Mc(i) => {
                    let ty = mc[i].ty;
                    match ty.kind() {
                        OperandKind::Reg => {
                            let class = ty.class().map(|c| c.name()).unwrap_or("");
                            let cat = class_cat(class)
                                .ok_or_else(|| format!("register class {class}"))?;
                            haves.push(Have::Reg(cat, i));
                        }
                        OperandKind::Imm if ty.name() == "AVX512RC" => rc = Some(i),
                        OperandKind::Imm => haves.push(Have::Imm(i)),
                        OperandKind::Mem if ty.is_addressable_memory() => haves.push(Have::Mem(i)),
                        OperandKind::Mem => return Err(memory_reason(ty)),
                        OperandKind::PcRel => haves.push(Have::Branch(i)),
                        _ => return Err(format!("operand kind of {}", ty.name())),
                    }
                }
            }
        }
    }
    let found = |key: Key| find_code(key, &e, &haves, mask, zeroing, sae, rc);
    let (code, slots) = found(key)?;
    // A condition form (`cmov${cond}`, `j${cond}`): the condition is
    // added to the opcode, as LLVM's encoder does for forms `*CC`.
    let cond = match mc
        .iter()
        .position(|m| m.ty.print_method() == "printCondCode")
    {
        Some(k) if e.form().contains("CC") => {
            let codes = (0..16)
                .map(|c| {
                    found(Key {
                        opcode: key.opcode + c,
                        ..key
                    })
                    .map(|(code, _)| code)
                })
                .collect::<Result<Vec<Code>, String>>()?;
            Some((k, codes))
        }
        _ => None,
    };
    let pseudo = match (tpl.pseudo, key.enc) {
        ("", EncodingKind::VEX) => "{vex} ",
        ("", EncodingKind::EVEX) => "{evex} ",
        ("", EncodingKind::Legacy) if needs_data16(form, &e, &haves) => "data16 ",
        (p, _) => p,
    };
    Ok(Plan {
        code,
        slots,
        mask,
        zeroing,
        sae,
        rc,
        broadcast,
        mnemonic: tpl.mnemonic,
        operands: tpl.operands,
        pseudo,
        cond,
    })
}

/// The first iced code under `key` (or its ModRM-in-opcode spelling) that
/// fits the record and its printed operands.
fn find_code(
    key: Key,
    e: &X86Enc,
    haves: &[Have],
    mask: Option<usize>,
    zeroing: bool,
    sae: bool,
    rc: Option<usize>,
) -> Result<(Code, Vec<Slot>), String> {
    // iced writes a fixed ModRM byte into the opcode (`0F 01 CA`, x87
    // `D8 C0+i`): look there when the ModRM-group key has no code.
    // Both may hold codes: `DE /0` is also `fiadd m16int`.
    let alt = modrm_in_opcode(key);
    let lists = [index().get(&key), index().get(&alt).filter(|_| alt != key)];
    if lists.iter().all(Option::is_none) {
        return Err(no_code_reason(e, &key));
    }
    let cands: Vec<Code> = lists.into_iter().flatten().flatten().copied().collect();
    for &code in &cands {
        let info = code.op_code();
        if !fits(info, e, mask.is_some(), zeroing, sae, rc.is_some()) {
            continue;
        }
        if let Some(slots) = match_ops(info.op_kinds(), haves) {
            return Ok((code, slots));
        }
    }
    Err(format!(
        "no iced-x86 code with these operands ({} candidates share the opcode)",
        cands.len()
    ))
}

/// Whether llvm-mc would drop the 66 operand-size prefix of this 16-bit
/// form for its Intel text: the text is also that of a non-16-bit record
/// with the same kind of immediate and no register says the size (`ret`,
/// `retf`, `push 2`), or it is `mov r16, sreg`, which llvm-mc shortens to
/// the 32-bit form. `data16` on the same line gives back the same bytes.
fn needs_data16(form: &Instr, e: &X86Enc, haves: &[Have]) -> bool {
    if e.opsize() != "OpSize16" {
        return false;
    }
    let has_seg = haves.iter().any(|h| matches!(h, Have::Reg(Cat::Seg, _)));
    if has_seg && e.form() == "MRMDestReg" {
        return true;
    }
    let only_imms = haves.iter().all(|h| matches!(h, Have::Imm(_)));
    only_imms
        && shared_texts().get(&form.asm_template()).is_some_and(|v| {
            v.iter()
                .any(|(op, immt)| *op != "OpSize16" && *immt == e.immt())
        })
}

/// Intel templates of the real legacy records without register operands,
/// with each record's operand size and immediate type.
fn shared_texts() -> &'static HashMap<String, Vec<(&'static str, &'static str)>> {
    static TEXTS: OnceLock<HashMap<String, Vec<(&'static str, &'static str)>>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let mut m: HashMap<String, Vec<(&'static str, &'static str)>> = HashMap::new();
        let isa = crate::isa::Isa::get(crate::isa::Arch::X86_64);
        for f in isa.real_instrs() {
            let crate::isa::Encoding::X86(e) = f.encoding() else {
                continue;
            };
            let regs = f
                .mc_operands()
                .iter()
                .any(|o| o.ty.kind() == OperandKind::Reg);
            if e.openc() == "EncNormal" && !regs {
                m.entry(f.asm_template())
                    .or_default()
                    .push((e.opsize(), e.immt()));
            }
        }
        m
    })
}

fn no_code_reason(e: &X86Enc, key: &Key) -> String {
    format!(
        "no iced-x86 code for {} map {} prefix {} opcode {:#04x} form {}",
        e.openc(),
        e.map(),
        e.prefix(),
        key.opcode,
        e.form()
    )
}

/// Whether the iced code agrees with the record's W, L, operand size and
/// EVEX capabilities.
fn fits(info: &OpCodeInfo, e: &X86Enc, mask: bool, z: bool, sae: bool, rc: bool) -> bool {
    let bits = e.bits();
    let w = bits.has("rex_w");
    let adsize = match e.adsize() {
        "AdSize16" => 16,
        "AdSize32" => 32,
        _ => 64,
    };
    if info.address_size() != 0 && info.address_size() != adsize {
        return false;
    }
    let legacy = matches!(info.encoding(), EncodingKind::Legacy | EncodingKind::D3NOW);
    if legacy {
        let size = info.operand_size();
        let op16 = e.opsize() == "OpSize16";
        if op16 != (size == 16) {
            return false;
        }
        let wide = size == 64 && !info.default_op_size64() && !info.force_op_size64();
        if w != (wide || info.w() == 1) {
            return false;
        }
    } else {
        // WIG32 ignores W in 16- and 32-bit mode only: in 64-bit mode W
        // tells `vpextrd` (W0) from `vpextrq` (W1), also with a memory
        // operand, which both codes' `rm` operand takes.
        if !info.is_wig() && (info.w() == 1) != w {
            return false;
        }
        let l = if bits.has("evex_l2") {
            2
        } else if bits.has("vex_l") {
            1
        } else {
            0
        };
        if !info.is_lig() && info.l() != l {
            return false;
        }
    }
    (!mask || info.can_use_op_mask_register())
        && (!z || info.can_use_zeroing_masking())
        && (!sae || info.can_suppress_all_exceptions())
        && (!rc || info.can_use_rounding_control())
        && (mask || !info.require_op_mask_register())
}

/// Pairs iced's operand kinds with the printed LLVM operands, in order.
fn match_ops(kinds: &[OK], haves: &[Have]) -> Option<Vec<Slot>> {
    let mut slots = Vec::with_capacity(kinds.len());
    let mut j = 0;
    for &k in kinds {
        // A literal iced does not model (`xmm0` of `blendvps`) is skipped.
        while let Some(Have::Lit(l)) = haves.get(j) {
            if matches!(want(k), Want::Fixed(r) if fixed_name(r) == *l) {
                break;
            }
            j += 1;
        }
        match (want(k), haves.get(j)) {
            (_, Some(&Have::Mem(i))) if takes_memory(k) => {
                slots.push(Slot::Mc(i));
                j += 1;
            }
            (Want::Reg(c), Some(&Have::Reg(hc, i))) if c == hc => {
                slots.push(Slot::Mc(i));
                j += 1;
            }
            (Want::Imm, Some(&Have::Imm(i))) | (Want::Branch, Some(&Have::Branch(i))) => {
                slots.push(Slot::Mc(i));
                j += 1;
            }
            (Want::Fixed(r), Some(&Have::Lit(l))) if fixed_name(r) == l => {
                slots.push(Slot::Fixed(r));
                j += 1;
            }
            (Want::Fixed(r), _) => slots.push(Slot::Fixed(r)),
            (Want::One, _) => slots.push(Slot::One),
            _ => return None,
        }
    }
    let rest_literal = haves[j.min(haves.len())..]
        .iter()
        .all(|h| matches!(h, Have::Lit(_)));
    rest_literal.then_some(slots)
}

/// Whether an iced operand kind is (or may be) a memory reference with a
/// general-purpose base: ModRM.rm as memory (`r64_or_mem`, `xmm_or_mem`,
/// `mem`), a gather's or scatter's VSIB reference (a vector index), and
/// a string operation's `[rsi]` and `es:[rdi]`, and an absolute `moffs`.
fn takes_memory(k: OK) -> bool {
    matches!(
        k,
        OK::mem
            | OK::mem_mpx
            | OK::mem_mib
            | OK::sibmem
            | OK::mem_vsib32x
            | OK::mem_vsib64x
            | OK::mem_vsib32y
            | OK::mem_vsib64y
            | OK::mem_vsib32z
            | OK::mem_vsib64z
            | OK::seg_rSI
            | OK::es_rDI
            | OK::mem_offs
    ) || {
        let name = format!("{k:?}");
        name.ends_with("_or_mem") || name.ends_with("_or_mem_mpx")
    }
}

/// Why a memory operand of type `ty` has no plan.
fn memory_reason(ty: crate::isa::OperandType) -> String {
    let what = ty.unplain_memory().unwrap_or("memory operand");
    format!("{what}: {} is not encoded yet", ty.name())
}

/// How LLVM's Intel syntax spells a fixed register.
fn fixed_name(r: Register) -> &'static str {
    match r {
        Register::AL => "al",
        Register::CL => "cl",
        Register::AX => "ax",
        Register::DX => "dx",
        Register::EAX => "eax",
        Register::RAX => "rax",
        Register::ST0 => "st",
        Register::ES => "es",
        Register::CS => "cs",
        Register::SS => "ss",
        Register::DS => "ds",
        Register::FS => "fs",
        Register::GS => "gs",
        _ => "",
    }
}
