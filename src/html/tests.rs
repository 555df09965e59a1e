use super::*;
use crate::db::Measured;

fn entry(name: &str, tp: Option<f64>, lat: Option<f64>) -> Entry {
    Entry {
        llvm_name: name.into(),
        name: name.to_lowercase(),
        operands: Vec::new(),
        measured: Measured {
            throughput: tp,
            latency: lat,
            ..Measured::default()
        },
        vector_state: None,
        vector_configs: Vec::new(),
        inferred_ports: Vec::new(),
        inferred_ports_misfit: None,
        line_split_throughput: None,
        misaligned_throughput: None,
        own_line_throughput: None,
        repeated: Vec::new(),
        access_alone: None,
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("winic-html-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn save(dir: &Path, file: &str, entries: Vec<Entry>) -> PathBuf {
    let p = dir.join(file);
    Database { entries }.save(&p).unwrap();
    p
}

#[test]
fn the_page_holds_every_form_of_every_database_in_one_row() {
    let dir = scratch("rows");
    let a = save(
        &dir,
        "a.yaml",
        vec![
            entry("ADD64rr", Some(0.25), Some(1.0)),
            entry("IMUL64rr", Some(1.0), Some(3.0)),
        ],
    );
    let b = save(
        &dir,
        "b.yaml",
        vec![
            entry("ADD64rr", Some(0.5), Some(1.0)),
            entry("VADDPDZrr", Some(0.5), Some(3.0)),
        ],
    );
    let (arch, sources) = load(&[a, b], &["zen4".into()], &[]).unwrap();
    assert_eq!(arch, Arch::X86_64);
    assert_eq!(sources[0].label, "zen4");
    assert_eq!(sources[1].label, "b.yaml");
    let d = data(arch, &sources);
    let rows = d["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["n"].as_str().unwrap()).collect();
    assert_eq!(names, ["ADD64rr", "IMUL64rr", "VADDPDZrr"]);
    assert_eq!(rows[0]["v"][1][0], json!(0.5));
    assert!(rows[1]["v"][1].is_null(), "{}", rows[1]);
    assert!(
        rows[0]["asm"].as_str().unwrap().starts_with("add "),
        "{}",
        rows[0]
    );
    assert_eq!(rows[2]["ext"], "AVX512");
    let page = page(arch, &sources);
    assert!(page.contains("<title>winic: x86_64 forms of zen4, b.yaml</title>"));
    assert!(page.contains("b.yaml against zen4"));
    // No address the page would fetch: it opens on an air-gapped node
    // (SVG's namespace is a name, not fetched).
    for remote in ["https://", "src=", "href=", "url("] {
        assert!(!page.contains(remote), "{remote}");
    }
    assert_eq!(
        page.matches("http://").count(),
        page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_databases_are_refused_naming_the_file() {
    let dir = scratch("bad");
    let missing = dir.join("none.yaml");
    let e = load(&[missing], &[], &[]).unwrap_err().to_string();
    assert!(e.contains("none.yaml: no such database file"), "{e}");
    let broken = dir.join("broken.yaml");
    std::fs::write(&broken, "- llvmName: [unclosed\n").unwrap();
    let e = load(&[broken], &[], &[]).unwrap_err().to_string();
    assert!(e.contains("broken.yaml"), "{e}");
    let unknown = save(
        &dir,
        "unknown.yaml",
        vec![entry("NOSUCHFORM", Some(1.0), None)],
    );
    let e = load(&[unknown], &[], &[]).unwrap_err().to_string();
    assert!(
        e.contains("unknown.yaml: no form of any arch winic knows"),
        "{e}"
    );
    let x86 = save(&dir, "x86.yaml", vec![entry("ADD64rr", Some(0.25), None)]);
    let arm = save(&dir, "arm.yaml", vec![entry("ADDXrr", Some(0.25), None)]);
    let e = load(&[x86.clone(), arm], &[], &[]).unwrap_err().to_string();
    assert!(
        e.contains("x86.yaml holds x86_64 forms and") && e.contains("arm.yaml aarch64"),
        "{e}"
    );
    let e = load(&[x86], &["a".into(), "b".into()], &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("2 labels for 1 databases"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_database_is_named_by_the_cpu_of_its_raw_file() {
    let dir = scratch("cpu");
    let db = save(&dir, "db.yaml", vec![entry("ADD64rr", Some(0.25), None)]);
    let header = crate::raw::Header::new(
        crate::raw::Run {
            mode: "TP".into(),
            arch: "x86_64".into(),
            global: Vec::new(),
            args: Vec::new(),
        },
        "AMD EPYC (AuthenticAMD family 0x19 model 0x11 stepping 0x1)".into(),
        None,
        None,
    );
    std::fs::write(
        dir.join("db.yaml.TP.raw"),
        serde_json::to_string(&header).unwrap() + "\n",
    )
    .unwrap();
    let (_, sources) = load(&[db], &[], &[]).unwrap();
    assert_eq!(sources[0].label, header.cpu);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn text_is_escaped_and_the_data_cannot_end_its_script() {
    assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    let dir = scratch("escape");
    let db = save(&dir, "db.yaml", vec![entry("ADD64rr", Some(0.25), None)]);
    let (arch, sources) = load(&[db], &["</script><b>".into()], &[]).unwrap();
    let page = page(arch, &sources);
    assert_eq!(page.matches("</script>").count(), 2, "{page}");
    assert!(page.contains("&lt;/script&gt;&lt;b&gt;"));
    std::fs::remove_dir_all(&dir).ok();
}

fn report(dir: &Path, file: &str, output: &str, form: &str, line: &str) -> PathBuf {
    let p = dir.join(file);
    std::fs::write(
        &p,
        format!(
            "Timestamp: 2026-11-30_04-14-09\nCommand: winic TP -o {output}\nMode: Throughput\n\
             -----{form}-----\n\t{line}\n\tkernel: 12 independent copies\n\t\tadd rcx, rdx\n\n"
        ),
    )
    .unwrap();
    p
}

#[test]
fn a_reports_lines_go_with_the_database_its_run_wrote_each_distinct_line_once() {
    let dir = scratch("reports");
    let a = save(&dir, "a.yaml", vec![entry("ADD64rr", Some(0.25), None)]);
    let b = save(&dir, "b.yaml", vec![entry("ADD64rr", Some(0.5), None)]);
    let ra = report(
        &dir,
        "ra.txt",
        "/runs/a.yaml",
        "ADD64rr",
        "ADD64rr [0.250;0.250]",
    );
    let rb = report(&dir, "rb.txt", "b.yaml", "ADD64rr", "ADD64rr [0.500;0.500]");
    // In any order: each by the file name its run wrote.
    let (arch, sources) = load(&[a.clone(), b.clone()], &[], &[rb, ra]).unwrap();
    assert_eq!(sources[0].reports.len(), 1);
    assert_eq!(sources[0].reports[0].output, "a.yaml");
    let d = data(arch, &sources);
    let lines: Vec<&str> = d["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    // The kernel line both say is there once; its instructions are not.
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("add rcx")));
    let said = &d["rows"][0]["r"];
    let shown = |db: usize| -> Vec<&str> {
        said[db][0][1]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| lines[k.as_u64().unwrap() as usize])
            .collect()
    };
    assert_eq!(said[0][0][0], "Throughput");
    assert_eq!(
        shown(0),
        ["ADD64rr [0.250;0.250]", "kernel: 12 independent copies"]
    );
    assert_eq!(shown(1)[0], "ADD64rr [0.500;0.500]");

    // A report of a run that wrote neither database is refused, named.
    let rc = report(&dir, "rc.txt", "c.yaml", "ADD64rr", "ADD64rr [1;1]");
    let e = load(&[a.clone(), b], &[], std::slice::from_ref(&rc))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("rc.txt") && e.contains("c.yaml") && e.contains("a.yaml, b.yaml"),
        "{e}"
    );
    // With one database it goes with that one; a form no report names
    // has no lines.
    let c = save(
        &dir,
        "c2.yaml",
        vec![
            entry("ADD64rr", Some(1.0), None),
            entry("IMUL64rr", Some(1.0), None),
        ],
    );
    let (arch, sources) = load(&[c], &[], &[rc]).unwrap();
    let d = data(arch, &sources);
    assert_eq!(d["rows"][0]["r"][0][0][0], "Throughput");
    assert_eq!(d["rows"][1]["n"], "IMUL64rr");
    assert!(d["rows"][1].get("r").is_none());
    std::fs::remove_dir_all(&dir).ok();
}
