//! The database on disk: reading a file (and refusing one that was cut)
//! and saving one atomically.

use super::{bounds, Database, Journal};
use crate::error::Error;
use std::fs;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

impl Database {
    /// Reads the database at `path`. A missing file is an empty database
    /// (the first run of a measurement); an unreadable file is
    /// [`Error::Io`], and a malformed one [`Error::BadInput`] naming the
    /// file, line and column. So is a cut one: a file in the layout of
    /// LLVM's YAML writer (winic's, WINIC's) must end with the document
    /// end marker `...` it always writes last; a file of another writer
    /// (PyYAML writes no marker) without it must have every field WINIC
    /// requires in every entry, so that a cut inside an entry is seen.
    ///
    /// What a file from elsewhere could use to exhaust the machine is
    /// refused before parsing, naming the file ([`bounds`]): more than
    /// [`bounds::MAX_BYTES`], or a YAML anchor or alias (an alias bomb
    /// expands a 1 MB file to gigabytes); so is a form with more than one
    /// entry, which winic's writers never make and whose readers would
    /// disagree on which one counts.
    ///
    /// A value no measurement can give (negative, not finite, a
    /// throughput of 0: [`Measured::drop_impossible`]) is read as
    /// unmeasured, and a warning on standard error names how many and the
    /// first few.
    pub fn load(path: impl AsRef<Path>) -> Result<Database, Error> {
        let path = path.as_ref();
        let (db, dropped) = Database::load_noting(path)?;
        if !dropped.is_empty() {
            eprintln!("winic: warning: {}", describe_dropped(path, &dropped));
        }
        Ok(db)
    }

    /// [`Database::load`], returning instead of printing the values read
    /// as unmeasured (`ADD64rr: throughput -5`).
    pub fn load_noting(path: &Path) -> Result<(Database, Vec<String>), Error> {
        let text = match crate::input::read_at_most(path, bounds::MAX_BYTES) {
            Ok(Some(text)) => text,
            Ok(None) => {
                return Err(Error::BadInput(format!(
                    "{}: more than the {} a database may have (a full run of every x86 form \
                     writes a few MiB); split it, or choose another output file",
                    path.display(),
                    crate::input::size(bounds::MAX_BYTES)
                )))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok((Database::default(), Vec::new()))
            }
            Err(e) => {
                return Err(Error::Io(
                    format!("reading the database {}", path.display()),
                    e,
                ))
            }
        };
        if text.trim().is_empty() {
            return Err(Error::BadInput(format!(
                "{}: the file is empty ({} bytes), not a database: winic and WINIC write \
                 `---`, the entries and `...` even when there are none (`[]`); it was probably \
                 cut or truncated: restore it, or delete it to start a new database",
                path.display(),
                text.len()
            )));
        }
        // `was`: "was" for a file of LLVM's writer, "was probably" else.
        let cut = |what: String, was: &str| {
            let journals: Vec<String> = ["TP", "LAT"]
                .iter()
                .map(|m| Journal::path_of(path, m))
                .filter(|j| j.exists())
                .map(|j| j.display().to_string())
                .collect();
            let keep = match journals.len() {
                0 => String::new(),
                _ => format!(
                    "; {} keeps the measurements of an interrupted run (--resume merges them)",
                    journals.join(" and ")
                ),
            };
            Error::BadInput(format!(
                "{}: {what}: the file {was} cut, e.g. by a crash or a full disk during a copy, \
                 and entries may be lost; restore it from a copy, or move it away to start a new \
                 database{keep}",
                path.display()
            ))
        };
        if let Some((line, col, token)) = bounds::anchor_or_alias(&text) {
            return Err(Error::BadInput(format!(
                "{}:{line}:{col}: the YAML anchor or alias `{token}` is refused: a database \
                 holds every entry written out, as winic and WINIC write it (an alias is \
                 expanded by the parser each time it is used, so a small file can take \
                 gigabytes); write the file without them (PyYAML: a Dumper whose \
                 ignore_aliases returns True)",
                path.display()
            )));
        }
        if let Some(why) = bounds::too_many_nodes(&text) {
            return Err(Error::BadInput(format!(
                "{}: {why}; split it, or choose another output file",
                path.display()
            )));
        }
        let ended = has_end_marker(&text);
        if !ended && written_by_llvm_yaml(&text) {
            let what = "ends without the document end marker `...` that winic and WINIC write last";
            return Err(cut(what.into(), "was"));
        }
        if !ended {
            if let Some(missing) = first_missing_field(&text) {
                let what = format!(
                    "{missing}, and the file ends without the document end marker `...` \
                     (without it, every entry must have all of WINIC's fields)"
                );
                return Err(cut(what, "was probably"));
            }
        }
        let mut db = Database::parse(&text).map_err(|e| {
            let at = e
                .location()
                .map(|l| format!(":{}:{}", l.line(), l.column()))
                .unwrap_or_default();
            Error::BadInput(format!(
                "{}{at}: not a WINIC database: {e}; fix the file or choose another output file",
                path.display()
            ))
        })?;
        let dup = bounds::duplicates(&db.entries);
        if !dup.is_empty() {
            return Err(Error::BadInput(format!(
                "{}: {}; a form has one entry (winic would update the first and export the \
                 last): keep one of each and load it again",
                path.display(),
                bounds::describe_duplicates(&dup)
            )));
        }
        let mut dropped = Vec::new();
        for e in &mut db.entries {
            let name = e.llvm_name.clone();
            dropped.extend(
                e.drop_impossible()
                    .into_iter()
                    .map(|d| format!("{name}: {d}")),
            );
        }
        Ok((db, dropped))
    }

