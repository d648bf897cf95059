//! Fixes for the health findings that have one right answer. Given a
//! loaded bank and the findings to fix, [`propose`] says per file what its
//! bytes would become (or that it goes, or that a folder is made), and
//! which findings stay, with why. Nothing is written here: the proposal is
//! shown, then written by [`crate::transaction::Transaction::commit_fixes`],
//! which refuses a file whose bytes are no longer the ones shown.
//!
//! Each fix changes only the bytes it must: one value inside its quotes,
//! the two fence lines, the encoding. Key order, quoting, comments and
//! line endings stay as they are, and the result is parsed again before it
//! is proposed.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use jiff::tz::TimeZone;
use serde::Serialize;

use crate::article::{Article, FrontmatterState, LANGUAGE_KEYS};
use crate::bank::{Bank, Resolution};
use crate::health::{Finding, fixed_language_tag, is_plausible_language_tag};
use crate::layout::Folder;
use crate::surface::Surface;
use crate::wikilink::LinkKind;

pub(crate) mod edit;
mod given;
mod line_links;
mod moves;
mod retarget;
mod term_conflict;
#[cfg(test)]
mod tests;

pub use given::{given_value, takes_typed_value};
pub use term_conflict::keep_translation;

/// What a fix does to one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// The file's bytes now, and what they become.
    Change { before: Vec<u8>, after: Vec<u8> },
    /// The file goes; its bytes now.
    Delete { before: Vec<u8> },
    /// A folder of the format is made.
    CreateFolder,
    /// A new file with these bytes; refused when the path is taken.
    Create { after: Vec<u8> },
    /// The file moves to `to` (a path of the same memory that must not be
    /// taken), its bytes `before` becoming `after` on the way (equal when
    /// only the name changes).
    Move {
        to: String,
        before: Vec<u8>,
        after: Vec<u8>,
    },
}

/// The fixes to one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileFix {
    pub path: String,
    /// The codes of the findings fixed, in report order.
    pub codes: Vec<&'static str>,
    /// What each fix does, in words (untrusted text: sanitise it).
    pub notes: Vec<String>,
    pub action: Action,
}

impl FileFix {
    /// `changed`, `deleted` or `new folder`.
    pub fn kind(&self) -> &'static str {
        match self.action {
            Action::Change { .. } => "changed",
            Action::Delete { .. } => "deleted",
            Action::CreateFolder => "new folder",
            Action::Create { .. } => "new",
            Action::Move { .. } => "moved",
        }
    }

    /// The change as a unified diff of the text (a change of encoding
    /// alone shows none: its notes say what it does).
    pub fn diff(&self) -> Option<String> {
        let (old, new) = match &self.action {
            Action::Change { before, after } | Action::Move { before, after, .. } => {
                (shown_text(before), shown_text(after))
            }
            Action::Create { after } => (String::new(), shown_text(after)),
            Action::Delete { .. } | Action::CreateFolder => return None,
        };
        (old != new).then(|| crate::diff::unified_diff(&self.path, &old, &new))
    }
}

/// Bytes as a reader sees them: UTF-16 decoded, anything else lossily.
fn shown_text(bytes: &[u8]) -> String {
    match edit::from_utf16(bytes) {
        Some(Ok(text)) => text,
        _ => String::from_utf8_lossy(bytes.strip_prefix(BOM).unwrap_or(bytes)).into_owned(),
    }
}

/// A finding no fix here answers, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unfixed {
    pub code: &'static str,
    pub path: String,
    pub line: Option<usize>,
    pub reason: String,
}

/// Every fix proposed, and every finding left.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FixProposal {
    pub fixes: Vec<FileFix>,
    pub remaining: Vec<Unfixed>,
}

impl FixProposal {
    /// One file's outcome: its fix and the findings it left, or why none
    /// of `found` could be fixed. Bank and Deja Vu fixes both end so.
    pub(crate) fn take_file(
        &mut self,
        outcome: Result<(Option<FileFix>, Vec<Unfixed>), String>,
        found: &[&Finding],
    ) {
        match outcome {
            Ok((fix, left)) => {
                self.fixes.extend(fix);
                self.remaining.extend(left);
            }
            Err(reason) => self
                .remaining
                .extend(found.iter().map(|f| unfixed(f, reason.clone()))),
        }
    }

