//! The command line's shape: every command, its options and their help
//! text, and the parsers that name a bad value and what would be valid.

use clap::{Parser, Subcommand};
use winic::arch::variant::VectorTypes;
use winic::error::Error;
use winic::exec::run::Clock;
use winic::isa::Arch;

/// winic — instruction throughput and per-operand latency, measured on this
/// machine, for x86-64, AArch64 and RISC-V, from LLVM's instruction records.
///
/// Every winic binary carries the LLVM 19 tables of all three
/// architectures; `--arch` picks one (default: the machine's own).
#[derive(Parser)]
#[command(version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// Clock for converting time to cycles: a fixed frequency in GHz
    /// (`-f 3.5`, as in WINIC), or `auto` (the default): measured in every
    /// measurement's child with a chain of dependent one-cycle adds, before
    /// and after the timing, because shared machines and VMs change clock.
    #[arg(short = 'f', long = "frequency", global = true, value_name = "GHz|auto", value_parser = parse_clock, allow_negative_numbers = true)]
    pub frequency: Option<Clock>,
    /// With `emit`: write its kernel into DIR as an assembly file
    /// (`<FORM>.s`) that `winic MAN` assembles back to the same bytes
    /// (other commands refuse it).
    #[arg(long = "dump-asm", global = true, value_name = "DIR")]
    pub dump_asm: Option<std::path::PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// List instruction forms (LLVM records): opcode, name, assembly template.
    ///
    /// Pseudo and codegen-only records are left out unless --all is given.
    /// A count goes to standard error.
    List(ListArgs),
    /// Show one instruction form: operands with read/write/tied, implicit
    /// registers, flags, required features and the encoding layout.
    Show(ShowArgs),
    /// Print what winic detects of this machine: arch, CPU model, the
    /// features it has (in LLVM's names, after LLVM's implications; the
    /// raw values they were read from: CPUID, AT_HWCAP/AT_HWCAP2,
    /// riscv_hwprobe and /proc/cpuinfo), vector lengths, and how the clock
    /// is found. TP and LAT skip a form whose features are lacking, naming
    /// them; the same lines head every report.
    Host,
    /// Manual mode (as WINIC's MAN): assemble an assembly file with winic's
    /// own assembler and time one of its functions; prints cycles per
    /// instruction.
    ///
    /// The function receives the iteration count in the first argument
    /// register (x86 rdi, AArch64 x0, RISC-V a0) and must return; the loop
    /// is the file's own, so its instructions count in the time (give
    /// --nInst as the number of instructions one iteration executes, loop
    /// instructions included or not, as you want them counted). The file
    /// uses the syntax winic prints (`.intel_syntax noprefix` on x86), as
    /// the .s files WINIC and `--dump-asm` write; see docs/commands.md, "Manual mode".
    /// Runs on this machine's arch only; the child is pinned to one CPU.
    #[command(name = "MAN")]
    Man(ManArgs),
    /// Prove the encoders: for every real form whose operands are all
    /// registers or immediates, choose operands, encode, print, and decode
    /// the bytes again with capstone (and iced-x86 on x86); count outcomes.
    ///
    /// Outcomes: ok; capstone-unsupported (no decoder here knows the
    /// extension: neither a pass nor a failure); mismatch (decoded otherwise
    /// than intended: each one is listed); unencodable (with the reason).
    /// Exits 1 if there is any mismatch. scripts/cross-check.sh assembles
    /// the --examples output with llvm-mc as the independent proof.
    Selfcheck(SelfcheckArgs),
    /// TP mode (as WINIC's TP): measure the throughput of instruction
    /// forms of this machine, in cycles per instruction.
    ///
    /// Each form runs as up to 12 independent copies (fresh registers for
    /// everything written, shared ones for what is only read), timed with
    /// the body once and twice in a forked child that measures 16 forms
    /// at a time, in many short rounds, keeping only rounds in which the
    /// core's other hardware thread was idle (on an SMT machine, keep it
    /// idle: winic waits for such rounds). Memory operands address
    /// winic's data area at 0x40000000, each access of its own block;
    /// pushes, pops and string operations run with the loop setting rsp,
    /// rsi and rdi back every iteration. Forms that cannot run (absolute
    /// `moffs` addresses, `popf`, most control flow, privileged, missing
    /// features …) are skipped with the reason;
    /// faults (SIGILL …) are recorded and the run goes on. Results go to the report file
    /// (report_TP_<timestamp>.txt in the current directory) as they come;
    /// a summary of counts ends the run.
    #[command(name = "TP")]
    Tp(ModeArgs),
    /// LAT mode (as WINIC's LAT): measure every sub-latency of the
    /// instruction forms of this machine (from each register a form reads,
    /// explicit or implicit, to each it writes), in cycles: whole cycles
    /// where the chains' sums say so, and a lap through one sub-latency
    /// alone that is not whole kept to 0.01 (`add r, imm` folded at 0.19,
    /// `haddpd` 4.43). A form's `latency` is its largest exact value.
    ///
    /// Sub-latencies whose two ends can share a register are timed as a
    /// chain of copies of the form; the others (r64 -> flags, xmm -> r64)
    /// as a chain with helper forms that lead back, chosen per pair of
    /// register types as the pair with the smallest sum. Every chain is an
    /// equation over the sub-latencies on it, and all equations are solved
    /// together: values are exact or ranges [min, max]. The results merge
    /// into the same database as TP's (operandLatencies and latency); the
    /// report (report_LAT_<timestamp>.txt) lists every chain and helper,
    /// and the `winic LAT -i ...` command that measures a form's values
    /// again. Timing, skipping, the journal and --resume work as in TP.
    #[command(name = "LAT")]
    Lat(ModeArgs),
    /// Draw a TP or LAT database again from a run's raw file, measuring
    /// nothing: on any machine, with this winic's rules.
    ///
    /// Every TP and LAT run writes FILE.TP.raw (FILE.LAT.raw) beside its
    /// database: the run (selection, clock, arch), the CPU and the forms
    /// it lacked features for, then what every kernel measured (times
    /// once and twice, rounds, the clock beside them; or its fault). This
    /// replays the run from it: the same forms, skips, floor, helpers,
    /// chains and equations, each kernel given its recorded result. From
    /// the same winic the database comes out byte for byte as the run
    /// wrote it (into an empty file); a later winic applies its own rules
    /// to the old times. A kernel the run never measured (a new rule
    /// asks for another) fails as "not in the raw file".
    ///
    /// A `winic ports` raw file (FILE.ports.raw, ports.raw) replays the
    /// experiments, the fit and the held-back mixes, and prints what the
    /// run printed; with -o the inferred ports go into that database.
    #[command(name = "analyse", visible_alias = "analyze")]
    Analyse(AnalyseArgs),
    /// Compare two winic databases: the forms whose throughput or latency
    /// differ by more than a threshold, the largest first, and a summary
    /// per extension; exit status 1 when more forms differ than
    /// --allow says (a CI job's regression check between two runs, two
    /// machines or two winic versions).
    Compare(CompareArgs),
    /// Write one static page showing databases side by side, as
    /// uops.info's table does: a row per form (LLVM name, an assembly
    /// instance, extension), a column group per database (throughput,
    /// latency, inferred ports), filters by name (a regular expression),
    /// extension and "differs by more than N%", sorting on any column,
    /// a form's detail (operands, every sub-latency with its range), and
    /// pictures of how each database differs from the first. Everything
    /// is inline in DIR/index.html: it opens without a network. Each
    /// column group is named by --label, else by the CPU of the raw file
    /// beside the database (DB.TP.raw), else by the file's name.
    Html(HtmlArgs),
    /// Run every form's kernels once, untimed: the throughput kernel (up to
    /// 12 independent copies) and the latency kernel (a chain), each
    /// ITERATIONS=64 times in a forked child. Proves that what TP and LAT
    /// measure runs, on hardware and under qemu-user.
    ///
    /// Runs this machine's arch. Outcomes: ran; fault (the kernel and the
    /// signal: SIGILL for an instruction this CPU or emulator lacks);
    /// build-error (encoder or decode check); skipped (with the reason:
    /// memory operand, control flow, privileged …). Exits 0 unless winic
    /// itself fails; scripts/run-check.sh judges the counts.
    Runcheck(RuncheckArgs),
    /// Port conflicts: every pair of the given forms in a balanced mix (as
    /// many copies of each as take equal time alone, e.g. 5 `add` per
    /// `imul`, on registers of their own), timed as TP times a body, beside
    /// each form alone and each form's copies of the mix alone; prints
    /// cycles per unit of the mix, the slower part alone, both in turn, and
    /// how much they share.
    ///
    /// The experiments of port inference (docs/method.md, "Port
    /// conflicts"): a mix that runs as fast as its slower part alone shares
    /// no port it is bound by (`independent`); one that takes the sum
    /// shares all (`the same resources`). For forms whose time alone is
    /// that of one micro-op on N ports (1/N cycles), the shared ports
    /// follow: the mix's micro-ops on (copies)/T ports. Forms of this
    /// machine's arch; forms with an implicit dependency between
    /// copies (`adc`) are left out, saying so. Then a port mapping is
    /// fitted to the forms that run as one micro-op (each on N of P
    /// numbered ports, P as few as fit), with every mix's measured and
    /// predicted time: one mapping that fits, not the only one. With
    /// --compare, how many forms it places on the ports an OSACA machine
    /// file gives them. With -o, the inferred ports go into a winic
    /// database (inferredPorts), which `winic export --osaca` without
    /// --base turns into OSACA's port_pressure.
    ///
    /// Up to 64 forms run in every pair. More (every form, with neither
    /// -i nor --filter) make a full run: every form alone, a seed of
    /// single-micro-op forms (--seed, spread over port counts and register
    /// widths) in every pair and its fit, one seed form of each port set
    /// as a probe, and every other single-micro-op form mixed with each
    /// probe and given the port set that predicts those mixes best; forms
    /// with the same set are a class, listed with the mixes that decided
    /// it. A full x86 run takes minutes.
    Ports(PortsArgs),
    /// Write a kernel as a static ELF executable that runs it and exits 0.
    ///
    /// The kernel is the function winic measures (prologue, initial values,
    /// the loop: body --unroll times, count-down, branch back; epilogue)
    /// with one instance of the form as its body, operands as `winic show`
    /// gives them. A start stub calls it with --iterations in the first
    /// argument register, then exits with status 0 (Linux `exit`). Every
    /// instruction is encoded by winic and decode-checked. The file is made
    /// executable (0755); it needs no libc, so another arch's kernel runs
    /// under qemu-user: `qemu-aarch64 -cpu max ./k.elf; echo $?`. A fault of
    /// the form (SIGILL …) kills it with that signal. The listing (address,
    /// bytes, text) goes to standard output.
    ///
    /// A form that addresses memory through a base register (x86 `[base +
    /// disp]`, AArch64 and RISC-V loads and stores) gets winic's data area
    /// mapped at 0x40000000 with the contents every kernel sees; forms that
    /// reach memory otherwise (x86 `push`, string and RIP-relative forms)
    /// are refused, saying why.
    Emit(EmitArgs),
    /// Write a winic database as an OSACA machine file (OSACA 0.7.1 loads
    /// it: `osaca --arch FILE kernel.s`).
    ///
    /// Every measured form becomes an OSACA instruction form: its name and
    /// operands as OSACA spells them (derived from LLVM's assembly string
    /// and operand types: AT&T order and mnemonic on x86, with the Intel
    /// mnemonic as a second name where it differs), winic's throughput,
    /// its latency (the largest exact sub-latency) and llvm_name. With
    /// --base (one of OSACA's files for the same core, e.g. zen4.yml) its
    /// top-level fields and port model are kept, its forms take winic's
    /// values (port pressure scaled to the measured throughput) and forms
    /// it lacks are added; without, the ports are abstract and the file's
    /// header says what it cannot know. The counts go to standard output
    /// and into the file's header.
    ///
    /// With --isa-out (x86_64), also OSACA's ISA file, which says which
    /// operands each form reads and writes, with LLVM's answer where
    /// OSACA 0.7.1's is wrong (`xor (mem), %r64` and `cmovCC` lose their
    /// register's dependency there) or missing; write it to
    /// ~/.osaca/data/isa/x86.yml, where OSACA looks first.
    Export(ExportArgs),
}

