//! Prints an AArch64 instruction from its `AsmString`, with LLVM's
//! `AArch64InstPrinter` operand print methods for the forms winic encodes.

use super::imm_codec::fp8_value;
use crate::arch::{template, EncodeError, Inst, OpValue};
use crate::isa::{AliasArg, InstAlias, Instr, McOperand, Operand, OperandType, Reg};

/// The assembly text of `inst` (`add x0, x1, x2, lsl #3`).
pub fn print(inst: &Inst) -> Result<String, EncodeError> {
    let mc = inst.form.mc_operands();
    template::expand(&inst.form, |op| print_operand(inst, &mc, op))
}

fn unsupported(form: &Instr, msg: &str) -> EncodeError {
    EncodeError::Unsupported(format!("{}: printer: {msg}", form.name()))
}

/// The machine operand values of `op`.
fn values(inst: &Inst, mc: &[McOperand], op: Operand) -> Vec<OpValue> {
    mc.iter()
        .zip(&inst.ops)
        .filter(|(m, _)| m.operand.index() == op.index())
        .map(|(_, v)| *v)
        .collect()
}

fn reg(v: Option<&OpValue>) -> Option<Reg> {
    match v {
        Some(OpValue::Reg(r)) => Some(*r),
        _ => None,
    }
}

fn imm(v: Option<&OpValue>) -> Option<i64> {
    match v {
        Some(OpValue::Imm(i)) => Some(*i),
        _ => None,
    }
}