    /// Fixes in path order, what is left by path, line and code.
    pub(crate) fn sorted(mut self) -> FixProposal {
        crate::shared_sort::sort_by(&mut self.fixes, |a, b| a.path.cmp(&b.path));
        crate::shared_sort::sort_by(&mut self.remaining, |a, b| {
            (&a.path, a.line, a.code).cmp(&(&b.path, b.line, b.code))
        });
        self
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The codes fixed by editing an article's bytes.
const FILE_CODES: [&str; 12] = [
    "stale",
    "dead-link",
    "utf16",
    "not-utf8",
    "bom",
    "bad-date",
    "bad-status",
    "bad-language-code",
    "unquoted-link",
    "ambiguous-link",
    "missing-key",
    "fenced-frontmatter",
];

/// The order in which missing keys are added at the end of a frontmatter.
const ADDED_KEY_ORDER: [&str; 6] = [
    "client",
    "domain",
    "term_source",
    "term_target",
    "status",
    "last_updated",
];

/// Why a code has no automatic fix (the codes fixed here are not listed),
/// naming what to run as `surface` does.
pub fn no_fix_reason(code: &str, surface: Surface) -> Cow<'static, str> {
    match code {
        "bad-filename" => {
            return format!(
                "the new name is the author's choice; {} renames it and rewrites its links",
                surface.invocation("mv", "", "")
            )
            .into();
        }
        "stale" => {
            return format!(
                "only a reader can say whether the article is still right: once checked, \
                 {} marks it checked today",
                surface.invocation("fix", "--code stale", r#"{"code": ["stale"]}"#)
            )
            .into();
        }
        _ => {}
    }
    Cow::Borrowed(match code {
        "unparsable-frontmatter" => "the YAML needs an author to say what it meant",
        "missing-frontmatter" => "which keys an article should carry is the author's choice",
        "dead-link" => {
            "no single article is a near miss of the name; only the author knows where \
             the link should go"
        }
        "orphan" => "which article should link to it is the author's choice",
        "term-conflict" => {
            "choosing the translation is the author's decision: in the interface's Health \
             pane, x on the article to keep marks the others status: rejected"
        }
        "secret" => "remove the credential by hand, then rotate it",
        "unprocessed-inbox" => "Process Inbox handles inbox notes",
        "unknown-folder" | "not-markdown" => "nothing is wrong; it is only worth knowing",
        "skipped-file" | "unknown-template" => "renaming a file is the author's choice",
        "unreadable-file" | "not-a-file" | "oversized-file" | "symlinked-folder"
        | "link-outside-bank" => "membank does not open or change such files",
        _ => "no change can be made without a decision by the author",
    })
}

/// The fixes for `findings` (of `bank`, as `health::check` reported them,
/// filtered as the user asked). Reads each file to be changed once; a
/// file's modification date is taken in `tz`.
pub fn propose(bank: &Bank, findings: &[Finding], tz: &TimeZone) -> FixProposal {
    propose_with(
        bank,
        findings,
        &Options {
            tz: tz.clone(),
            checked_today: None,
            create_missing: None,
            surface: Surface::CommandLine,
        },
    )
}

/// What a proposal may do beyond the fixes that need no one's word.
#[derive(Debug, Clone)]
pub struct Options {
    /// The zone a file's modification date is read in.
    pub tz: TimeZone,
    /// The day to write as `last_updated` of a `stale` article the user
    /// has checked; `None` leaves `stale` findings alone.
    pub checked_today: Option<jiff::civil::Date>,
    /// Create the article a dead link names, when no article is a near
    /// miss of it, dated this day; `None` creates nothing (a dead link may
    /// be a deliberate forward reference).
    pub create_missing: Option<jiff::civil::Date>,
    /// Who reads the reasons a finding is left: they name what to run.
    pub surface: Surface,
}

/// [`propose`] with [`Options`].
pub fn propose_with(bank: &Bank, findings: &[Finding], opts: &Options) -> FixProposal {
    let tz = &opts.tz;
    let mut proposal = FixProposal::default();
    let names = findings
        .iter()
        .any(|f| f.code() == "dead-link")
        .then(|| retarget::article_names(bank));
    let mut by_path: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        match f.code() {
            "tmp-leftover" | "renamed-template" | "compiled-not-archived"
                if let Some(reason) = through_link(bank, &f.path) =>
            {
                proposal.remaining.push(unfixed(f, reason));
            }
            // A file in the folder's place is the author's to move: the
            // write would only refuse the folder.
            "missing-folder" if std::fs::symlink_metadata(bank.root().join(&*f.path)).is_ok() => {
                proposal.remaining.push(unfixed(
                    f,
                    format!(
                        "a file named {} is in the folder's place; move or rename it, then \
                         the folder can be made",
                        f.path
                    ),
                ))
            }
            "missing-folder" => proposal.fixes.push(FileFix {
                path: f.path.to_string(),
                codes: vec![f.code()],
                notes: vec![format!("create the folder {}", f.path)],
                action: Action::CreateFolder,
            }),
            "tmp-leftover" => match read(bank, &f.path) {
                Ok(before) => proposal.fixes.push(FileFix {
                    path: f.path.to_string(),
                    codes: vec![f.code()],
                    notes: vec!["delete the leftover of an interrupted save".into()],
                    action: Action::Delete { before },
                }),
                Err(reason) => proposal.remaining.push(unfixed(f, reason)),
            },
            "renamed-template" => match moves::template(bank, f) {
                Ok(fix) => proposal.fixes.push(fix),
                Err(reason) => proposal.remaining.push(unfixed(f, reason)),
            },
            "compiled-not-archived" => match moves::archive(bank, f) {
                Ok(fix) => proposal.fixes.push(fix),
                Err(reason) => proposal.remaining.push(unfixed(f, reason)),
            },
            "stale" if opts.checked_today.is_none() => proposal.remaining.push(unfixed(
                f,
                no_fix_reason(f.code(), opts.surface).into_owned(),
            )),
            "dead-link"
                if let (Some(today), Some(names)) = (opts.create_missing, &names)
                    && let Some(made) = retarget::missing_article(bank, f, names) =>
            {
                match made {
                    Ok((folder, name)) => {
                        create_missing(bank, f, folder, &name, today, &mut proposal);
                    }
                    // Asked to create it, and not: the advice to ask is no
                    // answer, the reason is.
                    Err(why) => proposal.remaining.push(unfixed(f, why)),
                }
            }
            code if FILE_CODES.contains(&code) => by_path.entry(&*f.path).or_default().push(f),
            code => proposal
                .remaining
                .push(unfixed(f, no_fix_reason(code, opts.surface).into_owned())),
        }
    }
    for (path, found) in by_path {
        if let Some(reason) = through_link(bank, path) {
            for f in found {
                proposal.remaining.push(unfixed(f, reason.clone()));
            }
            continue;
        }
        let edits = Edits {
            tz,
            checked_today: opts.checked_today,
            names: names.as_ref(),
        };
        proposal.take_file(fix_file(bank, path, &found, &edits), &found);
    }
    carry_edits_into_moves(&mut proposal.fixes);
    proposal.sorted()
}

/// Why nothing is written to `path`, when it is reached through a symbolic
/// link: the file itself (read as usual; the note it points to has the
/// same findings and is fixed at its own path), or, when the bank follows
/// links out (`follow_links_out`), a linked folder on its way. The plan
/// leaves such a file out, saying why, so what it shows is what `--yes`
/// writes: the write would refuse it, and with it every other fix.
fn through_link(bank: &Bank, path: &str) -> Option<String> {
    let folders_too = bank.reader().policy().follow_links_out;
    let link = crate::pathsafe::link_on_the_way(bank.root(), path, folders_too)?;
    Some(if link == path {
        format!(
            "{path} is a symbolic link; nothing is written through it (fix the file it points to)"
        )
    } else {
        format!(
            "{path} is reached through the symbolic link {link}; nothing is written through it \
             (fix the file where the link leads)"
        )
    })
}

/// A file both edited and moved (a compiled note with a short date) is
/// one fix: the move writes the edited bytes. Two fixes of one path would
/// move the old bytes and write the edit where the file no longer belongs,
/// leaving two copies.
fn carry_edits_into_moves(fixes: &mut Vec<FileFix>) {
    // Moves are rare (a compiled note, a template's old name): a bank-wide
    // plan without one is left as it is, not searched once per fix.
    if !fixes
        .iter()
        .any(|f| matches!(f.action, Action::Move { .. }))
    {
        return;
    }
    let mut i = 0;
    while i < fixes.len() {
        let moved = fixes
            .iter()
            .position(|m| m.path == fixes[i].path && matches!(m.action, Action::Move { .. }));
        match (&fixes[i].action, moved) {
            (Action::Change { .. }, Some(m)) => {
                let edit = fixes.remove(i);
                let m = if m > i { m - 1 } else { m };
                let Action::Change { after: edited, .. } = edit.action else {
                    unreachable!("matched as a change above")
                };
                let target = &mut fixes[m];
                if let Action::Move { after, .. } = &mut target.action {
                    *after = edited;
                }
                // The edits are described on the lines of the file, then
                // where it goes.
                let mut codes = edit.codes;
                codes.append(&mut target.codes);
                target.codes = codes;
                let mut notes = edit.notes;
                notes.append(&mut target.notes);
                target.notes = notes;
            }
            _ => i += 1,
        }
    }
}

/// The article a dead link names, made once however many links name it.
fn create_missing(
    bank: &Bank,
    f: &Finding,
    folder: Folder,
    name: &str,
    today: jiff::civil::Date,
    proposal: &mut FixProposal,
) {
    let known = crate::new_note::Known::default();
    match crate::new_note::article(bank, folder, name, &known, today) {
        Ok(mut fix) => {
            let linked_from = format!("linked from {}", f.path);
            if let Some(made) = proposal.fixes.iter_mut().find(|m| m.path == fix.path) {
                if !made.notes.contains(&linked_from) {
                    made.notes.push(linked_from);
                }
                return;
            }
            fix.codes = vec![f.code()];
            fix.notes = vec![
                "create the article the link names, with its folder's keys".into(),
                linked_from,
            ];
            proposal.fixes.push(fix);
        }
        Err(reason) => proposal.remaining.push(unfixed(f, reason)),
    }
}

pub(crate) fn unfixed(f: &Finding, reason: String) -> Unfixed {
    Unfixed {
        code: f.code(),
        path: f.path.to_string(),
        line: f.line(),
        reason,
    }
}

fn read(bank: &Bank, rel: &str) -> Result<Vec<u8>, String> {
    bank.reader()
        .read(Path::new(rel))
        .map_err(|e| format!("cannot be read: {e}"))
}

/// What the edits of one file draw on.
struct Edits<'a> {
    tz: &'a TimeZone,
    checked_today: Option<jiff::civil::Date>,
    names: Option<&'a crate::near_miss::NearMisses>,
}