/// The options TP and LAT share (WINIC's).
#[derive(clap::Args)]
pub struct ModeArgs {
    /// Only these forms (LLVM names), e.g. -i ADD64rr IMUL64rr.
    #[arg(short = 'i', long = "instr", value_name = "NAME", num_args = 1..)]
    pub instrs: Vec<String>,
    /// Only forms whose LLVM name or mnemonic matches this regular
    /// expression.
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// Only forms with an LLVM opcode number at least N.
    #[arg(long = "minOpcode", value_name = "N", value_parser = whole::<u32>(0, u32::MAX.into()), allow_negative_numbers = true)]
    pub min_opcode: Option<u32>,
    /// Only forms with an LLVM opcode number at most N.
    #[arg(long = "maxOpcode", value_name = "N", value_parser = whole::<u32>(0, u32::MAX.into()), allow_negative_numbers = true)]
    pub max_opcode: Option<u32>,
    /// The database (WINIC's YAML format) the results are merged into,
    /// the same file for TP and LAT: this run's values (throughputs, or
    /// sub-latencies) replace those of the same forms, everything else
    /// in the file stays. Written atomically at the end and every 30 s;
    /// every finished form is also appended at once to
    /// FILE.TP.journal (FILE.LAT.journal), so an interrupted run loses
    /// at most what was in progress (continue it with --resume). What
    /// every kernel measured goes to FILE.TP.raw (FILE.LAT.raw) as it
    /// comes: `winic analyse` draws the database from it again.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        default_value = "winic.yaml"
    )]
    pub output: std::path::PathBuf,
    /// Continue an interrupted run: forms listed in the mode's journal
    /// are not measured again (LAT: their values stay as measured; the
    /// remaining forms choose helpers among themselves), nor any kernel
    /// its raw file holds a result of.
    #[arg(long)]
    pub resume: bool,
    /// Write no report file.
    #[arg(long = "noReport")]
    pub no_report: bool,
    /// Measure x87 forms too (skipped by default, as in WINIC).
    #[arg(long = "x87FP")]
    pub x87: bool,
    /// Measure on this core (a CPU number as in /proc/cpuinfo;
    /// default: the first CPU this process may run on). Not WINIC's
    /// -c/--cpu, which names an LLVM CPU model: winic decides what the
    /// CPU runs from CPUID.
    #[arg(long = "core", value_name = "N", value_parser = parse_core, allow_negative_numbers = true)]
    pub cpu: Option<usize>,
    /// RISC-V: the vector types every RVV form is measured at besides
    /// WINIC's e32 m1, into its entry's vectorConfigs: `all` (every
    /// element width 8-64 and grouping mf8-m8 the form is defined at, as
    /// LLVM's pseudos and the V specification say), `none`, or a list
    /// such as e8m1,e16mf2,e64m8. Other arches ignore it.
    #[arg(long = "vtypes", value_name = "LIST", default_value = "all", value_parser = VectorTypes::parse)]
    pub vtypes: VectorTypes,
}

