//! OSACA's ISA file (`isa/x86.yml`: which operands a form reads and
//! writes, from which OSACA builds its dependency graph) with LLVM's
//! answer where OSACA's is wrong or missing.
//!
//! OSACA 0.7.1's own file has errors that cut real loops' chains: `xor
//! (mem), %r64` and `xor $imm, %r64` read their register without writing
//! it, every `cmovCC` writes its destination without reading it. A form
//! the file lacks gets OSACA's default: on x86 the last operand written
//! only, the others read, so `divss %xmm1, %xmm0` would not read
//! `%xmm0`, nor `add (mem), %r64` its `%r64`. [`write`] takes OSACA's
//! file as it ships, adds to its register operands the reads and writes
//! LLVM's records give and it lacks (a flag OSACA sets stays; memory and
//! immediate operands keep OSACA's flags, and so does every other field:
//! hidden operands, `breaks_dependency_on_equal_operands`), and adds the
//! forms it lacks whose access OSACA's default gets wrong, and every
//! memory form it lacks (OSACA gives one the access of a register form of
//! its name). Where LLVM forms spelled alike disagree, the entry is left
//! as it is and counted.
//!
//! OSACA reads `~/.osaca/data/isa/x86.yml` before its own, so the file
//! written there serves every later `osaca` run of that user.

use super::form::{osaca_access, Access};
use super::{form_name, form_operands, key_of, osaca_isa, write_file, yaml, Base};
use crate::error::Error;
use crate::isa::{Arch, Isa};
use serde_yaml::{Mapping, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What to write.
pub struct IsaRequest {
    /// The arch (x86_64 only: [`osaca_access`]).
    pub arch: Arch,
    /// OSACA's ISA file as it ships (`data/isa/x86.yml`).
    pub base: PathBuf,
    /// The file to write.
    pub output: PathBuf,
}

/// What [`write`] did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct IsaCounts {
    /// Forms of the base (one per name).
    pub base: usize,
    /// Of those, forms LLVM's records decide (the others: no LLVM form
    /// is spelled so, or they disagree).
    pub checked: usize,
    /// Of the checked, forms whose register flags were changed.
    pub corrected: usize,
    /// Their names, in the base's order (a name once per form).
    pub names: Vec<String>,
    /// Up to 8 of them, with what changed.
    pub examples: Vec<String>,
    /// Base forms whose LLVM forms disagree: left as they were.
    pub disagree: usize,
    /// Forms added: the base lacks them and OSACA's default would get
    /// their access wrong, or they have a memory operand.
    pub added: usize,
}

/// One OSACA spelling of LLVM forms and what they do with its operands:
/// `None` when they disagree.
struct Spelled {
    name: String,
    operands: Vec<Value>,
    access: Option<Vec<Access>>,
    llvm: &'static str,
}

/// The ISA file `--isa-out` starts from: `given` (`--isa-base`), else
/// OSACA's `isa/<isa>.yml` beside the machine file `beside` (`--base`,
/// from OSACA's data directory).
pub fn base_path(
    given: Option<PathBuf>,
    beside: Option<&Path>,
    arch: Arch,
) -> Result<PathBuf, Error> {
    if let Some(p) = given {
        return Ok(p);
    }
    let file = format!("{}.yml", osaca_isa(arch).to_lowercase());
    match beside
        .and_then(Path::parent)
        .map(|d| d.join("isa").join(&file))
    {
        Some(p) if p.is_file() => Ok(p),
        Some(p) => Err(Error::BadInput(format!(
            "--isa-out: no OSACA ISA file at {} (beside --base); give --isa-base \
             OSACA_DATA/isa/{file}",
            p.display()
        ))),
        None => Err(Error::BadInput(format!(
            "--isa-out needs OSACA's ISA file: give --isa-base OSACA_DATA/isa/{file} \
             (or --base from OSACA's data directory, beside which it lies)"
        ))),
    }
}

