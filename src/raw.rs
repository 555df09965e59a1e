//! Raw records: what every timed kernel of a run gave, as data, so that
//! every conclusion winic writes can be computed again from them, on any
//! machine and by a later winic (`winic analyse`), and so that a killed
//! run resumes without measuring a finished kernel twice.
//!
//! A raw file (`<database>.TP.raw`, `.LAT.raw`) is JSON lines: first a
//! [`Header`] (the run, winic's version, the CPU, its clock, the forms this
//! host lacks features for), then one [`Record`] per result a measuring
//! child sent, appended as it arrives: the kernel pair's [`key`], the
//! batch and the look it belongs to, and what the child measured
//! ([`Got`]: the timings of the kernel once and twice, the rounds, the
//! clock beside them; or why it gave nothing). Times stay times: the
//! cycles, the floor, the helpers, the equations are the analysis', done
//! again on every replay.
//!
//! [`Raw`] is a run's raw file open: written while measuring, and read
//! back for a replay, which hands each kernel pair its recorded results
//! in the order they were measured.

use crate::error::Error;
use crate::measure::{finite_or_text, Timing};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The format of the raw files this winic writes and reads.
pub const FORMAT: u32 = 1;

/// A raw file larger than this is refused before it is read.
pub const MAX_BYTES: u64 = 512 << 20;

/// The run a journal or raw file belongs to: what `--resume` must give
/// again to continue it (another selection would merge one run's forms into
/// another's, another clock would mix values converted two ways).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// `TP` or `LAT`.
    pub mode: String,
    /// The arch of the forms (`x86_64`).
    pub arch: String,
    /// winic's options before the mode that change the values (`-f 3.5`).
    pub global: Vec<String>,
    /// The mode's options that choose the forms or change their values
    /// (`--filter ^ADD`, `-i` with its names sorted), in a fixed order.
    pub args: Vec<String>,
}

impl Run {
    /// The command line of the run (without its output file), for people.
    pub fn command(&self) -> String {
        self.words(None)
    }

    /// The command that continues this run into `database`.
    pub fn resume_command(&self, database: &Path) -> String {
        self.words(Some(database))
    }

    /// The run's command line, quoted for a shell; with `--resume -o
    /// database` when one is given.
    fn words(&self, database: Option<&Path>) -> String {
        let mut words = vec!["winic".to_string()];
        words.extend(self.global.iter().map(|w| shell_word(w)));
        words.push(self.mode.clone());
        if let Some(db) = database {
            words.extend(["--resume".into(), "-o".into()]);
            words.push(shell_word(&db.display().to_string()));
        }
        words.extend(self.args.iter().map(|w| shell_word(w)));
        words.join(" ")
    }
}

/// `word` as a POSIX shell reads it back: as it is when it holds nothing
/// the shell interprets, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./,:=+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// A raw file's first line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// [`FORMAT`].
    pub format: u32,
    /// The winic that measured (`CARGO_PKG_VERSION`).
    pub winic: String,
    /// The run.
    pub run: Run,
    /// The CPU, as `/proc/cpuinfo` names it, and its identity where its
    /// registers give one (`AuthenticAMD family 0x1a model 0x2 stepping
    /// 0x0`).
    pub cpu: String,
    /// The clock (GHz) measured once at the start of a `-f auto` run: a
    /// kernel whose own calibration gave nothing is converted with it.
    #[serde(with = "finite_or_text::option")]
    pub ghz: Option<f64>,
    /// The features the host lacked, by its source's names (x86: CPUID's,
    /// as iced names them): a replay on another machine decides every
    /// form as the measuring one did. `None` where the arch cannot record
    /// its host so (AArch64, RISC-V): a replay decides with the features
    /// of the machine it runs on.
    pub lacking: Option<Vec<String>>,
}

impl Header {
    /// The header of a run measured now by this winic.
    pub fn new(run: Run, cpu: String, ghz: Option<f64>, lacking: Option<Vec<String>>) -> Header {
        Header {
            format: FORMAT,
            winic: env!("CARGO_PKG_VERSION").to_string(),
            run,
            cpu,
            ghz,
            lacking,
        }
    }
}