/// The options of `winic list`.
#[derive(clap::Args)]
pub struct ListArgs {
    /// Architecture: x86_64 (x86), aarch64 (arm64) or riscv64 (riscv).
    #[arg(long, value_parser = parse_arch)]
    pub arch: Option<Arch>,
    /// Regular expression matched against the LLVM name and the mnemonic,
    /// e.g. '^VFMADD231PD' or '^vadd\.'.
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// Include pseudo and codegen-only records.
    #[arg(long)]
    pub all: bool,
}

/// The options of `winic show`.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// The LLVM record name, e.g. ADD64rr, FMADDDrrr, VADD_VV.
    pub name: String,
    /// Architecture: x86_64 (x86), aarch64 (arm64) or riscv64 (riscv).
    #[arg(long, value_parser = parse_arch)]
    pub arch: Option<Arch>,
}

/// The options of `winic MAN`.
#[derive(clap::Args)]
pub struct ManArgs {
    /// The assembly file.
    #[arg(short = 'p', long = "path", value_name = "FILE")]
    pub path: std::path::PathBuf,
    /// The label of the function to time.
    #[arg(long = "funcName", value_name = "LABEL")]
    pub func_name: String,
    /// Instructions per iteration of its loop (the divisor of the
    /// result).
    #[arg(short = 'n', long = "nInst", value_name = "N", value_parser = whole::<u64>(1, u64::MAX), allow_negative_numbers = true)]
    pub n_inst: u64,
    /// A function called once (with 1 as its argument) before the
    /// timing, e.g. to put the vector unit in the right state.
    #[arg(long = "initName", value_name = "LABEL")]
    pub init_name: Option<String>,
    /// Print the assembled listing (offset, bytes, source line) to
    /// standard error first.
    #[arg(long)]
    pub listing: bool,
    /// Keep what was measured (the timing, the clock beside it) in this
    /// raw file: `winic analyse FILE` prints the result line from it again,
    /// on any machine, measuring nothing.
    #[arg(long, value_name = "FILE")]
    pub raw: Option<std::path::PathBuf>,
}

