//! Terms from an exchange file proposed as new term articles: an
//! identical term already in the bank is `unchanged`, one that differs
//! only in status is shown and left alone, and a new approved target for
//! an approved source term of the same client (or of every client) is
//! shown as the `term-conflict` it creates.
//! Nothing existing is ever rewritten.

use std::collections::HashSet;

use serde::Serialize;

use super::{Status, TermRecord, clients_meet, same_name};
use crate::layout::Folder;
use crate::pathsafe::same_file_key;

/// What importing one term would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Outcome {
    /// A new term article.
    New,
    /// A new term article that gives an approved source term a second
    /// approved target in its pair for a client it shares (a term naming
    /// no client holds for all), as the `term-conflict` check compares
    /// them: the conflict it creates is shown.
    Conflict,
    /// The bank has this term already, with this status.
    Unchanged,
    /// The bank has this term with another status; left as it is.
    StatusDiffers,
    /// The file lists this term again (an earlier row or entry of it is
    /// imported); `path` is that one's.
    Repeated,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Proposed {
    pub outcome: Outcome,
    pub term: TermRecord,
    /// Where the new article goes, or the existing article's path.
    pub path: String,
    /// The new article's text (empty when nothing is written).
    pub text: String,
    /// The existing articles it agrees or conflicts with.
    pub existing: Vec<String>,
}

impl Proposed {
    pub fn writes(&self) -> bool {
        matches!(self.outcome, Outcome::New | Outcome::Conflict)
    }
}

/// What the import fills in and where the terms came from.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Every imported term is for this client (added to its clients).
    pub client: Option<String>,
    /// The domain of imported terms that name none.
    pub domain: Option<String>,
    /// `last_updated` of terms whose file gives no date (`YYYY-MM-DD`).
    pub today: String,
    /// The file's name, kept as `compiled_from`.
    pub from: String,
}