/// What a measuring child measured of one kernel pair (the body once and
/// twice) in a batch: its timings, from its clean rounds when it had
/// enough, how many rounds it got and how many were clean, and the clock
/// beside it (ns per cycle of the calibration chain timed right after
/// the pair, over the first and the second half of its rounds).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The kernel with the body once.
    pub once: Timing,
    /// The kernel with the body twice.
    pub twice: Timing,
    /// Rounds taken.
    pub rounds: u32,
    /// Rounds taken while the core was the kernel's alone.
    pub clean: u32,
    /// Nanoseconds per cycle beside the first and the second half of the
    /// rounds (not positive: the calibration gave no value).
    #[serde(with = "finite_or_text::pair")]
    pub clock: (f64, f64),
}

/// What a measuring child measured of a function of the user's (`winic
/// MAN`): its timing, the clock beside it (ns per cycle before and after;
/// not positive: the calibration gave no value), and how its time grew
/// at four times the iterations (about 4 for a function that loops as
/// told).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionSample {
    /// The timing of the function.
    pub timing: Timing,
    /// Nanoseconds per cycle before and after the timing.
    #[serde(with = "finite_or_text::pair")]
    pub clock: (f64, f64),
    /// The time at four times the iterations over the time at the timing's.
    #[serde(with = "finite_or_text")]
    pub growth: f64,
}

/// Why a child gave no result for a kernel pair, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// Killed by this signal (`SIGILL`).
    Signal(String),
    /// Exited with this status.
    Exit(i32),
    /// Gave no result within this many seconds.
    Timeout(f64),
    /// Sent something that is not a result.
    Garbage(String),
}

/// One result of a kernel pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Got {
    /// Measured.
    Sample(Sample),
    /// The child could not build or map the kernels.
    NotBuilt,
    /// The child died or failed on them.
    Fault(Fault),
}

/// One line of a raw file after the header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Record {
    /// A result of a kernel pair.
    Body {
        /// The batch of the run it was measured in, from 0.
        batch: u32,
        /// Its place in the batch, from 0 (two pairs with the same key
        /// in one batch are two measurements: `cpuid`'s chains from each
        /// of its registers are one kernel).
        body: u32,
        /// The kernel pair ([`key`]), 16 hex digits.
        key: String,
        /// 1 for the first look, 2 for a second look in the same batch.
        look: u8,
        /// What it gave.
        got: Got,
    },
    /// What a `winic MAN` run measured of its function.
    Function {
        /// The measurement.
        sample: FunctionSample,
    },
    /// A throughput the run took from its database (a helper's cost that
    /// was not measured again).
    Known {
        /// The form.
        name: String,
        /// Its throughput.
        throughput: f64,
    },
}

/// The identity of a kernel pair: FNV-1a (64 bits) of the two kernels'
/// assembly text. The same body in the same frame is the same pair, in
/// any run and on any machine.
pub fn key(once: &str, twice: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in once.bytes().chain([0u8]).chain(twice.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The results of one kernel pair at one place of one batch: its first
/// look, then its second looks.
#[derive(Clone, Debug, PartialEq)]
pub struct Episode {
    /// In the order measured.
    pub looks: Vec<Got>,
}

/// A run's raw file, open: results are appended as they come, and (on a
/// replay or a resume) the recorded ones are handed out by kernel pair.
pub struct Raw {
    path: PathBuf,
    state: Mutex<State>,
}

impl std::fmt::Debug for Raw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Raw({})", self.path.display())
    }
}

struct State {
    out: Option<fs::File>,
    /// Recorded episodes by key, in the order measured.
    episodes: HashMap<u64, Vec<Episode>>,
    /// How many of a key's episodes were handed out.
    taken: HashMap<u64, usize>,
    known: HashMap<String, f64>,
    /// The functions a MAN run measured, in order.
    functions: Vec<FunctionSample>,
    /// The next batch's number.
    batch: u32,
    /// Only what was recorded: a replay measures nothing.
    replay_only: bool,
    /// Made by this run ([`Raw::create`]), not continued.
    created: bool,
    /// Results read from the file, written to it, and handed out from it.
    read: usize,
    written: usize,
    replayed: usize,
}

