//! Command-line parsing and dispatch. Each subcommand lives in its own module
//! and returns the process exit code.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod ask;
mod blocks;
mod check;
mod common;
mod compile;
mod context;
mod distill;
mod inbox;
mod init;
mod links;
mod lint_llm;
mod llm_common;
mod snapshot;
mod template;
mod translate;
mod values;

/// Shown by `--version` (spec §14); a test keeps it equal to
/// `membank_core::SPEC_VERSION`.
const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (Supervertaler Memory Bank Format v1.1)"
);

#[derive(Parser)]
#[command(
    name = "membank",
    version = LONG_VERSION,
    about = "Navigate, audit and maintain Supervertaler memory banks",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the deterministic health checks.
    Check(check::Args),
    /// Score and budget the bank for a client / domain / language pair.
    Context(context::Args),
    /// Parse `### FILE:` blocks from an LLM reply and optionally write them.
    Blocks(blocks::Args),
    /// Apply an LLM reply to the pending inbox files (write, stamp, archive).
    Compile(compile::Args),
    /// List the pending inbox files.
    Inbox(inbox::Args),
    /// Build the Health Check snapshot of the content folders.
    Snapshot(snapshot::Args),
    /// Show the prompt template an agent would use.
    Template(template::Args),
    /// Show an article's outgoing links and backlinks.
    Links(links::Args),
    /// List the clients, domains and language codes the bank uses.
    Values(values::Args),
    /// Create a new memory bank.
    Init(init::Args),
    /// Ask the configured model a question, answered from the bank's context.
    Ask(ask::Args),
    /// Translate standard input with the bank's context.
    Translate(translate::Args),
    /// Turn a document into a proposed inbox note.
    Distill(distill::Args),
    /// Run the Health Check agent over the bank (`--llm`).
    Lint(lint_llm::Args),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Check(a)) => check::run(a),
        Some(Command::Context(a)) => context::run(a),
        Some(Command::Blocks(a)) => blocks::run(a),
        Some(Command::Compile(a)) => compile::run(a),
        Some(Command::Inbox(a)) => inbox::run(a),
        Some(Command::Snapshot(a)) => snapshot::run(a),
        Some(Command::Template(a)) => template::run(a),
        Some(Command::Links(a)) => links::run(a),
        Some(Command::Values(a)) => values::run(a),
        Some(Command::Init(a)) => init::run(a),
        Some(Command::Ask(a)) => ask::run(a),
        Some(Command::Translate(a)) => translate::run(a),
        Some(Command::Distill(a)) => distill::run(a),
        Some(Command::Lint(a)) => lint_llm::run(a),
        None => {
            eprintln!("membank: the terminal UI is not available yet; see `membank --help`");
            Ok(ExitCode::from(2))
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("membank: {e:#}");
            ExitCode::from(2)
        }
    }
}