/// The fix of one file for its `found` findings, and those left; `Err`
/// when none of them can be fixed.
fn fix_file(
    bank: &Bank,
    path: &str,
    found: &[&Finding],
    edits: &Edits<'_>,
) -> Result<(Option<FileFix>, Vec<Unfixed>), String> {
    let tz = edits.tz;
    if path.starts_with("06_TEMPLATES/") {
        return Err("membank never changes the prompt templates".into());
    }
    let has = |code: &str| found.iter().any(|f| f.code() == code);
    let before = read(bank, path)?;
    let mut notes = Vec::new();
    let mut codes = Vec::new();
    let mut left = Vec::new();
    let (mut text, had_bom) = decoded(&before, has("utf16"), has("not-utf8"), &mut notes)?;
    let keep_bom = had_bom && !has("bom");
    for code in ["utf16", "not-utf8", "bom"] {
        if has(code) {
            codes.push(code);
        }
    }
    if has("bom") {
        notes.push("drop the byte-order mark".into());
    }

    // Values first: the findings' lines are those of the file on disk,
    // which the fence lines' removal would shift.
    // Added keys go in one order whatever order the report gave them in.
    let mut in_order: Vec<&Finding> = found.to_vec();
    crate::shared_sort::sort_by_key(&mut in_order, |f| match f.missing_key() {
        Some(key) => 1 + ADDED_KEY_ORDER.iter().position(|k| *k == key).unwrap_or(99),
        None => 0,
    });
    let mut fixed_lines: Vec<(&str, usize, Result<line_links::LineLinks, String>)> = Vec::new();
    for f in in_order {
        // One pass over a line fixes every dead (or ambiguous) link on it
        // that can be; each finding is then about its own link.
        if let Some((_, _, outcome)) = fixed_lines
            .iter()
            .find(|(code, l, _)| *code == f.code() && Some(*l) == f.line())
        {
            match outcome {
                Err(reason) => left.push(unfixed(f, String::clone(reason))),
                Ok(done) => match done.left_for(f) {
                    Some(reason) => left.push(unfixed(f, reason.to_owned())),
                    None => codes.push(f.code()),
                },
            }
            continue;
        }
        let edited = match f.code() {
            "bad-date" => value_fix(&text, f, &["last_updated", "compiled_date"], |v| {
                edit::padded_date(v)
            }),
            "bad-status" => value_fix(&text, f, &["status"], edit::status_word),
            "bad-language-code" => match f.line().map(|line| language_fix(&text, line)) {
                None => Err("the finding names no line".into()),
                Some(Err(reason)) => Err(reason),
                Some(Ok(done)) => match (done.left_for(f), done.edited) {
                    (Some(why), edited) => {
                        // The key's other values may be fixed.
                        if let Some((new, note)) = edited {
                            notes.push(note);
                            text = new;
                            codes.push(f.code());
                        }
                        Err(why)
                    }
                    (None, Some(edit)) => Ok(edit),
                    // Fixed with an earlier finding of the same key.
                    (None, None) => Ok((text.clone(), String::new())),
                },
            },
            "unquoted-link" => unquoted_link_fix(&text, f),
            "missing-key" => missing_key_fix(&text, f, bank, path, tz),
            "stale" => match edits.checked_today {
                Some(today) => value_fix(&text, f, &["last_updated"], |_| Ok(today.to_string())),
                None => continue,
            },
            "dead-link" | "ambiguous-link" => {
                let outcome = match (f.code(), edits.names) {
                    ("dead-link", Some(names)) => retarget::retarget(&text, f, bank, path, names),
                    ("dead-link", None) => continue,
                    _ => ambiguous_link_fix(&text, f, bank, path),
                };
                let edited = match &outcome {
                    Err(reason) => Err(reason.clone()),
                    Ok(done) => match (&done.edited, done.left_for(f)) {
                        (_, Some(reason)) => {
                            // Its line's other links may be fixed.
                            if let Some((new, note)) = &done.edited {
                                notes.push(note.clone());
                                text = new.clone();
                                codes.push(f.code());
                            }
                            Err(reason.to_owned())
                        }
                        (Some(edit), None) => Ok(edit.clone()),
                        (None, None) => Err("no link on the line could be fixed".into()),
                    },
                };
                if let Some(line) = f.line() {
                    fixed_lines.push((f.code(), line, outcome));
                }
                edited
            }
            _ => continue,
        };
        match edited {
            Ok((new, note)) => {
                // Several findings can name one line (a list of codes);
                // the first fix answers them all.
                if new != text {
                    notes.push(note);
                }
                text = new;
                codes.push(f.code());
            }
            Err(reason) => left.push(unfixed(f, reason)),
        }
    }
    let article = bank.find(path).map(|id| bank.article(id));
    if let Some(f) = found.iter().find(|f| f.code() == "fenced-frontmatter") {
        match fence_lines(&text, article) {
            Ok((lines, blanks)) => {
                let shown = |l: &[usize]| {
                    l.iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(" and ")
                };
                let lines_word = |n: &[usize]| if n.len() == 1 { "line" } else { "lines" };
                let mut note = format!("remove the fence {} {}", lines_word(&lines), shown(&lines));
                if !blanks.is_empty() {
                    note.push_str(&format!(
                        ", and the blank {} {} before the frontmatter",
                        lines_word(&blanks),
                        shown(&blanks)
                    ));
                }
                let all: Vec<usize> = lines.iter().chain(&blanks).copied().collect();
                text = edit::remove_lines(&text, &all);
                notes.push(note);
                codes.push(f.code());
            }
            Err(reason) => left.push(unfixed(f, reason)),
        }
    }
    if codes.is_empty() {
        return Ok((None, left));
    }
    let mut seen = Vec::new();
    codes.retain(|c| {
        let first = !seen.contains(c);
        seen.push(*c);
        first
    });
    let mut after = Vec::with_capacity(text.len() + 3);
    if keep_bom {
        after.extend_from_slice(BOM);
    }
    after.extend_from_slice(text.as_bytes());
    check_result(path, &after, article)?;
    Ok((
        Some(FileFix {
            path: path.to_owned(),
            codes,
            notes,
            action: Action::Change { before, after },
        }),
        left,
    ))
}

