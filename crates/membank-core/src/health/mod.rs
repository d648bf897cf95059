//! Deterministic health checks: everything about a bank that can be found
//! without asking a language model.
//!
//! Every finding names a stable kebab-case code (documented in
//! `docs/health-checks.md`), a severity, the file and line, and a message that
//! says what is wrong, why it matters and what to do about it.

use std::collections::BTreeMap;

use jiff::civil::Date;
use rayon::prelude::*;
use serde::Serialize;

use crate::article::Article;
use crate::bank::{ArticleId, Bank};
use crate::layout::Folder;

mod credentials;
mod encoding;
mod files;
mod finding;
mod frontmatter;
mod inbox;
pub mod incremental;
mod language;
mod links;
pub use links::is_attachment;

/// The keys a note of `folder` must have (spec §5), in the order a new
/// note lists them.
pub fn required_keys(folder: Folder) -> &'static [&'static str] {
    frontmatter::keys_for(folder).0
}

mod names;
#[cfg(test)]
mod sort_tests;
mod streamed;
mod terms;
#[cfg(test)]
mod tests;

pub use finding::Finding;
pub(crate) use language::fixed_language_tag;
pub use language::{is_plausible_language_tag, normalised_language_tag};
pub use streamed::check_streamed;

use finding::Message;
pub use links::LinkNames;

/// How serious a finding is. Sorts errors first.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

#[derive(Debug, Clone)]
pub struct HealthOptions {
    /// `stale` reports content articles whose `last_updated` is older than
    /// this many days; 0 turns the check off.
    pub stale_after_days: u32,
    /// The day staleness is measured from (passed in so results are
    /// reproducible).
    pub today: Date,
}

impl HealthOptions {
    /// The default checks, with staleness measured from `today` (taken from
    /// the front end's `Clock`, never read here, so reports are reproducible).
    pub fn as_of(today: Date) -> Self {
        HealthOptions {
            stale_after_days: 365,
            today,
        }
    }
}

/// Findings per severity.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// The names a dead link may have meant, as this check indexed them:
    /// a re-check after a change that adds, removes or renames no file
    /// uses them again (the names are the same).
    #[serde(skip)]
    pub link_names: LinkNames,
}

impl HealthReport {
    pub fn new(mut findings: Vec<Finding>) -> HealthReport {
        sort_in_report_order(&mut findings);
        HealthReport::counted(findings)
    }

    /// [`HealthReport::new`] for findings nearly all about the files of
    /// `paths`, most holding the very copy of its path listed there (see
    /// [`sort_by_places`]), given in parts, each part's findings all of the
    /// severity it is listed under. The severities are gathered, sorted and
    /// counted on two threads, the largest on one and the other two on the
    /// other: gathered into one array and sorted as one, the 171,808
    /// findings of 100,000 articles kept one core idle for tens of
    /// milliseconds. Each side is in report order on its own, and errors
    /// come before warnings before notes, so the two sides joined are too.
    pub(crate) fn about_by_severity(
        by_severity: [Vec<Vec<Finding>>; 3],
        paths: &[&str],
    ) -> HealthReport {
        let counts = by_severity
            .each_ref()
            .map(|parts| parts.iter().map(Vec::len).sum::<usize>());
        let total: usize = counts.iter().sum();
        let gather = |groups: Vec<Vec<Vec<Finding>>>, capacity: usize| {
            let mut all = Vec::with_capacity(capacity);
            for part in groups.into_iter().flatten() {
                all.extend(part);
            }
            all
        };
        let [errors, warnings, notes] = by_severity;
        if !crate::parallel::sort_pays(total) {
            let mut all = gather(vec![errors, warnings, notes], total);
            sort_by_places(&mut all, paths);
            return HealthReport::counted(all);
        }
        // Errors alone, or errors and warnings together: whichever leaves
        // the larger side smaller.
        let (first, second) =
            if counts[0].max(counts[1] + counts[2]) <= (counts[0] + counts[1]).max(counts[2]) {
                (vec![errors], vec![warnings, notes])
            } else {
                (vec![errors, warnings], vec![notes])
            };
        let second_len = second.iter().flatten().map(Vec::len).sum();
        // The first side is made at the full size, so the second is
        // copied after it without growing it.
        let ((places, mut first), mut second) = rayon::join(
            || (Places::of(paths), gather(first, total)),
            || gather(second, second_len),
        );
        let sort = |findings: &mut Vec<Finding>| match &places {
            Some(places) => places.sort(findings),
            None => sort_in_report_order(findings),
        };
        // Each side counted on its thread too.
        let sorted = |findings: &mut Vec<Finding>| {
            sort(findings);
            tally(findings)
        };
        let ((counts, mut by_code), (more_counts, more_by_code)) =
            rayon::join(|| sorted(&mut first), || sorted(&mut second));
        first.append(&mut second);
        for (code, n) in more_by_code {
            *by_code.entry(code).or_insert(0) += n;
        }
        HealthReport {
            findings: first,
            counts: Counts {
                error: counts.error + more_counts.error,
                warning: counts.warning + more_counts.warning,
                info: counts.info + more_counts.info,
            },
            by_code: by_code.into_iter().collect(),
            link_names: LinkNames::default(),
        }
    }

