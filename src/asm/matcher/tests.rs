use super::*;
use crate::arch::target;

/// Prints every example instance of `arch`, parses the text back and
/// compares: (forms, parsed to the same bytes, parsed to other bytes,
/// not parsed), with up to 10 failures each.
fn round_trip(arch: Arch) -> (usize, usize, Vec<String>, Vec<String>) {
    let t = target(arch);
    let (mut n, mut ok) = (0, 0);
    let (mut other, mut failed) = (Vec::new(), Vec::new());
    for (_, cands) in index(t).by_mnemonic.iter() {
        for c in cands {
            let (form, example) = (c.form, &c.example);
            n += 1;
            let text = print_as(t, example, c.alias.as_ref()).unwrap();
            let want = t.encode(example).unwrap();
            match parse(t, &text) {
                Ok(inst) => {
                    let got = t.encode(&inst).unwrap();
                    if got == want {
                        ok += 1;
                    } else {
                        other.push(format!("{} `{text}` → {}", form.name(), inst.form.name()));
                    }
                }
                Err(e) => failed.push(format!("{} `{text}`: {}", form.name(), e.reason)),
            }
        }
    }
    (n, ok, other, failed)
}

#[test]
#[ignore = "a benchmark that prints figures, not a check: `cargo test --release --lib -- --ignored --nocapture NAME`"]
fn round_trip_figures() {
    for arch in Arch::ALL {
        let t0 = std::time::Instant::now();
        let (n, ok, other, failed) = round_trip(arch);
        eprintln!(
            "{arch}: {n} forms, {ok} same bytes, {} other bytes, {} not parsed, {:.1} s",
            other.len(),
            failed.len(),
            t0.elapsed().as_secs_f64()
        );
        for l in other.iter().take(15) {
            eprintln!("  other: {l}");
        }
        for l in failed.iter().take(15) {
            eprintln!("  failed: {l}");
        }
    }
}

#[test]
#[ignore = "a benchmark that prints figures, not a check: `cargo test --release --lib -- --ignored --nocapture NAME`"]
fn slowest_lines() {
    for arch in Arch::ALL {
        let t = target(arch);
        let _ = parse(t, "nop");
        let mut times: Vec<(f64, String)> = Vec::new();
        for (_, cands) in index(t).by_mnemonic.iter() {
            for c in cands.iter().step_by(7) {
                let text = print_as(t, &c.example, c.alias.as_ref()).unwrap();
                let t0 = std::time::Instant::now();
                let _ = parse(t, &text);
                times.push((t0.elapsed().as_secs_f64() * 1e3, text));
            }
        }
        times.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
        let total: f64 = times.iter().map(|x| x.0).sum();
        eprintln!("{arch}: {} lines, {total:.0} ms", times.len());
        for (ms, text) in times.iter().take(8) {
            eprintln!("  {ms:.1} ms  {text}");
        }
    }
}

#[test]
#[ignore = "a benchmark that prints figures, not a check: `cargo test --release --lib -- --ignored --nocapture NAME`"]
fn slowest_kernel_lines() {
    let t = target(Arch::Aarch64);
    let _ = parse(t, "nop");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("validation/asm");
    let mut times: Vec<(f64, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if !p.to_string_lossy().ends_with(".neon.s") {
            continue;
        }
        for l in std::fs::read_to_string(&p).unwrap().lines() {
            let l = l.split("//").next().unwrap().trim();
            if l.is_empty() || l.starts_with('.') || l.ends_with(':') || !seen.insert(l.to_string())
            {
                continue;
            }
            let t0 = std::time::Instant::now();
            let _ = parse(t, l);
            times.push((t0.elapsed().as_secs_f64() * 1e3, l.to_string()));
        }
    }
    times.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
    let total: f64 = times.iter().map(|x| x.0).sum();
    eprintln!("{} lines, {total:.0} ms", times.len());
    for (ms, text) in times.iter().take(25) {
        eprintln!("  {ms:.1} ms  {text}");
    }
}
