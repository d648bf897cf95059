//! A job glossary (the bank's terms that occur in a file's source text)
//! and the terminology check of a translated file: `term-missing`,
//! `term-rejected` and `term-inconsistent`, per segment. One pass of
//! one automaton over each side of the text, whatever the bank's size.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use serde::Serialize;

use super::bilingual::{BilingualFile, Segment};
use super::matcher::{Folded, TermMatcher, fold, mark};
use super::{Status, TermRecord, lang_matches};

/// One term of a job glossary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GlossaryEntry {
    #[serde(flatten)]
    pub term: TermRecord,
    /// How many segments the source term occurs in.
    pub segments: usize,
    /// The id of the first of them.
    pub first_segment: String,
}

/// The records for the file's pair (or all, when the file names none);
/// for a file whose parts name different pairs, those of any part.
pub fn for_pair<'a>(records: &'a [TermRecord], file: &BilingualFile) -> Vec<&'a TermRecord> {
    let pairs = pairs_of(file);
    records
        .iter()
        .filter(|r| {
            pairs.iter().any(|(s, t)| {
                s.as_deref().is_none_or(|l| lang_matches(l, &r.source_lang))
                    && t.as_deref().is_none_or(|l| lang_matches(l, &r.target_lang))
            })
        })
        .collect()
}

use super::bilingual::Langs as Pair;

/// The file's language pairs, each with its segments' indexes, in the
/// order they first occur.
fn pair_groups(file: &BilingualFile) -> Vec<(Pair, Vec<usize>)> {
    let mut groups: Vec<(Pair, Vec<usize>)> = Vec::new();
    for (i, seg) in file.segments.iter().enumerate() {
        let (s, t) = seg.pair(file);
        let key = (s.map(str::to_owned), t.map(str::to_owned));
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    groups
}

fn pairs_of(file: &BilingualFile) -> Vec<Pair> {
    let groups = pair_groups(file);
    if groups.is_empty() {
        return vec![(file.source_lang.clone(), file.target_lang.clone())];
    }
    groups.into_iter().map(|(p, _)| p).collect()
}

/// The source language all of `records` share, if they share one: what
/// a file that names no source language (a TMX saying `*all*`) is
/// taken to be written in.
pub fn shared_source_lang(records: &[TermRecord]) -> Option<&str> {
    let first = records.first()?.source_lang.as_str();
    records
        .iter()
        .all(|r| r.source_lang.eq_ignore_ascii_case(first))
        .then_some(first)
}

/// Why a translated file is not checked as it is. The front ends word
/// each their own way: how a pair is given differs (a flag, a word typed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobRefused {
    /// The reader's own words (not XML where XML is due, a bad entity…).
    Unreadable(String),
    /// No segment at all: checked, it would pass as a clean job.
    NoSegments,
    /// An XLIFF naming no target language for some segments (see
    /// [`BilingualFile::settle_pair`]).
    NoTargetLanguage,
    /// A file naming no languages, and the bank's terms in these pairs
    /// (see [`pairs_to_choose_from`]).
    SeveralPairs(Vec<String>),
}

/// A translated file's segments from its text (`name` tells its kind),
/// each part settled to one language pair: `pair` when given; else the
/// file's own languages, and for a file that names none the one pair of
/// `records` (the bank's terms), which also pick a TMX's source language.
pub fn read_job(
    name: &str,
    text: &str,
    pair: Option<(String, String)>,
    records: &[TermRecord],
) -> Result<BilingualFile, JobRefused> {
    let usual_source = if pair.is_none() {
        shared_source_lang(records)
    } else {
        None
    };
    let mut file = super::bilingual::read_with(
        name,
        text,
        pair.as_ref().map(|(s, t)| (s.as_str(), t.as_str())),
        usual_source,
    )
    .map_err(JobRefused::Unreadable)?;
    if file.segments.is_empty() {
        return Err(JobRefused::NoSegments);
    }
    file.settle_pair(pair)
        .map_err(|_| JobRefused::NoTargetLanguage)?;
    if let Some(pairs) = pairs_to_choose_from(records, &file) {
        return Err(JobRefused::SeveralPairs(pairs));
    }
    Ok(file)
}

