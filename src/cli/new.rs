//! `membank new` and `membank note`: a new article with the keys its
//! folder requires, and a quick capture (a bank's inbox, a Deja Vu
//! project's event ledger). Both only ever create: a path that is taken
//! is never overwritten.

use std::io::{IsTerminal as _, Read as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use membank::tui::terminal::{editor_args, editor_command};
use membank_core::fix::{Action, FileFix};
use membank_core::layout::Folder;
use membank_core::memory::LayoutKind;
use membank_core::new_note::{self, Known};
use membank_core::transaction::{Stopped, Transaction};
use serde::Serialize;

use super::common;

pub use membank_args::new::{NewArgs, NoteArgs};

#[derive(Serialize)]
struct Created {
    path: String,
    /// `new` or `changed` (an event appended to a month's ledger).
    action: &'static str,
}

/// A folder as typed: its exact name or its short label.
pub fn parse_folder(s: &str) -> Option<Folder> {
    let s = s.trim().trim_end_matches('/');
    Folder::from_dir_name(s).or_else(|| {
        Folder::ALL
            .into_iter()
            .find(|f| f.label().eq_ignore_ascii_case(s) || f.dir_name().eq_ignore_ascii_case(s))
    })
}

/// `en-US → de-DE`, `en-US->de-DE`, `en-US:de-DE` or `en-US>de-DE`.
pub fn parse_pair(s: &str) -> Option<(String, String)> {
    let (a, b) = ["→", "->", ":", ">"]
        .iter()
        .find_map(|sep| s.split_once(sep))?;
    let (a, b) = (a.trim(), b.trim());
    (!a.is_empty() && !b.is_empty()).then(|| (a.to_owned(), b.to_owned()))
}

pub fn run_new(args: NewArgs) -> anyhow::Result<ExitCode> {
    let Some(folder) = parse_folder(&args.folder) else {
        eprintln!(
            "membank: {}: not a folder of the bank (01_CLIENTS, 02_TERMINOLOGY, 03_DOMAINS, \
             04_STYLE, 05_INDICES, 00_INBOX, or clients, terminology…)",
            common::safe(&args.folder)
        );
        return Ok(ExitCode::from(2));
    };
    let pair = match args.pair.as_deref().map(parse_pair) {
        Some(None) => {
            eprintln!("membank: --pair: write it as `en-US → de-DE` or `en-US:de-DE`");
            return Ok(ExitCode::from(2));
        }
        Some(Some((source, target))) => {
            // Written as a bank writes codes, so `check` finds nothing to
            // fix in the article just made.
            let code = |typed: &str| {
                let code = membank_core::health::normalised_language_tag(typed);
                if code.is_none() {
                    eprintln!(
                        "membank: --pair: “{}” is not a language code; write codes such as \
                         en-US or nl-BE",
                        common::safe(typed)
                    );
                }
                code
            };
            match (code(&source), code(&target)) {
                (Some(s), Some(t)) => Some((s, t)),
                _ => return Ok(ExitCode::from(2)),
            }
        }
        None => None,
    };
    let (source_lang, target_lang) = pair.unzip();
    let known = Known {
        client: args.client.clone(),
        domain: args.domain.clone(),
        source_lang,
        target_lang,
    };
    let root = bank_only(&args.bank, "new")?;
    let Some(root) = root else {
        return Ok(ExitCode::from(2));
    };
    let tx = common::begin_bank_write(&root)?;
    let bank = common::open_bank(&args.bank)?;
    let today = common::clock().today();
    let fix = match new_note::article(bank, folder, &args.name, &known, today) {
        Ok(fix) => fix,
        Err(reason) => {
            eprintln!("membank: {}", common::safe(&reason));
            return Ok(ExitCode::from(2));
        }
    };
    tx.set_label("new article");
    let dead = dead_links(bank, &fix, &known);
    let code = write(&tx, &fix, args.json)?;
    if code == ExitCode::SUCCESS {
        for (what, name) in dead {
            let folder = match what {
                "client" => "clients",
                _ => "domains",
            };
            eprintln!(
                "membank: warning: no article is named “{name}”, so the {what} link [[{name}]] \
                 in {} opens nothing until one is written (membank new BANK {folder} \"{name}\")",
                common::safe(&fix.path),
                name = common::safe(&name),
            );
        }
    }
    drop(tx);
    if code == ExitCode::SUCCESS && args.edit && std::io::stdout().is_terminal() {
        open_in_editor(&root.join(&fix.path))?;
    }
    Ok(code)
}

pub fn run_note(args: NoteArgs) -> anyhow::Result<ExitCode> {
    let text = if args.text.is_empty() || args.text == ["-"] {
        common::say_reading_stdin("the note's text");
        read_note_stdin(std::io::stdin().lock())?
    } else {
        args.text.join(" ")
    };
    let found = membank_core::memory::detect(&args.path, common::forced_format())
        .map_err(|e| anyhow::anyhow!(common::safe(&e.to_string())))?;
    let today = common::clock().today();
    let (tx, fix) = match found.spec.kind {
        LayoutKind::Bank => {
            // An inbox note is raw text with no frontmatter to hold tags:
            // dropping them without a word would lose what was typed.
            if !args.tags.is_empty() {
                anyhow::bail!(
                    "--tags tags a Deja Vu event; a bank's inbox note has none (write them in \
                     the text); nothing was written"
                );
            }
            let tx = common::begin_bank_write(&found.root)?;
            let bank = common::open_bank(&args.path)?;
            (tx, new_note::capture(bank, &text, today))
        }
        LayoutKind::DejaVu => {
            let tx = common::begin_dejavu_write(&found.root)?;
            let month = format!("memory/events/{:04}-{:02}.md", today.year(), today.month());
            let ledger = tx
                .read(&month)
                .map_err(|e| anyhow::anyhow!(common::safe(&e)))?;
            (tx, new_note::event(&text, &args.tags, today, ledger))
        }
        LayoutKind::Everos => {
            eprintln!(
                "membank: {} is {}, which membank only reads; nothing was written.",
                common::safe(&args.path.display().to_string()),
                found.spec.title
            );
            return Ok(ExitCode::from(2));
        }
    };
    match fix {
        Ok(fix) => {
            tx.set_label("note");
            write(&tx, &fix, args.json)
        }
        Err(reason) => {
            eprintln!("membank: {}", common::safe(&reason));
            Ok(ExitCode::from(2))
        }
    }
}

/// The client and domain the new article links to (`[[Name]]`) that no
/// article of the bank answers to: written all the same (the article may
/// come later), but said.
fn dead_links(
    bank: &membank_core::bank::Bank,
    fix: &FileFix,
    known: &Known,
) -> Vec<(&'static str, String)> {
    let Action::Create { after } = &fix.action else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(after);
    [("client", &known.client), ("domain", &known.domain)]
        .into_iter()
        .filter_map(|(what, name)| Some((what, name.as_deref()?.trim())))
        .filter(|(_, name)| text.contains(&format!("[[{name}]]")))
        .filter(|(_, name)| matches!(bank.resolve(name), membank_core::bank::Resolution::Dead))
        .map(|(what, name)| (what, name.to_owned()))
        .collect()
}

/// The most a note read from standard input may hold.
const NOTE_STDIN_LIMIT: u64 = 1 << 20;

/// A note's text from standard input. More than [`NOTE_STDIN_LIMIT`] is
/// refused whole: the note would otherwise end wherever the limit fell,
/// mid-line, with nothing said.
fn read_note_stdin(input: impl std::io::Read) -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    input
        .take(NOTE_STDIN_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("standard input: {e}"))?;
    if bytes.len() as u64 > NOTE_STDIN_LIMIT {
        anyhow::bail!(
            "standard input holds more than 1 MiB, the most a note takes; nothing was written"
        );
    }
    String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("standard input is not UTF-8 text; nothing was written"))
}

