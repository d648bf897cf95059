//! The bank's terminology where translators work: term articles gathered
//! into concepts, written and read as TBX, CSV and TSV, imported as new
//! term articles, and matched against bilingual files for a job glossary
//! and a terminology check. Deterministic and synchronous throughout.

pub mod bilingual;
pub mod encoding;
pub mod import;
pub mod matcher;
pub mod qa;
pub mod table;
pub mod tbx;
mod xml;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::article::Article;
use crate::bank::Bank;
use crate::layout::{Folder, skip_reason};
use crate::wikilink::normalize_value;

/// The most bytes any terminology or bilingual file is read to.
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// A term article's `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Status {
    Approved,
    Proposed,
    Rejected,
}

impl Status {
    pub fn parse(s: &str) -> Option<Status> {
        match s.trim().to_ascii_lowercase().as_str() {
            "approved" => Some(Status::Approved),
            "proposed" => Some(Status::Proposed),
            "rejected" => Some(Status::Rejected),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Approved => "approved",
            Status::Proposed => "proposed",
            Status::Rejected => "rejected",
        }
    }

    /// The TBX-Basic `administrativeStatus` value.
    pub fn tbx(self) -> &'static str {
        match self {
            Status::Approved => "preferredTerm-admn-sts",
            Status::Proposed => "admittedTerm-admn-sts",
            Status::Rejected => "deprecatedTerm-admn-sts",
        }
    }

    /// A status from a TBX `administrativeStatus`, `normativeAuthorization`
    /// or `usageStatus` value, or the word a CAT tool's glossary writes;
    /// `None` when unknown. Case, spaces, `-` and `_` do not count
    /// (`not recommended` is `notRecommended`). The bank has three
    /// statuses: a term to use is approved, one merely allowed
    /// (`admitted`, TBX's acceptable synonym) is proposed, so the check
    /// never demands it, and one to avoid, whatever the reason, is rejected.
    pub fn from_tbx(s: &str) -> Option<Status> {
        let s: String = s
            .trim()
            .to_ascii_lowercase()
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .collect();
        let s = s.strip_suffix("admnsts").unwrap_or(&s);
        let s = s.strip_suffix("term").unwrap_or(s);
        match s {
            "preferred" | "approved" | "standardized" | "legal" | "regulated" => {
                Some(Status::Approved)
            }
            "admitted" | "proposed" => Some(Status::Proposed),
            "deprecated" | "superseded" | "forbidden" | "rejected" | "notrecommended"
            | "obsolete" => Some(Status::Rejected),
            _ => None,
        }
    }
}

/// One term article, as the exchange formats see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TermRecord {
    /// The article's path in the bank (empty for a term read from a file).
    pub path: String,
    pub source: String,
    pub target: String,
    pub source_lang: String,
    pub target_lang: String,
    pub status: Status,
    /// Client names, without `[[ ]]`.
    pub clients: Vec<String>,
    /// The domain name, without `[[ ]]`.
    pub domain: Option<String>,
    /// `last_updated` as written (`YYYY-MM-DD`).
    pub last_updated: Option<String>,
    /// The article's first paragraph, or an imported note.
    pub note: Option<String>,
}

/// One target term of a concept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TargetTerm {
    pub term: String,
    pub status: Status,
    pub path: String,
    pub last_updated: Option<String>,
    pub note: Option<String>,
}

/// The articles that share a source term, a language pair, clients and a
/// domain: one TBX entry, one CSV row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Concept {
    pub source: String,
    pub source_lang: String,
    pub target_lang: String,
    pub clients: Vec<String>,
    pub domain: Option<String>,
    pub targets: Vec<TargetTerm>,
}

impl Concept {
    /// The latest `last_updated` of its terms that is a real date.
    pub fn last_updated(&self) -> Option<String> {
        self.targets
            .iter()
            .filter_map(|t| normal_day(t.last_updated.as_deref()?))
            .max()
    }

    /// The first note of its terms.
    pub fn note(&self) -> Option<&str> {
        self.targets.iter().find_map(|t| t.note.as_deref())
    }
}