/// The options of `winic selfcheck`.
#[derive(clap::Args)]
pub struct SelfcheckArgs {
    /// Architecture: x86_64 (x86), aarch64 (arm64) or riscv64 (riscv).
    /// Default: all three.
    #[arg(long, value_parser = parse_arch)]
    pub arch: Option<Arch>,
    /// One JSON object per arch and line, with the keys arch, total,
    /// ok, capstone_unsupported, mismatch, unencodable, failures
    /// ({llvmName, kind, reason, text, bytes}), reasons and seconds.
    #[arg(long, conflicts_with = "examples")]
    pub json: bool,
    /// One line per form instead of the summary: arch, LLVM name,
    /// outcome, required features, bytes (hex) and text, tab-separated.
    #[arg(long)]
    pub examples: bool,
}

/// The options of `winic analyse`.
#[derive(clap::Args)]
pub struct AnalyseArgs {
    /// The raw file (FILE.TP.raw, FILE.LAT.raw, FILE.ports.raw, or one
    /// `winic MAN --raw` wrote).
    #[arg(value_name = "RAW")]
    pub raw: std::path::PathBuf,
    /// The database the results are merged into (created if absent);
    /// needed for TP and LAT.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Write no report file (TP, LAT).
    #[arg(long = "noReport")]
    pub no_report: bool,
    /// ports: an OSACA machine file to compare the fit with, as for
    /// `winic ports --compare`.
    #[arg(long, value_name = "FILE")]
    pub compare: Vec<std::path::PathBuf>,
}

