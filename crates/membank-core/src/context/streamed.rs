//! The context for one query, as a command that answers once builds it:
//! each article is scored on the thread that read it and dropped there,
//! and only what the ranking, the budget and the report need is kept (its
//! path, date, size, the signals it earned and the values that earned
//! them). The loaded bank is never held: at 100,000 articles that is most
//! of the memory a `context` command used, and the scoring arrays built
//! over it were one core's work.
//!
//! The rows, their order, the budget's verdicts and every word of the
//! report are those of [`super::build_listed`] on the loaded bank (a test
//! compares them on generated banks).

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use jiff::civil::Date;
use rayon::prelude::*;

use super::{ExplainedEntry, ExplainedReport, MatchRef, RowRef};
use crate::article::{self, Article};
use crate::bank::{Bank, BankError, LoadOptions, LoadProblem};
use crate::budget::{self, BudgetOptions, Candidate, CharsOver4, DropReason, TokenCounter};
use crate::frontmatter::{self, Block};
use crate::layout::Folder;
use crate::scoring::{self, Hits, Matched, Prepared, Query, SignalMatch, Signals};
use crate::suggest::UnknownValue;
use crate::text::Decoded;
use crate::vocabulary::{Kinds, Seen};

/// A ranked, budgeted report built while the bank was read.
pub struct Streamed {
    /// The bank as read, holding no articles: its reader reads the kept
    /// articles again for the assembled context.
    bank: Bank,
    /// The listed rows in rank order.
    rows: Vec<Row>,
    pub query: Query,
    pub budget: usize,
    pub include_unscored: bool,
    pub used_tokens: usize,
    pub token_estimator: &'static str,
    /// How many articles were ranked, listed or not.
    pub ranked: usize,
    /// The points each signal earned in at least one article (see
    /// [`super::Listed::earned`]).
    pub earned: Signals,
    /// When some asked-for signal earned no article a point, the query's
    /// values no content article carries, each with the closest values the
    /// bank uses (as [`crate::suggest::unknown_values`] finds them on the
    /// loaded bank); otherwise empty.
    pub unknown_values: Vec<UnknownValue>,
}

/// What is kept of one content article.
#[cfg_attr(test, derive(Debug, PartialEq))]
struct Row {
    rel_path: String,
    /// Where the file name starts in `rel_path`.
    name_at: usize,
    folder: Folder,
    date: Option<Date>,
    last_updated: Option<Arc<str>>,
    chars: usize,
    /// See [`Article::ends_with_newline`].
    ends_with_newline: bool,
    hits: Hits,
    /// Only for an article that earned a point.
    matched: Option<Box<MatchedValues>>,
    rank: usize,
    drop: Option<DropReason>,
}

