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
    /// file (XLIFF, sdlxliff, mqxliff, TMX or text) in the Health pane;
    /// "FILE SRC:TGT" gives the pair of an XLIFF that names no target
    /// language.
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

/// Every command but `terms` is deferred: only the parsed command's
/// arguments are built (building all of them was a good part of a small
/// command's start); `--help` lists the commands from their names and
/// about lines alone.
#[derive(Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Run the deterministic health checks.
    Check(Deferred<check::Args>),
    /// Fix the health findings that have one right answer (shown; written with --yes).
    Fix(Deferred<fix::Args>),
    /// Take back the last change membank made to a memory, or list them.
    Undo(Deferred<undo::Args>),
    /// Rename or move a note or folder, rewriting every link to it (shown; written with --yes).
    Mv(Deferred<mv::Args>),
    /// Create an article with the keys its folder requires (never overwrites).
    New(Deferred<new::NewArgs>),
    /// Capture a quick note: a bank's inbox, a Deja Vu project's event ledger.
    Note(Deferred<new::NoteArgs>),
    /// Score and budget the bank for a client / domain / language pair.
    Context(Deferred<context::Args>),
    /// Parse `### FILE:` blocks from an LLM reply and optionally write them.
    Blocks(Deferred<blocks::Args>),
    /// Apply an LLM reply to the pending inbox files (write, stamp, archive).
    Compile(Deferred<compile::Args>),
    /// List the pending inbox files.
    Inbox(Deferred<inbox::Args>),
    /// Build the Health Check snapshot of the content folders.
    Snapshot(Deferred<snapshot::Args>),
    /// Show the prompt template an agent would use.
    Template(Deferred<template::Args>),
    /// Show an article's outgoing links and backlinks.
    Links(Deferred<links::Args>),
    /// Print one article, found by path or name, with its frontmatter.
    Read(Deferred<read::Args>),
    /// Serve a bank, a Deja Vu project or an everos root to AI assistants over the Model Context Protocol.
    Mcp(Deferred<mcp::Args>),
    /// List the clients, domains and language codes the bank uses.
    Values(Deferred<values::Args>),
    /// Create a new memory bank.
    Init(Deferred<init::Args>),
    /// Open the terminal UI on a fresh copy of the bundled demo bank
    /// (`--format dejavu`: the demo Deja Vu project; `--format everos`: the
    /// demo everos memory root).
    Demo(Deferred<DemoArgs>),
    /// Ask the configured model a question, answered from the bank's context.
    Ask(Deferred<ask::Args>),
    /// Translate standard input with the bank's context.
    Translate(Deferred<translate::Args>),
    /// Turn a document into a proposed inbox note.
    Distill(Deferred<distill::Args>),
    /// Run the Health Check agent over the bank (`--llm`).
    Lint(Deferred<lint_llm::Args>),
    /// Deja Vu: scan the impressions for a cue and explain every score.
    Recall(Deferred<recall::Args>),
    /// Deja Vu: record that a newer record replaces an older one.
    Supersede(Deferred<supersede::Args>),
    /// Deja Vu: let the model turn notes into records and impressions, reviewed per file.
    Writeback(Deferred<writeback::Args>),
    /// Deja Vu: summarise recall feedback per route, or append a line.
    Feedback(Deferred<feedback::Args>),
    /// Ranked full-text search over a memory of any layout.
    Search(Deferred<search::Args>),
    #[command(flatten)]
    Eager(Eager),
    /// Check a translated file's terminology against the bank (exit 1 on findings).
    Qa(Deferred<qa::Args>),
    /// Find the memory root everos itself would use (EVEROS_ROOT,
    /// EVEROS_MEMORY__ROOT, [memory] root, ~/.everos), say which rule chose
    /// it, and list its owners with their entries.
    Everos(Deferred<everos::RootArgs>),
    /// List the entries of an everos memory root's daily logs.
    Entries(Deferred<everos::EntriesArgs>),
    /// Print one entry of an everos memory root.
    Entry(Deferred<everos::EntryArgs>),
}

/// The commands built with the rest of the definition. `terms` has its own
/// `--format`: a deferred command would get the global one first, then its
/// own, and list both.
#[derive(Subcommand)]
pub enum Eager {
    /// Term articles as TBX, CSV or TSV (export, import) and a file's job glossary (--for).
    Terms(terms::Args),
}

/// A deferred command's arguments. The about line the command already has
/// is kept: a struct flattened into the arguments (the query, the budget)
/// sets its own comment as the about line, which the command's came after
/// when it was built at once.
pub struct Deferred<T>(pub T);

/// The global options as the top level defines them, for the commands
/// given stand-ins by [`command`] to take when they are built.
static GLOBALS: std::sync::OnceLock<Vec<clap::Arg>> = std::sync::OnceLock::new();