/// The file's text with its line endings, decoded as the fixes asked,
/// and whether it started with a UTF-8 byte-order mark.
fn decoded(
    bytes: &[u8],
    utf16: bool,
    not_utf8: bool,
    notes: &mut Vec<String>,
) -> Result<(String, bool), String> {
    match edit::from_utf16(bytes) {
        Some(Ok(text)) if utf16 => {
            notes.push("save as UTF-8 instead of UTF-16".into());
            return Ok((text, false));
        }
        Some(Ok(_)) => return Err("the file is UTF-16: it must be saved as UTF-8 first".into()),
        Some(Err(())) => {
            return Err("the UTF-16 text breaks off; what it held cannot be known".into());
        }
        None => {}
    }
    let had_bom = bytes.starts_with(BOM);
    let body = bytes.strip_prefix(BOM).unwrap_or(bytes);
    match std::str::from_utf8(body) {
        Ok(text) => Ok((text.to_owned(), had_bom)),
        Err(_) if !not_utf8 => Err("the file is not UTF-8: it must be saved as UTF-8 first".into()),
        Err(_) => match edit::from_windows_1252(body) {
            Ok(text) => {
                let words = edit::accented_words(&text);
                let shown = match words.len() {
                    0 => String::new(),
                    n if n <= 12 => format!("; check: {}", words.join(", ")),
                    n => format!("; check: {}, … ({n} words)", words[..12].join(", ")),
                };
                notes.push(format!("read as Windows-1252 and save as UTF-8{shown}"));
                Ok((text, had_bom))
            }
            Err(edit::NotWindows1252::Mixed) => Err(
                "the file mixes UTF-8 letters with bytes of another encoding; reading either \
                 way would spoil some of it"
                    .into(),
            ),
            Err(edit::NotWindows1252::Undefined(b)) => Err(format!(
                "byte 0x{b:02X} is not Windows-1252 either; the encoding cannot be told"
            )),
        },
    }
}