/// A frontmatter key and its value as written.
type Written = (&'static str, Arc<str>);

/// The values behind an article's points, shared with the loaded strings
/// rather than copied.
#[cfg_attr(test, derive(Debug, PartialEq))]
struct MatchedValues {
    client: Option<Written>,
    domain: Option<Written>,
    /// The language value, and the code inside it that matched.
    language: Option<(Written, Option<Arc<str>>)>,
}

impl MatchedValues {
    /// As [`Hits::explain`] finds them.
    fn of(a: &Article, hits: &Hits) -> MatchedValues {
        let keyed = |values: &[crate::article::KeyedValue], i: Option<u16>| {
            let v = values.get(usize::from(i?))?;
            Some((v.key, v.raw.clone()))
        };
        let language = hits.language.and_then(|(vi, ti, _)| {
            let lv = a.meta.languages.get(usize::from(vi))?;
            let tag = lv.tags.get(usize::from(ti)).cloned();
            Some(((lv.key, lv.raw.clone()), tag))
        });
        MatchedValues {
            client: keyed(&a.meta.clients, hits.client),
            domain: keyed(&a.meta.domains, hits.domain),
            language,
        }
    }

    fn explain(&self, hits: &Hits, query: &Query) -> Matched {
        let keyed = |v: &Option<Written>| {
            v.as_ref().map(|(key, raw)| SignalMatch {
                key,
                value: raw.to_string(),
                tag: None,
                query: None,
            })
        };
        let side = hits.language.map(|(_, _, side)| side);
        Matched {
            client: keyed(&self.client),
            domain: keyed(&self.domain),
            language: self.language.as_ref().map(|((key, raw), tag)| SignalMatch {
                key,
                value: raw.to_string(),
                tag: tag.as_deref().map(str::to_owned),
                query: side.and_then(|s| query.lang(s)).map(str::to_owned),
            }),
        }
    }
}

impl Row {
    fn file_name(&self) -> &str {
        &self.rel_path[self.name_at..]
    }

    fn tokens(&self) -> usize {
        budget::in_context_chars(&self.rel_path, self.chars, self.ends_with_newline).div_ceil(4)
    }

    fn candidate(&self) -> Candidate {
        Candidate {
            folder: self.folder,
            score: self.hits.total(),
            tokens: self.tokens(),
        }
    }

    /// Rank order: score, then the §7 tie-break.
    #[cfg(test)]
    fn rank_order(&self, other: &Row) -> std::cmp::Ordering {
        other
            .hits
            .total()
            .cmp(&self.hits.total())
            .then_with(|| self.tie_keys().cmp(&other.tie_keys()))
    }

    #[cfg(test)]
    fn tie_keys(&self) -> crate::scoring::TieKeys<'_> {
        crate::scoring::TieKeys {
            folder: self.folder,
            date: self.date,
            file_name: self.file_name(),
            rel_path: &self.rel_path,
        }
    }

    /// The rank order's first keys in one number, smaller first: the score
    /// (highest first), the folder, then the date (latest first, none
    /// last). Rows equal in it go by file name, then by path.
    fn rank_key(&self) -> u64 {
        let score = u64::from(u32::MAX - self.hits.total());
        let date = match self.date {
            Some(d) => DATE_KEYS - 1 - day_number(d),
            None => DATE_KEYS,
        };
        (score << 32) | ((self.folder as u64) << 28) | date
    }
}

/// More than any [`day_number`]: the dates' part of a rank key.
const DATE_KEYS: u64 = 1 << 24;

/// A date as a number in the dates' order: years -9999 to 9999 take 15
/// bits above the month's 4 and the day's 5.
fn day_number(d: Date) -> u64 {
    let year = u64::try_from(i32::from(d.year()) + 10_000).unwrap_or(0);
    let month = u64::try_from(d.month()).unwrap_or(0);
    let day = u64::try_from(d.day()).unwrap_or(0);
    (year << 9) | (month << 5) | day
}

/// Rows up to which [`rank_sort`] sorts keys and places: 24 bytes a row
/// on top of the rows, which at 100,000 rows would raise the command's
/// peak by about 2.4 MB.
const KEYED_SORT_MOST: usize = 16_384;

/// Put the rows in rank order.
fn rank_sort(rows: &mut [Row]) {
    rank_sort_with(rows, KEYED_SORT_MOST);
}

/// [`rank_sort`], sorting keys and places for at most `keyed_most` rows.
/// Their keys and places are sorted, not the rows: a comparison is then
/// mostly two numbers', and the sort moves 24 bytes rather than a whole
/// row; the rows are then moved to their places once. More rows are
/// sorted where they are, with no memory beside them.
fn rank_sort_with(rows: &mut [Row], keyed_most: usize) {
    let n = match u32::try_from(rows.len()) {
        Ok(n) if rows.len() <= keyed_most => n,
        _ => {
            // Many rows: worth the pool. One sort of each kind is kept in
            // the binary, not a pool's and a thread's of both.
            rows.par_sort_unstable_by(|a, b| rank_cmp(a, b, a.rank_key(), b.rank_key()));
            return;
        }
    };
    // Rows equal in the key (most unscored rows of a folder, often of one
    // date) are told apart by name: the name's first bytes in the key
    // settle most of them without reaching the rows' text.
    let mut order: Vec<(u64, u64, u32)> = rows
        .iter()
        .zip(0..n)
        .map(|(r, i)| (r.rank_key(), name_prefix(r.file_name()), i))
        .collect();
    let by = |a: &(u64, u64, u32), b: &(u64, u64, u32)| {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then_with(|| rank_cmp(&rows[a.2 as usize], &rows[b.2 as usize], a.0, b.0))
    };
    // At most `KEYED_SORT_MOST` keys: on this thread.
    order.sort_unstable_by(by);
    // Place `k` takes the row at `order[k].2`: each cycle of places is
    // followed once, and a place done points at itself.
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at].2 as usize;
            order[at].2 = at as u32;
            if from == start || from == at {
                break;
            }
            rows.swap(at, from);
            at = from;
        }
    }
}