/// The whole definition, as `Cli::command()`, with the global options
/// copied only into the command that gets built. Building the top level
/// copies every global option into every command (its help, parser and
/// possible values: a good part of the definition's cost, freed again
/// unused) except where a command already has an argument of that name;
/// each deferred command is given a bare stand-in of that name, which it
/// swaps for the option itself when it is built, in the place clap's copy
/// would have: before its own arguments, in the top level's order.
pub fn command() -> clap::Command {
    let command = <Cli as clap::CommandFactory>::command();
    let globals = GLOBALS.get_or_init(|| {
        command
            .get_arguments()
            .filter(|a| a.is_global_set())
            .cloned()
            .collect()
    });
    command.mut_subcommands(|sub| {
        // A command built at once (`terms`) has its arguments already, and
        // gets clap's own copies.
        if sub.get_arguments().next().is_some() {
            return sub;
        }
        globals
            .iter()
            .fold(sub, |sub, g| sub.arg(clap::Arg::new(g.get_id().clone())))
    })
}

/// A stand-in of [`command`] replaced by the global option it stands for.
fn take_globals(command: clap::Command) -> clap::Command {
    let Some(globals) = GLOBALS.get() else {
        return command;
    };
    globals.iter().fold(command, |command, g| {
        let stand_in = command
            .get_arguments()
            .any(|a| a.get_id() == g.get_id() && !a.is_global_set());
        if stand_in {
            // Taken out and put back last: the stand-ins are all there is
            // yet, so the options end up in the top level's order.
            command.mut_arg(g.get_id(), |_| g.clone())
        } else {
            command
        }
    })
}

fn keep_about(
    command: clap::Command,
    augment: fn(clap::Command) -> clap::Command,
) -> clap::Command {
    let about = command.get_about().cloned();
    let long_about = command.get_long_about().cloned();
    let command = augment(take_globals(command));
    let command = match about {
        Some(about) => command.about(about),
        None => command.about(None),
    };
    match long_about {
        Some(long_about) => command.long_about(long_about),
        None => command.long_about(None),
    }
}

