//! Sanity of TP against published throughputs: the forms of
//! `tests/fixtures/reference-throughput.yaml` for the core this test runs
//! on (chosen from CPUID: Zen 4, or Golden Cove / Sapphire Rapids) are
//! measured by the real binary, and at least 90% of them (27 of 30) must
//! agree within 10% with the published value. Elsewhere, and under an
//! emulator, the test says why it does not compare and passes.

use std::collections::BTreeMap;

#[derive(serde::Deserialize)]
struct Row {
    #[serde(rename = "llvmName")]
    llvm_name: String,
    throughput: f64,
    source: String,
}

/// The table of the host's core, or why there is none.
fn host_core() -> Result<&'static str, String> {
    #[cfg(target_arch = "x86_64")]
    #[allow(unused_unsafe)] // `__cpuid` is safe from Rust 1.87 on, unsafe before
    {
        // SAFETY: CPUID exists on every x86-64 CPU.
        let leaf0 = unsafe { std::arch::x86_64::__cpuid(0) };
        let vendor: Vec<u8> = [leaf0.ebx, leaf0.edx, leaf0.ecx]
            .iter()
            .flat_map(|r| r.to_le_bytes())
            .collect();
        let leaf1 = unsafe { std::arch::x86_64::__cpuid(1) }.eax;
        let base_family = (leaf1 >> 8) & 0xf;
        let family = base_family
            + if base_family == 0xf {
                (leaf1 >> 20) & 0xff
            } else {
                0
            };
        let model = ((leaf1 >> 4) & 0xf) | ((leaf1 >> 12) & 0xf0);
        match (&vendor[..], family, model) {
            // Genoa, Raphael/Phoenix, Bergamo/Siena.
            (b"AuthenticAMD", 0x19, 0x10..=0x1f | 0x60..=0x7f | 0xa0..=0xaf) => Ok("zen4"),
            // Sapphire Rapids, Emerald Rapids, Alder Lake, Raptor Lake
            // (P-cores: Golden Cove and its Raptor Cove refresh).
            (b"GenuineIntel", 6, 0x8f | 0xcf | 0x97 | 0x9a | 0xb7 | 0xba | 0xbf) => {
                Ok("golden_cove")
            }
            (v, f, m) => Err(format!(
                "no published table for {} family {f:#x} model {m:#x} (tables: Zen 4, Golden Cove)",
                String::from_utf8_lossy(v)
            )),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    Err("the published tables are for x86-64 cores".into())
}

#[test]
fn throughputs_agree_with_published_values() {
    if std::env::var_os("WINIC_EMULATED").is_some() {
        eprintln!("skipped: under an emulator times mean nothing");
        return;
    }
    let core = match host_core() {
        Ok(c) => c,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/reference-throughput.yaml"
    ))
    .unwrap();
    let tables: BTreeMap<String, Vec<Row>> = serde_yaml::from_str(&text).unwrap();
    let table = &tables[core];
    assert!(table.len() >= 30, "{core}: only {} rows", table.len());
    assert!(table.iter().all(|r| !r.source.is_empty()));

    let dir = std::env::temp_dir().join(format!("winic-reference-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("reference.yaml");
    let mut args: Vec<String> = vec!["TP".into(), "--noReport".into(), "-o".into()];
    args.push(db.display().to_string());
    for r in table {
        args.extend(["-i".to_string(), r.llvm_name.clone()]);
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_winic"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = winic::db::Database::load(&db).unwrap();
    std::fs::remove_dir_all(&dir).ok();

    // Rows the host cannot run (AVX-512 on an Alder Lake) do not count.
    let mut lines = Vec::new();
    let (mut compared, mut agreeing) = (0, 0);
    for r in table {
        let value = got.get(&r.llvm_name).and_then(|e| e.throughput);
        let verdict = match value {
            None => "not measured here".to_string(),
            Some(v) => {
                compared += 1;
                let off = v / r.throughput - 1.0;
                if off.abs() <= 0.10 {
                    agreeing += 1;
                    format!("{v:.2}")
                } else {
                    format!("{v:.2}  OFF by {:+.0}%", 100.0 * off)
                }
            }
        };
        lines.push(format!(
            "  {:<20} published {:>5.2}  winic {verdict}   ({})",
            r.llvm_name, r.throughput, r.source
        ));
    }
    let report = lines.join("\n");
    eprintln!("{core}: {agreeing} of {compared} within 10%\n{report}");
    assert!(
        compared >= 30,
        "{core}: only {compared} forms measured\n{report}"
    );
    assert!(
        agreeing >= 27 && agreeing * 10 >= compared * 9,
        "{core}: {agreeing} of {compared} within 10% (at least 90% and 27 wanted)\n{report}"
    );
}