/// A name's first eight bytes as a number, the missing ones zero: of two
/// names whose numbers differ, the smaller number's name sorts first by
/// its bytes (a name that ends sooner is a prefix of the other there, or
/// smaller at the first byte that differs); equal numbers say nothing.
fn name_prefix(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut first = [0u8; 8];
    let n = bytes.len().min(8);
    first[..n].copy_from_slice(&bytes[..n]);
    u64::from_be_bytes(first)
}

/// The rank order of two rows with their keys.
fn rank_cmp(a: &Row, b: &Row, a_key: u64, b_key: u64) -> std::cmp::Ordering {
    a_key
        .cmp(&b_key)
        .then_with(|| a.file_name().cmp(b.file_name()))
        .then_with(|| a.rel_path.cmp(&b.rel_path))
}

/// Read the bank at `root` and build the report for `query` with the spec
/// estimator, listing the best `limit` articles in rank order and every
/// one the budget kept (0: every article), as [`super::build_listed`] does
/// on a loaded bank.
pub fn stream(
    root: &Path,
    query: &Query,
    opts: BudgetOptions,
    limit: usize,
) -> Result<Streamed, BankError> {
    let prepared = query.prepare();
    let values = ValuesSeen::new(query);
    let keep = |a: Article| -> Option<Row> {
        if !a.folder.is_content() {
            return None;
        }
        let hits = scoring::hits_prepared(&a, &prepared);
        values.add(&a, &hits);
        Some(article_row(a, hits))
    };
    // Each article is dropped once ranked: shared copies save nothing.
    let options = LoadOptions {
        share: false,
        ..LoadOptions::CONTEXT
    };
    let rank = |rel: String, folder: Folder, decoded: Decoded<Cow<'_, str>>| -> Option<Row> {
        if !folder.is_content() {
            return None;
        }
        // While some asked-for value is still to be told (see
        // `ValuesSeen`), every value is noted from the article.
        if values.all_earned()
            && let Some(row) = ranked_row(&rel, folder, &decoded.text, &prepared)
        {
            return Some(Row {
                rel_path: rel,
                ..row
            });
        }
        keep(Article::parse_with(rel, folder, decoded, &options))
    };
    let (bank, mut rows) =
        Bank::load_ranked(root, crate::safe_read::user_policy(), options, &rank)?;
    rank_sort(&mut rows);
    let candidates: Vec<Candidate> = rows.iter().map(Row::candidate).collect();
    let trim = budget::trim(&candidates, opts);
    drop(candidates);
    let mut earned = Signals::default();
    for (i, (row, drop)) in rows.iter_mut().zip(trim.decisions).enumerate() {
        row.rank = i + 1;
        row.drop = drop;
        let s = row.hits.signals();
        earned.client = earned.client.max(s.client);
        earned.domain = earned.domain.max(s.domain);
        earned.language = earned.language.max(s.language);
    }
    let ranked = rows.len();
    if limit > 0 {
        rows.retain(|r| r.rank <= limit || r.drop.is_none());
    }
    let unknown_values = values.unknown(query, earned);
    Ok(Streamed {
        bank,
        rows,
        query: query.clone(),
        budget: opts.budget,
        include_unscored: opts.include_unscored,
        used_tokens: trim.used_tokens,
        token_estimator: CharsOver4.name(),
        ranked,
        earned,
        unknown_values,
    })
}