/// The language pairs of `records`, as "en-US → nl-BE", when a segment of
/// `file` names no target language and the records hold more than one
/// pair: checked against all of them, a Dutch translation would pass with
/// a French term and fail for a missing Croatian one. `None` when the
/// file's languages, or the bank's single pair, settle it.
pub fn pairs_to_choose_from(records: &[TermRecord], file: &BilingualFile) -> Option<Vec<String>> {
    if file.segments.iter().all(|s| s.pair(file).1.is_some()) {
        return None;
    }
    let mut pairs: Vec<String> = Vec::new();
    for r in records {
        let pair = format!("{} → {}", r.source_lang, r.target_lang);
        if !pairs.iter().any(|p| p.eq_ignore_ascii_case(&pair)) {
            pairs.push(pair);
        }
    }
    (pairs.len() > 1).then(|| {
        pairs.sort();
        pairs
    })
}

/// The terms of `records` whose source occurs in the file's source text,
/// in the order of their first occurrence. A term found only inside a
/// longer one ("controller" in "data controller") is not listed for that
/// segment, as [`check`] does not check it there.
pub fn glossary(records: &[&TermRecord], file: &BilingualFile) -> Vec<GlossaryEntry> {
    let (matcher, of_term) = TermMatcher::new(records.iter().map(|r| r.source.as_str()));
    // Per pattern: the records it stands for (one source term, several
    // targets or pairs).
    let mut of_pattern: Vec<Vec<usize>> = vec![Vec::new(); matcher.len()];
    for (k, p) in of_term.iter().enumerate() {
        if let Some(p) = p {
            of_pattern[*p].push(k);
        }
    }
    // Per record: segments it occurs in, the first one's index, and the
    // last segment counted.
    let mut seen: Vec<(usize, usize, usize)> = vec![(0, usize::MAX, usize::MAX); records.len()];
    let mut hits: Vec<(usize, Range<usize>)> = Vec::new();
    for (i, seg) in file.segments.iter().enumerate() {
        // A part of the file in another pair (an XLIFF's `<file>`) counts
        // only for that pair's terms, as `check` checks it.
        let (source_lang, target_lang) = seg.pair(file);
        let folded = Folded::new(&seg.source);
        hits.clear();
        matcher.find(&folded, |p, r| hits.push((p, r)));
        for (p, _) in longest(std::mem::take(&mut hits)) {
            for &k in &of_pattern[p] {
                let r = records[k];
                let in_pair = source_lang.is_none_or(|l| lang_matches(l, &r.source_lang))
                    && target_lang.is_none_or(|l| lang_matches(l, &r.target_lang));
                if in_pair && seen[k].2 != i {
                    seen[k].0 += 1;
                    seen[k].1 = seen[k].1.min(i);
                    seen[k].2 = i;
                }
            }
        }
    }
    let mut out: Vec<(usize, GlossaryEntry)> = records
        .iter()
        .zip(&seen)
        .filter(|(_, seen)| seen.0 > 0)
        .map(|(r, &(count, first, _))| {
            (
                first,
                GlossaryEntry {
                    term: (*r).clone(),
                    segments: count,
                    first_segment: file.segments[first].label(),
                },
            )
        })
        .collect();
    crate::shared_sort::sort_by(&mut out, |a, b| {
        a.0.cmp(&b.0).then(a.1.term.source.cmp(&b.1.term.source))
    });
    out.into_iter().map(|(_, e)| e).collect()
}

/// One terminology finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct QaFinding {
    /// `term-missing`, `term-rejected` or `term-inconsistent`.
    pub code: &'static str,
    pub segment: String,
    /// The segment's XLIFF `<file>` (its `original`), when the file has
    /// several: their ids start again in each.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub source_term: String,
    /// The approved targets of the source term.
    pub expected: Vec<String>,
    /// The target term found (the rejected or the differing one).
    pub found: Option<String>,
    /// The term article that decides it.
    pub article: String,
    /// The segment's texts with the terms marked `«…»`.
    pub source: String,
    pub target: String,
    pub fix: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct QaReport {
    pub kind: &'static str,
    pub source_lang: Option<String>,
    pub target_lang: Option<String>,
    /// Every segment read from the file (translated or not).
    pub segments: usize,
    /// The segments checked: those with a confirmed translation, which is
    /// `segments` less the `untranslated` ones.
    pub checked: usize,
    /// Terms of the bank the file was checked against.
    pub terms: usize,
    pub findings: Vec<QaFinding>,
    /// Segments with an empty or unconfirmed target: not checked.
    pub untranslated: Vec<String>,
}

impl QaReport {
    /// The findings grouped by source term (as it folds), each group in
    /// file order: how a findings pane lists them.
    pub fn by_term(&self) -> Vec<(&str, Vec<&QaFinding>)> {
        self.by_term_indexes()
            .into_iter()
            .map(|(term, ids)| (term, ids.into_iter().map(|i| &self.findings[i]).collect()))
            .collect()
    }

