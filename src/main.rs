//! The `winic` command line: parse, dispatch, exit codes. No logic here.

use clap::{Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;
use winic::error::Error;
use winic::inspect::{self, ListQuery};
use winic::isa::{Arch, Isa};

/// winic — instruction throughput and per-operand latency, measured on this
/// machine, for x86-64, AArch64 and RISC-V, from LLVM's instruction records.
///
/// Every winic binary carries the LLVM 19 tables of all three
/// architectures; `--arch` picks one (default: the machine's own).
#[derive(Parser)]
#[command(version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List instruction forms (LLVM records): opcode, name, assembly template.
    ///
    /// Pseudo and codegen-only records are left out unless --all is given.
    /// A count goes to standard error.
    List {
        /// Architecture: x86_64 (x86), aarch64 (arm64) or riscv64 (riscv).
        #[arg(long, value_parser = parse_arch)]
        arch: Option<Arch>,
        /// Regular expression matched against the LLVM name and the mnemonic,
        /// e.g. '^VFMADD231PD' or '^vadd\.'.
        #[arg(long, value_name = "REGEX")]
        filter: Option<String>,
        /// Include pseudo and codegen-only records.
        #[arg(long)]
        all: bool,
    },
    /// Show one instruction form: operands with read/write/tied, implicit
    /// registers, flags, required features and the encoding layout.
    Show {
        /// The LLVM record name, e.g. ADD64rr, FMADDDrrr, VADD_VV.
        name: String,
        /// Architecture: x86_64 (x86), aarch64 (arm64) or riscv64 (riscv).
        #[arg(long, value_parser = parse_arch)]
        arch: Option<Arch>,
    },
}

fn parse_arch(s: &str) -> Result<Arch, String> {
    Arch::parse(s)
}

fn arch_or_host(arch: Option<Arch>) -> Result<Arch, Error> {
    arch.or_else(Arch::host).ok_or_else(|| {
        Error::BadInput("this machine is not x86_64, aarch64 or riscv64: give --arch".into())
    })
}

fn run(cli: Cli) -> Result<(), Error> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let io = |e| Error::Io("writing to standard output".into(), e);
    match cli.command {
        Command::List { arch, filter, all } => {
            let arch = arch_or_host(arch)?;
            let forms = inspect::select(&ListQuery {
                arch,
                filter: filter.as_deref(),
                all,
            })?;
            for i in &forms {
                if let Err(e) = writeln!(out, "{}", inspect::list_line(i)) {
                    // A closed pipe (`winic list | head`) is not an error.
                    if e.kind() == std::io::ErrorKind::BrokenPipe {
                        return Ok(());
                    }
                    return Err(io(e));
                }
            }
            let isa = Isa::get(arch);
            eprintln!(
                "{} forms listed ({arch}: {} real, {} records in all)",
                forms.len(),
                isa.real_instrs().count(),
                isa.instrs().count()
            );
        }
        Command::Show { name, arch } => {
            let arch = arch_or_host(arch)?;
            let form = inspect::find(arch, &name)?;
            write!(out, "{}", inspect::show(&form)).map_err(io)?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("winic: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
