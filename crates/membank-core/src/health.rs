//! Deterministic health checks: everything about a bank that can be found
//! without asking a language model.
//!
//! Every finding names a stable kebab-case code (documented in
//! `docs/health-checks.md`), a severity, the file and line, and a message that
//! says what is wrong, why it matters and what to do about it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use jiff::civil::Date;
use rayon::prelude::*;
use serde::Serialize;

use crate::article::{Article, FrontmatterState};
use crate::bank::{ArticleId, Bank, ProblemKind, Resolution};
use crate::layout::{Folder, SkipReason};
use crate::templates::Agent;
use crate::wikilink::fold;

/// How serious a finding is. Sorts errors first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something other tools will get wrong or not see at all.
    Error,
    /// Works in membank, but is fragile or breaks elsewhere.
    Warning,
    /// Worth knowing; nothing is broken.
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One thing the checks found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    /// Relative to the bank root, `/`-separated; empty for the bank itself.
    pub path: String,
    /// 1-based line in the file as it is on disk.
    pub line: Option<usize>,
    pub message: String,
}

impl Finding {
    /// `path:line`, `path`, or `(bank)` for findings about the whole bank.
    pub fn location(&self) -> String {
        match (self.path.is_empty(), self.line) {
            (true, _) => "(bank)".to_owned(),
            (false, Some(line)) => format!("{}:{line}", self.path),
            (false, None) => self.path.clone(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct HealthOptions {
    /// `stale` reports content articles whose `last_updated` is older than
    /// this many days; 0 turns the check off.
    pub stale_after_days: u32,
    /// The day staleness is measured from (passed in so results are
    /// reproducible).
    pub today: Date,
}

impl Default for HealthOptions {
    fn default() -> Self {
        HealthOptions {
            stale_after_days: 365,
            today: jiff::Zoned::now().date(),
        }
    }
}

/// Findings per severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
}

impl Counts {
    pub fn get(&self, severity: Severity) -> usize {
        match severity {
            Severity::Error => self.error,
            Severity::Warning => self.warning,
            Severity::Info => self.info,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct HealthReport {
    /// Sorted by severity, path, line, code (then message).
    pub findings: Vec<Finding>,
    pub counts: Counts,
    pub by_code: BTreeMap<&'static str, usize>,
}

impl HealthReport {
    pub fn new(mut findings: Vec<Finding>) -> HealthReport {
        findings.par_sort_unstable_by(|a, b| {
            (a.severity, &a.path, a.line, a.code, &a.message)
                .cmp(&(b.severity, &b.path, b.line, b.code, &b.message))
        });
        let mut counts = Counts::default();
        let mut by_code = BTreeMap::new();
        for f in &findings {
            match f.severity {
                Severity::Error => counts.error += 1,
                Severity::Warning => counts.warning += 1,
                Severity::Info => counts.info += 1,
            }
            *by_code.entry(f.code).or_insert(0) += 1;
        }
        HealthReport {
            findings,
            counts,
            by_code,
        }
    }

    pub fn has_errors(&self) -> bool {
        self.counts.error > 0
    }
}

/// Every code `check` can emit, with its usual severity (a few codes are
/// raised to an error or lowered to a warning case by case; see the docs).
pub const CODES: &[(&str, Severity)] = &[
    ("unparsable-frontmatter", Severity::Error),
    ("missing-frontmatter", Severity::Error),
    ("fenced-frontmatter", Severity::Warning),
    ("bom", Severity::Warning),
    ("not-utf8", Severity::Error),
    ("unreadable-file", Severity::Error),
    ("symlinked-folder", Severity::Warning),
    ("missing-key", Severity::Error),
    ("bad-date", Severity::Error),
    ("bad-status", Severity::Error),
    ("bad-language-code", Severity::Warning),
    ("bad-filename", Severity::Error),
    ("dead-link", Severity::Warning),
    ("ambiguous-link", Severity::Warning),
    ("orphan", Severity::Info),
    ("term-conflict", Severity::Error),
    ("unprocessed-inbox", Severity::Info),
    ("compiled-not-archived", Severity::Warning),
    ("stale", Severity::Info),
    ("tmp-leftover", Severity::Warning),
    ("not-markdown", Severity::Info),
    ("missing-folder", Severity::Warning),
    ("unknown-folder", Severity::Info),
    ("unknown-template", Severity::Warning),
    ("renamed-template", Severity::Info),
    ("skipped-file", Severity::Info),
];

/// Run every check. Pure: reads only what `Bank::load` already read.
pub fn check(bank: &Bank, opts: &HealthOptions) -> HealthReport {
    // An age beyond the calendar's range simply means nothing is stale.
    let stale_cutoff = match opts.stale_after_days {
        0 => None,
        days => jiff::Span::new()
            .try_days(i64::from(days))
            .ok()
            .and_then(|span| opts.today.checked_sub(span).ok()),
    };
    let mut findings: Vec<Finding> = (0..bank.articles().len())
        .into_par_iter()
        .flat_map_iter(|id| {
            let mut out = Vec::new();
            article_findings(bank, id, stale_cutoff, opts, &mut out);
            out
        })
        .collect();
    load_problems(bank, &mut findings);
    folder_findings(bank, &mut findings);
    file_findings(bank, &mut findings);
    file_name_findings(bank, &mut findings);
    term_conflicts(bank, &mut findings);
    HealthReport::new(findings)
}

fn finding(
    code: &'static str,
    severity: Severity,
    path: &str,
    line: Option<usize>,
    message: String,
) -> Finding {
    Finding {
        code,
        severity,
        path: path.to_owned(),
        line,
        message,
    }
}

// ---------------------------------------------------------------------------
// Per article

fn article_findings(
    bank: &Bank,
    id: ArticleId,
    stale_cutoff: Option<Date>,
    opts: &HealthOptions,
    out: &mut Vec<Finding>,
) {
    let a = bank.article(id);
    encoding_findings(a, out);
    frontmatter_findings(a, out);
    if a.is_parsed() {
        key_findings(a, out);
        value_findings(a, out);
    }
    if a.folder == Folder::Inbox {
        inbox_findings(bank, id, out);
    }
    if a.folder.is_content() || a.folder == Folder::Indices {
        link_findings(bank, id, out);
    }
    if a.folder.is_content() {
        if bank.backlinks(id).is_empty() {
            out.push(finding(
                "orphan",
                Severity::Info,
                &a.rel_path,
                None,
                format!(
                    "No other article links to “{}”. It is still used for context, but nobody \
                     browsing the bank will be led to it. If it belongs to a client or domain, \
                     add a [[{}]] link there.",
                    a.stem, a.stem
                ),
            ));
        }
        let stale_date = match (stale_cutoff, a.meta.last_updated_date) {
            (Some(cutoff), Some(date)) if date < cutoff => Some(date),
            _ => None,
        };
        if let Some(date) = stale_date {
            out.push(finding(
                "stale",
                Severity::Info,
                &a.rel_path,
                key_line(a, "last_updated"),
                format!(
                    "last_updated is {date}, more than {} days before {}. Check that the \
                     article is still correct, then update last_updated.",
                    opts.stale_after_days, opts.today
                ),
            ));
        }
    }
}

fn encoding_findings(a: &Article, out: &mut Vec<Finding>) {
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
        let closing = if a.encoding.fence_unclosed {
            " The opening fence is never closed, so the rest of the file looks like code."
        } else {
            ""
        };
        out.push(finding(
            "fenced-frontmatter",
            Severity::Warning,
            &a.rel_path,
            Some(a.encoding.line_shift),
            format!(
                "The article is wrapped in a ``` code fence, as happens when an LLM reply is \
                 pasted in. membank reads it (spec §4.3), but stricter tools do not see its \
                 frontmatter and skip the article.{closing} Delete the fence lines at the top \
                 and bottom of the file."
            ),
        ));
    }
}

fn frontmatter_findings(a: &Article, out: &mut Vec<Finding>) {
    // Inbox notes and indices need no frontmatter; a broken block there is
    // still worth fixing but hides nothing from translation context.
    let severity = if a.folder.is_content() {
        Severity::Error
    } else {
        Severity::Warning
    };
    let invisible = if a.folder.is_content() {
        " Until this is fixed, the article is invisible to other memory bank tools."
    } else {
        ""
    };
    match &a.frontmatter {
        FrontmatterState::Parsed(_) => {}
        FrontmatterState::Missing => {
            if a.folder.is_content() {
                out.push(finding(
                    "missing-frontmatter",
                    Severity::Error,
                    &a.rel_path,
                    Some(1 + a.encoding.line_shift),
                    format!(
                        "The article does not start with a frontmatter block (a line “---”, \
                         the keys, and another “---”). Every article in {} needs one.{invisible} \
                         Add the block at the very top, with at least last_updated.",
                        a.folder.dir_name()
                    ),
                ));
            }
        }
        FrontmatterState::Unclosed => out.push(finding(
            "unparsable-frontmatter",
            severity,
            &a.rel_path,
            Some(1 + a.encoding.line_shift),
            format!(
                "The frontmatter opens with “---” but never closes, so none of its keys can be \
                 read.{invisible} Add a line “---” after the last key."
            ),
        )),
        FrontmatterState::Invalid(e) => out.push(finding(
            "unparsable-frontmatter",
            severity,
            &a.rel_path,
            e.line,
            format!(
                "The frontmatter is not valid YAML ({}), so none of its keys can be read.\
                 {invisible} Fix the line shown; values containing “: ”, “#” or brackets need \
                 quotes.",
                e.message
            ),
        )),
    }
}

/// Required and recommended keys (spec §5).
fn keys_for(folder: Folder) -> (&'static [&'static str], &'static [&'static str]) {
    match folder {
        Folder::Clients => (&["last_updated", "client", "languages"], &["domains"]),
        Folder::Terminology => (
            &[
                "last_updated",
                "term_source",
                "term_target",
                "source_lang",
                "target_lang",
                "status",
            ],
            &["domain", "clients"],
        ),
        Folder::Domains => (&["last_updated", "domain"], &["languages"]),
        Folder::Style => (&["last_updated", "scope", "languages"], &[]),
        _ => (&[], &[]),
    }
}

/// Keys an archived (or stamped) inbox file carries (spec §5, §11).
const ARCHIVE_KEYS: [&str; 3] = ["compiled", "compiled_date", "compiled_to"];

fn key_findings(a: &Article, out: &mut Vec<Finding>) {
    let (required, recommended) = keys_for(a.folder);
    let mut report = |key: &str, severity: Severity, why: &str| {
        let empty = a.meta.empty_keys.iter().any(|k| k == key);
        if a.meta.has_key(key) && !empty {
            return;
        }
        let (line, what) = if empty {
            (key_line(a, key), format!("The key {key} is empty."))
        } else {
            (None, format!("The key {key} is missing."))
        };
        out.push(finding(
            "missing-key",
            severity,
            &a.rel_path,
            line,
            format!("{what} {why} Add “{key}: …” to the frontmatter."),
        ));
    };
    let folder = a.folder.dir_name();
    for key in required {
        report(
            key,
            Severity::Error,
            &format!("Every article in {folder} must have it; tools rely on it to score and sort."),
        );
    }
    for key in recommended {
        let what = match *key {
            "clients" => "client",
            "languages" => "language",
            _ => "domain",
        };
        report(
            key,
            Severity::Warning,
            &format!(
                "It is recommended in {folder}: without it the article earns no points for a \
                 matching {what}."
            ),
        );
    }
    if a.folder == Folder::Inbox && (a.in_archive || a.meta.compiled) {
        for key in ARCHIVE_KEYS {
            report(
                key,
                Severity::Warning,
                "Processed inbox files record when and into which articles they were compiled.",
            );
        }
    }
}

fn value_findings(a: &Article, out: &mut Vec<Finding>) {
    if a.meta.last_updated_date.is_none()
        && let Some(raw) = &a.meta.last_updated
    {
        out.push(bad_date(a, "last_updated", raw));
    }
    // Only inbox files carry compiled_date, and few: re-parsing them is cheap.
    if a.folder == Folder::Inbox && a.meta.has_key("compiled_date") {
        let raw = a.mapping().and_then(|m| {
            crate::frontmatter::strings(&m, "compiled_date")
                .into_iter()
                .next()
        });
        if let Some(raw) = raw.filter(|r| crate::frontmatter::parse_iso_date(r).is_none()) {
            out.push(bad_date(a, "compiled_date", &raw));
        }
    }
    let bad_status = a
        .meta
        .status
        .as_ref()
        .filter(|_| a.folder == Folder::Terminology)
        .filter(|s| !matches!(s.as_str(), "approved" | "proposed" | "rejected"));
    if let Some(status) = bad_status {
        let hint = match status.trim().to_lowercase().as_str() {
            s @ ("approved" | "proposed" | "rejected") => format!(" Write it as “{s}”."),
            _ => String::new(),
        };
        out.push(finding(
            "bad-status",
            Severity::Error,
            &a.rel_path,
            key_line(a, "status"),
            format!(
                "status is “{status}”, but it must be approved, proposed or rejected. Tools \
                 that look for approved terms will not treat this term as approved.{hint}"
            ),
        ));
    }
    for value in &a.meta.languages {
        let bad: Vec<&String> = value
            .tags
            .iter()
            .filter(|t| !is_plausible_language_tag(t))
            .collect();
        if bad.is_empty() && !value.tags.is_empty() {
            continue;
        }
        let shown = if bad.is_empty() {
            format!("“{}”", value.raw)
        } else {
            bad.iter()
                .map(|t| format!("“{t}”"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let hint = bad
            .first()
            .and_then(|t| language_hint(t))
            .unwrap_or_else(|| "Use a code such as en, en-US, nl-BE or pt-BR.".into());
        out.push(finding(
            "bad-language-code",
            Severity::Warning,
            &a.rel_path,
            key_line(a, value.key),
            format!(
                "{} contains {shown}, which is not a language code (BCP 47). Language matching \
                 then fails for this article, and term conflicts cannot be detected. {hint}",
                value.key
            ),
        ));
    }
}

fn bad_date(a: &Article, key: &str, raw: &str) -> Finding {
    finding(
        "bad-date",
        Severity::Error,
        &a.rel_path,
        key_line(a, key),
        format!(
            "{key} is “{raw}”, which is not a real date written as YYYY-MM-DD. Sorting and \
             staleness checks cannot use it. Write it like 2026-04-08."
        ),
    )
}

fn inbox_findings(bank: &Bank, id: ArticleId, out: &mut Vec<Finding>) {
    let a = bank.article(id);
    if a.in_archive {
        return;
    }
    if a.meta.compiled {
        out.push(finding(
            "compiled-not-archived",
            Severity::Warning,
            &a.rel_path,
            key_line(a, "compiled"),
            "This inbox file is marked compiled: true but was not moved to 00_INBOX/_archive/. \
             A Process Inbox run was probably interrupted. It will not be processed again; \
             check that the articles listed in compiled_to exist, then move the file into \
             00_INBOX/_archive/."
                .into(),
        ));
    } else {
        out.push(finding(
            "unprocessed-inbox",
            Severity::Info,
            &a.rel_path,
            None,
            "This inbox file has not been processed yet; its content is not used for \
             translation until Process Inbox turns it into articles."
                .into(),
        ));
    }
}

fn link_findings(bank: &Bank, id: ArticleId, out: &mut Vec<Finding>) {
    let a = bank.article(id);
    for (link, resolution) in bank.outgoing(id) {
        match resolution {
            Resolution::One(_) => {}
            Resolution::Dead => out.push(finding(
                "dead-link",
                Severity::Warning,
                &a.rel_path,
                Some(link.line),
                format!(
                    "[[{}]] does not match any article in 01_CLIENTS to 04_STYLE. This is fine \
                     for an article you still plan to write (a forward reference); otherwise \
                     correct the spelling. membank never removes links by itself.",
                    link.raw
                ),
            )),
            Resolution::Ambiguous(ids) => {
                let names: Vec<String> = ids
                    .iter()
                    .map(|&t| format!("“{}”", bank.article(t).rel_path))
                    .collect();
                let used = ids.first().map(|&t| bank.article(t).rel_path.as_str());
                out.push(finding(
                    "ambiguous-link",
                    Severity::Warning,
                    &a.rel_path,
                    Some(link.line),
                    format!(
                        "[[{}]] matches {} files: {}. membank uses “{}”, other tools may pick \
                         another. Rename one of the files so each name is unique.",
                        link.raw,
                        ids.len(),
                        names.join(" and "),
                        used.unwrap_or_default()
                    ),
                ));
            }
        }
    }
}

/// The file line of a top-level frontmatter key, if it can be found.
fn key_line(a: &Article, key: &str) -> Option<usize> {
    let yaml = a.yaml()?;
    yaml.lines()
        .position(|line| {
            let rest = line
                .strip_prefix(key)
                .or_else(|| line.strip_prefix('"')?.strip_prefix(key)?.strip_prefix('"'))
                .or_else(|| {
                    line.strip_prefix('\'')?
                        .strip_prefix(key)?
                        .strip_prefix('\'')
                });
            rest.is_some_and(|r| r.trim_start().starts_with(':'))
        })
        .map(|i| i + a.yaml_first_line())
}

// ---------------------------------------------------------------------------
// Language codes

/// A plausible BCP 47 tag: a 2–3 letter language, then optional extlang,
/// script, region, variants, extensions and private use, joined by `-`.
/// Stricter than the grammar on purpose: 4–8 letter primary subtags are
/// syntactically allowed but no registered language uses one, and in a bank
/// they are always a language *name* such as `English`.
pub fn is_plausible_language_tag(tag: &str) -> bool {
    let parts: Vec<&str> = tag.split('-').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || p.len() > 8 || !p.bytes().all(|b| b.is_ascii_alphanumeric()))
    {
        return false;
    }
    let alpha = |p: &str| p.bytes().all(|b| b.is_ascii_alphabetic());
    let digit = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if parts[0].eq_ignore_ascii_case("x") {
        return parts.len() > 1;
    }
    if !(2..=3).contains(&parts[0].len()) || !alpha(parts[0]) {
        return false;
    }
    let mut i = 1;
    let mut extlangs = 0;
    while i < parts.len() && parts[i].len() == 3 && alpha(parts[i]) && extlangs < 3 {
        extlangs += 1;
        i += 1;
    }
    if i < parts.len() && parts[i].len() == 4 && alpha(parts[i]) {
        i += 1;
    }
    if i < parts.len()
        && ((parts[i].len() == 2 && alpha(parts[i])) || (parts[i].len() == 3 && digit(parts[i])))
    {
        i += 1;
    }
    while i < parts.len()
        && (parts[i].len() >= 5 || (parts[i].len() == 4 && parts[i].as_bytes()[0].is_ascii_digit()))
    {
        i += 1;
    }
    while i < parts.len() && parts[i].len() == 1 {
        let private = parts[i].eq_ignore_ascii_case("x");
        let min = if private { 1 } else { 2 };
        let start = i + 1;
        let mut end = start;
        while end < parts.len() && parts[end].len() >= min && (private || parts[end].len() > 1) {
            end += 1;
        }
        if end == start {
            return false;
        }
        i = end;
        if private {
            return i == parts.len();
        }
    }
    i == parts.len()
}

/// A concrete suggestion for a common mistake, if one applies.
fn language_hint(tag: &str) -> Option<String> {
    if tag.contains('_') {
        let fixed = tag.replace('_', "-");
        if is_plausible_language_tag(&fixed) {
            return Some(format!("Use a hyphen, not an underscore: {fixed}."));
        }
    }
    const NAMES: [(&str, &str); 16] = [
        ("English", "en"),
        ("Dutch", "nl"),
        ("Flemish", "nl-BE"),
        ("German", "de"),
        ("French", "fr"),
        ("Spanish", "es"),
        ("Italian", "it"),
        ("Portuguese", "pt"),
        ("Norwegian", "no (or nb / nn)"),
        ("Swedish", "sv"),
        ("Danish", "da"),
        ("Finnish", "fi"),
        ("Polish", "pl"),
        ("Japanese", "ja"),
        ("Chinese", "zh"),
        ("Russian", "ru"),
    ];
    let lower = tag.trim().to_lowercase();
    NAMES
        .iter()
        .find(|(name, _)| name.to_lowercase() == lower)
        .map(|(name, code)| format!("Write the code, not the language name: {code} for {name}."))
}

// ---------------------------------------------------------------------------
// Bank-level checks

fn load_problems(bank: &Bank, out: &mut Vec<Finding>) {
    for p in &bank.problems {
        let f = match p.kind {
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
                    "The file {}; it is left out of every context. Check its permissions.",
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
        };
        out.push(f);
    }
}

fn folder_findings(bank: &Bank, out: &mut Vec<Finding>) {
    for folder in &bank.missing_folders {
        out.push(finding(
            "missing-folder",
            Severity::Warning,
            folder.dir_name(),
            None,
            format!(
                "The folder {} is missing. The format defines seven numbered folders and some \
                 tools expect all of them. Create it (it may stay empty).",
                folder.dir_name()
            ),
        ));
    }
    for name in &bank.unknown_folders {
        out.push(finding(
            "unknown-folder",
            Severity::Info,
            name,
            None,
            "This top-level folder is not part of the memory bank format. It is allowed and \
             ignored: nothing in it is used for context."
                .into(),
        ));
    }
}

fn file_findings(bank: &Bank, out: &mut Vec<Finding>) {
    for path in &bank.other_files {
        let folder = path.split('/').next().and_then(Folder::from_dir_name);
        if path.ends_with(".tmp") {
            out.push(finding(
                "tmp-leftover",
                Severity::Warning,
                path,
                None,
                "A temporary file left behind when a program was stopped while saving an \
                 article. The article itself is intact. Delete this file once you have checked \
                 it holds nothing you need."
                    .into(),
            ));
        } else if folder.is_some_and(Folder::is_content) {
            out.push(finding(
                "not-markdown",
                Severity::Info,
                path,
                None,
                "Only .md files are articles; this file is ignored. Rename it to .md if it \
                 should be used, or move it out of the bank."
                    .into(),
            ));
        }
    }
    for s in &bank.skipped {
        if s.reason == SkipReason::Reserved {
            out.push(finding(
                "skipped-file",
                Severity::Info,
                &s.path,
                None,
                "File names starting with “_” are reserved, so this file is skipped and never \
                 used for context. Remove the leading “_” if it is meant to be an article."
                    .into(),
            ));
        }
    }
    for t in &bank.templates {
        if let Some(f) = template_finding(t) {
            out.push(f);
        }
    }
}

/// Does an agent pick up this `06_TEMPLATES` file as its override (§13)?
fn template_finding(rel: &str) -> Option<Finding> {
    let name = rel.strip_prefix("06_TEMPLATES/").unwrap_or(rel);
    let expected: Vec<&str> = Agent::ALL.iter().map(|a| a.file_name()).collect();
    let agent = Agent::ALL
        .into_iter()
        .find(|a| a.override_names().contains(&name));
    match agent {
        Some(a) if a.file_name() == name => None,
        Some(a) => Some(finding(
            "renamed-template",
            Severity::Info,
            rel,
            None,
            format!(
                "{name} is the template name from format version 1.0. membank still uses it, \
                 but current tools look for {}. Rename the file.",
                a.file_name()
            ),
        )),
        None => Some(finding(
            "unknown-template",
            Severity::Warning,
            rel,
            None,
            format!(
                "No agent uses a template at this place, so the file has no effect. An \
                 override must sit directly in 06_TEMPLATES with one of these names: {}. \
                 Check the spelling.",
                expected.join(", ")
            ),
        )),
    }
}

/// Every file path the bank knows about, for name checks.
fn all_paths(bank: &Bank) -> Vec<&str> {
    let mut paths: Vec<&str> = bank
        .articles()
        .iter()
        .map(|a| a.rel_path.as_str())
        .collect();
    paths.extend(bank.skipped.iter().map(|s| s.path.as_str()));
    paths.extend(bank.other_files.iter().map(String::as_str));
    paths.extend(bank.templates.iter().map(String::as_str));
    paths.extend(
        bank.problems
            .iter()
            .filter(|p| p.kind == ProblemKind::NotUtf8)
            .map(|p| p.path.as_str()),
    );
    paths
}

fn file_name_findings(bank: &Bank, out: &mut Vec<Finding>) {
    let paths = all_paths(bank);
    let mut bad_dirs = BTreeSet::new();
    let mut by_folded: HashMap<(&str, String), Vec<&str>> = HashMap::new();
    for &path in &paths {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        if let Some((severity, why)) = name_problem(name) {
            out.push(bad_filename(path, severity, why));
        }
        // Subfolders below the numbered folder; the numbered folder is fixed.
        let mut prefix_len = dir.find('/').unwrap_or(dir.len());
        for seg in dir.split('/').skip(1) {
            let end = prefix_len + 1 + seg.len();
            if name_problem(seg).is_some() {
                bad_dirs.insert(&dir[..end]);
            }
            prefix_len = end;
        }
        by_folded
            .entry((dir, name.to_lowercase()))
            .or_default()
            .push(path);
    }
    for dir in bad_dirs {
        let name = dir.rsplit('/').next().unwrap_or(dir);
        if let Some((severity, why)) = name_problem(name) {
            out.push(bad_filename(dir, severity, why));
        }
    }
    for group in by_folded.values().filter(|g| g.len() > 1) {
        for &path in group {
            let others: Vec<String> = group
                .iter()
                .filter(|&&p| p != path)
                .map(|p| format!("“{p}”"))
                .collect();
            out.push(bad_filename(
                path,
                Severity::Warning,
                format!(
                    "its name differs from {} only in upper/lower case. Windows and macOS treat \
                     them as the same file, so one overwrites the other when the bank is \
                     synced there",
                    others.join(", ")
                ),
            ));
        }
    }
}

fn bad_filename(path: &str, severity: Severity, why: String) -> Finding {
    finding(
        "bad-filename",
        severity,
        path,
        None,
        format!("This name is a problem: {why}. Rename it."),
    )
}

const NTFS_FORBIDDEN: [char; 8] = ['<', '>', ':', '"', '|', '?', '*', '\\'];

/// What is wrong with one file or folder name, if anything.
fn name_problem(name: &str) -> Option<(Severity, String)> {
    // Nearly every name is fine: decide that without allocating.
    let plain = name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | ',' | '(' | ')' | '→'));
    let ends_badly = name.ends_with('.') || name.ends_with(' ');
    // Device names are at most seven bytes before the first dot.
    let long_base = name
        .split('.')
        .next()
        .is_some_and(|b| b.trim_end().len() > 7);
    if plain && !ends_badly && long_base {
        return None;
    }
    let forbidden: BTreeSet<char> = name
        .chars()
        .filter(|c| NTFS_FORBIDDEN.contains(c))
        .collect();
    if !forbidden.is_empty() {
        let list: Vec<String> = forbidden.iter().map(|c| format!("{c}")).collect();
        return Some((
            Severity::Error,
            format!(
                "it contains {} which Windows does not allow in file names (and the format \
                 forbids), so the bank cannot be copied or synced to Windows",
                list.join(" ")
            ),
        ));
    }
    if name.chars().any(char::is_control) {
        return Some((
            Severity::Error,
            "it contains invisible control characters, which Windows does not allow and which \
             make the name impossible to type"
                .into(),
        ));
    }
    if name.contains('\u{FFFD}') {
        return Some((
            Severity::Warning,
            "it is not valid Unicode, so other tools may show or sync it wrongly".into(),
        ));
    }
    if name.ends_with('.') || name.ends_with(' ') {
        return Some((
            Severity::Warning,
            "it ends with a dot or a space, which Windows silently removes, so links and sync \
             break there"
                .into(),
        ));
    }
    let base = name.split('.').next().unwrap_or(name).trim_end();
    if crate::pathsafe::DEVICE_NAMES
        .iter()
        .any(|d| d.eq_ignore_ascii_case(base))
    {
        return Some((
            Severity::Warning,
            format!("{base} is a reserved device name on Windows, so the file cannot exist there"),
        ));
    }
    None
}

fn term_conflicts(bank: &Bank, out: &mut Vec<Finding>) {
    type Key = (String, String, String);
    let mut groups: HashMap<Key, Vec<ArticleId>> = HashMap::new();
    for (id, a) in bank.articles().iter().enumerate() {
        if a.folder != Folder::Terminology || a.meta.status.as_deref() != Some("approved") {
            continue;
        }
        let (Some(src), Some(_), Some(sl), Some(tl)) = (
            &a.meta.term_source,
            &a.meta.term_target,
            &a.meta.source_lang,
            &a.meta.target_lang,
        ) else {
            continue;
        };
        let key = (
            fold(src.trim()),
            sl.trim().to_ascii_lowercase(),
            tl.trim().to_ascii_lowercase(),
        );
        groups.entry(key).or_default().push(id);
    }
    const LISTED: usize = 5;
    for ((_, sl, tl), ids) in groups.into_iter().filter(|(_, ids)| ids.len() > 1) {
        let target = |id: ArticleId| -> &str {
            bank.article(id)
                .meta
                .term_target
                .as_deref()
                .unwrap_or("")
                .trim()
        };
        // Group by the exact target so each article lists only the others
        // that disagree with it; linear in the group size.
        let mut by_target: BTreeMap<&str, Vec<ArticleId>> = BTreeMap::new();
        for &id in &ids {
            by_target.entry(target(id)).or_default().push(id);
        }
        if by_target.len() < 2 {
            continue;
        }
        let only_case = by_target
            .keys()
            .map(|t| t.to_lowercase())
            .collect::<BTreeSet<_>>()
            .len()
            == 1;
        let severity = if only_case {
            Severity::Warning
        } else {
            Severity::Error
        };
        for &id in &ids {
            let a = bank.article(id);
            let mine = target(id);
            let others: Vec<ArticleId> =
                ids.iter().copied().filter(|&o| target(o) != mine).collect();
            let mut listed: Vec<String> = others
                .iter()
                .take(LISTED)
                .map(|&o| format!("“{}” ({})", bank.article(o).rel_path, target(o)))
                .collect();
            if others.len() > LISTED {
                listed.push(format!("and {} more", others.len() - LISTED));
            }
            let source = a.meta.term_source.as_deref().unwrap_or("").trim();
            let sl = a.meta.source_lang.as_deref().unwrap_or(&sl).trim();
            let tl = a.meta.target_lang.as_deref().unwrap_or(&tl).trim();
            let case_note = if only_case {
                " The translations differ only in upper/lower case."
            } else {
                ""
            };
            out.push(finding(
                "term-conflict",
                severity,
                &a.rel_path,
                key_line(a, "term_target"),
                format!(
                    "Approved term “{source}” ({sl} → {tl}) is translated “{mine}” here but \
                     differently in {}.{case_note} A translator or LLM gets contradictory \
                     instructions. Decide on one translation and set the other article to \
                     status: rejected, or make the source terms distinguishable.",
                    listed.join(", ")
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::Path;

    fn write(root: &Path, rel: &str, bytes: &[u8]) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }

    /// A bank with every numbered folder and one sound article per content
    /// folder, all linked to each other so nothing is orphaned.
    fn healthy() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for f in Folder::ALL {
            fs::create_dir_all(r.join(f.dir_name())).unwrap();
        }
        fs::create_dir_all(r.join("00_INBOX/_archive")).unwrap();
        write(
            r,
            "01_CLIENTS/Acme.md",
            b"---\nclient: Acme\nlanguages: [\"en-US \xe2\x86\x92 nl-BE\"]\ndomains: [\"[[Legal]]\"]\nlast_updated: 2026-04-01\n---\n# Acme\n[[House]]\n",
        );
        write(
            r,
            "02_TERMINOLOGY/compliance.md",
            b"---\nterm_source: compliance\nterm_target: naleving\nsource_lang: en-US\ntarget_lang: nl-BE\nstatus: approved\ndomain: \"[[Legal]]\"\nclients: [\"[[Acme]]\"]\nlast_updated: 2026-04-01\n---\n# compliance\n",
        );
        write(
            r,
            "03_DOMAINS/Legal.md",
            b"---\ndomain: Legal\nlanguages: [en, nl]\nlast_updated: 2026-04-01\n---\n# Legal\n[[compliance]]\n",
        );
        write(
            r,
            "04_STYLE/House.md",
            b"---\nscope: general\nlanguages: [nl-BE]\nlast_updated: 2026-04-01\n---\n# House\n[[Acme]]\n",
        );
        write(
            r,
            "00_INBOX/_archive/note.md",
            b"---\ncompiled: true\ncompiled_date: 2026-04-02\ncompiled_to: [\"01_CLIENTS/Acme.md\"]\n---\nraw\n",
        );
        write(r, "06_TEMPLATES/query.md", b"prompt\n");
        d
    }

    fn opts() -> HealthOptions {
        HealthOptions {
            stale_after_days: 365,
            today: jiff::civil::date(2026, 6, 1),
        }
    }

    fn run(d: &tempfile::TempDir) -> HealthReport {
        check(&Bank::load(d.path()).unwrap(), &opts())
    }

    fn codes_for<'a>(r: &'a HealthReport, path: &str) -> Vec<&'a str> {
        r.findings
            .iter()
            .filter(|f| f.path == path)
            .map(|f| f.code)
            .collect()
    }

    fn only<'a>(r: &'a HealthReport, code: &str) -> Vec<&'a Finding> {
        r.findings.iter().filter(|f| f.code == code).collect()
    }

    #[test]
    fn healthy_bank_has_no_findings() {
        let d = healthy();
        let r = run(&d);
        assert!(r.findings.is_empty(), "{:#?}", r.findings);
        assert_eq!(r.counts, Counts::default());
    }

    #[test]
    fn unparsable_frontmatter_gives_the_yaml_line() {
        let d = healthy();
        write(
            d.path(),
            "03_DOMAINS/Broken.md",
            b"---\ndomain: Tax\nlast_updated: 2026-04-01\nlanguages: [en, nl\n---\n# Broken\n",
        );
        write(
            d.path(),
            "03_DOMAINS/Open.md",
            b"---\ndomain: Open\n# never closed\n",
        );
        let r = run(&d);
        let f = only(&r, "unparsable-frontmatter");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].path, "03_DOMAINS/Broken.md");
        assert_eq!(f[0].severity, Severity::Error);
        assert!(f[0].line.unwrap() >= 4, "{:?}", f[0]);
        assert_eq!(f[1].path, "03_DOMAINS/Open.md");
        assert_eq!(f[1].line, Some(1));
        assert!(r.has_errors());
    }