/// The options of `winic compare`.
#[derive(clap::Args)]
pub struct CompareArgs {
    /// The reference database (A): a YAML database, or a TP report
    /// (winic's or WINIC's), read as its run's throughputs.
    #[arg(value_name = "A")]
    pub a: std::path::PathBuf,
    /// The database compared with it (B).
    #[arg(value_name = "B")]
    pub b: std::path::PathBuf,
    /// A value differs when B's moved from A's by more than this many
    /// percent (and by more than the databases' rounding, 0.01 cycles).
    #[arg(long, value_name = "PCT", default_value_t = 10, value_parser = whole::<u32>(0, 1000), allow_negative_numbers = true)]
    pub threshold: u32,
    /// Forms that may differ before the exit status is 1.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = whole::<usize>(0, u64::MAX), allow_negative_numbers = true)]
    pub allow: usize,
    /// Differences listed, the largest first.
    #[arg(long, value_name = "N", default_value_t = 30, value_parser = whole::<usize>(0, u64::MAX), allow_negative_numbers = true)]
    pub top: usize,
}

/// The options of `winic html`.
#[derive(clap::Args)]
pub struct HtmlArgs {
    /// The databases (winic's or WINIC's YAML, or a TP report read as its
    /// run's throughputs), all of one arch; the first is the one the others
    /// are compared with.
    #[arg(value_name = "DB", required = true, num_args = 1..)]
    pub dbs: Vec<std::path::PathBuf>,
    /// The directory the page goes into (DIR/index.html; made when
    /// missing).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: std::path::PathBuf,
    /// The name of a database's column group, one per database in order
    /// (`--label zen4 --label "Xeon 8480"`).
    #[arg(long, value_name = "NAME")]
    pub label: Vec<String>,
    /// A TP or LAT report (report_TP_<time>.txt) of a run that wrote one
    /// of the databases: a form's detail shows its lines. It goes with the
    /// database of the file name its `Command:` line wrote (`-o`), or with
    /// the only database; repeat for several reports.
    #[arg(long, value_name = "FILE")]
    pub report: Vec<std::path::PathBuf>,
}