    /// [`QaReport::by_term`] as indexes into `findings`, for a view that
    /// keeps rows pointing at them. One map lookup per finding: a large
    /// job has thousands of terms.
    pub fn by_term_indexes(&self) -> Vec<(&str, Vec<usize>)> {
        let mut groups: std::collections::BTreeMap<String, (&str, Vec<usize>)> =
            std::collections::BTreeMap::new();
        for (i, f) in self.findings.iter().enumerate() {
            groups
                .entry(super::matcher::fold(&f.source_term))
                .or_insert_with(|| (f.source_term.as_str(), Vec::new()))
                .1
                .push(i);
        }
        groups.into_values().collect()
    }
}

impl QaFinding {
    /// The segment's id, after its `<file>` when the file has several.
    pub fn segment_label(&self) -> String {
        super::bilingual::label(self.file.as_deref(), &self.segment)
    }
}

/// What a source term expects of a target.
#[derive(Default)]
struct Expect<'a> {
    source: &'a str,
    approved: Vec<(usize, &'a TermRecord)>,
    rejected: Vec<(usize, &'a TermRecord)>,
    /// Proposed (admitted) targets: allowed where they are used, never
    /// asked for.
    allowed: Vec<usize>,
}

/// Check every translated segment of `file` against `records` (already
/// narrowed to the file's pair and client). A file whose parts name
/// different pairs (an XLIFF's `<file>`s) has each part checked against
/// its own pair's terms.
pub fn check(records: &[&TermRecord], file: &BilingualFile) -> QaReport {
    let groups = pair_groups(file);
    if groups.len() <= 1 {
        return check_part(records, file);
    }
    let mut report = QaReport {
        kind: file.kind,
        source_lang: file.source_lang.clone(),
        target_lang: file.target_lang.clone(),
        segments: file.segments.len(),
        checked: 0,
        terms: records.len(),
        findings: Vec::new(),
        untranslated: Vec::new(),
    };
    for ((source_lang, target_lang), at) in groups {
        let part = BilingualFile {
            kind: file.kind,
            source_lang,
            target_lang,
            segments: at.iter().map(|&i| file.segments[i].clone()).collect(),
        };
        let wanted: Vec<&TermRecord> = records
            .iter()
            .copied()
            .filter(|r| {
                part.source_lang
                    .as_deref()
                    .is_none_or(|l| lang_matches(l, &r.source_lang))
                    && part
                        .target_lang
                        .as_deref()
                        .is_none_or(|l| lang_matches(l, &r.target_lang))
            })
            .collect();
        let r = check_part(&wanted, &part);
        report.findings.extend(r.findings);
        report.untranslated.extend(r.untranslated);
    }
    report.checked = report.segments - report.untranslated.len();
    report
}

/// [`check`] of a file (or part) in one language pair.
fn check_part(records: &[&TermRecord], file: &BilingualFile) -> QaReport {
    let used: Vec<&TermRecord> = records.to_vec();
    let (sources, src_of) = TermMatcher::new(used.iter().map(|r| r.source.as_str()));
    let exact = accent_sensitive(&used, &src_of);
    // Target patterns: those folded as usual, then (numbered after them)
    // those only accents tell apart, matched with accents kept.
    let (targets, folded_of) = TermMatcher::new(
        used.iter()
            .zip(&exact)
            .map(|(r, &x)| if x { "" } else { r.target.as_str() }),
    );
    let (targets_exact, exact_of) = TermMatcher::with_accents(
        used.iter()
            .zip(&exact)
            .map(|(r, &x)| if x { r.target.as_str() } else { "" }),
        true,
    );
    let tgt_of: Vec<Option<usize>> = folded_of
        .iter()
        .zip(&exact_of)
        .map(|(f, x)| f.or(x.map(|x| targets.len() + x)))
        .collect();
    let mut expect: Vec<Expect> = (0..sources.len()).map(|_| Expect::default()).collect();
    for (k, r) in used.iter().enumerate() {
        let (Some(s), Some(t)) = (src_of[k], tgt_of[k]) else {
            continue;
        };
        let e = &mut expect[s];
        e.source = &r.source;
        match r.status {
            Status::Approved => e.approved.push((t, r)),
            Status::Proposed => e.allowed.push(t),
            Status::Rejected => e.rejected.push((t, r)),
        }
    }
    let mut findings = Vec::new();
    let mut untranslated = Vec::new();
    // Per source pattern: approved target pattern → the segments using it,
    // with where the source and the target term stand in each.
    let mut renderings: HashMap<usize, BTreeMap<usize, Vec<Rendering>>> = HashMap::new();
    for (i, seg) in file.segments.iter().enumerate() {
        if !seg.translated || seg.target.trim().is_empty() {
            untranslated.push(seg.label());
            continue;
        }
        let src = Folded::new(&seg.source);
        let mut src_hits: Vec<(usize, Range<usize>)> = Vec::new();
        sources.find(&src, |p, r| src_hits.push((p, r)));
        let src_hits = longest(src_hits);
        if src_hits.is_empty() {
            continue;
        }
        let tgt = Folded::new(&seg.target);
        // Target hits with original byte ranges: the two foldings number
        // their bytes differently.
        let mut tgt_hits: Vec<(usize, Range<usize>)> = Vec::new();
        targets.find(&tgt, |p, r| {
            tgt_hits.push((p, tgt.original(r, &seg.target)));
        });
        if !targets_exact.is_empty() {
            let tgt_exact = Folded::with_accents(&seg.target, true);
            targets_exact.find(&tgt_exact, |p, r| {
                tgt_hits.push((targets.len() + p, tgt_exact.original(r, &seg.target)));
            });
        }
        let mut done: Vec<usize> = Vec::new();
        for (p, range) in &src_hits {
            if done.contains(p) {
                continue;
            }
            done.push(*p);
            let e = &expect[*p];
            let src_range = src.original(range.clone(), &seg.source);
            let present = |t: usize| tgt_hits.iter().find(|(q, _)| *q == t);
            let approved_present: Vec<usize> = e
                .approved
                .iter()
                .map(|(t, _)| *t)
                .filter(|t| present(*t).is_some())
                .collect();
            let expected: Vec<String> = e.approved.iter().map(|(_, r)| r.target.clone()).collect();
            for &t in &approved_present {
                let at = present(t).map_or(0..0, |(_, r)| r.clone());
                renderings
                    .entry(*p)
                    .or_default()
                    .entry(t)
                    .or_default()
                    .push((i, src_range.clone(), at));
            }
            // An admitted synonym is an acceptable rendering.
            let allowed_present = e.allowed.iter().any(|&t| present(t).is_some());
            if !e.approved.is_empty() && approved_present.is_empty() && !allowed_present {
                findings.push(QaFinding {
                    code: "term-missing",
                    segment: seg.id.clone(),
                    file: seg.file.clone(),
                    source_term: e.source.to_owned(),
                    expected: expected.clone(),
                    found: None,
                    article: e.approved[0].1.path.clone(),
                    source: mark(&seg.source, std::slice::from_ref(&src_range)),
                    target: seg.target.clone(),
                    fix: format!("use “{}”", expected.join("” or “")),
                });
            }
            // Where the approved renderings stand in the target: a rejected
            // one found only inside them ("piéton" in "passager piéton") is
            // the approved term itself, as the longest match wins on the
            // source side.
            let approved_at: Vec<&Range<usize>> = tgt_hits
                .iter()
                .filter(|(q, _)| approved_present.contains(q))
                .map(|(_, r)| r)
                .collect();
            let inside_approved = |r: &Range<usize>| {
                approved_at
                    .iter()
                    .any(|a| a.start <= r.start && r.end <= a.end && **a != *r)
            };
            for (t, r) in &e.rejected {
                if e.approved.iter().any(|(a, _)| a == t) {
                    continue;
                }
                let Some((_, tr)) = tgt_hits
                    .iter()
                    .find(|(q, range)| *q == *t && !inside_approved(range))
                else {
                    continue;
                };
                let tgt_range = tr.clone();
                findings.push(QaFinding {
                    code: "term-rejected",
                    segment: seg.id.clone(),
                    file: seg.file.clone(),
                    source_term: e.source.to_owned(),
                    expected: expected.clone(),
                    found: Some(seg.target[tgt_range.clone()].to_owned()),
                    article: r.path.clone(),
                    source: mark(&seg.source, std::slice::from_ref(&src_range)),
                    target: mark(&seg.target, &[tgt_range]),
                    fix: if expected.is_empty() {
                        format!("do not use “{}”", r.target)
                    } else {
                        format!("use “{}”, not “{}”", expected.join("” or “"), r.target)
                    },
                });
            }
        }
    }
    inconsistencies(&expect, &renderings, file, &mut findings);
    QaReport {
        kind: file.kind,
        source_lang: file.source_lang.clone(),
        target_lang: file.target_lang.clone(),
        segments: file.segments.len(),
        checked: file.segments.len() - untranslated.len(),
        terms: records.len(),
        findings,
        untranslated,
    }
}

/// Per record: whether its target is matched with accents kept. A
/// rejected target that folds like an approved target of the same source
/// term (`ano` beside `año`) would otherwise be the approved term itself
/// and never be reported; both are then told apart by their accents.
fn accent_sensitive(used: &[&TermRecord], src_of: &[Option<usize>]) -> Vec<bool> {
    let folded: Vec<String> = used.iter().map(|r| fold(&r.target)).collect();
    // By source pattern and folded target: the records' indexes. Hashed:
    // a bank has tens of thousands of terms.
    let mut groups: HashMap<(usize, &str), Vec<usize>> = HashMap::new();
    for (k, p) in src_of.iter().enumerate() {
        if let Some(p) = p {
            groups.entry((*p, folded[k].as_str())).or_default().push(k);
        }
    }
    let mut marked: std::collections::HashSet<&str> = Default::default();
    for ((_, f), ks) in &groups {
        if ks.len() < 2 {
            continue;
        }
        let exact = |k: usize| Folded::with_accents(&used[k].target, true).text;
        let approved: Vec<String> = ks
            .iter()
            .filter(|&&k| used[k].status == Status::Approved)
            .map(|&k| exact(k))
            .collect();
        let differs = ks.iter().any(|&k| {
            used[k].status == Status::Rejected && approved.iter().any(|a| *a != exact(k))
        });
        if differs {
            marked.insert(f);
        }
    }
    // Every target of such a folded form, whatever its source term, is
    // matched the same way, so one word is never two patterns apart.
    folded.iter().map(|f| marked.contains(f.as_str())).collect()
}

/// Source hits without those lying wholly inside a longer hit of another
/// term: in "data controller", "controller" is not checked on its own,
/// as CAT tools' QA lets the longest match win.
fn longest(hits: Vec<(usize, Range<usize>)>) -> Vec<(usize, Range<usize>)> {
    hits.iter()
        .filter(|(p, r)| {
            !hits
                .iter()
                .any(|(q, o)| q != p && o.start <= r.start && r.end <= o.end && o.len() > r.len())
        })
        .cloned()
        .collect()
}

/// A source term rendered by different approved targets across the file:
/// one finding at each segment that uses a less common rendering.
/// A segment using an approved rendering: its index, and the source and
/// target terms' byte ranges in it.
type Rendering = (usize, Range<usize>, Range<usize>);

fn inconsistencies(
    expect: &[Expect],
    renderings: &HashMap<usize, BTreeMap<usize, Vec<Rendering>>>,
    file: &BilingualFile,
    out: &mut Vec<QaFinding>,
) {
    let mut keys: Vec<&usize> = renderings.keys().collect();
    keys.sort();
    for p in keys {
        let by_target = &renderings[p];
        if by_target.len() < 2 {
            continue;
        }
        let e = &expect[*p];
        let target_of = |t: usize| e.approved.iter().find(|(a, _)| *a == t).map(|(_, r)| *r);
        // The most used rendering (the earliest on a tie) is the norm.
        let (&norm, _) = by_target
            .iter()
            .max_by(|a, b| a.1.len().cmp(&b.1.len()).then(b.1[0].0.cmp(&a.1[0].0)))
            .expect("two renderings at least");
        let Some(norm_rec) = target_of(norm) else {
            continue;
        };
        for (&t, segs) in by_target {
            if t == norm {
                continue;
            }
            let Some(rec) = target_of(t) else { continue };
            for (i, src_range, tgt_range) in segs {
                let seg: &Segment = &file.segments[*i];
                out.push(QaFinding {
                    code: "term-inconsistent",
                    segment: seg.id.clone(),
                    file: seg.file.clone(),
                    source_term: e.source.to_owned(),
                    expected: vec![norm_rec.target.clone()],
                    found: Some(rec.target.clone()),
                    article: rec.path.clone(),
                    source: mark(&seg.source, std::slice::from_ref(src_range)),
                    target: mark(&seg.target, std::slice::from_ref(tgt_range)),
                    fix: format!(
                        "use “{}” as in segment {} ({} segment(s) use it)",
                        norm_rec.target,
                        file.segments[by_target[&norm][0].0].label(),
                        by_target[&norm].len()
                    ),
                });
            }
        }
    }
}