/// A date as `YYYY-MM-DD` when it is a real one: from `YYYY-MM-DD`,
/// the same with one-digit month or day (`2026-3-2`), or an ISO
/// date-time. `None` for anything else (`2026-13-45`), which no
/// exchange format may carry.
pub fn normal_day(s: &str) -> Option<String> {
    let day = s.trim().split(['T', ' ']).next()?;
    let mut parts = day.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    let digits = |p: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit())
    };
    if parts.next().is_some() || !digits(y, 4..=4) || !digits(m, 1..=2) || !digits(d, 1..=2) {
        return None;
    }
    let (y, m, d): (i16, i8, i8) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let date = jiff::civil::Date::new(y, m, d).ok()?;
    Some(date.to_string())
}

/// Each record's `last_updated` as a real `YYYY-MM-DD` (padded where it
/// was written `2026-3-2`); one that is no date is left out, and named
/// in the warnings returned.
pub fn normalise_dates(records: &mut [TermRecord]) -> Vec<String> {
    let mut warnings = Vec::new();
    for r in records {
        let Some(d) = r.last_updated.take() else {
            continue;
        };
        r.last_updated = normal_day(&d);
        if r.last_updated.is_none() {
            warnings.push(format!(
                "{}: last_updated “{d}” is not a date (YYYY-MM-DD); left out of the export",
                r.path
            ));
        }
    }
    warnings
}

/// Which terms an export or a check takes.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Terms for this client, and terms for no client in particular.
    pub client: Option<String>,
    /// `(source, target)` language tags (see [`lang_matches`]).
    pub pair: Option<(String, String)>,
    /// Empty: every status.
    pub statuses: Vec<Status>,
}

impl Filter {
    pub fn accepts(&self, t: &TermRecord) -> bool {
        if !self.statuses.is_empty() && !self.statuses.contains(&t.status) {
            return false;
        }
        if let Some((sl, tl)) = &self.pair
            && !(lang_matches(sl, &t.source_lang) && lang_matches(tl, &t.target_lang))
        {
            return false;
        }
        match &self.client {
            Some(c) => t.clients.is_empty() || t.clients.iter().any(|x| same_name(x, c)),
            None => true,
        }
    }
}

/// Names compared as the bank compares them: case-insensitively.
pub fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (crate::text::trim(a), crate::text::trim(b));
    // Without two lowered copies when the answer needs none: the term
    // conflicts compare clients' names, already folded, by the hundred
    // thousand. ASCII text lowers as its ASCII letters do, so two ASCII
    // names lower alike exactly when they match but for case.
    if a == b {
        return true;
    }
    if a.is_ascii() && b.is_ascii() {
        return a.eq_ignore_ascii_case(b);
    }
    // The fold scoring and links use, so a client is the same client here
    // (`ΟΔΟΣ` and `οδοσ` included).
    crate::wikilink::fold(a) == crate::wikilink::fold(b)
}

/// Whether two terms can apply to the same job, so that their targets
/// must agree: a term that names no client holds for every client, and
/// two that name clients meet when they share one. Two clients may
/// translate a term differently.
pub fn clients_meet<'a>(
    a: impl IntoIterator<Item = &'a str>,
    b: impl IntoIterator<Item = &'a str> + Clone,
) -> bool {
    let mut a = a.into_iter().peekable();
    if a.peek().is_none() || b.clone().into_iter().next().is_none() {
        return true;
    }
    a.any(|x| b.clone().into_iter().any(|y| same_name(x, y)))
}

/// Language tags compared as the format's §7 says: case-insensitively,
/// `_` as `-`, and a bare language (`en`) matching any of its regions;
/// likewise any tag matches the longer tags it begins (RFC 4647's basic
/// filtering): `sr-Latn` matches `sr-Latn-RS` and `zh-Hant` matches
/// `zh-Hant-TW`, but not `zh-Hans`.
pub fn lang_matches(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.trim().replace('_', "-").to_ascii_lowercase();
    let (a, b) = (norm(a), norm(b));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let begins = |long: &str, short: &str| {
        long == short
            || long
                .strip_prefix(short)
                .is_some_and(|rest| rest.starts_with('-'))
    };
    begins(&a, &b) || begins(&b, &a)
}

