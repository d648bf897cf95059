//! The assembled context for a query: ranking, budget, and the reason for
//! every decision, in one report the CLI, the TUI and the agents share.

use rayon::prelude::*;
use serde::Serialize;

use crate::bank::{ArticleId, Bank};
use crate::budget::{self, BudgetOptions, Candidate, CharsOver4, TokenCounter};
use crate::scoring::{self, Matched, Query, Signals};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextEntry {
    #[serde(skip)]
    pub id: ArticleId,
    /// 1-based position in the ranking.
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextReport {
    pub query: Query,
    pub budget: usize,
    pub include_unscored: bool,
    pub used_tokens: usize,
    pub token_estimator: &'static str,
    pub articles: Vec<ContextEntry>,
}

impl ContextReport {
    pub fn included(&self) -> impl Iterator<Item = &ContextEntry> {
        self.articles.iter().filter(|e| e.included)
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
    let ranked = scoring::rank_sparse(bank, query);
    let candidates: Vec<Candidate> = ranked
        .par_iter()
        .map(|(id, score)| {
            let a = bank.article(*id);
            Candidate {
                folder: a.folder,
                score: score.as_ref().map_or(0, |s| s.total()),
                tokens: counter.count(a),
            }
        })
        .collect();
    let trim = budget::trim(&candidates, opts);
    // One entry per content article: built in parallel, as on a large bank
    // this is most of the work of a query.
    let articles = ranked
        .into_par_iter()
        .zip(candidates.par_iter().zip(trim.decisions))
        .enumerate()
        .map(|(i, ((id, score), (c, decision)))| {
            let a = bank.article(id);
            let (signals, matched) = match score {
                Some(s) => (s.signals, s.matched),
                None => Default::default(),
            };
            ContextEntry {
                id,
                rank: i + 1,
                path: a.rel_path.clone(),
                folder: a.folder.dir_name(),
                score: c.score,
                signals,
                matched,
                last_updated: a.meta.last_updated.clone(),
                tokens: c.tokens,
                included: decision.is_none(),
                drop_reason: decision.map(|d| d.describe(c)),
            }
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
/// order, under a header naming its path.
pub fn render(bank: &Bank, report: &ContextReport) -> String {
    let mut out = String::new();
    for e in report.included() {
        let a = bank.article(e.id);
        out.push_str("----- ");
        out.push_str(&e.path);
        out.push_str(" -----\n");
        out.push_str(&a.text);
        if !a.text.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
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
            .map(|e| (e.path.as_str(), e.score, e.included))
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
                .drop_reason
                .as_ref()
                .unwrap()
                .contains("over budget")
        );
    }
}