fn value_fix(
    text: &str,
    f: &Finding,
    keys: &[&str],
    fix: impl Fn(&str) -> Result<String, String>,
) -> Result<(String, String), String> {
    let line = f.line().ok_or("the finding names no line")?;
    let (new, old, value) = edit::replace_value(text, line, keys, fix)?;
    Ok((new, format!("line {line}: “{old}” becomes “{value}”")))
}

/// The language codes of a key fixed: on its line, and on the list items
/// below it when it has no value of its own. Each value (the key's, or
/// one item's) is fixed or left on its own, so a name left to the author
/// leaves the other items to be fixed.
struct LanguageFix {
    edited: Option<(String, String)>,
    /// Each value left as written, and its words with no one code.
    left: Vec<(String, Vec<String>)>,
}

impl LanguageFix {
    /// Why the value `f` is about was left, if it was: `f` names its codes
    /// in quotes.
    fn left_for(&self, f: &Finding) -> Option<String> {
        let message = f.message();
        let named = message.split(" which is not").next().unwrap_or_default();
        let named: Vec<&str> = named
            .split('“')
            .skip(1)
            .filter_map(|s| s.split_once('”').map(|(code, _)| code))
            .collect();
        for (_, words) in &self.left {
            if let Some(word) = words.iter().find(|w| named.contains(&w.as_str())) {
                return Some(unknown_language(word));
            }
        }
        self.left
            .iter()
            .find(|(value, _)| named.iter().any(|n| value.contains(n)))
            .map(|(value, words)| {
                format!(
                    "“{value}” is left as written: {}",
                    unknown_language(&words[0])
                )
            })
    }
}