/// The template arguments of a print method: `printImmScale<4>` → `["4"]`.
fn args(method: &str) -> Vec<String> {
    method
        .split_once('<')
        .map(|(_, a)| {
            a.trim_end_matches('>')
                .split(',')
                .map(|s| s.trim().trim_matches('\'').to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn base(method: &str) -> &str {
    method.split('<').next().unwrap_or(method)
}

/// The text of `inst` spelled as `alias` (`cmp x0, #0` for `subs xzr,
/// x0, #0`): each `$name` of the alias printed from the machine operands
/// the alias binds to it, by the alias operand's print method. `Err` when
/// `inst` has another value where the alias fixes one.
pub fn print_alias(inst: &Inst, alias: &InstAlias) -> Result<String, EncodeError> {
    let args = alias.args();
    let form = &inst.form;
    if args.len() != inst.ops.len() || alias.form().opcode() != form.opcode() {
        return Err(unsupported(form, "an alias of another form"));
    }
    for (a, v) in args.iter().zip(&inst.ops) {
        let fixed = match (a, v) {
            (AliasArg::Reg(r), OpValue::Reg(x)) => r == x,
            (AliasArg::Imm(i), OpValue::Imm(x)) => i == x,
            (AliasArg::Reg(_) | AliasArg::Imm(_), _) => false,
            _ => true,
        };
        if !fixed {
            return Err(unsupported(form, "a value the alias fixes otherwise"));
        }
    }
    // An alias operand's register class may be narrower than the form's
    // (`mov x0, sp` is `add x0, sp, #0` only with sp on one side).
    for (a, v) in args.iter().zip(&inst.ops) {
        if let (AliasArg::Named { ty, .. }, OpValue::Reg(r)) = (a, v) {
            if ty.class().is_some_and(|c| !c.contains(*r)) {
                return Err(unsupported(
                    form,
                    &format!("{} is no {}", r.asm_name(), ty.name()),
                ));
            }
        }
    }
    // Relocation operands (`movk x0, #:abs_g1:sym`): winic writes no
    // symbols, and their numbers are not the field's.
    if args.iter().any(
        |a| matches!(a, AliasArg::Named { ty, .. } if ty.parser_class().starts_with("MovWSymbol")),
    ) {
        return Err(unsupported(form, "a symbol operand"));
    }
    // An alias operand bound twice (`mov p0.b, p1/z, p2.b` is `and` of p2
    // with itself) spells only equal values.
    for (k, a) in args.iter().enumerate() {
        if let AliasArg::Named { name, .. } = a {
            if AliasArg::twin(&args, k).is_some_and(|j| inst.ops[j] != inst.ops[k]) {
                return Err(unsupported(
                    form,
                    &format!("${name} twice, with two values"),
                ));
            }
        }
    }
    template::expand_names(form, &alias.asm_template(), |name| {
        let mut bound: Vec<(usize, OperandType, OpValue)> = args
            .iter()
            .zip(&inst.ops)
            .filter_map(|(a, v)| match a {
                AliasArg::Named { name: n, ty, sub } if *n == name => Some((*sub, *ty, *v)),
                _ => None,
            })
            .collect();
        bound.sort_by_key(|(sub, _, _)| *sub);
        let ty = bound
            .first()
            .map(|(_, ty, _)| *ty)
            .ok_or_else(|| unsupported(form, &format!("alias operand ${name} binds nothing")))?;
        let vals: Vec<OpValue> = bound.iter().map(|(_, _, v)| *v).collect();
        let imms: Vec<i64> = vals.iter().filter_map(|v| imm(Some(v))).collect();
        if let (Some(to), [v]) = (wide_move(ty), &imms[..]) {
            return Ok(format!("#{}", to(*v)));
        }
        // The parse-only aliases of negated immediates (`cmp x0, #-5` is
        // `cmn x0, #5`; `and w0, w1, #~0xff` is `bic`): the value they
        // stand for; never 0, which the form itself spells.
        match (ty.parser_class(), &imms[..]) {
            ("AddSubImmNeg", [v, sh]) if *v != 0 => {
                Ok(format!("#{}", (v << (sh & 0x3f)).wrapping_neg()))
            }
            ("LogicalImm32Not", [v]) => Ok(format!("#{:#x}", !*v as u64 & 0xffff_ffff)),
            ("LogicalImm64Not", [v]) => Ok(format!("#{:#x}", !*v as u64)),
            ("AddSubImmNeg" | "LogicalImm32Not" | "LogicalImm64Not", _) => {
                Err(unsupported(form, "no negated immediate"))
            }
            _ => print_values(form, ty, &vals),
        }
    })
}

/// How the alias operand type of a wide move (`mov x0, #0x30000` for
/// `movz x0, #3, lsl #16`) turns the 16-bit field into the value it
/// prints: LLVM's `MOVZ64_lsl16MovAlias` parser class (the C++ of
/// `addMOVZMovAliasOperands<16>`), MOVN's inverted.
fn wide_move(ty: OperandType) -> Option<impl Fn(i64) -> i64> {
    let p = ty.parser_class();
    let rest = p.strip_suffix("MovAlias")?;
    let (kind, rest) = (rest.get(..4)?, rest.get(4..)?);
    let (width, shift) = rest.split_once("_lsl")?;
    let (width, shift): (u32, u32) = (width.parse().ok()?, shift.parse().ok()?);
    let invert = match kind {
        "MOVZ" => false,
        "MOVN" => true,
        _ => return None,
    };
    Some(move |v: i64| {
        let v = v.wrapping_shl(shift);
        let v = if invert { !v } else { v };
        if width == 32 {
            i64::from(v as i32)
        } else {
            v
        }
    })
}

fn print_operand(inst: &Inst, mc: &[McOperand], op: Operand) -> Result<String, EncodeError> {
    print_values(&inst.form, op.ty(), &values(inst, mc, op))
}

/// An operand of type `ty` whose machine operands have the values `vals`.
fn print_values(form: &Instr, ty: OperandType, vals: &[OpValue]) -> Result<String, EncodeError> {
    let method = ty.print_method();
    let a = args(method);
    let fail = || unsupported(form, &format!("print method {method:?} of {}", ty.name()));
    let r0 = reg(vals.first());
    let i0 = imm(vals.first());
    let i1 = imm(vals.get(1));
    let text = match (base(method), r0, i0) {
        ("" | "printOperand", Some(r), _) => r.asm_name(),
        ("" | "printOperand", None, Some(v)) => format!("#{v}"),
        ("printVRegOperand", Some(r), _) => format!("v{}", r.encoding()),
        ("printSVERegOp", Some(r), _) => suffixed(&r.asm_name(), a.first().map_or("", |s| s)),
        ("printZPRasFPR", Some(r), _) => {
            let p = match a.first().map(String::as_str) {
                Some("8") => 'b',
                Some("16") => 'h',
                Some("32") => 's',
                _ => 'd',
            };
            format!("{p}{}", r.encoding())
        }
        ("printTypedVectorList", Some(r), _) => vector_list(r, &a),
        ("printMatrixTile", Some(r), _) => r.asm_name(),
        ("printMatrixTileVector", Some(r), _) => {
            let hv = if a.first().map(String::as_str) == Some("1") {
                "v"
            } else {
                "h"
            };
            let n = r.asm_name();
            match n.split_once('.') {
                Some((t, s)) => format!("{t}{hv}.{s}"),
                None => n,
            }
        }
        ("printMatrix", Some(_), _) => match a.first().map(String::as_str) {
            Some("8") => "za.b".into(),
            Some("16") => "za.h".into(),
            Some("32") => "za.s".into(),
            Some("64") => "za.d".into(),
            Some("128") => "za.q".into(),
            _ => "za".into(),
        },
        ("printPredicateAsCounter", Some(r), _) => {
            let name = format!("pn{}", r.encoding());
            match a.first().map(String::as_str) {
                Some("8") => format!("{name}.b"),
                Some("16") => format!("{name}.h"),
                Some("32") => format!("{name}.s"),
                Some("64") => format!("{name}.d"),
                _ => name,
            }
        }
        ("printGPRSeqPairsClassOperand", Some(r), _) => {
            let subs: Vec<String> = r.sub_regs().map(|s| s.asm_name()).collect();
            subs.join(", ")
        }
        ("printSyspXzrPair", Some(r), _) if r.name() == "XZR" => "xzr, xzr".into(),
        ("printPostIncOperand", Some(r), _) => {
            if r.name() == "XZR" {
                format!("#{}", a.first().map_or("", |s| s))
            } else {
                r.asm_name()
            }
        }
        ("printGPR64as32", Some(r), _) => format!("w{}", r.encoding()),
        ("printGPR64x8", Some(r), _) => format!("x{}", r.encoding()),
        ("printRegWithShiftExtend", Some(r), _) => reg_with_shift_extend(r, &a),
        ("printShiftedRegister", Some(r), _) => {
            format!("{}{}", r.asm_name(), shifter(i1.ok_or_else(fail)?))
        }
        ("printExtendedRegister", Some(r), _) => {
            format!("{}{}", r.asm_name(), arith_extend(i1.ok_or_else(fail)?))
        }
        (_, Some(_), _) => return Err(fail()),
        ("printBarrierOption", None, Some(2)) if form.name() == "TSB" => "csync".into(),
        (m, None, Some(v)) => print_imm(m, &a, v, i1).ok_or_else(fail)?,
        _ => return Err(fail()),
    };
    Ok(text)
}

fn suffixed(name: &str, suffix: &str) -> String {
    if suffix.is_empty() || suffix == "0" {
        name.to_string()
    } else {
        format!("{name}.{suffix}")
    }
}

/// `printTypedVectorList<NumLanes, LaneKind>` (LLVM's `printVectorList`).
fn vector_list(r: Reg, a: &[String]) -> String {
    let lanes = a.first().map_or("0", |s| s.as_str());
    let kind = a.get(1).map_or("0", |s| s.as_str());
    let suffix = match (lanes, kind) {
        (_, "0") => String::new(),
        ("0", k) => format!(".{k}"),
        (n, k) => format!(".{n}{k}"),
    };
    let regs: Vec<Reg> = if r.is_tuple() {
        r.sub_regs().collect()
    } else {
        vec![r]
    };
    let name = |x: &Reg| {
        let n = x.asm_name();
        if n.starts_with('z') || n.starts_with('p') {
            n
        } else {
            format!("v{}", x.encoding())
        }
    };
    let sve = regs[0].asm_name().starts_with('z') || regs[0].asm_name().starts_with('p');
    let consecutive = regs
        .windows(2)
        .all(|w| w[1].encoding() == w[0].encoding() + 1);
    let items: Vec<String> = if sve && regs.len() > 2 && consecutive {
        vec![format!(
            "{}{suffix} - {}{suffix}",
            name(&regs[0]),
            name(&regs[regs.len() - 1])
        )]
    } else {
        regs.iter()
            .map(|x| format!("{}{suffix}", name(x)))
            .collect()
    };
    format!("{{ {} }}", items.join(", "))
}

/// `printRegWithShiftExtend<SignExtend, ExtWidth, SrcRegKind, Suffix>`.
fn reg_with_shift_extend(r: Reg, a: &[String]) -> String {
    let sign = a.first().map(String::as_str) == Some("true");
    let width: u32 = a.get(1).and_then(|s| s.parse().ok()).unwrap_or(8);
    let kind = a.get(2).map_or("x", |s| s.as_str());
    let suffix = a.get(3).map_or("0", |s| s.as_str());
    let mut out = suffixed(&r.asm_name(), suffix);
    let shift = width != 8;
    if sign || shift || kind == "w" {
        out.push_str(", ");
        out.push_str(&mem_extend(sign, shift, width, kind));
    }
    out
}

/// `printMemExtendImpl`.
fn mem_extend(sign: bool, shift: bool, width: u32, kind: &str) -> String {
    let lsl = !sign && kind == "x";
    let mut out = if lsl {
        "lsl".to_string()
    } else {
        format!("{}xt{kind}", if sign { 's' } else { 'u' })
    };
    if shift || lsl {
        out.push_str(&format!(" #{}", (width / 8).trailing_zeros()));
    }
    out
}

const SHIFT_NAMES: [&str; 5] = ["lsl", "lsr", "asr", "ror", "msl"];
const EXTEND_NAMES: [&str; 8] = [
    "uxtb", "uxth", "uxtw", "uxtx", "sxtb", "sxth", "sxtw", "sxtx",
];

/// `printShifter`: `, lsl #3`, nothing for `lsl #0`.
fn shifter(v: i64) -> String {
    let (kind, amount) = ((v >> 6) & 7, v & 0x3f);
    if kind == 0 && amount == 0 {
        return String::new();
    }
    format!(
        ", {} #{amount}",
        SHIFT_NAMES.get(kind as usize).unwrap_or(&"?")
    )
}

/// `printArithExtend`: `, uxtb #2`.
fn arith_extend(v: i64) -> String {
    let (kind, amount) = ((v >> 3) & 7, v & 7);
    let name = EXTEND_NAMES[kind as usize];
    if amount == 0 {
        format!(", {name}")
    } else {
        format!(", {name} #{amount}")
    }
}

/// Print methods of immediates; `v` is the value in the operand
/// convention, `next` the second sub-operand if any.
fn print_imm(method: &str, a: &[String], v: i64, next: Option<i64>) -> Option<String> {
    let arg = |k: usize| a.get(k).and_then(|s| s.parse::<i64>().ok());
    Some(match method {
        "printImm" | "printUImm12Offset" | "printImmScale" | "printSImm" => format!("#{v}"),
        "printImmHex" => format!("#{v:#x}"),
        "printLogicalImm" => format!(
            "#{:#x}",
            if a.first().map(String::as_str) == Some("int32_t") {
                v as u64 & 0xffff_ffff
            } else {
                v as u64
            }
        ),
        "printVectorIndex" => format!("[{v}]"),
        "printMatrixIndex" => format!("{v}"),
        "printImmRangeScale" => {
            // The field counts ranges of Scale elements: value is the first.
            format!("{v}:{}", v + arg(1)?)
        }
        "printShifter" => shifter(v),
        "printArithExtend" => arith_extend(v),
        "printCondCode" => COND_NAMES.get(v as usize)?.to_string(),
        // `cinc`'s condition: the one CSINC's inverts (LLVM's
        // `printInverseCondCode`); `al`/`nv` have none.
        "printInverseCondCode" if v < 14 => COND_NAMES.get((v ^ 1) as usize)?.to_string(),
        "printSVEPattern" => sve_pattern(v)?,
        "printSVEVecLenSpecifier" => ["vlx2", "vlx4"].get(v as usize)?.to_string(),
        "printPrefetchOp" => prefetch(v, a.first().map(String::as_str) == Some("true"))?,
        "printRPRFMOperand" => RPRFM_NAMES
            .get(v as usize)
            .map_or(format!("#{v}"), |s| s.to_string()),
        "printBarrierOption" => barrier(v)?,
        "printBarriernXSOption" => barrier_nxs(v)?,
        "printSysCROperand" => format!("c{v}"),
        "printMRSSystemRegister" | "printMSRSystemRegister" => sysreg(v),
        "printSystemPStateField" => pstate(v)?,
        "printSVCROp" => ["", "svcrsm", "svcrza", "svcrsmza"]
            .get(v as usize)
            .filter(|s| !s.is_empty())?
            .to_string(),
        "printFPImmOperand" => format!("#{:.8}", fp8_value(u8::try_from(v).ok()?)),
        "printSIMDType10Operand" => {
            let mut m = 0u64;
            for bit in 0..8 {
                if v >> bit & 1 == 1 {
                    m |= 0xff << (8 * bit);
                }
            }
            format!("#{m:#018x}")
        }
        "printExactFPImm" => {
            let which = a.get(v as usize)?;
            let s = match which.trim_start_matches("AArch64ExactFPImm::") {
                "zero" => "0.0",
                "half" => "0.5",
                "one" => "1.0",
                "two" => "2.0",
                _ => return None,
            };
            format!("#{s}")
        }
        "printComplexRotationOp" => format!("#{}", v * arg(0)? + arg(1)?),
        "printMatrixTileList" => {
            let tiles: Vec<String> = (0..8)
                .filter(|b| v >> b & 1 == 1)
                .map(|b| format!("za{b}.d"))
                .collect();
            format!("{{{}}}", tiles.join(", "))
        }
        "printAddSubImm" => format!("#{v}{}", shifter(next?)),
        "printImm8OptLsl" => {
            let s = next?;
            // The element type: int8_t … uint64_t; the MC value is a byte.
            let signed = a.first()?.starts_with("int");
            let byte = if signed {
                i64::from(v as i8)
            } else {
                i64::from(v as u8)
            };
            if v == 0 && s & 0x3f != 0 {
                format!("#0{}", shifter(s))
            } else {
                format!("#{}", byte << (s & 0x3f))
            }
        }
        "printMemExtend" => {
            let kind = a.first()?.as_str();
            let width: u32 = a.get(1)?.parse().ok()?;
            mem_extend(v == 1, next? == 1, width, kind)
        }
        _ => return None,
    })
}

const COND_NAMES: [&str; 16] = [
    "eq", "ne", "hs", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al", "nv",
];

const RPRFM_NAMES: [&str; 8] = ["pldkeep", "pstkeep", "", "", "pldstrm", "pststrm", "", ""];

fn sve_pattern(v: i64) -> Option<String> {
    Some(match v {
        0 => "pow2".into(),
        1..=8 => format!("vl{v}"),
        9..=13 => format!("vl{}", 16 << (v - 9)),
        29 => "mul4".into(),
        30 => "mul3".into(),
        31 => "all".into(),
        _ => format!("#{v}"),
    })
}

fn prefetch(v: i64, sve: bool) -> Option<String> {
    let kind = ["pld", "pli", "pst"];
    let level = ["l1", "l2", "l3"];
    let policy = ["keep", "strm"];
    if sve {
        let (t, l, p) = ((v >> 3) & 1, (v >> 1) & 3, v & 1);
        let t = if t == 0 { "pld" } else { "pst" };
        return Some(format!(
            "{t}{}{}",
            level.get(l as usize)?,
            policy[p as usize]
        ));
    }
    let (t, l, p) = ((v >> 3) & 3, (v >> 1) & 3, v & 1);
    Some(format!(
        "{}{}{}",
        kind.get(t as usize)?,
        level.get(l as usize)?,
        policy[p as usize]
    ))
}

fn barrier(v: i64) -> Option<String> {
    let names = [
        "#0x0", "oshld", "oshst", "osh", "#0x4", "nshld", "nshst", "nsh", "#0x8", "ishld", "ishst",
        "ish", "#0xc", "ld", "st", "sy",
    ];
    names.get(v as usize).map(|s| s.to_string())
}

fn barrier_nxs(v: i64) -> Option<String> {
    Some(
        match v {
            0x3 => "oshnxs",
            0x7 => "nshnxs",
            0xb => "ishnxs",
            0xf => "synxs",
            _ => return None,
        }
        .into(),
    )
}

fn sysreg(v: i64) -> String {
    match v {
        0xda10 => return "nzcv".into(),
        0xda20 => return "fpcr".into(),
        0xde82 => return "tpidr_el0".into(),
        _ => {}
    }
    format!(
        "s{}_{}_c{}_c{}_{}",
        (v >> 14) & 3,
        (v >> 11) & 7,
        (v >> 7) & 15,
        (v >> 3) & 15,
        v & 7
    )
}

fn pstate(v: i64) -> Option<String> {
    Some(
        match v {
            0x04 => "pan",
            0x03 => "uao",
            0x1e => "daifset",
            0x1f => "daifclr",
            0x05 => "spsel",
            _ => return None,
        }
        .into(),
    )
}