/// Characters a file name may not hold (§3: separators and what NTFS
/// forbids), what ends a name inside a link (`[`, `]`, `#`, `^`), control
/// characters and invisible ones (which the write refuses, as they can
/// make one name look like another). At most 80 characters and
/// [`NAME_PART_BYTES`] bytes, so that two parts and a number stay within
/// a file system's 255 bytes.
fn name_part(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .filter(|&c| !crate::text::is_invisible_format(c))
        .map(|c| match c {
            '/' | '\\' | '<' | '>' | ':' | '"' | '|' | '?' | '*' | '[' | ']' | '#' | '^' => ' ',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let collapsed = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    let trimmed = collapsed.trim_matches(|c: char| c == '.' || c == ' ');
    let mut part = String::new();
    for c in trimmed.chars().take(80) {
        if part.len() + c.len_utf8() > NAME_PART_BYTES {
            break;
        }
        part.push(c);
    }
    part.trim_end_matches(['.', ' ']).to_owned()
}

/// The most bytes of a term in a file name: two, the arrow, a number and
/// `.md` within 255.
const NAME_PART_BYTES: usize = 110;

/// A name value without what would break it as a wikilink.
fn link_name(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '[' | ']' | '|' | '#') && !c.is_control())
        .collect::<String>()
        .trim()
        .to_owned()
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// `s` without control characters: line breaks become spaces, a tab is
/// kept (frontmatter values are quoted, so it is written `\t`), the
/// others go. The readers refuse them already; this is the last
/// guard, so that no article's heading or frontmatter can carry an
/// escape sequence to a terminal that shows it.
fn clean(s: &str) -> String {
    s.chars()
        .filter_map(|c| match c {
            '\t' => Some('\t'),
            '\n' | '\r' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

/// The text of a new term article, as the format's §4 names its keys.
pub fn article_text(t: &TermRecord, from: &str) -> String {
    let t = &TermRecord {
        path: String::new(),
        source: clean(&t.source),
        target: clean(&t.target),
        source_lang: clean(&t.source_lang),
        target_lang: clean(&t.target_lang),
        status: t.status,
        clients: t.clients.iter().map(|c| clean(c)).collect(),
        domain: t.domain.as_deref().map(clean),
        last_updated: t.last_updated.as_deref().map(clean),
        note: t.note.as_deref().map(clean),
    };
    let from = &clean(from);
    let mut out = String::from("---\n");
    out.push_str(&format!("term_source: {}\n", quoted(&t.source)));
    out.push_str(&format!("term_target: {}\n", quoted(&t.target)));
    out.push_str(&format!("source_lang: {}\n", quoted(&t.source_lang)));
    out.push_str(&format!("target_lang: {}\n", quoted(&t.target_lang)));
    if let Some(d) = t.domain.as_deref().map(link_name).filter(|d| !d.is_empty()) {
        out.push_str(&format!("domain: {}\n", quoted(&format!("[[{d}]]"))));
    }
    let clients: Vec<String> = t
        .clients
        .iter()
        .map(|c| link_name(c))
        .filter(|c| !c.is_empty())
        .map(|c| quoted(&format!("[[{c}]]")))
        .collect();
    if !clients.is_empty() {
        out.push_str(&format!("clients: [{}]\n", clients.join(", ")));
    }
    out.push_str(&format!("status: {}\n", quoted(t.status.as_str())));
    if let Some(d) = &t.last_updated {
        out.push_str(&format!("last_updated: {d}\n"));
    }
    if !from.is_empty() {
        out.push_str(&format!("compiled_from: {}\n", quoted(from)));
    }
    out.push_str("---\n");
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    out.push_str(&format!(
        "# {} → {}\n",
        one_line(&t.source),
        one_line(&t.target)
    ));
    if let Some(note) = &t.note {
        let note = one_line(note);
        if !note.is_empty() {
            out.push('\n');
            // A note that reads as block markup (a list item, a heading,
            // a quote) would not read back as the first paragraph; a
            // leading escape keeps it prose. Only then: before emphasis
            // (`*nota*`, `**Garantie**`) a backslash would show, and
            // stop it rendering.
            let block = super::is_block_markup(&note);
            let digits = note.chars().take_while(char::is_ascii_digit).count();
            if digits > 0 && block {
                // `1. …`: a backslash before the digit escapes nothing.
                out.push_str(&note[..digits]);
                out.push('\\');
                out.push_str(&note[digits..]);
            } else {
                // A leading backslash is escaped too: the reader drops
                // one before punctuation.
                if block || note.starts_with('\\') {
                    out.push('\\');
                }
                out.push_str(&note);
            }
            out.push('\n');
        }
    }
    out
}

/// `s` in composed form (NFC): `é` typed as `e` and a combining accent
/// (macOS file names, text pasted from some tools) is the same term.
fn composed(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    if s.is_ascii() || unicode_normalization::is_nfc(s) {
        s.to_owned()
    } else {
        s.nfc().collect()
    }
}

/// `s` without invisible format characters (a soft hyphen, a zero-width
/// space, a bidirectional mark), which a glossary exported from a
/// document often carries: kept, the term would look like the one typed
/// and differ from it. The zero-width joiner and non-joiner stay: Persian
/// and Indic spelling, and emoji, need them.
fn visible(s: &str) -> String {
    s.chars()
        .filter(|&c| !crate::text::is_invisible_format(c) || matches!(c, '\u{200C}' | '\u{200D}'))
        .collect()
}

fn same_source_and_pair(a: &TermRecord, b: &TermRecord) -> bool {
    crate::wikilink::fold(a.source.trim()) == crate::wikilink::fold(b.source.trim())
        && a.source_lang.eq_ignore_ascii_case(&b.source_lang)
        && a.target_lang.eq_ignore_ascii_case(&b.target_lang)
}

fn same_term(a: &TermRecord, b: &TermRecord) -> bool {
    same_source_and_pair(a, b)
        && a.clients.len() == b.clients.len()
        && a.clients
            .iter()
            .all(|c| b.clients.iter().any(|d| same_name(c, d)))
}

/// The import of `incoming` into a bank holding `existing` (term records)
/// and the files `taken` (relative paths, compared case-insensitively).
pub fn propose(
    existing: &[TermRecord],
    taken: &HashSet<String>,
    incoming: Vec<TermRecord>,
    options: &Options,
) -> Vec<Proposed> {
    let mut used: HashSet<String> = taken.iter().map(|p| same_file_key(p)).collect();
    // A name another folder's note has would make `[[name]]` ambiguous.
    let mut names: HashSet<String> = taken
        .iter()
        .map(|p| same_file_key(p.rsplit('/').next().unwrap_or(p)))
        .collect();
    let mut out: Vec<Proposed> = Vec::new();
    let mut accepted: Vec<TermRecord> = Vec::new();
    for mut t in incoming {
        if let Some(c) = &options.client
            && !t.clients.iter().any(|x| same_name(x, c))
        {
            t.clients.push(c.clone());
            crate::shared_sort::sort_by_key(&mut t.clients, |c| c.to_lowercase());
        }
        if t.domain.is_none() {
            t.domain = options.domain.clone();
        }
        if t.last_updated.is_none() {
            t.last_updated = Some(options.today.clone());
        }
        t.path.clear();
        // Written composed, and compared so: two spellings of one accent
        // are one term, and one file name on macOS.
        t.source = composed(&visible(&t.source));
        t.target = composed(&visible(&t.target));
        let same: Vec<&TermRecord> = existing
            .iter()
            .chain(accepted.iter())
            .filter(|e| same_term(e, &t))
            .collect();
        let identical: Vec<&&TermRecord> = same
            .iter()
            .filter(|e| composed(&e.target) == t.target)
            .collect();
        if let Some(first) = identical.first() {
            let in_bank = identical
                .iter()
                .any(|e| existing.iter().any(|x| std::ptr::eq(x, **e)));
            let outcome = if !in_bank {
                // Not the bank's: the file named it before.
                Outcome::Repeated
            } else if identical.iter().any(|e| e.status == t.status) {
                Outcome::Unchanged
            } else {
                Outcome::StatusDiffers
            };
            out.push(Proposed {
                outcome,
                path: first.path.clone(),
                term: t,
                text: String::new(),
                existing: identical.iter().map(|e| e.path.clone()).collect(),
            });
            continue;
        }
        // As the `term-conflict` check sees it: approved terms for the
        // same source and pair that can meet in one client's job.
        let conflicting: Vec<String> = existing
            .iter()
            .chain(accepted.iter())
            .filter(|e| {
                t.status == Status::Approved
                    && e.status == Status::Approved
                    && same_source_and_pair(e, &t)
                    && clients_meet(
                        e.clients.iter().map(String::as_str),
                        t.clients.iter().map(String::as_str),
                    )
                    && e.target.trim() != t.target.trim()
            })
            .map(|e| e.path.clone())
            .collect();
        let path = free_path(&t, &mut used, &mut names);
        let text = article_text(&t, &options.from);
        t.path = path.clone();
        accepted.push(t.clone());
        out.push(Proposed {
            outcome: if conflicting.is_empty() {
                Outcome::New
            } else {
                Outcome::Conflict
            },
            term: t,
            path,
            text,
            existing: conflicting,
        });
    }
    out
}

/// `02_TERMINOLOGY/source → target.md`, numbered when the name is taken,
/// in this folder or any other (a link by name must open one file).
fn free_path(t: &TermRecord, used: &mut HashSet<String>, names: &mut HashSet<String>) -> String {
    let mut stem = format!("{} → {}", name_part(&t.source), name_part(&t.target));
    if name_part(&t.source).is_empty() || stem.starts_with('_') || stem.starts_with('.') {
        stem = format!("term {}", stem.trim_start_matches(['_', '.']));
    }
    let dir = Folder::Terminology.dir_name();
    let mut n = 1;
    loop {
        let path = if n == 1 {
            format!("{dir}/{stem}.md")
        } else {
            format!("{dir}/{stem} ({n}).md")
        };
        let name = same_file_key(path.rsplit('/').next().unwrap_or(&path));
        if !names.contains(&name) && used.insert(same_file_key(&path)) {
            names.insert(name);
            return path;
        }
        n += 1;
    }
}