/// The row of a content article read whole, with its hits.
fn article_row(a: Article, hits: Hits) -> Row {
    let matched = (hits.total() > 0).then(|| Box::new(MatchedValues::of(&a, &hits)));
    let name_at = a.rel_path.len() - a.file_name().len();
    Row {
        name_at,
        folder: a.folder,
        date: a.meta.last_updated_date,
        chars: a.chars(),
        ends_with_newline: a.ends_with_newline(),
        last_updated: a.meta.last_updated,
        hits,
        matched,
        rank: 0,
        drop: None,
        rel_path: a.rel_path,
    }
}

thread_local! {
    /// Room for a value's folded form, on each reading thread.
    static FOLDING: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The row of a content article ranked from its frontmatter's values
/// where they are written, with no [`Article`] built: the same row as the
/// article's (its path left empty, for the caller to fill), or `None` when
/// the block is not of the common shape and the article is read whole.
fn ranked_row(rel: &str, folder: Folder, text: &str, prepared: &Prepared) -> Option<Row> {
    let located = frontmatter::locate_cow(Cow::Borrowed(text));
    let Block::Present(range) = &located.block else {
        return None;
    };
    let yaml = located.text.get(range.clone())?;
    let (hits, matched, last_updated) = article::ranked::with_ranked_values(yaml, |v| {
        let (hits, [client, domain], language) =
            FOLDING.with_borrow_mut(|folding| scoring::hits_ranked(v, prepared, folding));
        let written =
            |e: Option<(&'static str, Cow<'_, str>)>| e.map(|(k, raw)| (k, Arc::from(&*raw)));
        let matched = (hits.total() > 0).then(|| {
            Box::new(MatchedValues {
                client: written(client),
                domain: written(domain),
                language: language
                    .map(|((k, raw), tag)| ((k, Arc::from(&*raw)), Some(Arc::from(tag)))),
            })
        });
        (
            hits,
            matched,
            v.first("last_updated").map(|d| Arc::<str>::from(&*d)),
        )
    })?;
    Some(Row {
        rel_path: String::new(),
        // As `Article::file_name`: after the last `/`.
        name_at: memchr::memrchr(b'/', rel.as_bytes()).map_or(0, |i| i + 1),
        folder,
        date: last_updated
            .as_deref()
            .and_then(frontmatter::parse_iso_date),
        last_updated,
        chars: located.text.chars().count(),
        ends_with_newline: located.text.ends_with('\n'),
        hits,
        matched,
        rank: 0,
        drop: None,
    })
}

/// The values of the content articles as the read meets them, kept only
/// for the kinds the query asks for and only until each of those has
/// earned an article a point: a value that matches nothing is then told
/// with the closest values the bank uses, without reading it again.
struct ValuesSeen {
    seen: Seen,
    /// Each kept kind, once some article earned its points.
    client_earned: AtomicBool,
    domain_earned: AtomicBool,
    language_earned: AtomicBool,
}

impl ValuesSeen {
    fn new(query: &Query) -> ValuesSeen {
        let kinds = Kinds {
            clients: query.client.is_some(),
            domains: query.domain.is_some(),
            languages: query.source_lang.is_some() || query.target_lang.is_some(),
        };
        // A kind not asked for needs no values: taken as earned.
        ValuesSeen {
            seen: Seen::new(kinds),
            client_earned: AtomicBool::new(!kinds.clients),
            domain_earned: AtomicBool::new(!kinds.domains),
            language_earned: AtomicBool::new(!kinds.languages),
        }
    }

    fn all_earned(&self) -> bool {
        self.client_earned.load(Ordering::Relaxed)
            && self.domain_earned.load(Ordering::Relaxed)
            && self.language_earned.load(Ordering::Relaxed)
    }

    /// Note a content article and the signals it earned.
    fn add(&self, a: &Article, hits: &Hits) {
        // Once every asked-for signal earned a point somewhere, no value
        // is unknown and nothing more is counted.
        if self.all_earned() {
            return;
        }
        self.seen.add(&a.meta);
        for (earned, flag) in [
            (hits.client.is_some(), &self.client_earned),
            (hits.domain.is_some(), &self.domain_earned),
            (hits.language.is_some(), &self.language_earned),
        ] {
            // Read before written, so the threads do not keep taking the
            // flag's line from each other.
            if earned && !flag.load(Ordering::Relaxed) {
                flag.store(true, Ordering::Relaxed);
            }
        }
    }

    /// The unknown values, when an asked-for signal earned nothing.
    fn unknown(self, query: &Query, earned: Signals) -> Vec<UnknownValue> {
        let unmatched = (query.client.is_some() && earned.client == 0)
            || (query.domain.is_some() && earned.domain == 0)
            || ((query.source_lang.is_some() || query.target_lang.is_some())
                && earned.language == 0);
        if !unmatched {
            return Vec::new();
        }
        crate::suggest::unknown_values(&self.seen.finish(), query)
    }
}

impl Streamed {
    /// The bank as read (root, reader, problems), without its articles.
    pub fn bank(&self) -> &Bank {
        &self.bank
    }

    /// Rows listed.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Listed rows the budget kept.
    pub fn kept(&self) -> usize {
        self.rows.iter().filter(|r| r.drop.is_none()).count()
    }

    /// Listed row `i` in words, as [`super::ContextEntry::explain`] puts it.
    pub fn explain(&self, i: usize) -> ExplainedEntry {
        let r = &self.rows[i];
        let c = r.candidate();
        ExplainedEntry {
            rank: r.rank,
            path: r.rel_path.clone(),
            folder: r.folder.dir_name(),
            score: c.score,
            signals: r.hits.signals(),
            matched: r
                .matched
                .as_ref()
                .map(|m| m.explain(&r.hits, &self.query))
                .unwrap_or_default(),
            last_updated: r.last_updated.as_deref().map(str::to_owned),
            tokens: c.tokens,
            included: r.drop.is_none(),
            drop_reason: r.drop.map(|d| d.describe(&c)),
        }
    }

    /// Listed row `i` as [`Streamed::explain`] puts it, its text borrowed.
    pub fn row(&self, i: usize) -> RowRef<'_> {
        let r = &self.rows[i];
        let c = r.candidate();
        let m = r.matched.as_deref();
        fn keyed(v: Option<&Written>) -> Option<MatchRef<'_>> {
            v.map(|(key, raw)| MatchRef {
                key,
                value: raw,
                tag: None,
                query: None,
            })
        }
        let side = r.hits.language.map(|(_, _, side)| side);
        let language = m
            .and_then(|m| m.language.as_ref())
            .map(|((key, raw), tag)| MatchRef {
                key,
                value: raw,
                tag: tag.as_deref(),
                query: side.and_then(|s| self.query.lang(s)),
            });
        RowRef {
            rank: r.rank,
            path: &r.rel_path,
            score: c.score,
            signals: r.hits.signals(),
            matched: [
                keyed(m.and_then(|m| m.client.as_ref())),
                keyed(m.and_then(|m| m.domain.as_ref())),
                language,
            ],
            last_updated: r.last_updated.as_deref(),
            // The date is parsed from `last_updated` when read.
            date_valid: r.date.is_some(),
            tokens: c.tokens,
            included: r.drop.is_none(),
            drop_reason: r.drop.map(|d| d.reason(&c)),
        }
    }

    /// The report as `membank context --json` writes it, entry by entry.
    pub fn write_json(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        let head = ExplainedReport {
            query: self.query.clone(),
            budget: self.budget,
            include_unscored: self.include_unscored,
            used_tokens: self.used_tokens,
            token_estimator: self.token_estimator,
            total: self.ranked,
            truncated: self.ranked > self.rows.len(),
            articles: Vec::new(),
        };
        // Each row is written by hand, on the thread that writes its block:
        // building each [`ExplainedEntry`] and serializing it cost more than
        // the rest of writing 100,000 rows. The bytes are the serializer's
        // (tests compare them).
        crate::json::write_with_raw_items(writer, &head, self.rows.len(), |i, out| {
            self.push_json(i, out);
            Ok(())
        })
    }

    /// Listed row `i` as `--json` writes [`Streamed::explain`] of it, as
    /// an item of the report's array.
    fn push_json(&self, i: usize, out: &mut String) {
        use crate::json::{push_string, push_uint};
        let r = &self.rows[i];
        let c = r.candidate();
        let signals = r.hits.signals();
        out.push_str("{\n      \"rank\": ");
        push_uint(out, r.rank as u64);
        out.push_str(",\n      \"path\": ");
        push_string(out, &r.rel_path);
        out.push_str(",\n      \"folder\": ");
        push_string(out, r.folder.dir_name());
        out.push_str(",\n      \"score\": ");
        push_uint(out, u64::from(c.score));
        out.push_str(",\n      \"signals\": {\n        \"client\": ");
        push_uint(out, u64::from(signals.client));
        out.push_str(",\n        \"domain\": ");
        push_uint(out, u64::from(signals.domain));
        out.push_str(",\n        \"language\": ");
        push_uint(out, u64::from(signals.language));
        out.push_str("\n      },\n      \"matched\": {\n        \"client\": ");
        let m = r.matched.as_deref();
        push_match(out, m.and_then(|m| as_match(m.client.as_ref())));
        out.push_str(",\n        \"domain\": ");
        push_match(out, m.and_then(|m| as_match(m.domain.as_ref())));
        out.push_str(",\n        \"language\": ");
        let side = r.hits.language.map(|(_, _, side)| side);
        let language = m
            .and_then(|m| m.language.as_ref())
            .map(|((key, raw), tag)| {
                let query = side.and_then(|s| self.query.lang(s));
                (*key, &**raw, tag.as_deref(), query)
            });
        push_match(out, language);
        out.push_str("\n      },\n      \"last_updated\": ");
        match r.last_updated.as_deref() {
            Some(date) => push_string(out, date),
            None => out.push_str("null"),
        }
        out.push_str(",\n      \"tokens\": ");
        push_uint(out, c.tokens as u64);
        out.push_str(",\n      \"included\": ");
        out.push_str(if r.drop.is_none() { "true" } else { "false" });
        out.push_str(",\n      \"drop_reason\": ");
        match r.drop {
            None => out.push_str("null"),
            // Most rows of a large bank: no words to put together.
            Some(DropReason::Unscored) => push_string(out, budget::UNSCORED_REASON),
            Some(d) => push_string(out, &d.describe(&c)),
        }
        out.push_str("\n    }");
    }

    /// The context text ([`super::render`]): each kept article read again
    /// through the bank's reader, an error naming a file that changed since
    /// it was read.
    pub fn render(&self) -> Result<String, LoadProblem> {
        let mut out = String::new();
        for r in self.rows.iter().filter(|r| r.drop.is_none()) {
            let text = crate::bank::read_text_again(self.bank.reader(), &r.rel_path, r.chars)?;
            super::push_article(&mut out, &r.rel_path, &text);
        }
        Ok(out)
    }
}

/// A client or domain match as [`push_match`] takes it: no language codes.
fn as_match(v: Option<&Written>) -> Option<MatchFields<'_>> {
    v.map(|(key, raw)| (*key, &**raw, None, None))
}

/// A match's key, value as written, and for a language the code inside
/// the value and the active code it matched.
type MatchFields<'a> = (&'a str, &'a str, Option<&'a str>, Option<&'a str>);

/// A [`SignalMatch`] as `--json` writes it inside an item, or `null`.
fn push_match(out: &mut String, m: Option<MatchFields<'_>>) {
    use crate::json::push_string;
    let Some((key, value, tag, query)) = m else {
        out.push_str("null");
        return;
    };
    out.push_str("{\n          \"key\": ");
    push_string(out, key);
    out.push_str(",\n          \"value\": ");
    push_string(out, value);
    if let Some(tag) = tag {
        out.push_str(",\n          \"tag\": ");
        push_string(out, tag);
    }
    if let Some(query) = query {
        out.push_str(",\n          \"query\": ");
        push_string(out, query);
    }
    out.push_str("\n        }");
}

#[cfg(test)]
mod tests;
