//! The command line's definition: every command, argument and help text
//! of `membank`, parsed by clap. The binary runs what is parsed; nothing
//! here reads a memory.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub mod ask;
pub mod blocks;
pub mod check;
pub mod compile;
pub mod context;
pub mod distill;
pub mod everos;
pub mod feedback;
pub mod fix;
pub mod inbox;
pub mod init;
pub mod links;
pub mod lint_llm;
pub mod mcp;
pub mod mv;
pub mod new;
pub mod qa;
pub mod read;
pub mod recall;
pub mod search;
pub mod snapshot;
pub mod supersede;
pub mod template;
pub mod terms;
pub mod tools;
pub mod translate;
pub mod undo;
pub mod values;
pub mod writeback;

/// Shown by `--version` (spec §14); a test keeps it equal to
/// `membank_core::SPEC_VERSION`.
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (Supervertaler Memory Bank Format v1.1)"
);

/// The level names `--log-level` accepts.
pub const LOG_LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];

/// Said in the `--help` of every command that prints text for a model.
pub const MODEL_TEXT_HELP: &str = "On a terminal, control characters and escape sequences in \
    the bank's files are shown as visible symbols; when standard output is a pipe or a file the \
    text is exact, because it is meant for a model. --json escapes them.";

/// Whether colours are used at all; `--color` and `NO_COLOR` decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// `auto` follows the `NO_COLOR` convention: any non-empty value turns
    /// colours off.
    pub fn use_color(self, no_color_env: Option<&str>) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => no_color_env.is_none_or(str::is_empty),
        }
    }
}

#[derive(Parser)]
#[command(
    name = "membank",
    version = LONG_VERSION,
    about = "Navigate, audit and maintain Supervertaler memory banks, Deja Vu project memories and everos memory roots",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The bank, Deja Vu project or everos memory root to open in the
    /// terminal UI (default: the current folder).
    pub bank: Option<PathBuf>,
    /// Use colours: auto follows NO_COLOR.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Read PATH as this layout instead of detecting it.
    #[arg(long, global = true, value_name = "LAYOUT", value_parser = format_parser())]
    pub format: Option<String>,
    /// How much goes to the log file in the state folder (default: info;
    /// MEMBANK_LOG sets it too).
    #[arg(long, global = true, value_name = "LEVEL",
          value_parser = clap::builder::PossibleValuesParser::new(LOG_LEVELS))]
    pub log_level: Option<String>,
    /// In the terminal interface, leave the mouse to the terminal (text
    /// selection) instead of clicking and scrolling panes.
    #[arg(long, global = true)]
    pub no_mouse: bool,
    /// Open the interface on the terminology check of this translated
    /// file (XLIFF, sdlxliff, mqxliff, TMX or text) in the Health pane.
    #[arg(long, value_name = "FILE")]
    pub qa: Option<PathBuf>,
    /// Take this day (YYYY-MM-DD) or local time (YYYY-MM-DDTHH:MM:SS) as
    /// now: staleness and every date written are as of it, so a report can
    /// be reproduced later (MEMBANK_TODAY sets it too).
    #[arg(long, global = true, value_name = "DATE")]
    pub today: Option<String>,
}

/// `--format` accepts exactly the registered layout names.
fn format_parser() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(membank_core::memory::layout_names())
}

#[derive(Subcommand)]
pub enum Command {
    /// Run the deterministic health checks.
    Check(check::Args),
    /// Fix the health findings that have one right answer (shown; written with --yes).
    Fix(fix::Args),
    /// Take back the last change membank made to a memory, or list them.
    Undo(undo::Args),
    /// Rename or move a note or folder, rewriting every link to it (shown; written with --yes).
    Mv(mv::Args),
    /// Create an article with the keys its folder requires (never overwrites).
    New(new::NewArgs),
    /// Capture a quick note: a bank's inbox, a Deja Vu project's event ledger.
    Note(new::NoteArgs),
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
    /// Print one article, found by path or name, with its frontmatter.
    Read(read::Args),
    /// Serve a bank, a Deja Vu project or an everos root to AI assistants over the Model Context Protocol.
    Mcp(mcp::Args),
    /// List the clients, domains and language codes the bank uses.
    Values(values::Args),
    /// Create a new memory bank.
    Init(init::Args),
    /// Open the terminal UI on a fresh copy of the bundled demo bank
    /// (`--format dejavu`: the demo Deja Vu project; `--format everos`: the
    /// demo everos memory root).
    Demo(DemoArgs),
    /// Ask the configured model a question, answered from the bank's context.
    Ask(ask::Args),
    /// Translate standard input with the bank's context.
    Translate(translate::Args),
    /// Turn a document into a proposed inbox note.
    Distill(distill::Args),
    /// Run the Health Check agent over the bank (`--llm`).
    Lint(lint_llm::Args),
    /// Deja Vu: scan the impressions for a cue and explain every score.
    Recall(recall::Args),
    /// Deja Vu: record that a newer record replaces an older one.
    Supersede(supersede::Args),
    /// Deja Vu: let the model turn notes into records and impressions, reviewed per file.
    Writeback(writeback::Args),
    /// Deja Vu: summarise recall feedback per route, or append a line.
    Feedback(feedback::Args),
    /// Ranked full-text search over a memory of any layout.
    Search(search::Args),
    /// Term articles as TBX, CSV or TSV (export, import) and a file's job glossary (--for).
    Terms(terms::Args),
    /// Check a translated file's terminology against the bank (exit 1 on findings).
    Qa(qa::Args),
    /// Find the memory root everos itself would use (EVEROS_ROOT,
    /// EVEROS_MEMORY__ROOT, [memory] root, ~/.everos), say which rule chose
    /// it, and list its owners with their entries.
    Everos(everos::RootArgs),
    /// List the entries of an everos memory root's daily logs.
    Entries(everos::EntriesArgs),
    /// Print one entry of an everos memory root.
    Entry(everos::EntryArgs),
}

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Only copy the demo and print its folder; do not open the UI.
    #[arg(long)]
    pub path: bool,
}