impl<T: clap::Args> clap::Args for Deferred<T> {
    fn augment_args(command: clap::Command) -> clap::Command {
        keep_about(command, T::augment_args)
    }
    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        keep_about(command, T::augment_args_for_update)
    }
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }
    fn from_arg_matches_mut(matches: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Deferred)
    }
    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }
    fn update_from_arg_matches_mut(
        &mut self,
        matches: &mut clap::ArgMatches,
    ) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Only copy the demo and print its folder; do not open the UI.
    #[arg(long)]
    pub path: bool,
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, FromArgMatches, Parser};

    use super::*;

    /// Each command's name with its about lines, as `membank --help` and
    /// the command's own help show them.
    fn abouts(command: &clap::Command) -> Vec<(String, Option<String>, Option<String>)> {
        command
            .get_subcommands()
            .map(|c| {
                (
                    c.get_name().to_owned(),
                    c.get_about().map(ToString::to_string),
                    c.get_long_about().map(ToString::to_string),
                )
            })
            .collect()
    }

    #[test]
    fn a_command_built_late_keeps_its_about_line() {
        let mut command = Cli::command();
        let before = abouts(&command);
        command.build();
        let mut after = abouts(&command);
        // Building adds clap's own `help` command.
        after.retain(|(name, ..)| name != "help");
        assert_eq!(after, before);
        let about = |name: &str| {
            let found = before.iter().find(|(n, ..)| n == name);
            found.and_then(|(_, about, _)| about.clone())
        };
        // Its arguments flatten the query, whose comment would take over.
        assert_eq!(
            about("context").as_deref(),
            Some("Score and budget the bank for a client / domain / language pair")
        );
        assert_eq!(
            about("terms").as_deref(),
            Some(
                "Term articles as TBX, CSV or TSV (export, import) and a file's job glossary \
                 (--for)"
            )
        );
    }

    #[test]
    fn no_command_has_an_option_twice() {
        fn check(command: &clap::Command) {
            let mut longs: Vec<&str> = command
                .get_arguments()
                .filter_map(|a| a.get_long())
                .collect();
            let all = longs.len();
            longs.sort_unstable();
            longs.dedup();
            assert_eq!(longs.len(), all, "{}: {longs:?}", command.get_name());
            command.get_subcommands().for_each(check);
        }
        let mut command = Cli::command();
        command.build();
        check(&command);
        // `terms` keeps its own `--format`, not the global one.
        let terms = command.find_subcommand("terms").unwrap();
        let format = terms
            .get_arguments()
            .find(|a| a.get_long() == Some("format"));
        assert!(!format.unwrap().is_global_set());
    }

    /// Each command's arguments in order, with what the help and the
    /// parser take from them, and its rendered help.
    fn definitions(command: &mut clap::Command) -> Vec<(String, Vec<String>, String)> {
        command.build();
        command
            .get_subcommands_mut()
            .map(|sub| {
                let args = sub
                    .get_arguments()
                    .map(|a| {
                        format!(
                            "{} {:?} {:?} {} {} {:?} {:?}",
                            a.get_id(),
                            a.get_long(),
                            a.get_help().map(ToString::to_string),
                            a.is_global_set(),
                            a.get_display_order(),
                            a.get_help_heading(),
                            a.get_possible_values()
                                .iter()
                                .map(|v| v.get_name().to_owned())
                                .collect::<Vec<_>>(),
                        )
                    })
                    .collect();
                (
                    sub.get_name().to_owned(),
                    args,
                    sub.render_long_help().to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn the_global_options_taken_when_built_are_the_ones_clap_copies() {
        let copied = definitions(&mut Cli::command());
        let taken = definitions(&mut super::command());
        assert_eq!(copied.len(), taken.len());
        for (copied, taken) in copied.iter().zip(&taken) {
            assert_eq!(copied, taken);
        }
        // The globals come first, as clap's copies do.
        let (_, context, _) = taken.iter().find(|(n, ..)| n == "context").unwrap();
        assert!(context[0].starts_with("color "), "{context:?}");
        assert!(context.iter().filter(|a| a.contains(" true ")).count() == 5);
    }

    #[test]
    fn commands_not_built_hold_stand_ins_only() {
        let mut command = super::command();
        command
            .try_get_matches_from_mut(["membank", "context", "bank", "--client", "Acme"])
            .unwrap();
        let check = command.find_subcommand("check").unwrap();
        let ids: Vec<_> = check.get_arguments().map(|a| a.get_id().as_str()).collect();
        assert_eq!(ids, ["color", "format", "log_level", "no_mouse", "today"]);
        assert!(check.get_arguments().all(|a| a.get_help().is_none()));
        let context = command.find_subcommand("context").unwrap();
        let color = context.get_arguments().find(|a| a.get_id() == "color");
        assert!(color.unwrap().is_global_set());
    }

    #[test]
    fn the_global_options_parse_after_the_command() {
        // (Written before it, they are moved after it first: see `argv`.)
        let args = [
            "membank",
            "context",
            "bank",
            "--color",
            "never",
            "--today",
            "2026-04-08",
        ];
        let mut matches = super::command().try_get_matches_from(args).unwrap();
        let cli = Cli::from_arg_matches_mut(&mut matches).unwrap();
        assert!(matches!(cli.color, ColorChoice::Never));
        assert_eq!(cli.today.as_deref(), Some("2026-04-08"));
        assert!(matches!(cli.command, Some(Command::Context(_))));
        let error = super::command()
            .try_get_matches_from(["membank", "check", "bank", "--color", "bogus"])
            .err()
            .unwrap();
        assert_eq!(error.kind(), clap::error::ErrorKind::InvalidValue);
    }

    #[test]
    fn only_the_parsed_command_is_built() {
        let has_arg = |command: &clap::Command, name: &str, id: &str| {
            let sub = command.find_subcommand(name).unwrap();
            sub.get_arguments().any(|a| a.get_id() == id)
        };
        let mut command = Cli::command();
        let matches = command
            .try_get_matches_from_mut(["membank", "context", "bank", "--client", "Acme"])
            .unwrap();
        assert!(has_arg(&command, "context", "client"));
        assert!(!has_arg(&command, "check", "bank"));
        let cli = Cli::from_arg_matches(&matches).unwrap();
        let Some(Command::Context(Deferred(args))) = cli.command else {
            panic!("not context");
        };
        assert_eq!(args.bank, PathBuf::from("bank"));
        assert_eq!(args.query.client.as_deref(), Some("Acme"));
    }

    #[test]
    fn every_command_parses_to_its_own_arguments() {
        let parse = |args: &[&str]| Cli::try_parse_from(args).map(|cli| cli.command);
        assert!(matches!(
            parse(&["membank", "check", "bank", "--json", "--color", "never"]),
            Ok(Some(Command::Check(Deferred(a)))) if a.json
        ));
        assert!(matches!(
            parse(&["membank", "terms", "export", "bank", "--format", "csv"]),
            Ok(Some(Command::Eager(Eager::Terms(terms::Args {
                action: Some(terms::Action::Export(e)),
                ..
            })))) if e.format == "csv"
        ));
        assert!(matches!(
            parse(&["membank", "terms", "bank", "--format", "tsv"]),
            Ok(Some(Command::Eager(Eager::Terms(a)))) if a.format.as_deref() == Some("tsv")
        ));
        assert!(matches!(parse(&["membank", "bank"]), Ok(None)));
        let e = parse(&["membank", "context"]).err().unwrap();
        assert_eq!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        let e = parse(&["membank", "context", "bank", "--clinet", "x"])
            .err()
            .unwrap();
        assert_eq!(e.kind(), clap::error::ErrorKind::UnknownArgument);
    }
}