/// The options of `winic runcheck`.
#[derive(clap::Args)]
pub struct RuncheckArgs {
    /// Regular expression on the LLVM name and the mnemonic, as for
    /// `winic list` (default: every real form).
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// One line per form (name, outcome, details; tab-separated)
    /// before the summary.
    #[arg(long, conflicts_with = "json")]
    pub list: bool,
    /// One JSON object: the summary and every row ({llvmName,
    /// outcome, ...}).
    #[arg(long)]
    pub json: bool,
    /// Seconds a kernel may run before it is killed as hanging.
    #[arg(long, default_value_t = 20, value_parser = whole::<u64>(1, 3600), allow_negative_numbers = true)]
    pub timeout: u64,
}

/// The options of `winic ports`.
#[derive(clap::Args)]
pub struct PortsArgs {
    /// The forms (LLVM names), e.g. -i ADD64rr IMUL64rr VADDPDZrr.
    #[arg(short = 'i', long = "instr", value_name = "NAME", num_args = 1..)]
    pub instrs: Vec<String>,
    /// Forms whose LLVM name or mnemonic matches this regular
    /// expression (with -i: those too).
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// Measure on this core (as TP's --core).
    #[arg(long = "core", value_name = "N", value_parser = parse_core, allow_negative_numbers = true)]
    pub cpu: Option<usize>,
    /// In a full run (more than 64 forms): how many single-micro-op
    /// forms run in every pair to fix the ports and the probes.
    #[arg(long, value_name = "N", default_value_t = winic::mode::ports::classes::SEED, value_parser = whole::<usize>(3, winic::mode::ports::MAX_FORMS as u64), allow_negative_numbers = true)]
    pub seed: usize,
    /// After the fit, measure this many mixes of three of the fitted
    /// forms (each with as many copies as it has ports), chosen by a
    /// fixed sequence, and report how well the mapping predicts them:
    /// a test on mixes it was not fitted to. As many mixes again with a
    /// memory form in each, predicted as `export --osaca` composes memory
    /// forms (the register form's ports, the access on the load and
    /// store ports), when the selection holds the general-purpose load
    /// and store.
    #[arg(long = "held-back", value_name = "N", default_value_t = 0, value_parser = whole::<usize>(0, 1000), allow_negative_numbers = true)]
    pub held_back: usize,
    /// An OSACA machine file of this core (e.g. spr.yml, zen4.yml from
    /// OSACA's data directory, or LLVM's model of it written by
    /// scripts/llvm-ports.py): after the fitted mapping, how many of
    /// the forms it has as one micro-op get the same ports from the
    /// fit, winic's numbered ports renamed to its names as best agrees.
    /// Give it again to compare with more than one file.
    #[arg(long, value_name = "FILE")]
    pub compare: Vec<std::path::PathBuf>,
    /// The winic database (TP's and LAT's file, e.g. winic.yaml) the
    /// inferred ports are written into, as each placed form's
    /// inferredPorts (a form no set fits: the nearest set, with
    /// inferredPortsMisfit, its mixes' error with it): created if
    /// missing, its throughputs and latencies kept. The ports are
    /// numbered by this run, so every
    /// form's ports from an earlier run are removed. Locked from the
    /// start, written atomically at the end (an interrupted run
    /// writes nothing). Without -o nothing is written.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Continue an interrupted run from its raw file (FILE.ports.raw
    /// with -o, else ports.raw): the kernels it holds are not
    /// measured again.
    #[arg(long)]
    pub resume: bool,
}

/// The options of `winic emit`.
#[derive(clap::Args)]
pub struct EmitArgs {
    /// Architecture: x86_64 (x86), aarch64 (arm64) or riscv64 (riscv).
    #[arg(long, value_parser = parse_arch)]
    pub arch: Option<Arch>,
    /// The LLVM record name of the form, e.g. ADD64rr, ADDXrs, ADD.
    #[arg(short = 'i', long = "instr", value_name = "FORM")]
    pub form: String,
    /// Copies of the body per loop iteration.
    #[arg(long, default_value_t = 1, value_parser = whole::<u64>(1, 100_000), allow_negative_numbers = true)]
    pub unroll: u64,
    /// Loop iterations (at least 1).
    #[arg(long, default_value_t = 1000, value_parser = whole::<u64>(1, u64::MAX), allow_negative_numbers = true)]
    pub iterations: u64,
    /// The executable to write (replaced if it exists). Without it,
    /// give --dump-asm DIR to write the kernel as assembly only.
    #[arg(long, value_name = "FILE", required_unless_present = "dump_asm")]
    pub elf: Option<std::path::PathBuf>,
}

