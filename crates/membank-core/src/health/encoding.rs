//! The bytes of a file: byte-order marks, code fences around the article,
//! and files that could not be read at all.

use crate::article::{Article, FrontmatterState};
use crate::bank::{Bank, ProblemKind};

use super::{Finding, Severity, finding};

pub(super) fn encoding_findings(a: &Article, out: &mut Vec<Finding>) {
    if a.encoding.utf16 {
        out.push(finding(
            "utf16",
            Severity::Warning,
            &a.rel_path,
            Some(1),
            "The file is saved as UTF-16 (Windows sometimes calls this “Unicode”). membank \
             reads it, but the format requires UTF-8: other tools may show it as unreadable \
             bytes or skip it. Save it again as “UTF-8”."
                .into(),
        ));
    }
    if a.encoding.had_bom {
        out.push(finding(
            "bom",
            Severity::Warning,
            &a.rel_path,
            Some(1),
            "The file starts with an invisible byte-order mark (BOM). The format requires \
             UTF-8 without a BOM; some clients then fail to see the frontmatter and lose the \
             whole article. Re-save the file as “UTF-8” (not “UTF-8 with BOM”)."
                .into(),
        ));
    }
    if a.encoding.fenced && a.frontmatter != FrontmatterState::Missing {
        let open = a.encoding.fence_open_line();
        // The frontmatter must then start the file: blank lines between
        // the fence and it go too.
        let blanks = match a.encoding.line_shift() - open {
            0 => None,
            1 => Some("the blank line after it".to_owned()),
            n => Some(format!("the {n} blank lines after it")),
        };
        let fix = match (a.encoding.fence_close_line(), blanks) {
            (Some(close), None) => format!(
                " Delete the opening fence on line {open} and the closing fence on line {close}."
            ),
            (Some(close), Some(blanks)) => format!(
                " Delete the opening fence on line {open}, {blanks}, and the closing fence on \
                 line {close}."
            ),
            (None, blanks) => format!(
                " The opening fence is never closed, so the rest of the file looks like code. \
                 Delete the fence on line {open}{}.",
                blanks.map(|b| format!(" and {b}")).unwrap_or_default()
            ),
        };
        out.push(finding(
            "fenced-frontmatter",
            Severity::Warning,
            &a.rel_path,
            Some(open),
            format!(
                "The article is wrapped in a code fence, as happens when an LLM reply is \
                 pasted in. membank reads it (spec §4.3), but stricter tools do not see its \
                 frontmatter and skip the article.{fix}"
            ),
        ));
    }
}

pub(super) fn load_problems(bank: &Bank, out: &mut Vec<Finding>) {
    for p in &bank.problems {
        let f = match p.kind {
            // The decoder names the encoding the file announced.
            ProblemKind::NotUtf8 if p.message.contains("UTF-16") => finding(
                "not-utf8",
                Severity::Error,
                &p.path,
                p.line,
                "The file starts with a UTF-16 byte-order mark but is not valid UTF-16 (it breaks \
                 off on the line shown), so membank cannot read it and it is left out of every \
                 context. Open it, check the end of that line, and save it as UTF-8."
                    .into(),
            ),
            ProblemKind::NotUtf8 => finding(
                "not-utf8",
                Severity::Error,
                &p.path,
                p.line,
                "The file contains bytes that are not UTF-8 text (the first is on the line \
                 shown), so membank cannot read it and it is left out of every context. It was \
                 probably saved in an older encoding such as Windows-1252. Open it and save it \
                 again as UTF-8, then check the accented letters."
                    .into(),
            ),
            ProblemKind::Io => finding(
                "unreadable-file",
                Severity::Error,
                &p.path,
                p.line,
                format!(
                    "The file {}; it is left out of every context. {}",
                    p.message,
                    // The system's words for a path over its limit.
                    if p.message.contains("name too long") {
                        "Shorten its path: fewer or shorter folder names, or a shorter name."
                    } else {
                        "Check its permissions."
                    }
                ),
            ),
            ProblemKind::UnreadableFolder => finding(
                "unreadable-file",
                Severity::Error,
                &p.path,
                p.line,
                format!(
                    "The folder {}; the articles in it are left out of every context. Check \
                     its permissions.",
                    p.message
                ),
            ),
            ProblemKind::SymlinkedFolder => finding(
                "symlinked-folder",
                Severity::Warning,
                &p.path,
                None,
                "This is a link to a folder elsewhere; membank does not follow it, so the \
                 articles in it are not used. Move the folder into the bank if they belong \
                 there."
                    .into(),
            ),
            ProblemKind::NotRegular => finding(
                "not-a-file",
                Severity::Error,
                &p.path,
                None,
                format!(
                    "This name {}. membank reads only regular files, so it is left out of \
                     every context. Remove it, or replace it with the Markdown file it should be.",
                    p.message
                ),
            ),
            ProblemKind::TooLarge => finding(
                "oversized-file",
                Severity::Error,
                &p.path,
                None,
                format!(
                    "The file {}. It is left out of every context. Split it into smaller \
                     articles, or raise the limit in the settings if it really belongs here.",
                    p.message
                ),
            ),
            ProblemKind::DanglingLink => finding(
                "unreadable-file",
                Severity::Error,
                &p.path,
                None,
                "This file is a symbolic link to something that does not exist (moved, \
                 renamed or never copied here), so there is nothing to read and it is left \
                 out of every context. Restore what it pointed to, or delete the link."
                    .into(),
            ),
            // Nothing to read, as behind a link to nothing: the same code
            // and severity.
            ProblemKind::LinkLoop => finding(
                "unreadable-file",
                Severity::Error,
                &p.path,
                None,
                "This file is a symbolic link loop: it leads back to itself, directly or \
                 through other links, so there is nothing to read and it is left out of every \
                 context. Point it at the file it should open, or delete the link."
                    .into(),
            ),
            ProblemKind::LinkOutside => finding(
                "link-outside-bank",
                Severity::Warning,
                &p.path,
                None,
                "This file is a link to a file outside the bank. membank does not read it, \
                 so it is never shown, checked or sent to a model. If you link files into \
                 this bank on purpose, allow it with the setting `follow_links_out`; \
                 otherwise remove the link."
                    .into(),
            ),
        };
        out.push(f);
    }
}
