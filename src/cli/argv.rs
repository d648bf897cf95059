//! The command line before clap sees it. `membank` takes either a bank
//! folder (the terminal UI) or a subcommand, and clap cannot tell a
//! mistyped subcommand from a folder; it also refuses a global option
//! written before the subcommand once a bare folder is allowed there.
//! Both are settled here.

use std::ffi::{OsStr, OsString};

/// Top-level options that take a value in the next argument.
const OPTIONS_WITH_VALUE: [&str; 5] = ["--color", "--format", "--log-level", "--qa", "--today"];

/// What to do with the arguments.
#[derive(Debug, PartialEq, Eq)]
pub enum Arguments {
    /// Parse these (possibly reordered) arguments.
    Parse(Vec<OsString>),
    /// `word` is in the subcommand's place but is no subcommand.
    UnknownSubcommand {
        word: String,
        suggestions: Vec<String>,
    },
}

fn is_option(arg: &OsStr) -> bool {
    arg.to_str().is_some_and(|s| s.starts_with('-') && s != "-")
}

/// Moves options written before the subcommand after it (they are global),
/// and recognises a mistyped subcommand: a first word followed by another
/// word, or a word close to a subcommand that names no existing path.
pub fn normalise(args: Vec<OsString>, subcommands: &[&str]) -> Arguments {
    let mut leading: Vec<OsString> = Vec::new();
    let mut i = 1;
    while i < args.len() && is_option(&args[i]) {
        let arg = args[i].to_str().unwrap_or_default();
        if arg == "--" {
            return Arguments::Parse(args);
        }
        leading.push(args[i].clone());
        if OPTIONS_WITH_VALUE.contains(&arg) && i + 1 < args.len() {
            leading.push(args[i + 1].clone());
            i += 1;
        }
        i += 1;
    }
    let Some(first) = args.get(i) else {
        return Arguments::Parse(args);
    };
    let word = first.to_string_lossy().into_owned();
    if subcommands.contains(&word.as_str()) {
        let mut out = vec![args[0].clone(), first.clone()];
        out.extend(leading);
        out.extend(args[i + 1..].iter().cloned());
        return Arguments::Parse(out);
    }
    let mut more_words = false;
    let mut j = i + 1;
    while j < args.len() {
        let arg = args[j].to_str().unwrap_or_default();
        if arg == "--" {
            more_words = j + 1 < args.len();
            break;
        }
        if is_option(&args[j]) {
            if OPTIONS_WITH_VALUE.contains(&arg) {
                j += 1;
            }
        } else {
            more_words = true;
            break;
        }
        j += 1;
    }
    let close = membank_core::suggest::closest(&word, subcommands.iter().copied());
    let names_a_path = std::path::Path::new(first).exists();
    if more_words || (!names_a_path && !close.is_empty()) {
        return Arguments::UnknownSubcommand {
            word,
            suggestions: close.into_iter().map(str::to_owned).collect(),
        };
    }
    Arguments::Parse(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUBCOMMANDS: [&str; 3] = ["check", "context", "demo"];

    fn run(args: &[&str]) -> Arguments {
        normalise(args.iter().map(OsString::from).collect(), &SUBCOMMANDS)
    }

    fn parsed(args: &[&str]) -> Arguments {
        Arguments::Parse(args.iter().map(OsString::from).collect())
    }

    #[test]
    fn the_file_of_qa_is_its_value_not_a_subcommand() {
        for args in [
            ["membank", "bank", "--qa", "job.xlf"],
            ["membank", "--qa", "job.xlf", "bank"],
        ] {
            assert_eq!(run(&args), parsed(&args));
        }
    }

    #[test]
    fn global_options_before_the_subcommand_move_after_it() {
        assert_eq!(
            run(&["membank", "--color", "never", "check", "bank", "--json"]),
            parsed(&["membank", "check", "--color", "never", "bank", "--json"])
        );
        assert_eq!(
            run(&["membank", "--color=never", "check", "bank"]),
            parsed(&["membank", "check", "--color=never", "bank"])
        );
        assert_eq!(
            run(&["membank", "--today", "2026-04-08", "check", "bank"]),
            parsed(&["membank", "check", "--today", "2026-04-08", "bank"])
        );
    }

    #[test]
    fn a_bank_folder_alone_is_left_for_the_terminal_ui() {
        assert_eq!(run(&["membank", "."]), parsed(&["membank", "."]));
        assert_eq!(
            run(&["membank", "--color", "never", "."]),
            parsed(&["membank", "--color", "never", "."])
        );
        assert_eq!(run(&["membank", "--help"]), parsed(&["membank", "--help"]));
    }

    #[test]
    fn a_mistyped_subcommand_is_named_with_the_closest_ones() {
        assert_eq!(
            run(&["membank", "chek", "bank"]),
            Arguments::UnknownSubcommand {
                word: "chek".into(),
                suggestions: vec!["check".into()],
            }
        );
        // Alone, a word that names no folder but is close to a subcommand.
        assert_eq!(
            run(&["membank", "contxt"]),
            Arguments::UnknownSubcommand {
                word: "contxt".into(),
                suggestions: vec!["context".into()],
            }
        );
    }
}