/// The bank's root, or `None` (said on stderr) when `path` is another
/// kind of memory.
fn bank_only(path: &Path, command: &str) -> anyhow::Result<Option<PathBuf>> {
    let found = membank_core::memory::detect(path, common::forced_format())
        .map_err(|e| anyhow::anyhow!(common::safe(&e.to_string())))?;
    if found.spec.kind != LayoutKind::Bank {
        eprintln!(
            "membank: {} is {}; `membank {command}` writes memory banks only.",
            common::safe(&path.display().to_string()),
            found.spec.title
        );
        return Ok(None);
    }
    Ok(Some(found.root))
}

fn write(tx: &Transaction, fix: &FileFix, json: bool) -> anyhow::Result<ExitCode> {
    match tx.commit_fixes(std::slice::from_ref(fix)) {
        Ok(_) => {}
        Err(Stopped::Stale(paths)) => {
            let paths: Vec<String> = paths.iter().map(|p| common::safe(p)).collect();
            eprintln!(
                "membank: {} appeared or changed meanwhile; nothing was written. Run again.",
                paths.join(", ")
            );
            return Ok(ExitCode::from(2));
        }
        Err(e @ Stopped::Refused(_)) => anyhow::bail!(common::safe(&e.to_string())),
    }
    common::finish(tx);
    let action = match fix.action {
        Action::Change { .. } => "changed",
        _ => "new",
    };
    if json {
        common::print_json(&Created {
            path: fix.path.clone(),
            action,
        })?;
    } else {
        let verb = if action == "new" {
            "Created"
        } else {
            "Added to"
        };
        soutln!("{verb} {}", common::safe(&fix.path))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn open_in_editor(path: &Path) -> anyhow::Result<()> {
    let visual = std::env::var("VISUAL").ok();
    let editor = std::env::var("EDITOR").ok();
    let mut words = editor_command(visual.as_deref(), editor.as_deref());
    let program = words.remove(0);
    let status = Command::new(&program)
        .args(&words)
        .args(editor_args(&program, path, None))
        .status()
        .map_err(|e| anyhow::anyhow!("could not start {}: {e}", common::safe(&program)))?;
    if !status.success() {
        eprintln!("membank: {} ended with {status}", common::safe(&program));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_pairs_are_read_as_typed() {
        assert_eq!(parse_folder("terminology"), Some(Folder::Terminology));
        assert_eq!(parse_folder("02_TERMINOLOGY/"), Some(Folder::Terminology));
        assert_eq!(parse_folder("nope"), None);
        let pair = |a: &str, b: &str| Some((a.to_owned(), b.to_owned()));
        assert_eq!(parse_pair("en-US → de-DE"), pair("en-US", "de-DE"));
        assert_eq!(parse_pair("en-US:de-DE"), pair("en-US", "de-DE"));
        assert_eq!(parse_pair("en-US"), None);
    }
}