/// Why a word is not made a language code.
fn unknown_language(word: &str) -> String {
    match word.eq_ignore_ascii_case("norwegian") {
        true => "“Norwegian” is written no, nb (Bokmål) or nn (Nynorsk); which one is the \
                 author's choice"
            .into(),
        false => format!("“{word}” is not a language name membank knows"),
    }
}

fn language_fix(text: &str, line: usize) -> Result<LanguageFix, String> {
    let key_line =
        edit::line_text(text, line).ok_or_else(|| format!("line {line} is not in the file"))?;
    let kv = edit::key_value(key_line)
        .filter(|kv| LANGUAGE_KEYS.contains(&kv.key))
        .ok_or_else(|| format!("line {line} is not a plain “key: value” line"))?;
    let mut values = vec![(line, kv.value.clone())];
    if key_line[kv.value].trim().is_empty() {
        let mut at = line + 1;
        while let Some(range) = edit::line_text(text, at).and_then(edit::list_item) {
            values.push((at, range));
            at += 1;
        }
    }
    let mut text = text.to_owned();
    let mut changes = Vec::new();
    let mut left = Vec::new();
    for (at, range) in values {
        let mut new_line = edit::line_text(&text, at).unwrap_or_default().to_owned();
        let old = new_line[range.clone()].to_owned();
        // A comment after the value stays as written.
        match edit::language_codes(&old, fixed_language_tag, is_plausible_language_tag) {
            Ok(new) if new != old => {
                changes.push(format!("“{}” becomes “{}”", old.trim(), new.trim()));
                new_line.replace_range(range, &new);
                text = replace_line(&text, at, &new_line);
            }
            Ok(_) => {}
            Err(words) => left.push((old.trim().to_owned(), words)),
        }
    }
    let edited =
        (!changes.is_empty()).then(|| (text, format!("line {line}: {}", changes.join(", "))));
    Ok(LanguageFix { edited, left })
}

/// The unquoted `[[link]]` of the finding's key quoted, on the key's line
/// or, when the key has no value of its own, on the list items below it.
fn unquoted_link_fix(text: &str, f: &Finding) -> Result<(String, String), String> {
    let line = f.line().ok_or("the finding names no line")?;
    let key_line = edit::line_text(text, line).unwrap_or_default();
    let key = edit::key_value(key_line)
        .map(|kv| kv.key.to_owned())
        .ok_or_else(|| format!("line {line} is not a plain “key: value” line"))?;
    let (mut text, old, value) =
        edit::replace_value(text, line, &[key.as_str()], |v| match v.trim() {
            "" => Ok(String::new()),
            v => edit::quoted_link(v)
                .ok_or_else(|| format!("“{v}” is not one link; write its quotes by hand")),
        })?;
    let mut changes = Vec::new();
    if !value.is_empty() {
        changes.push(format!("{old} becomes {value}"));
    } else {
        let mut at = line + 1;
        while let Some(item) = edit::line_text(&text, at) {
            // The item's value, a comment after it kept as written.
            let Some(range) = edit::list_item(item) else {
                break;
            };
            let in_quotes =
                range.start > 0 && matches!(item.as_bytes()[range.start - 1], b'"' | b'\'');
            if !in_quotes && let Some(quoted) = edit::quoted_link(&item[range.clone()]) {
                changes.push(format!("{} becomes {quoted}", &item[range.clone()]));
                let mut new_line = item.to_owned();
                new_line.replace_range(range, &quoted);
                text = replace_line(&text, at, &new_line);
            }
            at += 1;
        }
    }
    if changes.is_empty() {
        return Err(format!("no unquoted link found under {key} on line {line}"));
    }
    Ok((text, format!("line {line}: {}", changes.join(", "))))
}

