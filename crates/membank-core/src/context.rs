//! The assembled context for a query: ranking, budget, and the reason for
//! every decision, in one report the CLI, the TUI and the agents share.

use serde::Serialize;

use crate::bank::{ArticleId, Bank, LoadProblem};
use crate::budget::{self, BudgetOptions, Candidate, CharsOver4, DropReason, TokenCounter};
use crate::scoring::{self, Hits, Matched, Query, Signals};

mod listed;
mod streamed;
pub use listed::{Listed, build_listed, build_listed_with};
pub use streamed::{Streamed, stream};

/// One ranked article and the budget's verdict, kept compact: a query over
/// a large bank builds one of these per article, so the words (path, matched
/// values, reasons) are produced only by [`ContextEntry::explain`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextEntry {
    pub id: ArticleId,
    /// 1-based position in the ranking.
    pub rank: usize,
    pub score: u32,
    pub hits: Hits,
    pub tokens: usize,
    pub included: bool,
    pub drop: Option<DropReason>,
}

impl ContextEntry {
    pub fn signals(&self) -> Signals {
        self.hits.signals()
    }

    pub fn path<'a>(&self, bank: &'a Bank) -> &'a str {
        &bank.article(self.id).rel_path
    }

    /// Why the article is not in the context, in words.
    pub fn drop_reason(&self, bank: &Bank) -> Option<String> {
        let c = Candidate {
            folder: bank.article(self.id).folder,
            score: self.score,
            tokens: self.tokens,
        };
        self.drop.map(|d| d.describe(&c))
    }

    /// Everything about the entry in words: the JSON contract of
    /// `membank context --json`.
    pub fn explain(&self, bank: &Bank, query: &Query) -> ExplainedEntry {
        let a = bank.article(self.id);
        ExplainedEntry {
            rank: self.rank,
            path: a.rel_path.clone(),
            folder: a.folder.dir_name(),
            score: self.score,
            signals: self.signals(),
            matched: self.hits.explain(a, query),
            last_updated: a.meta.last_updated.as_deref().map(str::to_owned),
            tokens: self.tokens,
            included: self.included,
            drop_reason: self.drop_reason(bank),
        }
    }
}

/// A listed row as [`ExplainedEntry`] has it, its text borrowed rather
/// than copied: a table written row by row needs no strings of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRef<'a> {
    pub rank: usize,
    pub path: &'a str,
    pub score: u32,
    pub signals: Signals,
    /// The values behind the client, domain and language points.
    pub matched: [Option<MatchRef<'a>>; 3],
    pub last_updated: Option<&'a str>,
    /// `last_updated` is a `YYYY-MM-DD` date: known where the row was
    /// ranked, so a table need not parse each date again.
    pub date_valid: bool,
    pub tokens: usize,
    pub included: bool,
    pub drop_reason: Option<std::borrow::Cow<'a, str>>,
}

/// A [`scoring::SignalMatch`], borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchRef<'a> {
    pub key: &'a str,
    pub value: &'a str,
    pub tag: Option<&'a str>,
    pub query: Option<&'a str>,
}

impl<'a> MatchRef<'a> {
    pub fn of(m: &'a scoring::SignalMatch) -> MatchRef<'a> {
        MatchRef {
            key: m.key,
            value: &m.value,
            tag: m.tag.as_deref(),
            query: m.query.as_deref(),
        }
    }
}

impl ExplainedEntry {
    /// The entry as a [`RowRef`].
    pub fn as_row(&self) -> RowRef<'_> {
        let m = &self.matched;
        RowRef {
            rank: self.rank,
            path: &self.path,
            score: self.score,
            signals: self.signals,
            matched: [&m.client, &m.domain, &m.language].map(|m| m.as_ref().map(MatchRef::of)),
            last_updated: self.last_updated.as_deref(),
            date_valid: self
                .last_updated
                .as_deref()
                .and_then(crate::frontmatter::parse_iso_date)
                .is_some(),
            tokens: self.tokens,
            included: self.included,
            drop_reason: self.drop_reason.as_deref().map(std::borrow::Cow::Borrowed),
        }
    }
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExplainedEntry {
    pub rank: usize,
    pub path: String,
    pub folder: &'static str,
    pub score: u32,
    pub signals: Signals,
    pub matched: Matched,
    pub last_updated: Option<String>,
    pub tokens: usize,
    pub included: bool,
    pub drop_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextReport {
    pub query: Query,
    pub budget: usize,
    pub include_unscored: bool,
    pub used_tokens: usize,
    pub token_estimator: &'static str,
    pub articles: Vec<ContextEntry>,
}

/// A report with every entry in words, as `membank context --json` prints it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExplainedReport {
    pub query: Query,
    pub budget: usize,
    pub include_unscored: bool,
    pub used_tokens: usize,
    pub token_estimator: &'static str,
    /// How many articles were ranked, listed or not.
    pub total: usize,
    /// Some ranked articles are not listed (a limit): `articles` holds
    /// the best of them and every one the budget kept.
    pub truncated: bool,
    pub articles: Vec<ExplainedEntry>,
}

impl ContextReport {
    pub fn included(&self) -> impl Iterator<Item = &ContextEntry> {
        self.articles.iter().filter(|e| e.included)
    }

