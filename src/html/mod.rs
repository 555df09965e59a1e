//! `winic html DB... -o DIR`: one static page that shows databases side
//! by side, as uops.info's table does: a row per form, a column group per
//! database, filters, sorting, a form's detail, and pictures of how the
//! databases differ. Everything is inline in `DIR/index.html` (no
//! network, no CDN: it opens on an air-gapped node); the data is a JSON
//! object in the page, which the script (`page.js`) filters and sorts.
//!
//! The page's state is its address's fragment (`#q=^VADD&ext=AVX512&
//! diff=10&sort=tp1&detail=VADDPDZrr`), so a view can be bookmarked,
//! shared, and opened by a test in a real browser
//! (`scripts/browser-test.sh`).

mod svg;

use crate::report::read::Written;

use crate::db::{Database, Entry};
use crate::error::Error;
use crate::isa::{Arch, Isa};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// One database of the page.
#[derive(Clone, Debug)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// The column group's name: the label given, else the CPU a raw file
    /// beside the database names, else the file's name.
    pub label: String,
    /// Its entries.
    pub db: Database,
    /// The reports of the runs that wrote it (`--report`), whose lines for
    /// a form its detail shows.
    pub reports: Vec<Written>,
}

/// The databases `paths`, each named by `labels` where given (in order),
/// all of one arch, with the `reports` of the runs that wrote them: an
/// error naming the file for a file that is missing, does not parse or
/// holds no form winic knows, for two arches, and for a report that names
/// none of the databases.
pub fn load(
    paths: &[PathBuf],
    labels: &[String],
    reports: &[PathBuf],
) -> Result<(Arch, Vec<Source>), Error> {
    if paths.is_empty() {
        return Err(Error::BadInput(
            "no database given: winic html DB... -o DIR".into(),
        ));
    }
    if labels.len() > paths.len() {
        return Err(Error::BadInput(format!(
            "{} labels for {} databases: give at most one --label per database, in order",
            labels.len(),
            paths.len()
        )));
    }
    let mut sources = Vec::new();
    let mut arch: Option<(Arch, &Path)> = None;
    for (i, path) in paths.iter().enumerate() {
        let db = crate::compare::load(path)?;
        let a = crate::compare::arch_named(&db, path, "show")?;
        match arch {
            Some((first, p)) if first != a => {
                return Err(Error::BadInput(format!(
                    "{} holds {first} forms and {} {a} forms: one page shows databases of one \
                     arch",
                    p.display(),
                    path.display()
                )))
            }
            None => arch = Some((a, path)),
            _ => {}
        }
        let label = labels
            .get(i)
            .cloned()
            .or_else(|| cpu_beside(path))
            .unwrap_or_else(|| file_name(path));
        sources.push(Source {
            path: path.clone(),
            label,
            db,
            reports: Vec::new(),
        });
    }
    for path in reports {
        let r = Written::read(path)?;
        let i = report_owner(&sources, &r)?;
        sources[i].reports.push(r);
    }
    Ok((arch.expect("at least one database").0, sources))
}