impl Raw {
    /// The raw file of a `mode` run (`TP`, `LAT`) into `database`.
    pub fn path_of(database: &Path, mode: &str) -> PathBuf {
        let mut p = database.as_os_str().to_owned();
        p.push(format!(".{mode}.raw"));
        PathBuf::from(p)
    }

    /// A new raw file at `path` (an earlier one is replaced), starting
    /// with `header`.
    pub fn create(path: &Path, header: &Header) -> Result<Raw, Error> {
        let mut out = fs::File::create(path)
            .map_err(|e| Error::Io(format!("creating {}", path.display()), e))?;
        let line = serde_json::to_string(header).expect("plain data");
        writeln!(out, "{line}")
            .and_then(|()| out.flush())
            .map_err(|e| Error::Io(format!("writing {}", path.display()), e))?;
        let raw = Raw::with(path, Some(out), Vec::new(), false);
        raw.state().created = true;
        Ok(raw)
    }

    /// The raw file at `path` of the interrupted `run`, to continue: its
    /// results are handed out, new ones appended. `Err` with why it is
    /// not that run's (it belongs to another run: an interrupted run of
    /// an older winic wrote none, and the file is an earlier run's), and
    /// `None` when there is none.
    pub fn resume(path: &Path, run: &Run) -> Result<Option<(Raw, Header)>, Error> {
        if !path.exists() {
            return Ok(None);
        }
        let (header, records) = read(path)?;
        if header.run != *run {
            // Refused as it was found.
            return Err(Error::BadInput(format!(
                "{} belongs to another run, `{}`",
                path.display(),
                header.run.command()
            )));
        }
        drop_cut_line(path)?;
        let out = fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| Error::Io(format!("opening {}", path.display()), e))?;
        Ok(Some((Raw::with(path, Some(out), records, false), header)))
    }

    /// The raw file at `path`, to replay: nothing is measured or written.
    pub fn replay(path: &Path) -> Result<(Raw, Header), Error> {
        let (header, records) = read(path)?;
        Ok((Raw::with(path, None, records, true), header))
    }

    fn with(path: &Path, out: Option<fs::File>, records: Vec<Record>, replay_only: bool) -> Raw {
        // Episodes by key with their batch and place: handed out in the
        // order a replay asks for them, batch by batch, body by body.
        let mut places: HashMap<u64, Vec<(u32, u32, Episode)>> = HashMap::new();
        let mut known = HashMap::new();
        let mut functions = Vec::new();
        // The episode each (key, batch, body) is collecting.
        let mut open: HashMap<(u64, u32, u32), usize> = HashMap::new();
        let mut batches = 0;
        let mut read = 0;
        for r in records {
            match r {
                Record::Body {
                    batch,
                    body,
                    key,
                    got,
                    ..
                } => {
                    let key = u64::from_str_radix(&key, 16).expect("checked when read");
                    let list: &mut Vec<(u32, u32, Episode)> = places.entry(key).or_default();
                    let at = *open.entry((key, batch, body)).or_insert_with(|| {
                        list.push((batch, body, Episode { looks: Vec::new() }));
                        list.len() - 1
                    });
                    list[at].2.looks.push(got);
                    batches = batches.max(batch + 1);
                    read += 1;
                }
                Record::Known { name, throughput } => {
                    known.insert(name, throughput);
                }
                Record::Function { sample } => functions.push(sample),
            }
        }
        let episodes = places
            .into_iter()
            .map(|(key, mut list)| {
                list.sort_by_key(|(batch, body, _)| (*batch, *body));
                (key, list.into_iter().map(|(_, _, e)| e).collect())
            })
            .collect();
        Raw {
            path: path.to_path_buf(),
            state: Mutex::new(State {
                out,
                episodes,
                taken: HashMap::new(),
                known,
                functions,
                // A resumed run's batches follow the recorded ones.
                batch: batches,
                replay_only,
                created: false,
                read,
                written: 0,
                replayed: 0,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether this is a replay: a kernel pair without a recorded result
    /// is not measured.
    pub fn replay_only(&self) -> bool {
        self.state().replay_only
    }

    /// Whether the file holds results to hand out.
    pub fn has_recorded(&self) -> bool {
        !self.state().episodes.is_empty()
    }

    /// Numbers the next batch.
    pub fn begin_batch(&self) -> u32 {
        let mut s = self.state();
        s.batch += 1;
        s.batch - 1
    }

    /// The next recorded episode of the kernel pair `key` (the same pair
    /// measured in several batches got one episode in each; asked for more
    /// often than it was measured, the last is handed out again), or
    /// `None` when the pair was never measured.
    pub fn take(&self, key: u64) -> Option<Episode> {
        let mut s = self.state();
        let n = s.episodes.get(&key).map_or(0, Vec::len);
        if n == 0 {
            return None;
        }
        let k = s.taken.entry(key).or_default();
        let at = (*k).min(n - 1);
        *k += 1;
        s.replayed += 1;
        Some(s.episodes[&key][at].clone())
    }

    /// Appends a result: look `look` (1 or 2) of the kernel pair `key`,
    /// body `body` of batch `batch`. Nothing is written in a replay.
    pub fn put(
        &self,
        (batch, body): (u32, u32),
        key: u64,
        look: u8,
        got: &Got,
    ) -> Result<(), Error> {
        let record = Record::Body {
            batch,
            body,
            key: format!("{key:016x}"),
            look,
            got: got.clone(),
        };
        self.append(&record)?;
        self.state().written += 1;
        Ok(())
    }

    /// Appends what a MAN run measured of its function.
    pub fn put_function(&self, sample: &FunctionSample) -> Result<(), Error> {
        self.append(&Record::Function { sample: *sample })?;
        self.state().written += 1;
        Ok(())
    }

    /// The function measurement the file holds (a MAN run's), or `None`.
    pub fn function(&self) -> Option<FunctionSample> {
        self.state().functions.first().copied()
    }

    /// A throughput taken from the database, as the run used it; in a
    /// replay, the one the run used (`None`: it used none).
    pub fn known(&self, name: &str, from_database: Option<f64>) -> Result<Option<f64>, Error> {
        if self.replay_only() {
            return Ok(self.state().known.get(name).copied());
        }
        if let Some(v) = from_database {
            let recorded = self.state().known.insert(name.to_string(), v);
            if recorded != Some(v) {
                self.append(&Record::Known {
                    name: name.to_string(),
                    throughput: v,
                })?;
            }
        }
        Ok(from_database)
    }

    fn append(&self, record: &Record) -> Result<(), Error> {
        let mut s = self.state();
        let Some(out) = s.out.as_mut() else {
            return Ok(());
        };
        let mut line = serde_json::to_string(record).expect("plain data");
        line.push('\n');
        // One write per line: a crash cuts at most the last line.
        out.write_all(line.as_bytes())
            .map_err(|e| Error::Io(format!("writing {}", self.path.display()), e))
    }

    /// Results written to the file and episodes handed out from it so far.
    pub fn counts(&self) -> (usize, usize) {
        let s = self.state();
        (s.written, s.replayed)
    }

    /// Ends a run that failed before it measured any form: a file this
    /// run made is removed (it holds the run's floor at most), so that
    /// nothing is left beside the database; one it continued stays.
    pub fn abandon(&self) {
        let mut s = self.state();
        if s.created {
            s.out = None;
            let _ = fs::remove_file(&self.path);
        }
    }

    /// Result records the file held when it was opened.
    pub fn recorded(&self) -> usize {
        self.state().read
    }
}

/// Drops from the file at `path` the line a crash cut (its last, not
/// ended), so that what a resumed run appends starts a line of its own.
fn drop_cut_line(path: &Path) -> Result<(), Error> {
    let text = fs::read_to_string(path)
        .map_err(|e| Error::Io(format!("reading {}", path.display()), e))?;
    if text.is_empty() || text.ends_with('\n') {
        return Ok(());
    }
    let kept = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    fs::write(path, kept).map_err(|e| Error::Io(format!("repairing {}", path.display()), e))
}

/// The header and records of the raw file `path`, which stays as it is.
/// A last line cut by a crash is left out ([`drop_cut_line`] drops it
/// from the file); any other line that is not a record is refused,
/// naming it.
fn read(path: &Path) -> Result<(Header, Vec<Record>), Error> {
    let bad =
        |line: usize, what: String| Error::BadInput(format!("{}:{line}: {what}", path.display()));
    let mut text = crate::input::read_at_most(path, MAX_BYTES)
        .map_err(|e| Error::Io(format!("reading {}", path.display()), e))?
        .ok_or_else(|| {
            Error::BadInput(format!(
                "{}: more than the {} a raw file may have",
                path.display(),
                crate::input::size(MAX_BYTES)
            ))
        })?;
    if !text.is_empty() && !text.ends_with('\n') {
        text.truncate(text.rfind('\n').map_or(0, |i| i + 1));
    }
    let mut lines = text.lines().enumerate();
    let Some((_, first)) = lines.next() else {
        return Err(bad(1, "empty: not a raw file of winic".into()));
    };
    let header: Header = serde_json::from_str(first)
        .map_err(|e| bad(1, format!("not the header of a raw file of winic ({e})")))?;
    if header.format != FORMAT {
        return Err(bad(
            1,
            format!(
                "raw format {} (winic {}); this winic reads format {FORMAT}",
                header.format, header.winic
            ),
        ));
    }
    let mut records = Vec::new();
    for (k, line) in lines {
        let r: Record = serde_json::from_str(line)
            .map_err(|e| bad(k + 1, format!("not a raw record ({e})")))?;
        if let Record::Body { key, look, .. } = &r {
            if key.len() != 16 || u64::from_str_radix(key, 16).is_err() {
                return Err(bad(k + 1, format!("key {key:?}: not 16 hex digits")));
            }
            if !matches!(look, 1 | 2) {
                return Err(bad(k + 1, format!("look {look}: 1 or 2")));
            }
        }
        records.push(r);
    }
    Ok((header, records))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("winic-raw-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn run() -> Run {
        Run {
            mode: "LAT".into(),
            arch: "x86_64".into(),
            global: Vec::new(),
            args: vec!["-i".into(), "ADD64rr".into()],
        }
    }

    fn sample(ns: f64) -> Got {
        let t = Timing {
            ns_per_iter: ns,
            iterations: 1000,
            spread: f64::INFINITY,
            noisy: true,
        };
        Got::Sample(Sample {
            once: t,
            twice: Timing {
                ns_per_iter: 2.0 * ns,
                ..t
            },
            rounds: 40,
            clean: 12,
            clock: (0.1 + 1e-17, -0.0),
        })
    }

    #[test]
    fn shell_words_read_back_as_given() {
        assert_eq!(shell_word("ADD64rr"), "ADD64rr");
        assert_eq!(shell_word("^[A-C]"), "'^[A-C]'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("a b"), "'a b'");
    }

    /// Every value comes back as written, to the last bit (infinite
    /// spreads and negative zeros too), episodes by key and batch in
    /// order, a pair asked for more often than measured gets its last
    /// episode again, and a replay writes nothing.
    #[test]
    fn records_come_back_exactly_and_in_order() {
        let dir = scratch("back");
        let path = dir.join("db.yaml.LAT.raw");
        let header = Header::new(
            run(),
            "AMD EPYC".into(),
            Some(3.1),
            Some(vec!["XOP".into()]),
        );
        let raw = Raw::create(&path, &header).unwrap();
        let (a, b) = (key("a", "aa"), key("b", "bb"));
        let fault = Got::Fault(Fault::Signal("SIGILL".into()));
        raw.put((0, 0), a, 1, &sample(1.0 / 3.0)).unwrap();
        raw.put((0, 1), b, 1, &fault).unwrap();
        raw.put((0, 2), a, 1, &sample(0.25)).unwrap();
        raw.put((0, 0), a, 2, &sample(0.3)).unwrap();
        raw.put((1, 0), a, 1, &sample(0.5)).unwrap();
        assert_eq!(raw.known("ADD64rr", Some(0.25)).unwrap(), Some(0.25));
        assert_eq!(raw.counts(), (5, 0));
        drop(raw);
        let (back, h) = Raw::replay(&path).unwrap();
        assert_eq!(h, header);
        assert!(back.replay_only());
        let first = back.take(a).unwrap();
        assert_eq!(first.looks, vec![sample(1.0 / 3.0), sample(0.3)]);
        assert_eq!(back.take(a).unwrap().looks, vec![sample(0.25)]);
        assert_eq!(back.take(a).unwrap().looks, vec![sample(0.5)]);
        assert_eq!(back.take(a).unwrap().looks, vec![sample(0.5)]);
        assert_eq!(back.take(b).unwrap().looks, vec![fault]);
        assert_eq!(back.take(key("c", "cc")), None);
        assert_eq!(back.known("ADD64rr", Some(9.0)).unwrap(), Some(0.25));
        assert_eq!(back.known("SUB64rr", Some(9.0)).unwrap(), None);
        back.put((2, 0), a, 1, &sample(7.0)).unwrap();
        let len = fs::metadata(&path).unwrap().len();
        drop(back);
        assert_eq!(fs::metadata(&path).unwrap().len(), len, "a replay wrote");
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A resume appends after a line a crash cut (which it drops), and
    /// refuses the raw file of another run; a bad line is refused naming
    /// file and line.
    #[test]
    fn a_cut_line_is_dropped_and_another_run_refused() {
        let dir = scratch("resume");
        let path = dir.join("db.yaml.LAT.raw");
        let raw = Raw::create(&path, &Header::new(run(), "x".into(), None, None)).unwrap();
        raw.put((0, 0), 7, 1, &Got::NotBuilt).unwrap();
        drop(raw);
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"body\":{\"batch\":0,\"ke").unwrap();
        drop(f);
        let (raw, _) = Raw::resume(&path, &run()).unwrap().unwrap();
        assert_eq!(raw.take(7).unwrap().looks, vec![Got::NotBuilt]);
        raw.put((1, 0), 8, 1, &Got::NotBuilt).unwrap();
        drop(raw);
        let (raw, _) = Raw::replay(&path).unwrap();
        assert!(raw.take(8).is_some());
        let other = Run {
            args: vec!["-i".into(), "SUB64rr".into()],
            ..run()
        };
        // Another run refuses it as it was, a cut line and all.
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"body\":{\"batch\":1,\"ke").unwrap();
        drop(f);
        let found = fs::read_to_string(&path).unwrap();
        let err = Raw::resume(&path, &other).err().unwrap().to_string();
        assert!(err.contains("another run, `winic LAT -i ADD64rr`"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), found);
        drop(Raw::resume(&path, &run()).unwrap());
        assert!(fs::read_to_string(&path).unwrap().ends_with("}\n"));
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"body\":{\"batch\":0,\"body\":0,\"key\":\"zz\",\"look\":1,\"got\":\"not_built\"}}\n")
            .unwrap();
        drop(f);
        let err = Raw::replay(&path).err().unwrap().to_string();
        assert!(err.contains(":4: key \"zz\""), "{err}");
        fs::write(&path, "").unwrap();
        let err = Raw::replay(&path).err().unwrap().to_string();
        assert!(err.contains("empty"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn keys_tell_pairs_apart() {
        assert_ne!(key("ab", "c"), key("a", "bc"));
        assert_eq!(key("add rax, rbx", "x"), key("add rax, rbx", "x"));
    }
}
