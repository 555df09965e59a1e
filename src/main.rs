//! The `winic` command line: parse, dispatch, exit codes. The commands'
//! shape is [`args`], what each does with its options [`commands`]; a
//! TP or LAT run is [`winic::mode`], which gets a plain request.

#[path = "main/args.rs"]
mod args;
#[path = "main/commands.rs"]
mod commands;
#[path = "main/progress.rs"]
mod progress;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;
use winic::error::Error;
use winic::mode::Mode;

fn run(cli: Cli) -> Result<(), Error> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // Only `emit` writes its kernel as assembly; a flag the command would
    // silently ignore leaves the user looking for files that never come.
    if let Some(dir) = &cli.dump_asm {
        if !matches!(cli.command, Command::Emit { .. }) {
            return Err(Error::BadInput(format!(
                "--dump-asm {}: only `winic emit` writes its kernel as assembly; \
                 for a form that TP or LAT measures, run `winic emit -i FORM --dump-asm {}`",
                dir.display(),
                dir.display()
            )));
        }
    }
    let f = cli.frequency;
    match cli.command {
        Command::Man(a) => commands::man(a, f, &mut out),
        Command::List(a) => commands::list(a, &mut out),
        Command::Host => commands::host(&mut out),
        Command::Show(a) => commands::show(a, &mut out),
        Command::Selfcheck(a) => commands::selfcheck(a, &mut out),
        Command::Analyse(a) => commands::analyse(a, f, &mut out),
        Command::Compare(a) => commands::compare(a, &mut out),
        Command::Html(a) => commands::html(a, &mut out),
        Command::Tp(a) => commands::run_mode(Mode::Tp, a, f, &mut out),
        Command::Lat(a) => commands::run_mode(Mode::Lat, a, f, &mut out),
        Command::Runcheck(a) => commands::runcheck(a, &mut out),
        Command::Ports(a) => commands::ports(a, f, &mut out),
        Command::Emit(a) => commands::emit(a, cli.dump_asm.as_deref(), &mut out),
        Command::Export(a) => commands::export(a, &mut out),
    }
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