/// Which of `sources` report `r` goes with: the database that is the
/// report itself (a TP report read as one), else the database of the file
/// name its run wrote, or the only database of the page.
fn report_owner(sources: &[Source], r: &Written) -> Result<usize, Error> {
    if let Some(i) = sources.iter().position(|s| s.path == r.path) {
        return Ok(i);
    }
    let named: Vec<usize> = (0..sources.len())
        .filter(|&i| file_name(&sources[i].path) == r.output)
        .collect();
    match named[..] {
        [i] => Ok(i),
        [] if sources.len() == 1 => Ok(0),
        _ => Err(Error::BadInput(format!(
            "report {} is of the run that wrote {}, which {} of the databases ({}) is named: \
             give a report beside the database its run wrote, or one database",
            r.path.display(),
            r.output,
            if named.is_empty() {
                "none"
            } else {
                "more than one"
            },
            sources
                .iter()
                .map(|s| file_name(&s.path))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The CPU the raw file of a TP or LAT run written beside `db` names
/// (`FILE.TP.raw`'s first line).
fn cpu_beside(db: &Path) -> Option<String> {
    ["TP", "LAT"].iter().find_map(|mode| {
        let mut raw = db.as_os_str().to_owned();
        raw.push(format!(".{mode}.raw"));
        let first = crate::input::first_line(&PathBuf::from(raw), 1 << 20).ok()??;
        let header: crate::raw::Header = serde_json::from_str(&first).ok()?;
        Some(header.cpu)
    })
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A value as the page holds it: rounded to 3 decimals, `null` when not
/// measured.
fn num(v: Option<f64>) -> Value {
    v.filter(|x| x.is_finite())
        .map_or(Value::Null, |x| json!((x * 1000.0).round() / 1000.0))
}

/// One database's values of a form: `[throughput, latency, [[source,
/// target, min, max]...], ports]`, ports as OSACA writes them (`1*p0,1`).
fn values(e: &Entry) -> Value {
    let m = &e.measured;
    let subs: Vec<Value> = m
        .operand_latencies
        .iter()
        .map(|l| {
            json!([
                l.source_operand,
                l.target_operand,
                num(l.latency_min),
                num(l.latency_max)
            ])
        })
        .collect();
    let ports = e
        .inferred_ports
        .iter()
        .map(|u| {
            format!(
                "{}*p{}",
                (u.cycles * 100.0).round() / 100.0,
                u.ports.join(",")
            )
        })
        .collect::<Vec<_>>()
        .join(" + ");
    let operands: Vec<String> = e
        .operands
        .iter()
        .map(|o| match (&o.name, &o.imd) {
            (Some(n), _) => format!("{} {n}", o.class),
            (None, Some(i)) => format!("{} {i}", o.class),
            _ => o.class.clone(),
        })
        .collect();
    json!([num(m.throughput), num(m.latency), subs, ports, operands])
}

/// An assembly instance of `name`: the example `winic show` prints, else
/// its template.
fn instance(arch: Arch, name: &str) -> String {
    let Some(form) = Isa::get(arch).instr(name) else {
        return String::new();
    };
    let t = crate::arch::target(arch);
    t.example(form)
        .ok()
        .and_then(|inst| crate::kernel::emit(t, &inst).ok())
        .map_or_else(|| form.asm_template().replace('\t', " "), |l| l.text)
}

/// The forms any of `sources` holds, in LLVM name order: the page's rows.
pub fn names(sources: &[Source]) -> Vec<&str> {
    let mut names: Vec<&str> = sources
        .iter()
        .flat_map(|s| s.db.entries.iter().map(|e| e.llvm_name.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The page's data: the databases and a row per form any of them holds,
/// in LLVM name order.
pub fn data(arch: Arch, sources: &[Source]) -> Value {
    let names = names(sources);
    let index: Vec<std::collections::HashMap<&str, &Entry>> = sources
        .iter()
        .map(|s| {
            s.db.entries
                .iter()
                .map(|e| (e.llvm_name.as_str(), e))
                .collect()
        })
        .collect();
    // Report lines, each distinct line once (`lines`): many forms share
    // a line (a skip reason, the memory note).
    let mut lines: Vec<&str> = Vec::new();
    let mut line_no: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let rows: Vec<Value> = names
        .iter()
        .map(|&n| {
            let mnemonic = index
                .iter()
                .find_map(|m| m.get(n).map(|e| e.name.clone()))
                .unwrap_or_default();
            let mut row = json!({
                "n": n,
                "m": mnemonic,
                "asm": instance(arch, n),
                "ext": crate::compare::extension(arch, n),
                "v": index.iter().map(|m| m.get(n).map_or(Value::Null, |e| values(e))).collect::<Vec<_>>(),
            });
            let said: Vec<Value> = sources
                .iter()
                .map(|s| {
                    let blocks: Vec<Value> = s
                        .reports
                        .iter()
                        .filter_map(|r| Some((&r.mode, r.sections.get(n)?)))
                        .map(|(mode, ls)| {
                            let at: Vec<usize> = ls
                                .iter()
                                .map(|l| {
                                    *line_no.entry(l.as_str()).or_insert_with(|| {
                                        lines.push(l.as_str());
                                        lines.len() - 1
                                    })
                                })
                                .collect();
                            json!([mode, at])
                        })
                        .collect();
                    Value::Array(blocks)
                })
                .collect();
            if said.iter().any(|b| b.as_array().is_some_and(|b| !b.is_empty())) {
                row["r"] = Value::Array(said);
            }
            row
        })
        .collect();
    json!({
        "lines": lines,
        "arch": arch.to_string(),
        "dbs": sources.iter().map(|s| json!({
            "label": s.label,
            "path": s.path.display().to_string(),
            "forms": s.db.entries.len(),
        })).collect::<Vec<_>>(),
        "rows": rows,
    })
}

/// The whole page of `sources`.
pub fn page(arch: Arch, sources: &[Source]) -> String {
    let data = data(arch, sources);
    // `</` would end the script element early.
    let json = data.to_string().replace("</", "<\\/");
    let title = format!(
        "winic: {} forms of {}",
        arch,
        sources
            .iter()
            .map(|s| s.label.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let pictures = svg::pictures(&data);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}</title>\n<style>\n{css}</style>\n</head>\n<body>\n\
         <h1>{title}</h1>\n{body}\n<section id=\"pictures\">\n{pictures}</section>\n\
         <script id=\"data\" type=\"application/json\">{json}</script>\n\
         <script>\n{js}</script>\n</body>\n</html>\n",
        title = escape(&title),
        css = include_str!("page.css"),
        body = include_str!("page.html"),
        js = include_str!("page.js"),
    )
}

/// `text` safe inside HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Writes the page of `sources` to `dir/index.html` (the directory made
/// when missing), atomically; its path.
pub fn write(dir: &Path, arch: Arch, sources: &[Source]) -> Result<PathBuf, Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Io(format!("creating the directory {}", dir.display()), e))?;
    let path = dir.join("index.html");
    let tmp = dir.join(".index.html.tmp");
    std::fs::write(&tmp, page(arch, sources))
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| Error::Io(format!("writing {}", path.display()), e))?;
    Ok(path)
}

#[cfg(test)]
mod tests;