    /// The report of the findings of `before` that `keep` accepts, and of
    /// `more` (in any order). Only `more` is sorted; each of its findings
    /// finds its place in `before` by a binary search.
    fn merged(
        before: &[Finding],
        keep: impl Fn(&Finding) -> bool + Sync,
        mut more: Vec<Finding>,
    ) -> HealthReport {
        sort_in_report_order(&mut more);
        let places: Vec<usize> = more
            .par_iter()
            .map(|m| before.partition_point(|b| b.report_order(m).is_lt()))
            .collect();
        let kept: Vec<bool> = before.par_iter().map(&keep).collect();
        let mut findings = Vec::with_capacity(before.len() + more.len());
        let mut more = places.into_iter().zip(more).peekable();
        for (i, b) in before.iter().enumerate() {
            while let Some((_, m)) = more.next_if(|(place, _)| *place == i) {
                findings.push(m);
            }
            if kept[i] {
                findings.push(b.clone());
            }
        }
        findings.extend(more.map(|(_, m)| m));
        HealthReport::counted(findings)
    }

    fn counted(findings: Vec<Finding>) -> HealthReport {
        let (counts, by_code) = tally(&findings);
        HealthReport {
            findings,
            counts,
            by_code: by_code.into_iter().collect(),
            link_names: LinkNames::default(),
        }
    }

    pub fn has_errors(&self) -> bool {
        self.counts.error > 0
    }
}

/// How many of `findings` there are of each severity and code; a few
/// dozen codes, counted in a fast map to be put in order once.
fn tally(findings: &[Finding]) -> (Counts, rustc_hash::FxHashMap<&'static str, usize>) {
    let mut counts = Counts::default();
    let mut by_code = rustc_hash::FxHashMap::default();
    for f in findings {
        match f.severity {
            Severity::Error => counts.error += 1,
            Severity::Warning => counts.warning += 1,
            Severity::Info => counts.info += 1,
        }
        *by_code.entry(f.code()).or_insert(0) += 1;
    }
    (counts, by_code)
}

/// Put `findings` in report order ([`Finding::report_order`]). They come
/// as long runs already in that order but for their severity, which comes
/// first in it (the streamed check's reading threads' in bank order, each
/// pass's in bank order), so each severity is taken out on its own,
/// keeping that order, and sorted by a sort that finds the runs and
/// merges them, the largest severity beside the other two; the pool's
/// unstable sort found none of the runs. Findings the order calls equal
/// read the same in every report, so the report is any sort's.
fn sort_in_report_order(findings: &mut Vec<Finding>) {
    // The same sort as a Deja Vu report's, so no second copy of it is
    // compiled in.
    let order = Finding::report_order;
    if !crate::parallel::sort_pays(findings.len()) {
        findings.sort_by(order);
        return;
    }
    let mut counts = [0usize; 3];
    for f in findings.iter() {
        counts[f.severity as usize] += 1;
    }
    let mut parts = counts.map(Vec::with_capacity);
    // The whole array is freed once its findings are moved: it and the
    // parts held together raised the peak.
    for f in std::mem::take(findings) {
        parts[f.severity as usize].push(f);
    }
    let largest = (0..3).max_by_key(|&i| counts[i]).unwrap_or(0);
    let (alone, others): (Vec<_>, Vec<_>) = parts
        .iter_mut()
        .enumerate()
        .partition(|(i, _)| *i == largest);
    rayon::join(
        || alone.into_iter().for_each(|(_, part)| part.sort_by(order)),
        || others.into_iter().for_each(|(_, part)| part.sort_by(order)),
    );
    // Grown where it lies (a large block is remapped, not copied), each
    // other part freed once copied.
    let [mut all, warnings, notes] = parts;
    all.reserve_exact(warnings.len() + notes.len());
    all.extend(warnings);
    all.extend(notes);
    *findings = all;
}

