//! Command-line parsing and dispatch. Each subcommand lives in its own module
//! and returns the process exit code.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::CommandFactory;
use membank::tui::{self, ColorChoice, TuiOptions};
use membank_core::memory::LayoutKind;

/// `println!` for a command's output: a write that fails (a full disk, a
/// closed file) is returned as an error, reported and exit 2, where
/// `println!` would panic.
macro_rules! outln {
    () => {
        $crate::cli::common::write_stdout(false, format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::common::write_stdout(false, format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// [`outln!`] without the line break.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::common::write_stdout(false, format_args!($($arg)*))
    };
}

/// [`outln!`] through `anstream`, which keeps or drops the styles as
/// `--color` and the terminal say.
macro_rules! soutln {
    ($($arg:tt)*) => {
        $crate::cli::common::write_stdout(true, format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// [`soutln!`] without the line break.
macro_rules! sout {
    ($($arg:tt)*) => {
        $crate::cli::common::write_stdout(true, format_args!($($arg)*))
    };
}

mod argv;
mod ask;
mod blocks;
mod check;
mod common;
mod compile;
mod context;
mod distill;
mod everos;
mod feedback;
mod fix;
mod inbox;
mod init;
mod links;
mod lint_llm;
mod llm_common;
mod mcp;
mod mv;
mod new;
mod qa;
mod read;
mod recall;
mod search;
mod snapshot;
mod style;
mod supersede;
mod template;
mod terms;
mod translate;
mod undo;
mod values;
mod writeback;

use membank_args::{Cli, Command, Deferred, DemoArgs, Eager};

/// `membank demo` shows a memory bank; `--format dejavu` the demo Deja Vu
/// project, `--format everos` the demo everos memory root.
fn run_demo(args: DemoArgs, color: ColorChoice, no_mouse: bool) -> anyhow::Result<ExitCode> {
    let format = common::forced_format().map(|l| l.kind);
    let other = match format {
        Some(LayoutKind::DejaVu) => Some((crate::demo::demo_dejavu_dir()?, "Deja Vu project")),
        Some(LayoutKind::Everos) => Some((crate::demo::demo_everos_dir()?, "everos root")),
        _ => None,
    };
    if let Some((dir, what)) = other {
        if args.path {
            outln!("{}", dir.display())?;
            eprintln!(
                "membank: the demo {what} is in {}, replaced on each run",
                common::safe(&dir.display().to_string())
            );
            return Ok(ExitCode::SUCCESS);
        }
        let options = TuiOptions {
            color,
            format: common::forced_format(),
            no_mouse,
            clock: common::clock(),
            label: Some(crate::demo::demo_label(what)),
            ..TuiOptions::default()
        };
        let result = tui::run_tui(&dir, options);
        // Said after the screen is given back, so it is not wiped at once.
        let d = common::safe(&dir.display().to_string());
        if format == Some(LayoutKind::Everos) {
            eprintln!(
                "membank: the everos demo root is in {d}; from the shell try:\n  membank entries {d} --user u_alice --since 2026-06-01\n  membank entry {d} ep_20260601_00000002 --user u_alice\n  membank check {d}\n  membank search {d} \"trip budget\""
            );
        } else {
            eprintln!("membank: the demo {what} is in {d}, replaced on each run");
        }
        return result;
    }
    let dir = crate::demo::demo_bank_dir()?;
    if args.path {
        outln!("{}", dir.display())?;
        eprintln!("{}", demo_notice(&dir));
        return Ok(ExitCode::SUCCESS);
    }
    let options = TuiOptions {
        color,
        format: common::forced_format(),
        no_mouse,
        clock: common::clock(),
        // Short enough that the folder shows at 80 columns.
        label: Some("demo (reset)".to_owned()),
        // With the label, this fits 80 columns: the status bar gives a
        // notice the room of the count and the hint.
        notice: Some(format!(
            "copy in {}, keep: membank init DIR --demo",
            dir.display()
        )),
        qa: None,
    };
    let result = tui::run_tui(&dir, options);
    // Said after the screen is given back, so it is not wiped at once.
    eprintln!("{}", demo_notice(&dir));
    result
}

/// Where the demo copy lives, and that it does not last.
fn demo_notice(dir: &std::path::Path) -> String {
    format!(
        "membank: the demo bank is a copy in {}; it is replaced the next time `membank demo` \
         runs. To keep one, create it with `membank init DIR --demo`.",
        common::safe(&dir.display().to_string())
    )
}

/// Printing into a closed pipe (`membank context … | head`) should end the
/// process quietly, as other command-line tools do, not panic.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal to its default disposition before any thread
    // is started has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The parsed command line and the subcommands' names; a mistyped
/// subcommand ends the process with a usage error naming the closest
/// subcommands. The definition is built once: building it is a good part
/// of a small command's start.
fn parse_command_line() -> (Cli, Vec<String>) {
    use clap::FromArgMatches as _;
    let mut command = membank_args::command();
    let subcommands: Vec<String> = command
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    let names: Vec<&str> = subcommands
        .iter()
        .map(String::as_str)
        .chain(["help"])
        .collect();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // The help and usage errors are printed while parsing, before the
    // parsed --color could say how: it is looked for by hand first.
    if let Some(choice) = asked_color(&args) {
        command = command.color(choice);
    }
    match argv::normalise(args, &names) {
        argv::Arguments::Parse(args) => {
            // What `Cli::parse_from` does, on the definition already built.
            let mut matches = command.get_matches_from(args);
            let cli = Cli::from_arg_matches_mut(&mut matches)
                .unwrap_or_else(|e| e.format(&mut Cli::command()).exit());
            (cli, subcommands)
        }
        argv::Arguments::UnknownSubcommand { word, suggestions } => {
            let word = common::safe(&word);
            let refs: Vec<&str> = suggestions.iter().map(String::as_str).collect();
            let tip = membank_core::suggest::did_you_mean(&refs);
            let message = if std::path::Path::new(&word).exists() {
                format!("unrecognized subcommand '{word}'{tip}")
            } else {
                format!("'{word}' is neither a subcommand nor a bank folder{tip}")
            };
            command
                .error(clap::error::ErrorKind::InvalidSubcommand, message)
                .exit()
        }
    }
}

/// The `--color` given anywhere on the line (`--color never` or
/// `--color=never`), for clap's own messages.
fn asked_color(args: &[std::ffi::OsString]) -> Option<clap::ColorChoice> {
    let value = args.iter().enumerate().find_map(|(i, a)| {
        let a = a.to_str()?;
        match a.strip_prefix("--color") {
            Some("") => args.get(i + 1)?.to_str(),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        }
    })?;
    match value {
        "never" => Some(clap::ColorChoice::Never),
        "always" => Some(clap::ColorChoice::Always),
        "auto" => Some(clap::ColorChoice::Auto),
        _ => None,
    }
}

pub fn main() -> ExitCode {
    restore_default_sigpipe();
    let (cli, subcommands) = parse_command_line();
    style::set_choice(cli.color);
    if let Err(e) = membank::logging::init(cli.log_level.as_deref()) {
        eprintln!("membank: {e}");
        return ExitCode::from(2);
    }
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        command = command_name(cli.command.is_none(), &subcommands),
        "membank started"
    );
    // `terms` has a `--format` of its own (the glossary's), and clap hands
    // its value to the global one too, where `dejavu` would force a layout.
    let forced = match &cli.command {
        Some(Command::Eager(Eager::Terms(_))) => None,
        _ => cli
            .format
            .as_deref()
            .and_then(membank_core::memory::layout_named),
    };
    common::set_forced_format(forced);
    let clock = match membank::today::clock(cli.today.as_deref()) {
        Ok(clock) => clock,
        Err(e) => {
            eprintln!("membank: {e}");
            return ExitCode::from(2);
        }
    };
    common::set_clock(clock);
    if let Some(missing) = membank_llm::config::named_config_missing() {
        let warning = membank_llm::config::missing_config_warning(&missing);
        eprintln!("membank: warning: {}", common::safe(&warning));
    }
    // The config file is read once, for its [files] and [undo] tables.
    let config = match membank::read_settings::ConfigFile::read(None) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("membank: {e:#}");
            return ExitCode::from(2);
        }
    };
    // Every later read of a bank file honours the user's [files] settings.
    match config
        .as_ref()
        .map_or(Ok(Default::default()), |c| c.policy())
    {
        Ok(policy) => {
            membank_core::safe_read::set_user_policy(policy);
        }
        Err(e) => {
            eprintln!("membank: {e:#}");
            return ExitCode::from(2);
        }
    }
    // Every write of this run is journalled, so `membank undo` can take it back.
    if let Err(e) = membank::undo_journal::install(config.as_ref().map(|c| c.text.as_str())) {
        match &config {
            Some(c) => eprintln!("membank: {}: {e:#}", c.path.display()),
            None => eprintln!("membank: {e:#}"),
        }
        return ExitCode::from(2);
    }
    let result = match cli.command {
        Some(Command::Check(Deferred(a))) => check::run(a),
        Some(Command::Fix(Deferred(a))) => fix::run(a),
        Some(Command::Undo(Deferred(a))) => undo::run(a),
        Some(Command::Mv(Deferred(a))) => mv::run(a),
        Some(Command::New(Deferred(a))) => new::run_new(a),
        Some(Command::Note(Deferred(a))) => new::run_note(a),
        Some(Command::Context(Deferred(a))) => context::run(a),
        Some(Command::Blocks(Deferred(a))) => blocks::run(a),
        Some(Command::Compile(Deferred(a))) => compile::run(a),
        Some(Command::Inbox(Deferred(a))) => inbox::run(a),
        Some(Command::Snapshot(Deferred(a))) => snapshot::run(a),
        Some(Command::Template(Deferred(a))) => template::run(a),
        Some(Command::Links(Deferred(a))) => links::run(a),
        Some(Command::Read(Deferred(a))) => read::run(a),
        Some(Command::Mcp(Deferred(a))) => mcp::run(a),
        Some(Command::Values(Deferred(a))) => values::run(a),
        Some(Command::Init(Deferred(a))) => init::run(a),
        Some(Command::Demo(Deferred(a))) => run_demo(a, cli.color, cli.no_mouse),
        Some(Command::Ask(Deferred(a))) => ask::run(a),
        Some(Command::Translate(Deferred(a))) => translate::run(a),
        Some(Command::Distill(Deferred(a))) => distill::run(a),
        Some(Command::Lint(Deferred(a))) => lint_llm::run(a),
        Some(Command::Recall(Deferred(a))) => recall::run(a),
        Some(Command::Supersede(Deferred(a))) => supersede::run(a),
        Some(Command::Writeback(Deferred(a))) => writeback::run(a),
        Some(Command::Feedback(Deferred(a))) => feedback::run(a),
        Some(Command::Search(Deferred(a))) => search::run(a),
        Some(Command::Eager(Eager::Terms(a))) => terms::run(a),
        Some(Command::Qa(Deferred(a))) => qa::run(a),
        Some(Command::Entries(Deferred(a))) => everos::run_entries(a),
        Some(Command::Entry(Deferred(a))) => everos::run_entry(a),
        Some(Command::Everos(Deferred(a))) => everos::run_root(&a),
        None => {
            let bank = cli.bank.unwrap_or_else(|| PathBuf::from("."));
            let options = TuiOptions {
                color: cli.color,
                format: forced,
                no_mouse: cli.no_mouse,
                clock,
                qa: cli.qa,
                ..TuiOptions::default()
            };
            tui::run_tui(&bank, options)
        }
    };
    // What is still buffered goes out now: at exit its error would be lost.
    let result = result.and_then(|code| {
        std::io::Write::flush(&mut std::io::stdout()).map_err(common::stdout_error)?;
        Ok(code)
    });
    match result {
        Ok(code) => {
            tracing::info!(exit = ?code, "membank finished");
            code
        }
        // A reader that went away (`| head`) is not an error to report; on
        // Unix the default SIGPIPE has ended the process before this.
        Err(e) if common::is_broken_pipe(&e) => ExitCode::from(2),
        Err(e) => {
            tracing::error!(error = %format!("{e:#}"), "membank failed");
            eprintln!("membank: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The subcommand's name as typed, for the log.
fn command_name(interface: bool, subcommands: &[String]) -> String {
    if interface {
        return "interface".into();
    }
    // The first word after the program that names a subcommand.
    std::env::args()
        .skip(1)
        .find(|a| subcommands.contains(a))
        .unwrap_or_else(|| "?".into())
}