/// Reads OSACA's ISA file, writes the corrected one; returns the counts
/// and the summary printed.
pub fn write(req: &IsaRequest) -> Result<(IsaCounts, String), Error> {
    if req.arch != Arch::X86_64 {
        return Err(Error::Unsupported(format!(
            "--isa-out: winic derives OSACA's operand access for x86_64 only, not {} \
             (AArch64's writeback addressing needs rules of its own); leave --isa-out out",
            req.arch
        )));
    }
    let base = Base::load_as(
        &req.base,
        "--isa-base",
        "give OSACA's ISA file (data/isa/x86.yml in OSACA's package directory)",
    )?;
    base.check_isa_as(req.arch, "--isa-base", "give OSACA's ISA file of that arch")?;
    let spelled = llvm_spellings(Isa::get(req.arch));
    let mut c = IsaCounts {
        base: base.forms.len(),
        ..IsaCounts::default()
    };
    let mut used = vec![false; spelled.len()];
    let index: HashMap<String, usize> = spelled
        .iter()
        .enumerate()
        .map(|(i, s)| (key_of(&s.name, &s.operands), i))
        .collect();
    let mut forms = String::new();
    for f in &base.forms {
        let mut f = f.clone();
        if let Some(&i) = index.get(&key_of(&form_name(&f), &form_operands(&f))) {
            used[i] = true;
            match &spelled[i].access {
                Some(access) => {
                    c.checked += 1;
                    if let Some(what) = correct(&mut f, access) {
                        c.corrected += 1;
                        c.names.push(form_name(&f));
                        if c.examples.len() < 8 {
                            c.examples.push(format!(
                                "{} ({}): {what}",
                                form_name(&f),
                                spelled[i].llvm
                            ));
                        }
                    }
                }
                None => c.disagree += 1,
            }
        }
        yaml::form_entry(&mut forms, &f);
    }
    let mut added = String::new();
    for (s, used) in spelled.iter().zip(&used) {
        let Some(access) = s.access.as_ref().filter(|_| !used) else {
            continue;
        };
        // A memory form OSACA lacks takes the access of a register form
        // of its name (its memory operand matched as any register):
        // `movsd (mem), %xmm` would read `%xmm` as `movsd %xmm, %xmm`
        // does. So every memory form is written.
        let memory = s.operands.iter().any(|o| o["class"] == "memory");
        if !memory && *access == osaca_default(access.len()) {
            continue;
        }
        c.added += 1;
        let mut m = Mapping::new();
        m.insert("name".into(), s.name.clone().into());
        let ops = s
            .operands
            .iter()
            .zip(access)
            .map(|(op, a)| with_access(op, *a))
            .collect();
        m.insert("operands".into(), Value::Sequence(ops));
        yaml::form_entry(&mut added, &m);
    }
    let mut out = format!(
        "# OSACA's ISA file {} with the operand access LLVM's records give\n\
         # (written by winic {} `export --isa-out`): of its {} forms, {} checked\n\
         # against LLVM's, {} corrected (register source/destination flags only),\n\
         # {} left as they were (LLVM's forms spelled so disagree); {} forms added\n\
         # that OSACA's default (last operand written, the others read) gets wrong\n\
         # or that have a memory operand (OSACA gives a memory form it lacks the\n\
         # access of a register form of its name).\n",
        req.base.display(),
        env!("CARGO_PKG_VERSION"),
        c.base,
        c.checked,
        c.corrected,
        c.disagree,
        c.added
    );
    out.push_str(&base.top);
    out.push_str("instruction_forms:\n");
    out.push_str(&forms);
    if !added.is_empty() {
        out.push_str("# added by winic: forms OSACA's default gets wrong, and memory forms\n");
        out.push_str(&added);
    }
    write_file(&req.output, &out)?;
    let mut summary = format!(
        "OSACA ISA file {}: {} of the base's {} forms checked against LLVM's records, \
         {} corrected, {} left (LLVM's forms disagree), {} added\n",
        req.output.display(),
        c.checked,
        c.base,
        c.corrected,
        c.disagree,
        c.added
    );
    if !c.names.is_empty() {
        let mut names = c.names.clone();
        names.dedup();
        summary.push_str(&format!("  corrected: {}\n", names.join(", ")));
    }
    for e in c.examples.iter().take(3) {
        summary.push_str(&format!("    e.g. {e}\n"));
    }
    Ok((c, summary))
}