    /// Articles with points that the budget left out.
    pub fn dropped_for_budget(&self) -> impl Iterator<Item = &ContextEntry> {
        self.articles
            .iter()
            .filter(|e| matches!(e.drop, Some(DropReason::OverBudget { .. })))
    }

    /// The report in words as it is written out ([`Explained::write_json`]):
    /// the same JSON as [`ContextReport::explain`], but each entry is put
    /// into words only while it is written, so a large bank's report is
    /// never held in words all at once.
    pub fn explained<'a>(&'a self, bank: &'a Bank) -> Explained<'a> {
        Explained { report: self, bank }
    }

    /// When the budget kept articles that score lower than one it dropped,
    /// a sentence saying why, naming the tiers involved: §8's tier order
    /// (a lower score in a tier trimmed later), or the fill (a lower score
    /// that fitted what was left). The rule itself is the spec's.
    pub fn tier_order_note(&self, bank: &Bank) -> Option<String> {
        let tier = |e: &ContextEntry| bank.article(e.id).folder.drop_tier();
        // The highest score dropped; of those, the tier trimmed first, so
        // that every tier named as trimmed later is so.
        let dropped = self
            .dropped_for_budget()
            .min_by_key(|e| (std::cmp::Reverse(e.score), tier(e)))?;
        let (score, dropped_tier) = (dropped.score, tier(dropped));
        let mut later_tiers: Vec<crate::layout::Folder> = Vec::new();
        let (mut later, mut put_back) = (0, 0);
        for e in self.included().filter(|e| e.score < score) {
            // A lower score in a tier trimmed no later was dropped before
            // this one: it is in only because the fill put it back.
            if e.score > 0 && tier(e) > dropped_tier {
                later += 1;
                let folder = bank.article(e.id).folder;
                if !later_tiers.contains(&folder) {
                    later_tiers.push(folder);
                }
            } else {
                put_back += 1;
            }
        }
        let mut parts = Vec::new();
        if later > 0 {
            crate::shared_sort::sort_by_key(&mut later_tiers, |f| f.drop_tier());
            let kept: Vec<&str> = later_tiers.iter().map(|&f| tier_noun(f).1).collect();
            parts.push(format!(
                "tier order: {later} kept score below a dropped score-{score} article \
                 ({} is dropped before {}, §8)",
                tier_noun(bank.article(dropped.id).folder).0,
                kept.join(" and ")
            ));
        }
        if put_back > 0 {
            parts.push(format!(
                "{put_back} kept score below a dropped score-{score} article: put back \
                 after the trim, small enough for what was left of the budget"
            ));
        }
        (!parts.is_empty()).then(|| parts.join(" · "))
    }

    pub fn explain(&self, bank: &Bank) -> ExplainedReport {
        ExplainedReport {
            query: self.query.clone(),
            budget: self.budget,
            include_unscored: self.include_unscored,
            used_tokens: self.used_tokens,
            token_estimator: self.token_estimator,
            total: self.articles.len(),
            truncated: false,
            articles: self
                .articles
                .iter()
                .map(|e| e.explain(bank, &self.query))
                .collect(),
        }
    }
}

/// A tier in words: as the subject that is dropped first, and as what is
/// kept.
fn tier_noun(folder: crate::layout::Folder) -> (&'static str, &'static str) {
    use crate::layout::Folder;
    match folder {
        Folder::Terminology => ("terminology", "terminology"),
        Folder::Style => ("a style guide", "any style guide"),
        Folder::Domains => ("a domain article", "any domain article"),
        _ => ("a client profile", "any client profile"),
    }
}

/// A report that writes out as [`ExplainedReport`] would, entry by entry.
pub struct Explained<'a> {
    report: &'a ContextReport,
    bank: &'a Bank,
}