/// `SRC:TGT` (or `SRC→TGT`, `SRC>TGT`) as a pair of tags.
pub fn parse_pair(s: &str) -> Option<(String, String)> {
    let (a, b) = s
        .split_once(':')
        .or_else(|| s.split_once('→'))
        .or_else(|| s.split_once('>'))?;
    let (a, b) = (a.trim(), b.trim());
    (!a.is_empty() && !b.is_empty()).then(|| (a.to_owned(), b.to_owned()))
}

/// The most characters of an article's first paragraph carried as a note.
const NOTE_CHARS: usize = 1000;

/// The terminology articles that name a term (a `term_source` or a
/// `term_target`) but are no complete record, each with what it lacks:
/// an export leaves them out, and says so rather than lose a term without
/// a word. Those of another client than `client` are not listed.
pub fn incomplete(bank: &Bank, client: Option<&str>) -> Vec<(String, Vec<&'static str>)> {
    bank.articles()
        .iter()
        .filter(|a| a.folder == Folder::Terminology && skip_reason(a.file_name()).is_none())
        .filter(|a| record_of(a).is_none())
        .filter_map(|a| {
            let m = &a.meta;
            if m.term_source().is_none() && m.term_target().is_none() {
                return None;
            }
            if let Some(c) = client {
                let names: Vec<&str> = m.clients.iter().map(|v| normalize_value(&v.raw)).collect();
                if !names.is_empty() && !names.iter().any(|n| same_name(n, c)) {
                    return None;
                }
            }
            let mut lacks = Vec::new();
            let blank = |v: Option<&str>| v.is_none_or(|v| v.trim().is_empty());
            for (key, value) in [
                ("term_source", m.term_source()),
                ("term_target", m.term_target()),
                ("source_lang", m.source_lang.as_deref()),
                ("target_lang", m.target_lang.as_deref()),
            ] {
                if blank(value) {
                    lacks.push(key);
                }
            }
            if m.status.as_deref().and_then(Status::parse).is_none() {
                lacks.push("status");
            }
            Some((a.rel_path.clone(), lacks))
        })
        .collect()
}

/// The term article's record, when it is one with all required keys.
pub fn record_of(a: &Article) -> Option<TermRecord> {
    if a.folder != Folder::Terminology || skip_reason(a.file_name()).is_some() {
        return None;
    }
    let m = &a.meta;
    let (Some(src), Some(tgt), Some(sl), Some(tl)) = (
        m.term_source(),
        m.term_target(),
        &m.source_lang,
        &m.target_lang,
    ) else {
        return None;
    };
    let status = Status::parse(m.status.as_deref()?)?;
    let mut clients: Vec<String> = m
        .clients
        .iter()
        .map(|c| normalize_value(&c.raw).to_owned())
        .filter(|c| !c.is_empty())
        .collect();
    crate::shared_sort::sort_by_key(&mut clients, |c| c.to_lowercase());
    clients.dedup_by(|a, b| same_name(a, b));
    let domain = m
        .domains
        .iter()
        .map(|d| normalize_value(&d.raw).to_owned())
        .find(|d| !d.is_empty());
    Some(TermRecord {
        path: a.rel_path.clone(),
        source: src.trim().to_owned(),
        target: tgt.trim().to_owned(),
        source_lang: sl.trim().to_owned(),
        target_lang: tl.trim().to_owned(),
        status,
        clients,
        domain,
        last_updated: m.last_updated.as_deref().map(|s| s.trim().to_owned()),
        note: first_paragraph(a.text.get(a.body_start()..).unwrap_or("")),
    })
}

