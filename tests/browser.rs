//! `winic html`'s page in a real browser: headless Chromium (Debian's
//! `chromium`, which `.ci/run` installs) opens the page of the two
//! recorded cores' databases (`tests/fixtures/raw/`, analysed) at views
//! its address's fragment gives (a filter, a sort, a detail), and the test
//! checks what the page shows against the databases. Without a Chromium
//! the test is skipped, saying so.

mod common;
use common::{emulated, skip, winic_command, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use winic::db::Database;

/// The Chromium on PATH.
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// The page's DOM after its script ran, at `fragment`.
fn dom(browser: &str, page: &Path, fragment: &str) -> String {
    let url = format!("file://{}#{fragment}", page.display());
    let o = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--dump-dom",
            &url,
        ])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{browser} {url}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The text of the element with `id` (its first text, up to the next tag).
fn text_of(dom: &str, id: &str) -> String {
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let rest = &dom[at..];
    let start = rest.find('>').unwrap() + 1;
    let end = rest[start..].find('<').unwrap() + start;
    rest[start..end].to_string()
}

/// The names of the table's rows, in order.
fn row_names(dom: &str) -> Vec<String> {
    dom.split("<tr data-name=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect()
}

/// The cells of the row of `name`.
fn cells(dom: &str, name: &str) -> Vec<String> {
    let at = dom
        .find(&format!("<tr data-name=\"{name}\""))
        .unwrap_or_else(|| panic!("no row {name}"));
    let row = &dom[at..at + dom[at..].find("</tr>").unwrap()];
    row.split("<td")
        .skip(1)
        .map(|c| {
            let s = c.find('>').unwrap() + 1;
            c[s..c.find("</td>").unwrap()].to_string()
        })
        .collect()
}

/// A value as the page shows it: rounded to 3 decimals, `-` when none.
fn shown(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{}", (x * 1000.0).round() / 1000.0))
}

/// The forms "differs by more than 10%" shows, counted as the page's rule
/// says (rounded values, and more than 0.01 cycles apart).
fn differing(da: &Database, db: &Database) -> usize {
    let r = |v: Option<f64>| v.map(|x| (x * 1000.0).round() / 1000.0);
    let apart = |x: Option<f64>, y: Option<f64>| match (r(x), r(y)) {
        (Some(x), Some(y)) => x > 0.0 && (y - x).abs() > 0.1 * x && (y - x).abs() > 0.01 + 1e-9,
        _ => false,
    };
    da.entries
        .iter()
        .filter(|e| {
            db.get(&e.llvm_name).is_some_and(|f| {
                apart(e.measured.throughput, f.measured.throughput)
                    || apart(e.measured.latency, f.measured.latency)
            })
        })
        .count()
}

/// The recorded core `id`'s TP and LAT runs analysed into one database.
/// The database of core `id`'s recorded TP and LAT runs (`winic
/// analyse`), and the two reports the analysis wrote.
fn recorded_db(id: &str, dir: &Path) -> (PathBuf, Vec<PathBuf>) {
    let core = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/raw")
        .join(id);
    let db = dir.join(format!("{id}.yaml"));
    let reports = dir.join(format!("{id}-reports"));
    std::fs::create_dir_all(&reports).unwrap();
    for mode in ["TP", "LAT"] {
        let raw = dir.join(format!("{id}.{mode}.raw"));
        let o = Command::new("gzip")
            .arg("-dc")
            .arg(core.join(format!("{mode}.raw.gz")))
            .output()
            .unwrap();
        std::fs::write(&raw, o.stdout).unwrap();
        let o = winic_command(&["analyse", raw.to_str().unwrap(), "-o", db.to_str().unwrap()])
            .current_dir(&reports)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let mut written: Vec<PathBuf> = std::fs::read_dir(&reports)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    written.sort();
    assert_eq!(written.len(), 2, "{written:?}");
    (db, written)
}

#[test]
fn the_page_filters_sorts_and_details_in_a_real_browser() {
    if emulated() {
        return skip("a browser runs on the host only");
    }
    let Some(browser) = chromium() else {
        return skip("no Chromium on PATH (Debian's `chromium`; .ci/run installs it)");
    };
    let dir = Scratch::new("browser");
    let ((a, reports), (b, _)) = (
        recorded_db("zen4", dir.path()),
        recorded_db("zen5", dir.path()),
    );
    let out = dir.join("page");
    let mut args = vec![
        "html".to_string(),
        a.display().to_string(),
        b.display().to_string(),
        "-o".into(),
        out.display().to_string(),
        "--label".into(),
        "zen4".into(),
        "--label".into(),
        "zen5".into(),
    ];
    for r in &reports {
        args.extend(["--report".to_string(), r.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = winic_command(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = out.join("index.html");
    let (da, db) = (Database::load(&a).unwrap(), Database::load(&b).unwrap());
    let mut names: Vec<&str> = da
        .entries
        .iter()
        .chain(&db.entries)
        .map(|e| e.llvm_name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    let total = names.len();

    // A name filter: one row, its values those of the databases.
    let started = std::time::Instant::now();
    let d = dom(browser, &page, "q=%5EADD64rr%24");
    eprintln!(
        "browser: page of {total} forms loaded and filtered in {:.1} s ({})",
        started.elapsed().as_secs_f64(),
        text_of(&d, "status")
    );
    assert!(text_of(&d, "status").starts_with(&format!("1 of {total} forms")));
    assert_eq!(row_names(&d), ["ADD64rr"]);
    let c = cells(&d, "ADD64rr");
    let (ea, eb) = (da.get("ADD64rr").unwrap(), db.get("ADD64rr").unwrap());
    assert_eq!(c[0], "ADD64rr");
    assert!(c[1].starts_with("add "), "{c:?}");
    assert_eq!(c[3], shown(ea.measured.throughput), "{c:?}");
    assert_eq!(c[4], shown(ea.measured.latency), "{c:?}");
    assert_eq!(c[6], shown(eb.measured.throughput), "{c:?}");
    assert_eq!(c[7], shown(eb.measured.latency), "{c:?}");

    // Sorted by the first database's throughput, slowest first.
    let d = dom(browser, &page, "sort=tp0&desc=1");
    let slowest = da
        .entries
        .iter()
        .filter_map(|e| e.measured.throughput)
        .fold(0.0, f64::max);
    let first = &row_names(&d)[0];
    assert_eq!(
        shown(da.get(first).and_then(|e| e.measured.throughput)),
        shown(Some(slowest)),
        "{first}"
    );

    // By extension, and by "differs by more than 10%", counted as the
    // page's rule says (rounded values, and more than 0.01 cycles apart).
    let d = dom(browser, &page, "ext=AVX512");
    let avx512 = names
        .iter()
        .filter(|n| winic::compare::extension(winic::isa::Arch::X86_64, n) == "AVX512")
        .count();
    assert!(avx512 > 0);
    assert!(
        text_of(&d, "status").starts_with(&format!("{avx512} of {total} forms")),
        "{}",
        text_of(&d, "status")
    );
    let differing = differing(&da, &db);
    let d = dom(browser, &page, "diff=10");
    assert!(
        text_of(&d, "status").starts_with(&format!("{differing} of {total} forms")),
        "{} (expected {differing})",
        text_of(&d, "status")
    );

    // A form's detail: every sub-latency of each database.
    let d = dom(browser, &page, "q=%5EADD64rr%24&detail=ADD64rr");
    let detail = &d[d.find("id=\"detail\"").unwrap()..];
    assert!(detail.contains("<h2>ADD64rr (add, "), "{detail}");
    assert!(detail.contains("<h3>zen4</h3>") && detail.contains("<h3>zen5</h3>"));
    assert!(detail.contains("<th>from</th><th>to</th><th>latency</th>"));
    // What zen4's TP and LAT reports said of it, under zen4 only.
    let (zen4, zen5) = detail.split_at(detail.find("<h3>zen5</h3>").unwrap());
    for (mode, line) in [
        ("Throughput", "ADD64rr ["),
        ("Latency", "ADD64rr(0 -&gt; 0) ["),
    ] {
        let at = zen4
            .find(&format!("<h4>{mode} report</h4><pre class=\"report\">"))
            .unwrap_or_else(|| panic!("no {mode} report in {zen4}"));
        assert!(zen4[at..].contains(line), "{mode}: {zen4}");
    }
    assert!(!zen5.contains("report</h4>"), "{zen5}");

    // A filter that is no regular expression says so.
    let d = dom(browser, &page, "q=(");
    assert!(text_of(&d, "status").starts_with("not a regular expression: ("));
}

/// This machine's recorded Zen 4 run beside what WINIC published for the
/// same core, on one page: `WINIC_PUBLISHED` names a WINIC database or TP
/// report (`data/zen4/report_TP_2025-08-25_10-18-39.txt` of
/// `RRZE-HPC/WINIC`, whose database file's content is not in its public
/// snapshot). WINIC's data is GPL-3 and not copied into this repository,
/// so CI has none and the test says it skipped; docs/commands.md gives the
/// command that runs it.
#[test]
fn the_page_shows_winics_published_file_beside_a_run() {
    let Some(published) = std::env::var_os("WINIC_PUBLISHED").map(PathBuf::from) else {
        return skip(
            "WINIC_PUBLISHED is not set (a WINIC database or TP report of a Zen 4, from \
             RRZE-HPC/WINIC's data/zen4/; docs/commands.md, \"winic html\")",
        );
    };
    if emulated() {
        return skip("a browser runs on the host only");
    }
    let Some(browser) = chromium() else {
        return skip("no Chromium on PATH (Debian's `chromium`; .ci/run installs it)");
    };
    let dir = Scratch::new("browser-published");
    let (a, _) = recorded_db("zen4", dir.path());
    let out = dir.join("page");
    let p = published.display().to_string();
    let mut args = vec![
        "html".to_string(),
        a.display().to_string(),
        p.clone(),
        "-o".into(),
        out.display().to_string(),
        "--label".into(),
        "zen4".into(),
        "--label".into(),
        "WINIC".into(),
    ];
    let text = std::fs::read_to_string(&published).unwrap();
    let is_report = winic::report::read::is_report(&text);
    if is_report {
        args.extend(["--report".to_string(), p.clone()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = winic_command(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = out.join("index.html");
    let da = Database::load(&a).unwrap();
    let db = winic::compare::load(&published).unwrap();
    let both: Vec<&str> = da
        .entries
        .iter()
        .filter(|e| e.measured.throughput.is_some())
        .filter(|e| {
            db.get(&e.llvm_name)
                .is_some_and(|f| f.measured.throughput.is_some())
        })
        .map(|e| e.llvm_name.as_str())
        .collect();
    assert!(both.len() > 100, "{} forms in both", both.len());
    eprintln!("published: {} forms of zen4 also in {p}", both.len());

    // Rows of forms in both: each database's throughput in its column.
    for name in both.iter().step_by(both.len() / 5) {
        let d = dom(browser, &page, &format!("q=%5E{name}%24"));
        let c = cells(&d, name);
        let (ea, eb) = (da.get(name).unwrap(), db.get(name).unwrap());
        assert_eq!(c[3], shown(ea.measured.throughput), "{name}: {c:?}");
        assert_eq!(c[6], shown(eb.measured.throughput), "{name}: {c:?}");
    }

    // "Differs by more than 10%", against the databases.
    let expected = differing(&da, &db);
    let d = dom(browser, &page, "diff=10");
    eprintln!("published: {} ({expected} expected)", text_of(&d, "status"));
    assert!(
        text_of(&d, "status").starts_with(&format!("{expected} of ")),
        "{} (expected {expected})",
        text_of(&d, "status")
    );

    // A form's detail: WINIC's column, and its report's line.
    let name = both[0];
    let d = dom(browser, &page, &format!("q=%5E{name}%24&detail={name}"));
    let detail = &d[d.find("id=\"detail\"").unwrap()..];
    assert!(detail.contains("<h3>WINIC</h3>"), "{detail}");
    if is_report {
        let winic_part = &detail[detail.find("<h3>WINIC</h3>").unwrap()..];
        assert!(
            winic_part.contains(&format!("{name} [")),
            "{name}: {winic_part}"
        );
    }
}