/// Put `findings` in report order, as [`sort_in_report_order`] does, by
/// their paths' places among `paths` rather than by their text: at
/// 100,000 articles the merges compared paths (cache misses, mostly) over
/// a million times. Each finding goes into a bucket by its severity and
/// the place of the first of `paths` not before its own (found by the
/// address of its copy, which an article's findings share, or by a
/// search for the few that hold another), the buckets in order; only
/// each bucket's few findings are compared, in full, and the findings are
/// moved once, in place. When `paths` is not in path order, the findings
/// are sorted as any report's.
fn sort_by_places(findings: &mut Vec<Finding>, paths: &[&str]) {
    if !crate::parallel::sort_pays(findings.len()) {
        findings.sort_by(Finding::report_order);
        return;
    }
    match Places::of(paths) {
        Some(places) => places.sort(findings),
        None => sort_in_report_order(findings),
    }
}

/// The paths a report is sorted by, with the table of their texts'
/// addresses (see [`sort_by_places`]); made once for the report's two
/// sides.
struct Places<'a> {
    paths: &'a [&'a str],
    at: Addresses,
}

impl<'a> Places<'a> {
    /// `None` when `paths` is not in path order, or too long for the
    /// buckets' 32-bit numbers.
    fn of(paths: &'a [&'a str]) -> Option<Places<'a>> {
        let fits = u32::try_from(3 * (paths.len() + 1)).is_ok();
        if !fits || !paths.is_sorted_by(|a, b| a < b) {
            return None;
        }
        Some(Places {
            paths,
            at: Addresses::of(paths),
        })
    }

    fn sort(&self, findings: &mut [Finding]) {
        let paths = self.paths;
        let len = findings.len();
        // Three severities' buckets, each one more than there are paths.
        let places = paths.len() + 1;
        if !crate::parallel::sort_pays(len) || u32::try_from(len).is_err() {
            findings.sort_by(Finding::report_order);
            return;
        }
        let place = |path: &str| match self.at.get(path.as_ptr() as usize) {
            // The same address and length: the same text.
            Some(i) if paths[i as usize].len() == path.len() => i,
            _ => paths.partition_point(|p| *p < path) as u32,
        };
        let bucket: Vec<u32> = findings
            .iter()
            .map(|f| f.severity as u32 * places as u32 + place(&f.path))
            .collect();
        // Counted, then each finding's index put where its bucket starts.
        let mut ends = vec![0u32; 3 * places];
        for &b in &bucket {
            ends[b as usize] += 1;
        }
        let mut total = 0;
        for end in ends.iter_mut() {
            total += *end;
            *end = total;
        }
        let mut from = vec![0u32; len];
        for (i, &b) in bucket.iter().enumerate().rev() {
            ends[b as usize] -= 1;
            from[ends[b as usize] as usize] = i as u32;
        }
        drop(bucket);
        // Position `to` takes the finding at `from[to]`: each cycle of the
        // permutation is followed once, swapping, and marked as it is.
        for first in 0..len {
            let mut to = first;
            loop {
                let next = from[to] as usize;
                from[to] = to as u32;
                if next == first {
                    break;
                }
                findings.swap(to, next);
                to = next;
            }
        }
        drop(from);
        // `ends` now holds where each bucket starts; a bucket of more than
        // one finding is put in order by the sort every report uses (no
        // second copy of it compiled in).
        let mut end = len;
        for &start in ends.iter().rev() {
            let start = start as usize;
            if end - start > 1 {
                findings[start..end].sort_by(Finding::report_order);
            }
            end = start;
        }
    }
}

/// The places of the paths listed by the address of their text: a table
/// of twice as many slots, each probed from the address's hash on.
struct Addresses {
    slots: Vec<(usize, u32)>,
    shift: u32,
}