    #[test]
    fn missing_frontmatter_only_matters_in_content_folders() {
        let d = healthy();
        write(d.path(), "04_STYLE/Plain.md", b"# Plain\nno keys\n");
        write(d.path(), "05_INDICES/Index.md", b"# Index\n[[Acme]]\n");
        let r = run(&d);
        let f = only(&r, "missing-frontmatter");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].path, "04_STYLE/Plain.md");
        assert_eq!(f[0].severity, Severity::Error);
    }

    #[test]
    fn fenced_frontmatter_is_a_warning_with_the_fence_line() {
        let d = healthy();
        write(
            d.path(),
            "03_DOMAINS/Fenced.md",
            b"\n```markdown\n---\ndomain: Fenced\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n# F\n[[Legal]]\n```\n",
        );
        // A raw inbox note that merely starts with a code block is not fenced
        // frontmatter.
        write(d.path(), "00_INBOX/code.md", b"```\nx = 1\n```\n");
        let r = run(&d);
        let f = only(&r, "fenced-frontmatter");
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].path, "03_DOMAINS/Fenced.md");
        assert_eq!(f[0].line, Some(2));
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(
            codes_for(&r, "03_DOMAINS/Fenced.md")
                .iter()
                .all(|c| *c == "fenced-frontmatter" || *c == "orphan")
        );
    }

    #[test]
    fn bom_is_reported_but_crlf_is_not() {
        let d = healthy();
        write(
            d.path(),
            "03_DOMAINS/Bom.md",
            b"\xef\xbb\xbf---\ndomain: Bom\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n",
        );
        write(
            d.path(),
            "03_DOMAINS/Crlf.md",
            b"---\r\ndomain: Crlf\r\nlanguages: [en]\r\nlast_updated: 2026-04-01\r\n---\r\n[[Bom]]\r\n",
        );
        let r = run(&d);
        let bom = only(&r, "bom");
        assert_eq!(bom.len(), 1);
        assert_eq!(bom[0].path, "03_DOMAINS/Bom.md");
        assert_eq!(bom[0].line, Some(1));
        assert_eq!(codes_for(&r, "03_DOMAINS/Crlf.md"), vec!["orphan"]);
    }

    #[test]
    fn not_utf8_names_the_line() {
        let d = healthy();
        write(
            d.path(),
            "03_DOMAINS/Latin.md",
            b"---\ndomain: Caf\xe9\n---\n",
        );
        let r = run(&d);
        let f = only(&r, "not-utf8");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].path, "03_DOMAINS/Latin.md");
        assert_eq!(f[0].line, Some(2));
        assert_eq!(f[0].severity, Severity::Error);
    }

    #[test]
    fn missing_keys_per_folder() {
        let d = healthy();
        write(
            d.path(),
            "02_TERMINOLOGY/thin.md",
            b"---\nterm_source: thin\nterm_target: dun\nsource_lang: en\ntarget_lang:\nstatus: proposed\nlast_updated: 2026-04-01\n---\n[[Legal]]\n",
        );
        write(
            d.path(),
            "01_CLIENTS/Beta.md",
            b"---\nclient: Beta\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Acme]]\n",
        );
        let r = run(&d);
        let mut got: Vec<(&str, Severity, Option<usize>, bool)> = only(&r, "missing-key")
            .iter()
            .map(|f| {
                let key = ["target_lang", "domains", "domain", "clients"]
                    .into_iter()
                    .find(|k| f.message.contains(&format!("key {k} ")))
                    .unwrap();
                (key, f.severity, f.line, f.path.ends_with("thin.md"))
            })
            .collect();
        got.sort_by_key(|g| g.0);
        assert_eq!(
            got,
            vec![
                ("clients", Severity::Warning, None, true),
                ("domain", Severity::Warning, None, true),
                ("domains", Severity::Warning, None, false),
                ("target_lang", Severity::Error, Some(5), true),
            ]
        );
    }

    #[test]
    fn archived_inbox_files_need_their_stamp() {
        let d = healthy();
        write(
            d.path(),
            "00_INBOX/_archive/half.md",
            b"---\ncompiled: true\n---\n",
        );
        let r = run(&d);
        let f = only(&r, "missing-key");
        assert_eq!(f.len(), 2);
        assert!(f.iter().all(|f| f.severity == Severity::Warning));
    }

    #[test]
    fn bad_dates() {
        let d = healthy();
        write(
            d.path(),
            "03_DOMAINS/Dated.md",
            b"---\ndomain: Dated\nlanguages: [en]\nlast_updated: 2026-02-30\n---\n[[Legal]]\n",
        );
        write(
            d.path(),
            "00_INBOX/_archive/d.md",
            b"---\ncompiled: true\ncompiled_date: 8 April 2026\ncompiled_to: []\n---\n",
        );
        let r = run(&d);
        let f = only(&r, "bad-date");
        let at: Vec<(&str, Option<usize>)> = f.iter().map(|f| (f.path.as_str(), f.line)).collect();
        assert_eq!(
            at,
            vec![
                ("00_INBOX/_archive/d.md", Some(3)),
                ("03_DOMAINS/Dated.md", Some(4))
            ]
        );
        // The sound dates of the healthy bank are not reported.
        assert!(f.iter().all(|f| f.severity == Severity::Error));
    }

    #[test]
    fn bad_status() {
        let d = healthy();
        let term = |status: &str| {
            format!(
                "---\nterm_source: x\nterm_target: y\nsource_lang: en\ntarget_lang: nl\nstatus: {status}\ndomain: a\nclients: b\nlast_updated: 2026-04-01\n---\n[[Legal]]\n"
            )
        };
        write(d.path(), "02_TERMINOLOGY/a.md", term("Approved").as_bytes());
        write(d.path(), "02_TERMINOLOGY/b.md", term("final").as_bytes());
        write(d.path(), "02_TERMINOLOGY/c.md", term("rejected").as_bytes());
        let r = run(&d);
        let f = only(&r, "bad-status");
        let paths: Vec<&str> = f.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["02_TERMINOLOGY/a.md", "02_TERMINOLOGY/b.md"]);
        assert!(f[0].message.contains("Write it as “approved”"));
        assert_eq!(f[0].line, Some(6));
    }

    #[test]
    fn language_tags() {
        for ok in [
            "en",
            "no",
            "nl-BE",
            "en-US",
            "zh-Hant-TW",
            "es-419",
            "sr-Latn",
            "de-CH-1901",
            "x-klingon",
            "en-GB-oxendict",
            "zh-yue",
            "EN-us",
            "en-a-bbb-x-ccc",
        ] {
            assert!(is_plausible_language_tag(ok), "{ok}");
        }
        for bad in [
            "English",
            "en_US",
            "e",
            "",
            "en-",
            "-en",
            "en--US",
            "nl BE",
            "en-US-",
            "12",
            "en-a",
            "x",
            "Nederlands",
        ] {
            assert!(!is_plausible_language_tag(bad), "{bad}");
        }
    }

    #[test]
    fn bad_language_codes_are_reported_with_a_hint() {
        let d = healthy();
        write(
            d.path(),
            "04_STYLE/Codes.md",
            "---\nscope: general\nlanguages: [\"English → nl_BE\", \"no\"]\nlast_updated: 2026-04-01\n---\n[[House]]\n"
                .as_bytes(),
        );
        let r = run(&d);
        let f = only(&r, "bad-language-code");
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].line, Some(3));
        assert!(
            f[0].message.contains("“English”, “nl_BE”"),
            "{}",
            f[0].message
        );
        assert!(f[0].message.contains("en for English"), "{}", f[0].message);
    }

    #[test]
    fn norwegian_is_a_language() {
        let d = healthy();
        write(
            d.path(),
            "02_TERMINOLOGY/invoice.md",
            b"---\nterm_source: invoice\nterm_target: faktura\nsource_lang: en\ntarget_lang: no\nstatus: approved\ndomain: a\nclients: b\nlast_updated: 2026-04-01\n---\n[[Legal]]\n",
        );
        let r = run(&d);
        assert_eq!(codes_for(&r, "02_TERMINOLOGY/invoice.md"), vec!["orphan"]);
    }

    #[test]
    fn bad_file_names() {
        assert_eq!(name_problem("a?b.md").unwrap().0, Severity::Error);
        assert_eq!(name_problem("a\u{7}.md").unwrap().0, Severity::Error);
        assert_eq!(name_problem("CON.md").unwrap().0, Severity::Warning);
        assert_eq!(name_problem("lpt3.md").unwrap().0, Severity::Warning);
        assert_eq!(name_problem("draft.md.").unwrap().0, Severity::Warning);
        assert_eq!(name_problem("draft ").unwrap().0, Severity::Warning);
        assert!(name_problem("compliance → naleving (EU).md").is_none());
        assert!(name_problem("Console.md").is_none());
        assert!(name_problem("COM10.md").is_none());
        assert_eq!(name_problem("CON .md").unwrap().0, Severity::Warning);
        assert_eq!(name_problem("Nul").unwrap().0, Severity::Warning);
        assert!(name_problem("Ñandú, (zoölogy).md").is_none());
        assert_eq!(name_problem("com².md").unwrap().0, Severity::Warning);
        assert_eq!(name_problem("CONIN$.md").unwrap().0, Severity::Warning);
    }

    #[cfg(unix)]
    #[test]
    fn bad_file_names_in_a_bank() {
        let d = healthy();
        let body = b"---\ndomain: X\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n";
        write(d.path(), "03_DOMAINS/What?.md", body);
        write(d.path(), "03_DOMAINS/legal.md", body);
        write(d.path(), "03_DOMAINS/sub:dir/Deep.md", body);
        let r = run(&d);
        let mut f: Vec<(&str, Severity)> = only(&r, "bad-filename")
            .iter()
            .map(|f| (f.path.as_str(), f.severity))
            .collect();
        f.sort();
        assert_eq!(
            f,
            vec![
                ("03_DOMAINS/Legal.md", Severity::Warning),
                ("03_DOMAINS/What?.md", Severity::Error),
                ("03_DOMAINS/legal.md", Severity::Warning),
                ("03_DOMAINS/sub:dir", Severity::Error),
            ]
        );
    }

    #[test]
    fn dead_and_ambiguous_links() {
        let d = healthy();
        write(
            d.path(),
            "04_STYLE/Links.md",
            b"---\nscope: general\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n# L\n\n[[Nowhere yet]] [[Acme]]\n[[Twin]]\n",
        );
        write(
            d.path(),
            "03_DOMAINS/Twin.md",
            b"---\ndomain: T\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Links]]\n",
        );
        write(
            d.path(),
            "04_STYLE/twin.md",
            b"---\nscope: x\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n",
        );
        // Raw inbox notes may mention articles that do not exist yet.
        write(d.path(), "00_INBOX/idea.md", b"[[Someday]]\n");
        let r = run(&d);
        let dead = only(&r, "dead-link");
        assert_eq!(dead.len(), 1);
        assert_eq!(
            (dead[0].path.as_str(), dead[0].line),
            ("04_STYLE/Links.md", Some(8))
        );
        assert!(dead[0].message.contains("forward reference"));
        let amb = only(&r, "ambiguous-link");
        assert_eq!(amb.len(), 1);
        assert_eq!(amb[0].line, Some(9));
        assert!(amb[0].message.contains("03_DOMAINS/Twin.md"));
        assert!(amb[0].message.contains("04_STYLE/twin.md"));
    }

    #[test]
    fn orphans_are_content_articles_nobody_links_to() {
        let d = healthy();
        write(
            d.path(),
            "03_DOMAINS/Alone.md",
            b"---\ndomain: Alone\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Legal]]\n",
        );
        let r = run(&d);
        let f = only(&r, "orphan");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].path, "03_DOMAINS/Alone.md");
        assert_eq!(f[0].severity, Severity::Info);
    }

    fn term(source: &str, target: &str, sl: &str, tl: &str, status: &str) -> Vec<u8> {
        format!(
            "---\nterm_source: {source}\nterm_target: {target}\nsource_lang: {sl}\ntarget_lang: {tl}\nstatus: {status}\ndomain: a\nclients: b\nlast_updated: 2026-04-01\n---\n[[Legal]]\n"
        )
        .into_bytes()
    }

    #[test]
    fn term_conflicts_need_two_approved_terms_for_the_same_pair() {
        let d = healthy();
        let r = d.path();
        write(
            r,
            "02_TERMINOLOGY/a.md",
            &term("Invoice", "factuur", "en-US", "nl-BE", "approved"),
        );
        write(
            r,
            "02_TERMINOLOGY/b.md",
            &term("invoice", "rekening", "EN-us", "nl-be", "approved"),
        );
        // Not conflicts: proposed, other pair, same target.
        write(
            r,
            "02_TERMINOLOGY/c.md",
            &term("invoice", "nota", "en-US", "nl-BE", "proposed"),
        );
        write(
            r,
            "02_TERMINOLOGY/d.md",
            &term("invoice", "Rechnung", "en-US", "de-DE", "approved"),
        );
        write(
            r,
            "02_TERMINOLOGY/e.md",
            &term("invoice", "factuur", "en-US", "nl-BE", "approved"),
        );
        let rep = run(&d);
        let f = only(&rep, "term-conflict");
        let paths: Vec<&str> = f.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            vec![
                "02_TERMINOLOGY/a.md",
                "02_TERMINOLOGY/b.md",
                "02_TERMINOLOGY/e.md"
            ]
        );
        assert!(f.iter().all(|f| f.severity == Severity::Error));
        assert!(f[0].message.contains("02_TERMINOLOGY/b.md"));
        assert!(!f[0].message.contains("02_TERMINOLOGY/e.md"));
        assert!(
            f[1].message.contains("02_TERMINOLOGY/a.md")
                && f[1].message.contains("02_TERMINOLOGY/e.md")
        );
        assert_eq!(f[0].line, Some(3));
    }

    #[test]
    fn term_conflict_in_letter_case_only_is_a_warning() {
        let d = healthy();
        write(
            d.path(),
            "02_TERMINOLOGY/a.md",
            &term("euro", "Euro", "en", "de", "approved"),
        );
        write(
            d.path(),
            "02_TERMINOLOGY/b.md",
            &term("euro", "euro", "en", "de", "approved"),
        );
        let r = run(&d);
        let f = only(&r, "term-conflict");
        assert_eq!(f.len(), 2);
        assert!(f.iter().all(|f| f.severity == Severity::Warning));
    }

    #[test]
    fn inbox_states() {
        let d = healthy();
        write(d.path(), "00_INBOX/new.md", b"raw notes\n");
        write(
            d.path(),
            "00_INBOX/half-done.md",
            b"---\ncompiled: true\ncompiled_date: 2026-04-02\ncompiled_to: []\n---\n",
        );
        let r = run(&d);
        assert_eq!(codes_for(&r, "00_INBOX/new.md"), vec!["unprocessed-inbox"]);
        let f = only(&r, "compiled-not-archived");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].path, "00_INBOX/half-done.md");
        assert_eq!(f[0].line, Some(2));
        // Archived files are neither pending nor misplaced.
        assert!(codes_for(&r, "00_INBOX/_archive/note.md").is_empty());
    }

    #[test]
    fn stale_articles() {
        let d = healthy();
        write(
            d.path(),
            "03_DOMAINS/Old.md",
            b"---\ndomain: Old\nlanguages: [en]\nlast_updated: 2025-05-31\n---\n[[Legal]]\n",
        );
        write(
            d.path(),
            "03_DOMAINS/Edge.md",
            b"---\ndomain: Edge\nlanguages: [en]\nlast_updated: 2025-06-01\n---\n[[Old]]\n",
        );
        let bank = Bank::load(d.path()).unwrap();
        let r = check(&bank, &opts());
        let f = only(&r, "stale");
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].path.as_str(), f[0].line),
            ("03_DOMAINS/Old.md", Some(4))
        );
        let off = check(
            &bank,
            &HealthOptions {
                stale_after_days: 0,
                ..opts()
            },
        );
        assert!(only(&off, "stale").is_empty());
        let ancient = check(
            &bank,
            &HealthOptions {
                stale_after_days: u32::MAX,
                ..opts()
            },
        );
        assert!(only(&ancient, "stale").is_empty());
        let strict = check(
            &bank,
            &HealthOptions {
                stale_after_days: 30,
                ..opts()
            },
        );
        assert_eq!(only(&strict, "stale").len(), 6);
    }

    #[test]
    fn leftovers_and_other_files() {
        let d = healthy();
        write(d.path(), "03_DOMAINS/Legal.md.4711.tmp", b"partial");
        write(d.path(), "03_DOMAINS/diagram.png", b"\x89PNG");
        write(d.path(), "00_INBOX/source.pdf", b"%PDF");
        write(d.path(), "02_TERMINOLOGY/_draft.md", b"x");
        write(d.path(), "02_TERMINOLOGY/_EXAMPLE_Term.md", b"x");
        write(d.path(), "06_TEMPLATES/complie.md", b"x");
        write(d.path(), "06_TEMPLATES/old/lint.md", b"x");
        write(d.path(), "06_TEMPLATES/translate_with_kb.md", b"x");
        let r = run(&d);
        let got: Vec<(&str, &str)> = r
            .findings
            .iter()
            .map(|f| (f.code, f.path.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("tmp-leftover", "03_DOMAINS/Legal.md.4711.tmp"),
                ("unknown-template", "06_TEMPLATES/complie.md"),
                ("unknown-template", "06_TEMPLATES/old/lint.md"),
                ("skipped-file", "02_TERMINOLOGY/_draft.md"),
                ("not-markdown", "03_DOMAINS/diagram.png"),
                ("renamed-template", "06_TEMPLATES/translate_with_kb.md"),
            ]
        );
    }

    #[test]
    fn folders() {
        let d = healthy();
        fs::remove_dir_all(d.path().join("05_INDICES")).unwrap();
        fs::remove_dir_all(d.path().join("00_INBOX/_archive")).unwrap();
        fs::create_dir_all(d.path().join("Projects")).unwrap();
        fs::create_dir_all(d.path().join(".obsidian")).unwrap();
        let r = run(&d);
        let got: Vec<(&str, Severity, &str)> = r
            .findings
            .iter()
            .map(|f| (f.code, f.severity, f.path.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("missing-folder", Severity::Warning, "05_INDICES"),
                ("unknown-folder", Severity::Info, "Projects"),
            ]
        );
        assert_eq!(r.by_code.get("missing-folder"), Some(&1));
        assert_eq!(r.counts.warning, 1);
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_folders_are_reported_not_followed() {
        let d = healthy();
        let elsewhere = tempfile::tempdir().unwrap();
        write(elsewhere.path(), "Outside.md", b"# not part of the bank\n");
        std::os::unix::fs::symlink(elsewhere.path(), d.path().join("03_DOMAINS/linked")).unwrap();
        let r = run(&d);
        let got: Vec<(&str, Severity, &str)> = r
            .findings
            .iter()
            .map(|f| (f.code, f.severity, f.path.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![("symlinked-folder", Severity::Warning, "03_DOMAINS/linked")]
        );
    }

    #[test]
    fn findings_are_sorted_and_repeatable() {
        let d = healthy();
        write(d.path(), "04_STYLE/Plain.md", b"# Plain [[Gone]]\n");
        write(d.path(), "00_INBOX/new.md", b"raw\n");
        write(d.path(), "03_DOMAINS/x.tmp", b"");
        let bank = Bank::load(d.path()).unwrap();
        let a = check(&bank, &opts());
        let b = check(&bank, &opts());
        assert_eq!(a.findings, b.findings);
        let keys: Vec<_> = a
            .findings
            .iter()
            .map(|f| (f.severity, f.path.clone(), f.line, f.code))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert_eq!(a.findings[0].severity, Severity::Error);
    }

    #[test]
    fn every_code_is_documented() {
        let doc = include_str!("../../../docs/health-checks.md");
        for (code, _) in CODES {
            assert!(
                doc.contains(&format!("`{code}`")),
                "{code} is not documented"
            );
        }
    }

    #[test]
    fn severities_serialise_lower_case() {
        assert_eq!(
            serde_json::to_string(&Severity::Warning).unwrap(),
            "\"warning\""
        );
    }
}