impl Explained<'_> {
    /// Write this report as [`crate::json::write`] would, with the entries
    /// put into words and written out on all cores (a large bank's report
    /// runs to tens of megabytes).
    pub fn write_json(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        let r = self.report;
        let head = ExplainedReport {
            query: r.query.clone(),
            budget: r.budget,
            include_unscored: r.include_unscored,
            used_tokens: r.used_tokens,
            token_estimator: r.token_estimator,
            total: r.articles.len(),
            truncated: false,
            articles: Vec::new(),
        };
        crate::json::write_with_items(writer, &head, r.articles.len(), |i| {
            r.articles[i].explain(self.bank, &r.query)
        })
    }
}

/// Rank every content article and apply the budget with the spec estimator.
pub fn build(bank: &Bank, query: &Query, opts: BudgetOptions) -> ContextReport {
    build_with(bank, query, opts, &CharsOver4)
}

pub fn build_with(
    bank: &Bank,
    query: &Query,
    opts: BudgetOptions,
    counter: &dyn TokenCounter,
) -> ContextReport {
    // (article, hits, candidate) in rank order. With no query every score
    // is 0 and the tie-break order is the ranking, so the packed scoring
    // arrays are not built just to open a bank.
    let rows: Vec<(ArticleId, Hits, Candidate)> = if query.is_empty() {
        bank.content_order()
            .iter()
            .map(|&id| {
                let a = bank.article(id);
                let c = Candidate {
                    folder: a.folder,
                    score: 0,
                    tokens: counter.count(a),
                };
                (id, Hits::default(), c)
            })
            .collect()
    } else {
        let ix = bank.scoring_index();
        scoring::rank_positions(bank, query)
            .into_iter()
            .map(|(pos, hits)| {
                let pos = pos as usize;
                let id = ix.ids[pos];
                let tokens = counter
                    .count_chars(ix.chars[pos])
                    .unwrap_or_else(|| counter.count(bank.article(id)));
                let c = Candidate {
                    folder: ix.folders[pos],
                    score: hits.total(),
                    tokens,
                };
                (id, hits, c)
            })
            .collect()
    };
    let candidates: Vec<Candidate> = rows.iter().map(|r| r.2).collect();
    let trim = budget::trim(&candidates, opts);
    let articles = rows
        .into_iter()
        .zip(trim.decisions)
        .enumerate()
        .map(|(i, ((id, hits, c), drop))| ContextEntry {
            id,
            rank: i + 1,
            score: c.score,
            hits,
            tokens: c.tokens,
            included: drop.is_none(),
            drop,
        })
        .collect();
    ContextReport {
        query: query.clone(),
        budget: opts.budget,
        include_unscored: opts.include_unscored,
        used_tokens: trim.used_tokens,
        token_estimator: counter.name(),
        articles,
    }
}

/// The context text handed to a model: each included article whole, in rank
/// order, under a header naming its path. The bank must hold its articles'
/// text (see [`try_render`] for a bank loaded without it).
pub fn render(bank: &Bank, report: &ContextReport) -> String {
    let mut out = String::new();
    for e in report.included() {
        let a = bank.article(e.id);
        push_article(&mut out, &a.rel_path, &a.text);
    }
    out
}

/// [`render`] for any bank: the text of each kept article is read again
/// when the bank was loaded without it, so a command that ranks a large
/// bank holds only the few articles it prints.
pub fn try_render(bank: &Bank, report: &ContextReport) -> Result<String, LoadProblem> {
    let mut out = String::new();
    for e in report.included() {
        let text = bank.article_text(e.id)?;
        push_article(&mut out, &bank.article(e.id).rel_path, &text);
    }
    Ok(out)
}