/// The options of `winic export`.
#[derive(clap::Args)]
pub struct ExportArgs {
    /// Write an OSACA machine file (the only format).
    #[arg(long, required = true)]
    pub osaca: bool,
    /// The winic databases (e.g. a TP and a LAT file), merged in
    /// order.
    #[arg(value_name = "DB", default_value = "winic.yaml", num_args = 1..)]
    pub databases: Vec<std::path::PathBuf>,
    /// An OSACA machine file of the same core whose port model and
    /// forms are kept (e.g. OSACA's zen4.yml).
    #[arg(long, value_name = "FILE")]
    pub base: Option<std::path::PathBuf>,
    /// The machine file to write.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        default_value = "osaca.yml"
    )]
    pub output: std::path::PathBuf,
    /// The arch the database was measured on: x86_64 (x86) or aarch64
    /// (arm64); default: this machine's.
    #[arg(long, value_parser = parse_arch)]
    pub arch: Option<Arch>,
    /// Also write OSACA's ISA file with LLVM's operand access (x86_64).
    #[arg(long, value_name = "FILE")]
    pub isa_out: Option<std::path::PathBuf>,
    /// OSACA's ISA file to start from (default: isa/x86.yml beside
    /// --base, as in OSACA's data directory).
    #[arg(long, value_name = "FILE", requires = "isa_out")]
    pub isa_base: Option<std::path::PathBuf>,
}

fn parse_arch(s: &str) -> Result<Arch, String> {
    Arch::parse(s)
}

fn parse_clock(s: &str) -> Result<Clock, String> {
    if s.eq_ignore_ascii_case("auto") {
        return Ok(Clock::Auto);
    }
    match s.parse::<f64>() {
        Ok(g) if g > 0.05 && g < 20.0 => Ok(Clock::Fixed(g)),
        _ => Err(format!(
            "`{s}` is no frequency: give GHz between 0.05 and 20 (e.g. 3.5), or auto"
        )),
    }
}

/// A parser of whole numbers from `lo` to `hi` whose error names the value
/// and the range (clap's own says "invalid digit found in string" of `-2`).
fn whole<T>(lo: u64, hi: u64) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync
where
    T: TryFrom<u64>,
{
    move |s: &str| {
        s.trim()
            .parse::<u64>()
            .ok()
            .filter(|n| (lo..=hi).contains(n))
            .and_then(|n| T::try_from(n).ok())
            .ok_or_else(|| {
                if hi == u64::MAX {
                    format!("`{s}` is no whole number of at least {lo}")
                } else {
                    format!("`{s}` is no whole number from {lo} to {hi}")
                }
            })
    }
}

/// The CPUs this process may run on, as a list for messages.
fn allowed_cpus() -> Result<(nix::sched::CpuSet, String), Error> {
    let set = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0))
        .map_err(|e| Error::Failed(format!("reading the CPUs this process may use: {e}")))?;
    let allowed: Vec<String> = (0..nix::sched::CpuSet::count())
        .filter(|&c| set.is_set(c).unwrap_or(false))
        .map(|c| c.to_string())
        .collect();
    Ok((set, allowed.join(", ")))
}

/// `cpu`, when this process may run on it.
pub fn allowed_cpu(cpu: usize) -> Result<usize, Error> {
    let (set, allowed) = allowed_cpus()?;
    if set.is_set(cpu).unwrap_or(false) {
        return Ok(cpu);
    }
    Err(Error::BadInput(format!(
        "--core {cpu}: this process may not run on CPU {cpu}; allowed: {allowed}"
    )))
}

/// `--core N`: a CPU number (whether this process may use it is checked
/// by [`allowed_cpu`]); anything else is refused with the CPUs allowed.
fn parse_core(s: &str) -> Result<usize, String> {
    s.trim().parse().map_err(|_| {
        let allowed = allowed_cpus().map_or_else(|e| e.to_string(), |(_, a)| a);
        format!("`{s}` is no CPU number: give one this process may use: {allowed}")
    })
}