    /// Parses a database from YAML text; a text without a document (empty,
    /// comments only) is an empty database.
    pub fn parse(text: &str) -> Result<Database, serde_yaml::Error> {
        let blank = text
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
        if blank {
            return Ok(Database::default());
        }
        Ok(Database {
            entries: serde_yaml::from_str(text)?,
        })
    }

    /// Writes the database to `path` atomically: to `<path>.tmp-<pid>` in
    /// the same directory, flushed and fsynced, then renamed over `path`
    /// (keeping the old file's permissions). A failure leaves the old file
    /// as it was and no temporary file behind.
    ///
    /// A database with two entries of one form is not written (an
    /// [`Error::Failed`]: winic's own merges never make one).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let dup = bounds::duplicates(&self.entries);
        if !dup.is_empty() {
            return Err(Error::Failed(format!(
                "not writing {}: {}",
                path.display(),
                bounds::describe_duplicates(&dup)
            )));
        }
        let tmp = temp_path(path);
        let written = self.write_file(path, &tmp);
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written.map_err(|e| Error::Io(format!("writing the database {}", path.display()), e))?;
        // Make the rename itself durable; not every file system lets a
        // directory be fsynced, and the data is safe without it.
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    fn write_file(&self, path: &Path, tmp: &Path) -> io::Result<()> {
        let file = fs::File::create(tmp)?;
        if let Ok(meta) = fs::metadata(path) {
            file.set_permissions(meta.permissions())?;
        }
        let mut w = BufWriter::new(file);
        self.write_yaml(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        fs::rename(tmp, path)
    }
}

/// Whether the last line that is not blank is YAML's document end marker
/// `...`, which [`Database::write_yaml`] (and LLVM's `yaml::Output`, so
/// WINIC) writes last: a file that has it was not cut.
/// One line on the values of `path` read as unmeasured: how many, the
/// first three.
pub(super) fn describe_dropped(path: &Path, dropped: &[String]) -> String {
    let shown: Vec<&str> = dropped.iter().take(3).map(String::as_str).collect();
    format!(
        "{}: {} value{} no measurement can give (negative, not finite, a throughput of 0, \
         above {} cycles, or a lower bound above its upper), read as unmeasured: {}{}",
        path.display(),
        dropped.len(),
        if dropped.len() == 1 { " is" } else { "s are" },
        super::MAX_CYCLES,
        shown.join("; "),
        if dropped.len() > 3 { "; ..." } else { "" }
    )
}

fn has_end_marker(text: &str) -> bool {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(str::trim_end)
        == Some("...")
}

/// Whether `text` looks written by LLVM's `yaml::Output` (winic's writer
/// or WINIC): it starts with `---` and pads keys to column 17
/// (`llvmName:` and eight blanks), or holds nothing after the `---`.
/// Such files always end with `...`.
fn written_by_llvm_yaml(text: &str) -> bool {
    let mut lines = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    if lines.next().map(str::trim_end) != Some("---") {
        return false;
    }
    match lines.next().map(str::trim_end) {
        // Cut right after the start (or the empty database, `[]`).
        None | Some("[]") => true,
        Some(_) => text
            .lines()
            .any(|l| l.trim_start().starts_with("- llvmName:        ")),
    }
}

/// The first field WINIC requires (`mapRequired`) that an entry of `text`
/// lacks, described ("entry 3 (ADD64rr) has no `throughputMax`"), or
/// `None` when every entry has all of them (or `text` is no YAML list,
/// which the parser then reports).
fn first_missing_field(text: &str) -> Option<String> {
    const ENTRY: [&str; 8] = [
        "llvmName",
        "name",
        "operands",
        "latency",
        "operandLatencies",
        "throughput",
        "throughputMin",
        "throughputMax",
    ];
    const OPERAND: [&str; 3] = ["class", "read", "write"];
    const LATENCY: [&str; 4] = ["sourceOperand", "targetOperand", "latencyMin", "latencyMax"];
    let value: serde_yaml::Value = serde_yaml::from_str(text).ok()?;
    let lacks = |v: &serde_yaml::Value, keys: &[&str]| -> Option<String> {
        let map = v.as_mapping()?;
        keys.iter()
            .find(|k| !map.contains_key(**k))
            .map(|k| k.to_string())
    };
    let list = |v: &serde_yaml::Value, key: &str| -> Vec<serde_yaml::Value> {
        v.get(key)
            .and_then(|l| l.as_sequence())
            .cloned()
            .unwrap_or_default()
    };
    for (k, e) in value.as_sequence()?.iter().enumerate() {
        let name = e
            .get("llvmName")
            .and_then(|n| n.as_str())
            .unwrap_or("without llvmName");
        let within = |key: &str, fields: &[&str]| {
            list(e, key)
                .iter()
                .enumerate()
                .find_map(|(i, v)| Some(format!("{key}[{i}].{}", lacks(v, fields)?)))
        };
        let what = lacks(e, &ENTRY)
            .or_else(|| within("operands", &OPERAND))
            .or_else(|| within("operandLatencies", &LATENCY));
        if let Some(field) = what {
            return Some(format!("entry {} ({name}) has no `{field}`", k + 1));
        }
    }
    None
}

fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::fixtures::{entry, scratch_dir, V2, X60};