/// Whether a line is Markdown block markup rather than prose: a heading,
/// table row, quote, code fence, thematic break or list item. A list item
/// needs a space after its marker, so `*nota*` and `**Garantie**` at the
/// start of a line are emphasis in prose, not lists.
pub(crate) fn is_block_markup(t: &str) -> bool {
    if t.starts_with(['#', '|', '>']) || t.starts_with("```") || t.starts_with("~~~") {
        return true;
    }
    let bullet = |m: char| t == m.to_string() || t.starts_with(&format!("{m} "));
    if bullet('-') || bullet('*') || bullet('+') {
        return true;
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if (1..=9).contains(&digits) {
        let rest = &t[digits..];
        if rest == "." || rest == ")" || rest.starts_with(". ") || rest.starts_with(") ") {
            return true;
        }
    }
    // `---`, `***`, `___` (spaces allowed between): a thematic break.
    let marks: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    marks.len() >= 3
        && ['-', '*', '_']
            .iter()
            .any(|m| marks.chars().all(|c| c == *m))
}

/// The first paragraph of prose of a body: headings, tables, quotes, code
/// and lists skipped, lines joined with spaces, emphasis kept as written.
/// A backslash escaping the first character (as an import writes before a
/// note that would read as markup) is dropped.
fn first_paragraph(body: &str) -> Option<String> {
    let mut para = String::new();
    for line in body.lines() {
        let t = line.trim();
        if t.is_empty() {
            if !para.is_empty() {
                break;
            }
            continue;
        }
        if is_block_markup(t) {
            if !para.is_empty() {
                break;
            }
            continue;
        }
        if para.is_empty() {
            let digits = t.chars().take_while(char::is_ascii_digit).count();
            let mut cs = t.chars();
            if cs.next() == Some('\\') && cs.next().is_some_and(|c| c.is_ascii_punctuation()) {
                para.push_str(&t[1..]);
            } else if digits > 0
                && (t[digits..].starts_with("\\.") || t[digits..].starts_with("\\)"))
            {
                // `1\. …`: an escaped ordered-list marker.
                para.push_str(&t[..digits]);
                para.push_str(&t[digits + 1..]);
            } else {
                para.push_str(t);
            }
        } else {
            para.push(' ');
            para.push_str(t);
        }
        if para.chars().count() > NOTE_CHARS {
            para = para.chars().take(NOTE_CHARS).collect();
            break;
        }
    }
    (!para.is_empty()).then_some(para)
}

/// Every term article of the bank that `filter` accepts, in bank order.
pub fn records(bank: &Bank, filter: &Filter) -> Vec<TermRecord> {
    let kept = bank.options();
    bank.articles()
        .iter()
        .enumerate()
        .filter_map(|(id, a)| Some((id, record_of(a)?)))
        .filter(|(_, t)| filter.accepts(t))
        .map(|(id, mut t)| {
            // A bank that keeps no bodies reads the note's paragraph from
            // the file; one it cannot read has no note.
            if !(kept.text && kept.body) {
                let body_start = bank.article(id).body_start();
                t.note = bank
                    .article_text(id)
                    .ok()
                    .and_then(|text| first_paragraph(text.get(body_start..).unwrap_or("")));
            }
            t
        })
        .collect()
}

/// Pair, source term, clients and domain, folded.
type ConceptKey = (String, String, String, Vec<String>, Option<String>);

/// The key two records of one concept share. The domain is part of it:
/// every format carries a domain per entry (TBX-Basic's `subjectField`
/// is an entry-level category, memoQ's `Entry_Domain` an entry column),
/// so terms of two domains in one entry would come back with one.
fn concept_key(t: &TermRecord) -> ConceptKey {
    (
        t.source_lang.to_ascii_lowercase(),
        t.target_lang.to_ascii_lowercase(),
        t.source.to_lowercase(),
        t.clients.iter().map(|c| c.to_lowercase()).collect(),
        t.domain.as_deref().map(crate::wikilink::fold),
    )
}

/// Records gathered into concepts, sorted by pair, source term, clients
/// and domain; targets in the order their records came.
pub fn concepts(records: &[TermRecord]) -> Vec<Concept> {
    let mut by_key: BTreeMap<ConceptKey, Concept> = BTreeMap::new();
    for t in records {
        let c = by_key.entry(concept_key(t)).or_insert_with(|| Concept {
            source: t.source.clone(),
            source_lang: t.source_lang.clone(),
            target_lang: t.target_lang.clone(),
            clients: t.clients.clone(),
            domain: t.domain.clone(),
            targets: Vec::new(),
        });
        c.targets.push(TargetTerm {
            term: t.target.clone(),
            status: t.status,
            path: t.path.clone(),
            last_updated: t.last_updated.clone(),
            note: t.note.clone(),
        });
    }
    by_key.into_values().collect()
}

/// Concepts back into one record per target term.
pub fn flatten(concepts: &[Concept]) -> Vec<TermRecord> {
    concepts
        .iter()
        .flat_map(|c| {
            c.targets.iter().map(move |t| TermRecord {
                path: t.path.clone(),
                source: c.source.clone(),
                target: t.term.clone(),
                source_lang: c.source_lang.clone(),
                target_lang: c.target_lang.clone(),
                status: t.status,
                clients: c.clients.clone(),
                domain: c.domain.clone(),
                last_updated: t.last_updated.clone(),
                note: t.note.clone(),
            })
        })
        .collect()
}

/// The exchange formats a term list is written in and read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Tbx,
    Csv,
    Tsv,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s.to_ascii_lowercase().as_str() {
            "tbx" => Some(Format::Tbx),
            "csv" => Some(Format::Csv),
            "tsv" | "txt" | "tab" => Some(Format::Tsv),
            _ => None,
        }
    }

    /// The format a file's name and first bytes say.
    pub fn detect(name: &str, text: &str) -> Option<Format> {
        let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        if let Some(f) = Format::parse(ext) {
            return Some(f);
        }
        if ext.eq_ignore_ascii_case("xml") || text.trim_start().starts_with('<') {
            return Some(Format::Tbx);
        }
        // No name to go by (standard input, a pipe): the header row says
        // which delimiter the table uses. A name with another extension
        // (a spreadsheet's `.xlsx`) is not read as a table of text.
        if name.contains('.') {
            return None;
        }
        let header = text.lines().next().unwrap_or("");
        if header.contains('\t') {
            Some(Format::Tsv)
        } else if header.contains([',', ';']) {
            Some(Format::Csv)
        } else {
            None
        }
    }
}