/// Every spelling of every form an assembler reaches (real forms and the
/// condition forms' aliases) without a decoration OSACA does not match on
/// (a masked form reads its destination, the plain one does not).
fn llvm_spellings(isa: &'static Isa) -> Vec<Spelled> {
    let mut out: Vec<Spelled> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for form in isa.instrs() {
        let conditional = form.asm_string().contains("${cond}");
        if !(form.is_real() || conditional && !form.has(crate::isa::Flag::IsPseudo)) {
            continue;
        }
        let Ok(spellings) = osaca_access(form) else {
            continue;
        };
        for (f, access) in spellings {
            if f.decorated {
                continue;
            }
            for name in &f.names {
                let k = key_of(name, &f.operands);
                match at.get(&k) {
                    Some(&i) => {
                        if out[i].access.as_ref() != Some(&access) {
                            out[i].access = None;
                        }
                    }
                    None => {
                        at.insert(k, out.len());
                        out.push(Spelled {
                            name: name.clone(),
                            operands: f.operands.clone(),
                            access: Some(access.clone()),
                            llvm: form.name(),
                        });
                    }
                }
            }
        }
    }
    out
}

/// OSACA's access for a form its ISA file lacks (x86: `get_regular_
/// source_operands`): one operand is read, else the last is written and
/// the others read.
fn osaca_default(n: usize) -> Vec<Access> {
    (0..n)
        .map(|i| {
            let last = n > 1 && i == n - 1;
            Access {
                source: !last,
                destination: last,
            }
        })
        .collect()
}

/// `op` with OSACA's `source` and `destination` keys.
fn with_access(op: &Value, a: Access) -> Value {
    let mut m = op.as_mapping().cloned().unwrap_or_default();
    m.insert("source".into(), a.source.into());
    m.insert("destination".into(), a.destination.into());
    Value::Mapping(m)
}

/// Adds to the register operands of the ISA form `f` what `access` says
/// they are and OSACA does not; what changed, if anything (`operand 2
/// read and written, was read`). A flag OSACA sets stays: LLVM's records
/// do not say everything (`cmpxchg %r, %r` reads its destination to
/// compare it with `%rax`, which its record does not tie).
fn correct(f: &mut Mapping, access: &[Access]) -> Option<String> {
    let ops = f.get_mut("operands")?.as_sequence_mut()?;
    let mut changes = Vec::new();
    for (i, (op, a)) in ops.iter_mut().zip(access).enumerate() {
        let Some(m) = op.as_mapping_mut() else {
            continue;
        };
        if m.get("class").and_then(Value::as_str) != Some("register") {
            continue;
        }
        let flag = |m: &Mapping, k: &str| m.get(k).and_then(Value::as_bool).unwrap_or(false);
        let was = Access {
            source: flag(m, "source"),
            destination: flag(m, "destination"),
        };
        let now = Access {
            source: was.source || a.source,
            destination: was.destination || a.destination,
        };
        if was != now {
            changes.push(format!(
                "operand {} {}, was {}",
                i + 1,
                spell(now),
                spell(was)
            ));
            m.insert("source".into(), now.source.into());
            m.insert("destination".into(), now.destination.into());
        }
    }
    (!changes.is_empty()).then(|| changes.join("; "))
}