impl Addresses {
    fn of(paths: &[&str]) -> Addresses {
        let size = (2 * paths.len()).next_power_of_two().max(2);
        let mut table = Addresses {
            slots: vec![(0, 0); size],
            shift: 64 - size.trailing_zeros(),
        };
        for (i, p) in paths.iter().enumerate() {
            let mut at = table.first_slot(p.as_ptr() as usize);
            // No text lies at address 0: it marks an empty slot.
            while table.slots[at].0 != 0 {
                at = (at + 1) & (size - 1);
            }
            table.slots[at] = (p.as_ptr() as usize, i as u32);
        }
        table
    }

    fn first_slot(&self, address: usize) -> usize {
        ((address as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The place of the path whose text is at `address`, if listed.
    fn get(&self, address: usize) -> Option<u32> {
        let mut at = self.first_slot(address);
        loop {
            match self.slots[at] {
                (0, _) => return None,
                (a, i) if a == address => return Some(i),
                _ => at = (at + 1) & (self.slots.len() - 1),
            }
        }
    }
}

/// Every code `check` can emit, with its usual severity (a few codes are
/// raised to an error or lowered to a warning case by case; see the docs).
pub const CODES: &[(&str, Severity)] = &[
    ("unparsable-frontmatter", Severity::Error),
    ("missing-frontmatter", Severity::Error),
    ("fenced-frontmatter", Severity::Warning),
    ("bom", Severity::Warning),
    ("utf16", Severity::Warning),
    ("not-utf8", Severity::Error),
    ("unreadable-file", Severity::Error),
    ("symlinked-folder", Severity::Warning),
    ("not-a-file", Severity::Error),
    ("oversized-file", Severity::Error),
    ("link-outside-bank", Severity::Warning),
    ("missing-key", Severity::Error),
    ("bad-date", Severity::Error),
    ("bad-status", Severity::Error),
    ("bad-language-code", Severity::Warning),
    ("unread-value", Severity::Warning),
    ("unquoted-link", Severity::Warning),
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
    ("secret", Severity::Error),
];

/// How many ranges of articles [`check`] checks one after another.
const RANGES: usize = 16;

/// Run every check. Pure: reads only what `Bank::load` already read.
pub fn check(bank: &Bank, opts: &HealthOptions) -> HealthReport {
    let stale_cutoff = stale_cutoff(opts);
    // The passes over the whole bank first: their working sets are gone
    // before the per-article findings take their place (run side by side,
    // they raised the peak by 13 MB on 100,000 articles).
    let mut whole_bank = Vec::new();
    let ((), names) = rayon::join(
        || bank_findings(bank, &mut whole_bank),
        || LinkNames::for_links_of(bank, None),
    );
    let findings = per_article_findings(bank.articles().len(), Vec::new(), &|id, out| {
        article_findings(bank, id, stale_cutoff, opts, &names, out)
    });
    let mut report = reported(findings, whole_bank);
    report.link_names = names;
    report
}

/// The report of the per-article `findings` and the `whole_bank` ones.
fn reported(mut findings: Vec<Finding>, whole_bank: Vec<Finding>) -> HealthReport {
    findings.reserve_exact(whole_bank.len());
    findings.extend(whole_bank);
    HealthReport::new(findings)
}

/// The `articles` in a few consecutive ranges, each checked by `each` on
/// every core and appended to `findings`, grown to the exact size each
/// time: only one range's findings are ever held twice, where gathering
/// them all and then joining them held every finding twice at the peak.
fn per_article_findings(
    articles: usize,
    mut findings: Vec<Finding>,
    each: &(dyn Fn(ArticleId, &mut Vec<Finding>) + Sync),
) -> Vec<Finding> {
    let range = articles.div_ceil(RANGES).max(1);
    for start in (0..articles).step_by(range) {
        let parts: Vec<Vec<Finding>> = (start..(start + range).min(articles))
            .into_par_iter()
            .fold(Vec::new, |mut out, id| {
                each(id, &mut out);
                out
            })
            .collect();
        findings.reserve_exact(parts.iter().map(Vec::len).sum());
        for part in parts {
            findings.extend(part);
        }
    }
    findings
}

/// The day before which an article is stale, if any.
fn stale_cutoff(opts: &HealthOptions) -> Option<Date> {
    // An age beyond the calendar's range simply means nothing is stale.
    match opts.stale_after_days {
        0 => None,
        days => jiff::Span::new()
            .try_days(i64::from(days))
            .ok()
            .and_then(|span| opts.today.checked_sub(span).ok()),
    }
}

/// The passes over the whole bank rather than one article at a time (their
/// codes are [`incremental::BANK_WIDE`]).
fn bank_findings(bank: &Bank, findings: &mut Vec<Finding>) {
    listed_file_findings(bank, findings);
    let (names, terms) = rayon::join(
        || {
            let mut found = Vec::new();
            names::file_name_findings(bank, &mut found);
            found
        },
        || {
            let mut found = Vec::new();
            terms::term_conflicts(bank, &mut found);
            found
        },
    );
    findings.extend(names);
    findings.extend(terms);
}

/// The folders, and the files that are not articles: a few, however
/// large the bank.
fn listed_file_findings(bank: &Bank, findings: &mut Vec<Finding>) {
    encoding::load_problems(bank, findings);
    files::folder_findings(bank, findings);
    files::file_findings(bank, findings);
}

fn finding(
    code: &'static str,
    severity: Severity,
    path: &str,
    line: Option<usize>,
    message: String,
) -> Finding {
    Finding::with_message(code, severity, path, line, message.into())
}

// ---------------------------------------------------------------------------
// Per article

fn article_findings(
    bank: &Bank,
    id: ArticleId,
    stale_cutoff: Option<Date>,
    opts: &HealthOptions,
    names: &LinkNames,
    out: &mut Vec<Finding>,
) {
    own_findings(bank.article(id), stale_cutoff, opts, out);
    linked_findings(bank, id, names, out);
}

/// The findings about one article that need nothing but the article.
fn own_findings(
    a: &Article,
    stale_cutoff: Option<Date>,
    opts: &HealthOptions,
    out: &mut Vec<Finding>,
) {
    encoding::encoding_findings(a, out);
    credentials::credential_findings(a, out);
    frontmatter::frontmatter_findings(a, out);
    if a.is_parsed() {
        frontmatter::key_findings(a, out);
        frontmatter::value_findings(a, out);
    }
    if a.folder == Folder::Inbox {
        inbox::inbox_findings(a, out);
    }
    if a.folder.is_content() {
        let stale_date = match (stale_cutoff, a.meta.last_updated_date) {
            (Some(cutoff), Some(date)) if date < cutoff => Some(date),
            _ => None,
        };
        if let Some(date) = stale_date {
            out.push(Finding::with_message(
                "stale",
                Severity::Info,
                &a.rel_path,
                frontmatter::key_line(a, "last_updated"),
                Message::Stale {
                    date,
                    days: opts.stale_after_days,
                    today: opts.today,
                },
            ));
        }
    }
}

/// The findings about one article's links, and about links to it.
fn linked_findings(bank: &Bank, id: ArticleId, names: &LinkNames, out: &mut Vec<Finding>) {
    let folder = bank.article(id).folder;
    if checks_links(folder) {
        links::link_findings(bank, id, names, out);
    }
    if folder.is_content() {
        links::orphan_finding(bank, id, out);
    }
}

/// Are the links of the articles in `folder` checked?
fn checks_links(folder: Folder) -> bool {
    folder.is_content() || folder == Folder::Indices
}

/// The message of a `stale` finding, appended to `out`.
fn write_stale_message(out: &mut String, date: Date, days: u32, today: Date) {
    out.push_str("last_updated is ");
    write_date(out, date);
    out.push_str(", more than ");
    crate::json::push_uint(out, u64::from(days));
    out.push_str(" days before ");
    write_date(out, today);
    out.push_str(". Check that the article is still correct, then update last_updated.");
}

/// `date` as its `Display` writes it, the digits put down by hand for the
/// years 0 to 9999: a large bank's report writes two dates for each of
/// tens of thousands of `stale` findings.
fn write_date(out: &mut String, date: Date) {
    let (year, month, day) = (date.year(), date.month(), date.day());
    if !(0..=9999).contains(&year) {
        use std::fmt::Write;
        let _ = write!(out, "{date}");
        return;
    }
    // Bytes, pushed as one piece: characters were pushed one at a time.
    let digit = |n: i16| b'0' + (n % 10) as u8;
    let mut text = [b'-'; 10];
    text[0] = digit(year / 1000);
    text[1] = digit(year / 100);
    text[2] = digit(year / 10);
    text[3] = digit(year);
    text[5] = digit(i16::from(month) / 10);
    text[6] = digit(i16::from(month));
    text[8] = digit(i16::from(day) / 10);
    text[9] = digit(i16::from(day));
    out.push_str(std::str::from_utf8(&text).unwrap_or_default());
}