/// Which TBX form to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TbxVersion {
    /// TBX 2008 (`martif`): what Trados MultiTerm and memoQ import today.
    #[default]
    V2008,
    /// ISO 30042:2019 (`tbx`, `conceptEntry`).
    V2019,
}

/// Write `concepts` in `format`.
pub fn write(format: Format, version: TbxVersion, concepts: &[Concept]) -> String {
    match format {
        Format::Tbx => tbx::write(concepts, version),
        Format::Csv => table::write_csv(concepts),
        Format::Tsv => table::write_tsv(concepts),
    }
}

/// Why an input file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadProblem {
    pub file: String,
    pub message: String,
}

impl std::fmt::Display for ReadProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

/// The terms of an exchange file, and what of it was left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadTerms {
    /// Each term as one record (`path` empty).
    pub records: Vec<TermRecord>,
    /// Each row or entry left out and why (`line 4: …`, `the entry …`).
    pub left_out: Vec<String>,
}

/// Terms read from an exchange file, and the rows or entries left out.
/// `defaults` fills in the pair when a file does not name its languages.
pub fn read(
    format: Format,
    file: &str,
    text: &str,
    defaults: Option<&(String, String)>,
) -> Result<ReadTerms, ReadProblem> {
    let problem = |message: String| ReadProblem {
        file: file.to_owned(),
        message,
    };
    match format {
        Format::Tbx => tbx::read_noting(text, defaults).map_err(problem),
        Format::Csv | Format::Tsv => table::read_noting(text, defaults).map_err(problem),
    }
}

#[cfg(test)]
mod tests;