    /// The alias bomb (1.1 MB: 100,000 aliases of one entry with
    /// 10,000 operands, 4.1 GB and still growing after 21 s when it was
    /// expanded) is refused before parsing, naming the file, line and
    /// alias, at once; so is a file over the size bound, before reading.
    #[test]
    fn an_alias_bomb_and_a_huge_file_are_refused_before_parsing() {
        let dir = scratch_dir("bomb");
        let path = dir.join("b.yaml");
        let operand = "    - {class: register, name: GR64, read: true, write: true}\n";
        let text = format!(
            "---\n- &e\n  llvmName: ZZ\n  name: zz\n  operands:\n{}  latency: null\n  \
             operandLatencies: []\n  throughput: 1.0\n  throughputMin: 1.0\n  \
             throughputMax: 1.0\n{}...\n",
            operand.repeat(10_000),
            "- *e\n".repeat(100_000)
        );
        fs::write(&path, &text).unwrap();
        let t0 = std::time::Instant::now();
        let err = Database::load(&path).unwrap_err().to_string();
        assert!(t0.elapsed().as_secs_f64() < 2.0, "{:?}", t0.elapsed());
        assert!(
            err.starts_with(&format!(
                "{}:2:3: the YAML anchor or alias `&e` is refused",
                path.display()
            )),
            "{err}"
        );
        // Over the bound: a sparse file, refused by its size alone.
        let huge = dir.join("huge.yaml");
        fs::File::create(&huge)
            .unwrap()
            .set_len(bounds::MAX_BYTES + 1)
            .unwrap();
        let err = Database::load(&huge).unwrap_err();
        assert!(matches!(err, Error::BadInput(_)), "{err:?}");
        assert!(
            err.to_string()
                .contains("more than the 64 MiB a database may have"),
            "{err}"
        );
        // Under the size bound, but nodes the parser would hold by the
        // million (16 MiB of `0,` took 1.07 GB): refused by their count.
        let flat = dir.join("flat.yaml");
        let text = format!(
            "---\n- llvmName: A\n  name: a\n  operands: [{}0]\n...\n",
            "0,".repeat(bounds::MAX_NODES)
        );
        fs::write(&flat, text).unwrap();
        let t0 = std::time::Instant::now();
        let err = Database::load(&flat).unwrap_err().to_string();
        assert!(t0.elapsed().as_secs_f64() < 2.0, "{:?}", t0.elapsed());
        assert!(
            err.starts_with(&format!("{}: about 4000", flat.display()))
                && err.contains("YAML nodes, more than the 4000000"),
            "{err}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Two entries of one form: `load` refuses the file naming them (TP
    /// used to update the first and `export` to write the last), and
    /// `save` never writes one.
    #[test]
    fn a_form_with_two_entries_is_refused_on_load_and_never_written() {
        let dir = scratch_dir("dup");
        let path = dir.join("d.yaml");
        let mut db = Database::parse(X60).unwrap();
        db.merge(entry("ADD64rr"));
        db.save(&path).unwrap();
        let mut text = fs::read_to_string(&path).unwrap();
        let first = text.find("- llvmName:").unwrap();
        let last = text.rfind("...").unwrap();
        let copy = text[text.rfind("- llvmName:        ADD64rr").unwrap()..last].to_string();
        text.insert_str(first, &copy);
        fs::write(&path, &text).unwrap();
        let n = db.entries.len() + 1;
        let err = Database::load(&path).unwrap_err();
        assert!(matches!(err, Error::BadInput(_)), "{err:?}");
        assert!(
            err.to_string().contains(&format!(
                "1 form has more than one entry: ADD64rr (entries 1 and {n})"
            )),
            "{err}"
        );
        db.entries.push(entry("ADD64rr"));
        let err = db.save(dir.join("never.yaml")).unwrap_err();
        assert!(matches!(err, Error::Failed(_)), "{err:?}");
        assert!(!dir.join("never.yaml").exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_fields_read_as_unmeasured() {
        let text = "- llvmName: ADD\n  name: add\n";
        let db = Database::parse(text).unwrap();
        assert_eq!(db.entries, vec![entry("ADD")]);
        // A file with the end marker may leave fields out (see
        // `a_cut_database_is_refused` for one without).
        let dir = scratch_dir("sparse");
        let path = dir.join("sparse.yaml");
        fs::write(&path, format!("---\n{text}...\n")).unwrap();
        assert_eq!(Database::load(&path).unwrap().entries, vec![entry("ADD")]);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Every way a file written by winic or WINIC can be cut at a line end
    /// (and a line cut in the middle) is refused by `load`, naming the
    /// file, what is wrong and what to do; a complete file loads.
    #[test]
    fn a_cut_database_is_refused() {
        let dir = scratch_dir("cut");
        let path = dir.join("db.yaml");
        let mut whole = Database::parse(X60).unwrap();
        whole.merge(entry("EXTRA"));
        whole.save(&path).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("\n...\n"), "{text}");
        assert_eq!(Database::load(&path).unwrap(), whole);
        let mut cuts: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        cuts.pop(); // the whole file
        cuts.extend([text.len() - 2, text.len() / 2 + 3]);
        for &at in &cuts {
            fs::write(&path, &text[..at]).unwrap();
            let err = Database::load(&path).unwrap_err();
            assert!(matches!(err, Error::BadInput(_)), "cut at {at}: {err:?}");
            let msg = err.to_string();
            assert!(msg.starts_with(&path.display().to_string()), "{msg}");
            assert!(
                msg.contains("ends without the document end marker `...`")
                    && msg.contains("the file was cut")
                    && msg.contains("restore it from a copy, or move it away"),
                "cut at {at}: {msg}"
            );
        }
        // A journal beside it is named: it keeps the run's measurements.
        fs::write(Journal::path_of(&path, "LAT"), "").unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(
            msg.contains("db.yaml.LAT.journal keeps the measurements"),
            "{msg}"
        );
        // Only the final line break missing: not cut.
        fs::write(&path, text.trim_end()).unwrap();
        assert_eq!(Database::load(&path).unwrap(), whole);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Files of other writers (PyYAML writes no `---` and no `...`, and
    /// one blank after a key) load when every entry is complete; one cut
    /// inside an entry is refused, naming the entry and the field.
    #[test]
    fn a_file_without_the_marker_loads_only_when_complete() {
        let dir = scratch_dir("pyyaml");
        let path = dir.join("py.yaml");
        let db = Database::parse(V2).unwrap();
        let text = serde_yaml::to_string(&db.entries).unwrap();
        assert!(!text.contains("..."), "{text}");
        fs::write(&path, &text).unwrap();
        assert_eq!(Database::load(&path).unwrap(), db);
        let cut = &text[..text.find("  throughputMin:").unwrap()];
        fs::write(&path, cut).unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(
            msg.contains("entry 1 (ZIP2v8i8) has no `throughputMin`, and the file ends without the document end marker `...`")
                && msg.contains("the file was probably cut"),
            "{msg}"
        );
        let second = text.match_indices("  throughput:").nth(1).unwrap().0;
        fs::write(&path, &text[..second]).unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(
            msg.contains("entry 2 (ADDXrs) has no `throughput`"),
            "{msg}"
        );
        let sparse = "- llvmName: ADD\n  name: add\n";
        fs::write(&path, sparse).unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(msg.contains("entry 1 (ADD) has no `operands`"), "{msg}");
        let pair = "- llvmName: ADD\n  name: add\n  operands: []\n  latency: 1\n  \
                    operandLatencies:\n  - sourceOperand: '1'\n    latencyMin: 1\n    \
                    latencyMax: 1\n  throughput: 1\n  throughputMin: 1\n  throughputMax: 1\n";
        fs::write(&path, pair).unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(
            msg.contains("entry 1 (ADD) has no `operandLatencies[0].targetOperand`")
                && msg.contains("was probably cut"),
            "{msg}"
        );
        // With the marker the parser decides (the pair needs both ends).
        fs::write(&path, format!("{pair}...\n")).unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(msg.contains("missing field `targetOperand`"), "{msg}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn save_is_atomic_and_reloads_equal() {
        let dir = scratch_dir("save");
        let path = dir.join("x60.yaml");
        let db = Database::parse(X60).unwrap();
        db.save(&path).unwrap();
        let mut v2 = Database::parse(V2).unwrap();
        v2.merge(entry("EXTRA"));
        v2.save(&path).unwrap();
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["x60.yaml"]);
        assert_eq!(fs::read_to_string(&path).unwrap(), v2.to_yaml());
        assert_eq!(Database::load(&path).unwrap(), v2);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn failed_save_names_the_path_and_leaves_nothing() {
        let dir = scratch_dir("fail");
        let path = dir.join("no-such-dir").join("db.yaml");
        let err = Database::default().save(&path).unwrap_err();
        assert!(matches!(err, Error::Io(..)), "{err:?}");
        assert!(err.to_string().contains("no-such-dir/db.yaml"), "{err}");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_file_is_an_empty_database() {
        let dir = scratch_dir("missing");
        let db = Database::load(dir.join("none.yaml")).unwrap();
        assert!(db.entries.is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// An empty file is not a database (issue 46: it was read as one, and
    /// `export` wrote a model of 0 forms); an empty database written by
    /// winic is.
    #[test]
    fn an_empty_file_is_refused_and_an_empty_database_loads() {
        let dir = scratch_dir("empty");
        for text in ["", "\n  \n"] {
            let path = dir.join("empty.yaml");
            fs::write(&path, text).unwrap();
            let msg = Database::load(&path).unwrap_err().to_string();
            assert!(
                msg.starts_with(&format!("{}: the file is empty", path.display()))
                    && msg.contains("delete it to start a new database")
                    && !msg.contains("  "),
                "{msg}"
            );
        }
        let path = dir.join("none.yaml");
        Database::default().save(&path).unwrap();
        assert!(Database::load(&path).unwrap().entries.is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Values no measurement gives (WINIC's published Grace Hopper file
    /// has throughputs of 0 and -0 and latencies of -2) are read as
    /// unmeasured and named, never taken as they are.
    #[test]
    fn impossible_values_are_read_as_unmeasured_and_named() {
        let dir = scratch_dir("impossible");
        let path = dir.join("db.yaml");
        let text = "---\n- llvmName: A\n  name: a\n  throughput: -0\n  throughputMin: -0\n  \
                    throughputMax: 0.5\n- llvmName: B\n  name: b\n  latency: -2\n  \
                    operandLatencies:\n    - sourceOperand: '1'\n      targetOperand: '0'\n      \
                    latencyMin: -2\n      latencyMax: .nan\n- llvmName: C\n  name: c\n  \
                    latency: 0\n  throughput: 0.25\n...\n";
        fs::write(&path, text).unwrap();
        let (db, dropped) = Database::load_noting(&path).unwrap();
        assert_eq!(
            dropped,
            [
                "A: throughput 0",
                "A: throughputMin 0",
                "B: latency -2",
                "B: latencyMin of 1 -> 0 -2",
                "B: latencyMax of 1 -> 0 NaN"
            ]
        );
        let a = db.get("A").unwrap();
        assert_eq!((a.throughput, a.throughput_max), (None, Some(0.5)));
        let c = db.get("C").unwrap();
        assert_eq!((c.latency, c.throughput), (Some(0.0), Some(0.25)));
        let line = describe_dropped(&path, &dropped);
        assert!(
            line.contains("5 values are no measurement") && line.ends_with("; ..."),
            "{line}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn malformed_file_error_names_path_line_and_column() {
        let dir = scratch_dir("malformed");
        let path = dir.join("bad.yaml");
        fs::write(&path, "---\n- llvmName: ADD\n  name: add\n  read: [\n").unwrap();
        let err = Database::load(&path).unwrap_err();
        assert!(matches!(err, Error::BadInput(_)), "{err:?}");
        let msg = err.to_string();
        assert!(msg.starts_with(&format!("{}:", path.display())), "{msg}");
        assert!(msg.contains(":4:") || msg.contains(":5:"), "{msg}");
        fs::write(&path, "- llvmName: ADD\n  operands: 3\n").unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(msg.contains("bad.yaml:"), "{msg}");
        fs::remove_dir_all(&dir).unwrap();
    }

    /// The measured values are flattened into an entry (serde buffers
    /// them before it reads them), so a bad one is reported at its entry,
    /// not at its own line: the file, the entry's line and the problem.
    #[test]
    fn a_bad_measured_value_names_its_entry() {
        let dir = scratch_dir("bad-value");
        let path = dir.join("bad.yaml");
        let text = "---\n- llvmName: ADD\n  name: add\n- llvmName: SUB\n  name: sub\n  \
                    latency: abc\n...\n";
        fs::write(&path, text).unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(msg.starts_with(&format!("{}:4:", path.display())), "{msg}");
        assert!(
            msg.contains("invalid type: string \"abc\", expected f64"),
            "{msg}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
