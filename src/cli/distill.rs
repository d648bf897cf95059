//! `membank distill`: turns a document (text, Markdown, TMX, TBX, DOCX) into a
//! proposed inbox note. The note is printed as a `### FILE:` block for
//! review; `--yes` writes it into `00_INBOX/`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::bail;
use membank_core::fix::{Action, FileFix};
use membank_core::templates::Agent;
use membank_core::text::sanitize_for_terminal;
use membank_core::transaction::Stopped;
use membank_core::{atomic, pathsafe};
use membank_llm::agents;
use membank_llm::documents::read_document;

use super::common::{open_bank, safe};
use super::llm_common;

pub use membank_args::distill::Args;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bank = open_bank(&args.bank)?;
    let document = if args.file == Path::new("-") {
        // A pipeline's text, as `-` is for the other commands: plain text
        // unless it reads as XML (a TMX or TBX piped in).
        let bytes = super::terms::read_input(&args.file)?.1.into_bytes();
        let name = if bytes.trim_ascii_start().starts_with(b"<") {
            let text = String::from_utf8_lossy(&bytes);
            if text.contains("<tmx") {
                "stdin.tmx"
            } else {
                "stdin.tbx"
            }
        } else {
            "stdin.txt"
        };
        membank_llm::documents::parse_document(name, &bytes)?
    } else {
        read_document(&args.file)?
    };
    let client = llm_common::client()?;
    let template = llm_common::template(bank, Agent::Distill);
    let prepared = agents::prepare_distill(
        &template,
        &document,
        &args.query.to_query(),
        super::common::clock().timestamp(),
    );
    let mut what = document.kind.label().to_string();
    if document.entries > 0 {
        what.push_str(&format!(", {} entries", document.entries));
    }
    eprintln!(
        "membank: distilling {} ({what}) with {}",
        safe(&document.file_name),
        llm_common::describe_provider(&client)
    );
    if prepared.input_truncated {
        eprintln!(
            "membank: the document is long; only its first {} characters are sent",
            agents::DISTILL_INPUT_CAP
        );
    }
    let reply = llm_common::run(&client, &prepared.request, llm_common::Echo::Nothing)?;
    if !reply.complete {
        eprintln!("membank: no note proposed because the reply is incomplete");
        return Ok(ExitCode::from(1));
    }
    let note = agents::distill_note(&reply.text);
    for left_out in agents::distill_left_out(&reply.text) {
        eprintln!("membank: warning: {}", safe(&left_out));
    }
    let target = free_name(bank.root(), &prepared.target_path);
    // The write's own checks run before the preview, so the preview never
    // offers a note that --yes would then refuse; a refused reply is a
    // failed one (exit 1), with or without --yes.
    if let Some(reason) = refusal(&target, &note) {
        eprintln!(
            "membank: the proposed note would be refused, so it is not {}: {}",
            if args.yes { "written" } else { "shown" },
            safe(&reason)
        );
        return Ok(ExitCode::from(1));
    }
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "### FILE: {}", safe(&target))?;
    write!(stdout, "{}", sanitize_for_terminal(&note, true))?;
    stdout.flush()?;
    if args.yes {
        write_new_note(bank.root(), &target, &note)?;
        eprintln!("membank: wrote {}", safe(&target));
    } else {
        eprintln!("membank: not written; run again with --yes to add it to 00_INBOX/");
    }
    Ok(ExitCode::SUCCESS)
}

/// Why the note would not be written, as the write itself would say: an
/// empty note, control characters (terminal escapes), a credential, a name
/// the bank's rules refuse.
fn refusal(rel_path: &str, note: &str) -> Option<String> {
    if note.trim().is_empty() {
        return Some("the model returned an empty note".into());
    }
    if let Err(e) = pathsafe::validate(rel_path) {
        return Some(format!("{rel_path}: {e}"));
    }
    membank_core::text::refuse_control_characters(note)
        .and_then(|()| {
            membank_core::secrets::refuse(&String::from_utf8_lossy(&atomic::article_bytes(
                note, None,
            )))
        })
        .err()
}

/// `rel_path`, or the first of `…_2.md`, `…_3.md`, … that nothing in the
/// bank has: notes are named to the second, and two documents with one
/// name distilled within it would otherwise want the same file. The write
/// still refuses a name taken after this looked.
fn free_name(root: &Path, rel_path: &str) -> String {
    let taken = |rel: &str| std::fs::symlink_metadata(root.join(rel)).is_ok();
    if !taken(rel_path) {
        return rel_path.to_owned();
    }
    let stem = rel_path.strip_suffix(".md").unwrap_or(rel_path);
    (2..1000)
        .map(|n| format!("{stem}_{n}.md"))
        .find(|candidate| !taken(candidate))
        .unwrap_or_else(|| rel_path.to_owned())
}

/// Writes the note through the bank's one reviewed write, journalled as a
/// distill so `membank undo` takes it back; a file already there is never
/// replaced.
fn write_new_note(root: &Path, rel_path: &str, content: &str) -> anyhow::Result<()> {
    let path =
        pathsafe::validate(rel_path).map_err(|r| anyhow::anyhow!("{}: {r}", safe(rel_path)))?;
    let tx = super::common::begin_bank_write(root)?;
    tx.set_label("distill");
    let note = FileFix {
        path: path.as_str().to_owned(),
        codes: Vec::new(),
        notes: Vec::new(),
        action: Action::Create {
            after: atomic::article_bytes(content, None),
        },
    };
    match tx.commit_fixes(&[note]) {
        Ok(_) => {
            super::common::finish(&tx);
            Ok(())
        }
        Err(Stopped::Stale(_)) => bail!("{} already exists; not replacing it", safe(rel_path)),
        Err(e @ Stopped::Refused(_)) => bail!(safe(&e.to_string())),
    }
}
