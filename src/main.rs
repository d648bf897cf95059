//! The `membank` binary: a terminal UI and a headless CLI over membank-core.

mod cli;
mod demo;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