/// One article as the context holds it: under a header naming `path`,
/// with its last line closed and a blank line after it (what
/// [`crate::budget::in_context_chars`] counts).
pub fn push_article(out: &mut String, path: &str, text: &str) {
    out.push_str("----- ");
    out.push_str(path);
    out.push_str(" -----\n");
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_json_is_the_explained_report() {
        let d = tempfile::tempdir().unwrap();
        let w = |rel: &str, s: &str| {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, s).unwrap();
        };
        w(
            "01_CLIENTS/Acme.md",
            "---\nclient: Acme\nlast_updated: 2026-01-01\n---\n# Acme\n",
        );
        w(
            "03_DOMAINS/Legal.md",
            "---\ndomain: Legal\nlanguages: en → nl\n---\nbody\n",
        );
        w("04_STYLE/House.md", "---\nscope: general\n---\nstyle\n");
        let b = Bank::load(d.path()).unwrap();
        let q = Query {
            client: Some("Acme".into()),
            domain: Some("legal".into()),
            source_lang: Some("en-US".into()),
            target_lang: None,
        };
        let r = build(&b, &q, BudgetOptions::default());
        let mut written = Vec::new();
        r.explained(&b).write_json(&mut written).unwrap();
        assert_eq!(
            String::from_utf8(written).unwrap(),
            crate::json::to_string(&r.explain(&b)).unwrap()
        );
    }
    use std::fs;

    fn bank() -> (tempfile::TempDir, Bank) {
        let d = tempfile::tempdir().unwrap();
        let w = |rel: &str, s: &str| {
            let p = d.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, s).unwrap();
        };
        w(
            "01_CLIENTS/Acme.md",
            "---\nclient: Acme\nlanguages: [\"en-US → nl-BE\"]\nlast_updated: 2026-01-01\n---\n# Acme\n",
        );
        w(
            "02_TERMINOLOGY/a.md",
            "---\nclients: [\"[[Acme]]\"]\nsource_lang: en-US\ntarget_lang: nl-BE\nlast_updated: 2026-01-02\n---\nterm a\n",
        );
        w(
            "02_TERMINOLOGY/b.md",
            "---\nclients: [\"[[Other]]\"]\nsource_lang: en-US\ntarget_lang: nl-BE\n---\nterm b\n",
        );
        w("04_STYLE/House.md", "---\nscope: general\n---\nstyle\n");
        let b = Bank::load(d.path()).unwrap();
        (d, b)
    }

    #[test]
    fn every_content_article_is_listed_in_rank_order() {
        let (_d, b) = bank();
        let q = Query {
            client: Some("acme".into()),
            source_lang: Some("en".into()),
            ..Query::default()
        };
        let r = build(&b, &q, BudgetOptions::default());
        let got: Vec<(&str, u32, bool)> = r
            .articles
            .iter()
            .map(|e| (e.path(&b), e.score, e.included))
            .collect();
        assert_eq!(
            got,
            vec![
                ("01_CLIENTS/Acme.md", 4, true),
                ("02_TERMINOLOGY/a.md", 4, true),
                ("02_TERMINOLOGY/b.md", 1, true),
                ("04_STYLE/House.md", 0, false),
            ]
        );
        assert_eq!(
            r.used_tokens,
            r.articles[..3].iter().map(|e| e.tokens).sum::<usize>()
        );
        let rendered = render(&b, &r);
        assert!(rendered.starts_with("----- 01_CLIENTS/Acme.md -----\n---\nclient: Acme"));
        assert!(!rendered.contains("House"));
    }

    /// What the budget counts of each included article is what `render`
    /// sends of it, header included, on both ways of ranking a bank.
    #[test]
    fn tokens_counted_are_the_tokens_sent() {
        let (d, _) = bank();
        // No line break at the end: the context adds one.
        fs::write(
            d.path().join("02_TERMINOLOGY/c.md"),
            "---\nclients: [Acme]\n---\nterm c, no line break",
        )
        .unwrap();
        let b = Bank::load(d.path()).unwrap();
        let q = Query {
            client: Some("Acme".into()),
            ..Query::default()
        };
        let unlimited = BudgetOptions {
            budget: 0,
            include_unscored: true,
        };
        let r = build(&b, &q, unlimited);
        let rendered = render(&b, &r);
        let pieces: Vec<&str> = rendered.split_inclusive("\n\n----- ").collect();
        let sent: Vec<usize> = pieces
            .iter()
            .enumerate()
            .map(|(i, p)| {
                // The next header's "----- " ends each piece but the last.
                let own = p.chars().count() - if i + 1 < pieces.len() { 6 } else { 0 };
                let own = own + if i > 0 { 6 } else { 0 };
                own.div_ceil(4)
            })
            .collect();
        let counted: Vec<usize> = r.included().map(|e| e.tokens).collect();
        assert_eq!(counted, sent);
        assert_eq!(r.used_tokens, sent.iter().sum::<usize>());

        let streamed = streamed::stream(d.path(), &q, unlimited, 0).unwrap();
        let counted: Vec<usize> = (0..streamed.len())
            .map(|i| streamed.row(i))
            .filter(|row| row.included)
            .map(|row| row.tokens)
            .collect();
        assert_eq!(counted, sent);
        assert_eq!(streamed.render().unwrap(), rendered);
    }

    /// An article whose text fits what is left of the budget but whose
    /// header does not is left out: the budget is of what is sent.
    #[test]
    fn the_header_is_within_the_budget() {
        let (_d, b) = bank();
        let q = Query {
            client: Some("Acme".into()),
            ..Query::default()
        };
        let acme = build(&b, &q, BudgetOptions::default()).articles[0];
        let text_only = b.article(acme.id).chars().div_ceil(4);
        assert!(acme.tokens > text_only + 5, "{} {}", acme.tokens, text_only);
        let r = build(
            &b,
            &q,
            BudgetOptions {
                budget: text_only,
                include_unscored: false,
            },
        );
        assert!(r.used_tokens <= text_only);
        assert!(!r.articles[0].included);
    }

    #[test]
    fn budget_drops_are_explained() {
        let (_d, b) = bank();
        let q = Query {
            client: Some("Acme".into()),
            ..Query::default()
        };
        let acme_tokens = build(&b, &q, BudgetOptions::default()).articles[0].tokens;
        let r = build(
            &b,
            &q,
            BudgetOptions {
                budget: acme_tokens,
                include_unscored: false,
            },
        );
        assert!(r.articles[0].included);
        assert!(!r.articles[1].included);
        assert!(
            r.articles[1]
                .drop_reason(&b)
                .unwrap()
                .contains("over budget")
        );
    }

    #[test]
    fn a_kept_lower_score_than_a_dropped_one_is_noted() {
        let (_d, b) = bank();
        let q = Query {
            client: Some("Acme".into()),
            source_lang: Some("en".into()),
            ..Query::default()
        };
        let all = build(&b, &q, BudgetOptions::default());
        assert_eq!(all.tier_order_note(&b), None);
        // Only the profile fits: everything dropped scores lower or the
        // same, so there is nothing to note.
        let profile = all.articles[0].tokens;
        let r = build(
            &b,
            &q,
            BudgetOptions {
                budget: profile,
                include_unscored: false,
            },
        );
        assert!(r.articles[0].included);
        assert_eq!(r.tier_order_note(&b), None, "nothing lower was kept");
        // A score-1 term kept while a score-4 term was dropped: the same
        // tier, so only the fill can have kept it.
        let mut kept_lower = r.clone();
        kept_lower.articles[1].included = false;
        kept_lower.articles[1].drop = Some(DropReason::OverBudget {
            with_it: 10,
            budget: 5,
        });
        kept_lower.articles[2].included = true;
        kept_lower.articles[2].drop = None;
        let note = kept_lower.tier_order_note(&b).unwrap();
        assert_eq!(
            note,
            "1 kept score below a dropped score-4 article: put back after the trim, small \
             enough for what was left of the budget"
        );
    }

    /// The note names the tiers that were involved, not always
    /// terminology and client profiles.
    #[test]
    fn the_tier_order_note_names_the_tiers_involved() {
        let d = tempfile::tempdir().unwrap();
        let w = |rel: &str, s: &str| {
            let p = d.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, s).unwrap();
        };
        w(
            "04_STYLE/House.md",
            &format!("---\nclient: Acme\n---\n{}\n", "y".repeat(400)),
        );
        w("03_DOMAINS/Legal.md", "---\ndomain: Legal\n---\nlegal\n");
        let b = Bank::load(d.path()).unwrap();
        let q = Query {
            client: Some("Acme".into()),
            domain: Some("Legal".into()),
            ..Query::default()
        };
        let all = build(&b, &q, BudgetOptions::default());
        let legal = all.articles.iter().find(|e| e.score == 2).unwrap().tokens;
        let r = build(
            &b,
            &q,
            BudgetOptions {
                budget: legal,
                include_unscored: false,
            },
        );
        assert_eq!(
            r.tier_order_note(&b).unwrap(),
            "tier order: 1 kept score below a dropped score-3 article (a style guide is \
             dropped before any domain article, §8)"
        );
    }

    #[test]
    fn a_reload_is_seen_by_the_next_query() {
        let (d, mut b) = bank();
        let q = Query {
            client: Some("Other".into()),
            ..Query::default()
        };
        let before = build(&b, &q, BudgetOptions::default());
        assert_eq!(before.articles[0].path(&b), "02_TERMINOLOGY/b.md");
        std::fs::write(
            d.path().join("04_STYLE/House.md"),
            "---\nscope: client\nclient: Other\nlast_updated: 2026-12-01\n---\n",
        )
        .unwrap();
        b.reload(&["04_STYLE/House.md".into()]);
        let after = build(&b, &q, BudgetOptions::default());
        let top: Vec<(&str, u32)> = after
            .articles
            .iter()
            .take(2)
            .map(|e| (e.path(&b), e.score))
            .collect();
        assert_eq!(
            top,
            vec![("02_TERMINOLOGY/b.md", 3), ("04_STYLE/House.md", 3)]
        );
    }
}