/// The missing key added at the end of the frontmatter (or its empty value
/// filled), with a value the file itself gives.
fn missing_key_fix(
    text: &str,
    f: &Finding,
    bank: &Bank,
    path: &str,
    tz: &TimeZone,
) -> Result<(String, String), String> {
    let key = f.missing_key().ok_or("the finding names no key")?;
    if key == "languages" {
        let pair = only_language_pair(bank).ok_or(
            "languages needs a value: the bank uses no single language pair to take it from",
        )?;
        // Quoted, as pairs are written in banks.
        let yaml = format!("[\"{pair}\"]");
        let (new, line) = edit::set_key_as(text, key, None, &yaml)?;
        return Ok((new, format!("line {line}: add languages: {yaml}")));
    }
    let value = inferred_value(bank, path, key, tz)?;
    let (new, line) = edit::set_key(text, key, &value)?;
    Ok((new, format!("line {line}: add {key}: {value}")))
}

/// The bank's language pair, `en-US → nl-BE`, when every pair its
/// articles name is that one (ignoring case).
fn only_language_pair(bank: &Bank) -> Option<String> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut note = |source: &str, target: &str| {
        let pair = (source.trim().to_owned(), target.trim().to_owned());
        let known = pairs
            .iter()
            .any(|(s, t)| s.eq_ignore_ascii_case(&pair.0) && t.eq_ignore_ascii_case(&pair.1));
        if !known {
            pairs.push(pair);
        }
    };
    for a in bank.articles() {
        for value in a.meta.languages.iter() {
            if let [source, target] = value.tags.as_slice() {
                note(source, target);
            }
        }
        if let (Some(source), Some(target)) = (&a.meta.source_lang, &a.meta.target_lang) {
            note(source, target);
        }
    }
    match pairs.as_slice() {
        [(source, target)]
            if is_plausible_language_tag(source) && is_plausible_language_tag(target) =>
        {
            Some(format!("{source} → {target}"))
        }
        _ => None,
    }
}

/// A value for `key` that the file supports, or why there is none.
fn inferred_value(bank: &Bank, path: &str, key: &str, tz: &TimeZone) -> Result<String, String> {
    let stem = crate::article::stem_of(path);
    let folder = path.split('/').next().and_then(Folder::from_dir_name);
    let term = || {
        [" → ", " -> "]
            .iter()
            .find_map(|arrow| stem.split_once(arrow))
            .filter(|(s, t)| !s.trim().is_empty() && !t.trim().is_empty())
            .ok_or_else(|| format!("{key} needs a value: the file name is not “source → target”"))
    };
    match key {
        "last_updated" => {
            let modified = std::fs::symlink_metadata(bank.root().join(path))
                .and_then(|m| m.modified())
                .map_err(|e| format!("last_updated needs a value: no modification date ({e})"))?;
            let stamp = jiff::Timestamp::try_from(modified)
                .map_err(|e| format!("last_updated needs a value: {e}"))?;
            Ok(stamp.to_zoned(tz.clone()).date().to_string())
        }
        "client" if folder == Some(Folder::Clients) => Ok(stem.trim().to_owned()),
        "domain" if folder == Some(Folder::Domains) => Ok(stem.trim().to_owned()),
        "term_source" => term().map(|(s, _)| s.trim().to_owned()),
        "term_target" => term().map(|(_, t)| t.trim().to_owned()),
        "status" => Ok("proposed".to_owned()),
        _ => Err(format!(
            "{key} needs a value only the author can give; no value is filled in"
        )),
    }
}