fn spell(a: Access) -> &'static str {
    match (a.source, a.destination) {
        (true, true) => "read and written",
        (true, false) => "read",
        (false, true) => "written",
        (false, false) => "neither",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access_of(name: &str) -> Vec<Vec<Access>> {
        let form = Isa::get(Arch::X86_64).instr(name).unwrap();
        osaca_access(form)
            .unwrap()
            .into_iter()
            .map(|(_, a)| a)
            .collect()
    }

    const R: Access = Access {
        source: true,
        destination: false,
    };
    const W: Access = Access {
        source: false,
        destination: true,
    };
    const RW: Access = Access {
        source: true,
        destination: true,
    };

    #[test]
    fn llvm_says_what_each_printed_operand_does() {
        // xor (mem), %r64: the register is read and written.
        assert_eq!(access_of("XOR64rm"), vec![vec![R, RW]]);
        assert_eq!(access_of("XOR64mr"), vec![vec![R, RW]]);
        assert_eq!(access_of("MOV64rr"), vec![vec![R, W]]);
        assert_eq!(access_of("MOV64mr"), vec![vec![R, W]]);
        assert_eq!(access_of("LEA64r"), vec![vec![R, W]]);
        // add $imm, %rax: the literal %rax by the implicit uses and defs.
        assert_eq!(access_of("ADD64i32"), vec![vec![R, RW]]);
        // shl %cl, %r64
        assert_eq!(access_of("SHL64rCL"), vec![vec![R, RW]]);
        // vfmadd231pd: the accumulator is read.
        assert_eq!(access_of("VFMADD231PDYr"), vec![vec![R, R, RW]]);
        assert_eq!(access_of("VADDPDYrr"), vec![vec![R, R, W]]);
        // cmovCC: once per spelling of a condition, the destination read
        // (it is kept when the condition is false).
        let cmov = access_of("CMOV64rr");
        assert_eq!(cmov.len(), 30);
        assert!(cmov.iter().all(|a| *a == vec![R, RW]), "{cmov:?}");
    }

    #[test]
    fn a_condition_form_is_spelled_once_per_spelling_of_a_condition() {
        let form = Isa::get(Arch::X86_64).instr("CMOV64rr").unwrap();
        let names: Vec<String> = osaca_access(form)
            .unwrap()
            .into_iter()
            .flat_map(|(f, _)| f.names)
            .collect();
        // 16 conditions, 14 synonyms (`cmovz`, `cmovnb`, `cmovnae` …).
        assert_eq!(names.len(), 30, "{names:?}");
        for n in ["cmovne", "cmovg", "cmovz", "cmovnb", "cmovnae", "cmovnle"] {
            assert!(names.contains(&n.to_string()), "{n}: {names:?}");
        }
    }

    #[test]
    fn the_default_is_osacas() {
        assert_eq!(osaca_default(0), vec![]);
        assert_eq!(osaca_default(1), vec![R]);
        assert_eq!(osaca_default(3), vec![R, R, W]);
    }

    fn base_file(dir: &std::path::Path) -> PathBuf {
        // The shape of OSACA 0.7.1's x86.yml, with its two xor errors, a
        // cmov one, a correct add, a form no LLVM form is spelled as and
        // a hidden operand that must survive.
        let text = r#"osaca_version: 0.7.1
isa: x86
instruction_forms:
  - name: xor
    operands:
      - class: "memory"
        base: "*"
        offset: "*"
        index: "*"
        scale: "*"
        source: true
        destination: false
      - class: "register"
        name: "gpr"
        source: true
        destination: false
  - name: [cmovne, cmovz]
    operands:
      - class: "register"
        name: "gpr"
        source: true
        destination: false
      - class: "register"
        name: "gpr"
        source: false
        destination: true
  - name: add
    operands:
      - class: "register"
        name: "gpr"
        source: true
        destination: false
      - class: "register"
        name: "gpr"
        source: true
        destination: true
    hidden_operands:
      - class: "flag"
        name: "CF"
        source: false
        destination: true
  - name: cmpxchg
    operands:
      - class: "register"
        name: "gpr"
        source: true
        destination: false
      - class: "register"
        name: "gpr"
        source: true
        destination: true
  - name: nosuchthing
    operands:
      - class: "register"
        name: "gpr"
        source: true
        destination: false
"#;
        let p = dir.join("x86.yml");
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn the_written_file_has_llvms_access_and_keeps_the_rest() {
        let dir = std::env::temp_dir().join(format!("winic-isa-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let req = IsaRequest {
            arch: Arch::X86_64,
            base: base_file(&dir),
            output: dir.join("out.yml"),
        };
        let (c, summary) = write(&req).unwrap();
        // xor, cmovne, cmovz (a synonym of LLVM's cmove), add, cmpxchg,
        // nosuchthing.
        assert_eq!(c.base, 6, "{summary}");
        assert_eq!((c.checked, c.corrected), (5, 3), "{summary}");
        assert_eq!(c.names, ["xor", "cmovne", "cmovz"], "{summary}");
        assert!(c.added > 1000, "{summary}");
        assert!(summary.contains("xor (XOR"), "{summary}");
        let doc: Value = serde_yaml::from_str(&std::fs::read_to_string(&req.output).unwrap())
            .expect("the file is YAML");
        let forms = doc["instruction_forms"].as_sequence().unwrap();
        let find = |name: &str| {
            forms
                .iter()
                .find(|f| f["name"].as_str() == Some(name))
                .unwrap_or_else(|| panic!("no {name}"))
        };
        let flags = |f: &Value, i: usize| {
            let o = &f["operands"][i];
            (
                o["source"].as_bool().unwrap(),
                o["destination"].as_bool().unwrap(),
            )
        };
        assert_eq!(flags(find("xor"), 1), (true, true));
        // A memory operand keeps OSACA's flags.
        assert_eq!(flags(find("xor"), 0), (true, false));
        assert_eq!(flags(find("cmovne"), 1), (true, true));
        assert_eq!(flags(find("cmovz"), 1), (true, true));
        assert_eq!(find("add")["hidden_operands"][0]["name"], "CF");
        // LLVM's record does not tie cmpxchg's destination; OSACA's read
        // of it stays.
        assert_eq!(flags(find("cmpxchg"), 1), (true, true));
        assert_eq!(flags(find("nosuchthing"), 0), (true, false));
        // Added: divss reads its destination, which the default would
        // not; an added form the default gets right is not written,
        // unless it has a memory operand (which would borrow the access
        // of movsd %xmm, %xmm, a merge).
        assert_eq!(flags(find("divss"), 1), (true, true));
        let memory = |f: &Value| {
            f["operands"]
                .as_sequence()
                .is_some_and(|ops| ops.iter().any(|o| o["class"] == "memory"))
        };
        assert!(forms.iter().all(|f| f["name"] != "vaddpd" || memory(f)));
        assert!(forms.iter().any(|f| f["name"] == "vaddpd"));
        let movsd = |class: &str| {
            forms.iter().find(|f| {
                f["name"] == "movsd"
                    && f["operands"][0]["class"] == class
                    && f["operands"][1]["name"] == "xmm"
            })
        };
        assert_eq!(flags(movsd("register").unwrap(), 1), (true, true));
        assert_eq!(flags(movsd("memory").unwrap(), 1), (false, true));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_input_names_the_file_and_what_would_do() {
        let dir = std::env::temp_dir().join(format!("winic-isa-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.yml");
        std::fs::write(&p, "isa: AArch64\ninstruction_forms: []\n").unwrap();
        let req = |arch, base: &PathBuf| IsaRequest {
            arch,
            base: base.clone(),
            output: dir.join("o.yml"),
        };
        let e = write(&req(Arch::X86_64, &p)).unwrap_err().to_string();
        assert!(e.contains("--isa-base") && e.contains("AArch64"), "{e}");
        let e = write(&req(Arch::Aarch64, &p)).unwrap_err().to_string();
        assert!(e.contains("x86_64 only"), "{e}");
        let missing = dir.join("none.yml");
        let e = write(&req(Arch::X86_64, &missing)).unwrap_err().to_string();
        assert!(e.contains("none.yml"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