/// Each ambiguous `[[Name]]` on the finding's line written as the path of
/// the file it opens now, its shown text kept (`[[03_DOMAINS/Legal|Legal]]`),
/// so the link means what it meant and no longer depends on other names.
/// Each link is edited at its own bytes, and one left as written (an
/// embed, a Markdown link) leaves the others of its line to be fixed.
fn ambiguous_link_fix(
    text: &str,
    f: &Finding,
    bank: &Bank,
    path: &str,
) -> Result<line_links::LineLinks, String> {
    let line = f.line().ok_or("the finding names no line")?;
    let a = bank
        .find(path)
        .map(|id| bank.article(id))
        .ok_or("the article was not loaded")?;
    let line_text =
        edit::line_text(text, line).ok_or_else(|| format!("line {line} is not in the file"))?;
    let on_line: Vec<_> = a.links.iter().filter(|l| l.line == line).collect();
    let ranges = line_links::body_ranges(text, line, &on_line);
    let mut edits = Vec::new();
    let mut changes = Vec::new();
    let mut left = Vec::new();
    for (link, range) in on_line.iter().zip(ranges) {
        let Resolution::Ambiguous(ids) = bank.resolve_from(link.target(), Some(path)) else {
            continue;
        };
        let why = if link.in_frontmatter {
            Some("a link in the frontmatter is a value too; write its path by hand".to_owned())
        } else if link.kind != LinkKind::Wiki || link.raw().contains("\\|") {
            Some(format!(
                "{} is left as written; write its path by hand",
                link.written()
            ))
        } else {
            None
        };
        let at = match (why, range) {
            (Some(why), _) => Err(why),
            (None, Some(at)) => Ok(at),
            (None, None) => Err(format!(
                "{} is not written on line {line} as read; the file changed",
                link.written()
            )),
        };
        let at = match at {
            Ok(at) => at,
            Err(why) => {
                left.push((link.written(), why));
                continue;
            }
        };
        let opened = &bank.article(ids[0]).rel_path;
        let opened = opened.strip_suffix(".md").unwrap_or(opened);
        let cut = link.raw().find(['#', '|']).unwrap_or(link.raw().len());
        let (name, rest) = link.raw().split_at(cut);
        let shown = match rest.contains('|') {
            true => String::new(),
            // What Obsidian shows of the link as it was written.
            false => format!("|{}", line_links::shown_name(name, rest)),
        };
        let old = link.written();
        let new = format!("[[{opened}{rest}{shown}]]");
        changes.push(format!("{old} becomes {new}"));
        edits.push(line_links::Replacement { range: at, new });
    }
    if changes.is_empty() && left.is_empty() {
        return Err(format!("no ambiguous link found on line {line}"));
    }
    let edited = (!changes.is_empty()).then(|| {
        (
            replace_line(text, line, &line_links::replaced(line_text, edits)),
            format!("line {line}: {}", changes.join(", ")),
        )
    });
    Ok(line_links::LineLinks { edited, left })
}

/// `text` with 1-based `line` (its ending kept) replaced by `new`.
fn replace_line(text: &str, line: usize, new: &str) -> String {
    let mut out = String::with_capacity(text.len() + new.len());
    for (i, piece) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let body = piece.trim_end_matches(['\n', '\r']);
            out.push_str(new);
            out.push_str(&piece[body.len()..]);
        } else {
            out.push_str(piece);
        }
    }
    out
}

/// The lines of the fence around the article, checked to be fences, and
/// the blank lines before the opening fence and between it and the
/// frontmatter.
fn fence_lines(text: &str, article: Option<&Article>) -> Result<(Vec<usize>, Vec<usize>), String> {
    let a = article.ok_or("the article was not loaded")?;
    let open = a.encoding.fence_open_line();
    let mut lines = vec![open];
    lines.extend(a.encoding.fence_close_line());
    for &line in &lines {
        let l = edit::line_text(text, line).unwrap_or_default().trim_start();
        if !(l.starts_with("```") || l.starts_with("~~~")) {
            return Err(format!(
                "line {line} is not a fence line; the file changed since it was read"
            ));
        }
    }
    // The blank lines before the fence and between it and the frontmatter
    // go too: the block must start the file.
    let mut blanks = Vec::new();
    for line in (1..open).chain(open + 1..=a.encoding.line_shift()) {
        if !edit::line_text(text, line)
            .unwrap_or_default()
            .trim()
            .is_empty()
        {
            return Err(format!(
                "line {line} is not blank; the file changed since it was read"
            ));
        }
        blanks.push(line);
    }
    Ok((lines, blanks))
}

/// The fixed bytes read back as the bank reads them: UTF-8 text, the
/// frontmatter parsed if it was, no fence left, and no credential.
fn check_result(path: &str, after: &[u8], article: Option<&Article>) -> Result<(), String> {
    let decoded = crate::text::decode(after)
        .map_err(|e| format!("the fixed file would not be UTF-8 ({e}); nothing is proposed"))?;
    crate::secrets::refuse_each(&[("the file", &decoded.text)])
        .map_err(|reason| format!("{reason}; it is not rewritten"))?;
    let folder = path
        .split('/')
        .next()
        .and_then(Folder::from_dir_name)
        .unwrap_or(Folder::Inbox);
    let reread = Article::parse(path.to_owned(), folder, decoded);
    let was_parsed = article.is_some_and(|a| matches!(a.frontmatter, FrontmatterState::Parsed(_)));
    if was_parsed && !matches!(reread.frontmatter, FrontmatterState::Parsed(_)) {
        return Err("the fixed frontmatter would not parse; nothing is proposed".into());
    }
    Ok(())
}
