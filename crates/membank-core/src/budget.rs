//! Token estimation and budget trimming (spec §8).

use crate::article::Article;
use crate::layout::Folder;

/// The budget used when none is given.
pub const DEFAULT_BUDGET: usize = 4000;

/// Counts the tokens an article takes in the assembled context. The spec's
/// estimate is characters / 4; a real tokenizer can be plugged in behind
/// the same trait.
pub trait TokenCounter: Sync {
    fn count(&self, article: &Article) -> usize;
    fn name(&self) -> &'static str;
    /// The count from the character count alone (see [`in_context_chars`]),
    /// when the estimator needs nothing else; lets a query skip reading
    /// every article.
    fn count_chars(&self, _chars: usize) -> Option<usize> {
        None
    }
}

/// The characters of the header line the context puts above each article
/// (`----- ` and ` -----` around its path, and a line break) and of the
/// blank line after it.
const FRAME_CHARS: usize = "----- ".len() + " -----\n".len() + "\n".len();

/// Characters an article takes in the assembled context (see
/// `context::render`): its text (`chars` of them) under a header naming
/// `path`, a line break closing a last line that has none, and the blank
/// line after it. The spec's budget is of the assembled context, so the
/// headers count: at about ten tokens an article, forty terms left out of
/// the count overran a budget by 400 tokens.
pub fn in_context_chars(path: &str, chars: usize, ends_with_newline: bool) -> usize {
    chars + path.chars().count() + FRAME_CHARS + usize::from(!ends_with_newline)
}

/// `ceil(chars / 4)` over what an article takes in the context: its text,
/// frontmatter included, and its header.
#[derive(Debug, Clone, Copy, Default)]
pub struct CharsOver4;

impl TokenCounter for CharsOver4 {
    fn count(&self, article: &Article) -> usize {
        article.context_chars().div_ceil(4)
    }
    fn name(&self) -> &'static str {
        "chars/4"
    }
    fn count_chars(&self, chars: usize) -> Option<usize> {
        Some(chars.div_ceil(4))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetOptions {
    /// 0 means unlimited.
    pub budget: usize,
    pub include_unscored: bool,
}

impl Default for BudgetOptions {
    fn default() -> Self {
        BudgetOptions {
            budget: DEFAULT_BUDGET,
            include_unscored: false,
        }
    }
}

/// One ranked article as the budget sees it.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    pub folder: Folder,
    pub score: u32,
    pub tokens: usize,
}

/// Why an article is not in the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// Score 0 and unscored articles were not asked for.
    Unscored,
    /// Dropped to fit the budget; `order` is 1 for the first one dropped.
    OverBudget {
        order: usize,
        total_before: usize,
        budget: usize,
    },
}

/// What [`DropReason::describe`] says of an unscored article.
pub const UNSCORED_REASON: &str = "score 0: not a candidate (add it with --include-unscored)";

impl DropReason {
    pub fn describe(&self, c: &Candidate) -> String {
        self.reason(c).into_owned()
    }

    /// [`DropReason::describe`], the unscored article's fixed words not
    /// copied: most rows of a large bank's table say them.
    pub fn reason(&self, c: &Candidate) -> std::borrow::Cow<'static, str> {
        match self {
            DropReason::Unscored => std::borrow::Cow::Borrowed(UNSCORED_REASON),
            DropReason::OverBudget {
                total_before,
                budget,
                ..
            } => {
                let (why, order) = if c.score == 0 {
                    ("unscored articles go before any scored one", "")
                } else {
                    let tier = match c.folder {
                        Folder::Terminology => "terminology articles are trimmed first",
                        Folder::Style => "style guides are trimmed after terminology",
                        Folder::Domains => {
                            "domain articles are trimmed after terminology and style"
                        }
                        _ => "client profiles are trimmed last",
                    };
                    (tier, ", lowest score first")
                };
                // Tokens and budget only: a drop count beside them read as a rank.
                // Put together by hand: the formatting machinery took
                // several times as long, once for each row dropped.
                let mut out = String::with_capacity(160);
                out.push_str("over budget: with it the context needed ");
                crate::json::push_uint(&mut out, *total_before as u64);
                out.push_str(" tokens, ");
                crate::json::push_uint(&mut out, *budget as u64);
                out.push_str(" allowed; ");
                out.push_str(why);
                out.push_str(order);
                std::borrow::Cow::Owned(out)
            }
        }
    }
}

/// The budget's verdict for every ranked article, in the same order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trim {
    pub decisions: Vec<Option<DropReason>>,
    pub used_tokens: usize,
}

/// Decide which ranked articles fit. `ranked` is in rank order (best first).
pub fn trim(ranked: &[Candidate], opts: BudgetOptions) -> Trim {
    let mut decisions: Vec<Option<DropReason>> = ranked
        .iter()
        .map(|c| (c.score == 0 && !opts.include_unscored).then_some(DropReason::Unscored))
        .collect();
    let mut total: usize = ranked
        .iter()
        .zip(&decisions)
        .filter(|(_, d)| d.is_none())
        .map(|(c, _)| c.tokens)
        .sum();
    if opts.budget > 0 && total > opts.budget {
        // Drop order: unscored first, then by tier, lowest score, and
        // later-ranked first. Keys are small numbers, so bucketing in rank
        // order and reading each bucket backwards sorts in linear time.
        const SCORES: usize = 8;
        let key = |c: &Candidate| {
            let scored = usize::from(c.score > 0);
            let tier = usize::from(c.folder.drop_tier());
            let score = (c.score as usize).min(SCORES - 1);
            (scored * 5 + tier) * SCORES + score
        };
        let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); 2 * 5 * SCORES];
        for (i, c) in ranked.iter().enumerate() {
            if decisions[i].is_none() {
                buckets[key(c)].push(i);
            }
        }
        let order = buckets.into_iter().flat_map(|b| b.into_iter().rev());
        for (n, i) in order.enumerate() {
            if total <= opts.budget {
                break;
            }
            decisions[i] = Some(DropReason::OverBudget {
                order: n + 1,
                total_before: total,
                budget: opts.budget,
            });
            total -= ranked[i].tokens;
        }
    }
    Trim {
        decisions,
        used_tokens: total,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn over_budget_reasons_are_the_formatted_words() {
        for folder in [
            Folder::Clients,
            Folder::Terminology,
            Folder::Domains,
            Folder::Style,
        ] {
            for score in [0, 1, 7] {
                for (total_before, budget) in [(0, 0), (9, 10), (12_345, 100), (usize::MAX, 1)] {
                    let c = Candidate {
                        folder,
                        score,
                        tokens: 3,
                    };
                    let (why, order) = if score == 0 {
                        ("unscored articles go before any scored one", "")
                    } else {
                        let tier = match folder {
                            Folder::Terminology => "terminology articles are trimmed first",
                            Folder::Style => "style guides are trimmed after terminology",
                            Folder::Domains => {
                                "domain articles are trimmed after terminology and style"
                            }
                            _ => "client profiles are trimmed last",
                        };
                        (tier, ", lowest score first")
                    };
                    let want = format!(
                        "over budget: with it the context needed {total_before} tokens, \
                         {budget} allowed; {why}{order}"
                    );
                    let d = DropReason::OverBudget {
                        order: 1,
                        total_before,
                        budget,
                    };
                    assert_eq!(d.reason(&c), want);
                    assert_eq!(d.describe(&c), want);
                }
            }
        }
    }

    use super::*;

    fn c(folder: Folder, score: u32, tokens: usize) -> Candidate {
        Candidate {
            folder,
            score,
            tokens,
        }
    }

    fn kept(t: &Trim) -> Vec<bool> {
        t.decisions.iter().map(|d| d.is_none()).collect()
    }

    #[test]
    fn unscored_are_not_candidates_by_default() {
        let r = [c(Folder::Clients, 3, 10), c(Folder::Style, 0, 10)];
        let t = trim(&r, BudgetOptions::default());
        assert_eq!(kept(&t), vec![true, false]);
        assert_eq!(t.decisions[1], Some(DropReason::Unscored));
        assert_eq!(t.used_tokens, 10);
    }

    #[test]
    fn tiers_drop_terminology_then_style_then_domains_then_clients() {
        let r = [
            c(Folder::Clients, 3, 100),
            c(Folder::Domains, 3, 100),
            c(Folder::Style, 3, 100),
            c(Folder::Terminology, 3, 100),
        ];
        for (budget, expect) in [
            (400, vec![true, true, true, true]),
            (399, vec![true, true, true, false]),
            (250, vec![true, true, false, false]),
            (150, vec![true, false, false, false]),
            (50, vec![false, false, false, false]),
        ] {
            let t = trim(
                &r,
                BudgetOptions {
                    budget,
                    include_unscored: false,
                },
            );
            assert_eq!(kept(&t), expect, "budget {budget}");
        }
    }

    #[test]
    fn lowest_score_then_later_ranked_first_within_a_tier() {
        let r = [
            c(Folder::Terminology, 4, 10),
            c(Folder::Terminology, 1, 10),
            c(Folder::Terminology, 1, 10),
        ];
        let t = trim(
            &r,
            BudgetOptions {
                budget: 20,
                include_unscored: false,
            },
        );
        assert_eq!(kept(&t), vec![true, true, false]);
        let t = trim(
            &r,
            BudgetOptions {
                budget: 10,
                include_unscored: false,
            },
        );
        assert_eq!(kept(&t), vec![true, false, false]);
    }

    #[test]
    fn reasons_are_the_words_they_were() {
        let over = DropReason::OverBudget {
            order: 1,
            total_before: 4178,
            budget: 4000,
        };
        let said = |folder, score| over.describe(&c(folder, score, 10));
        let head = "over budget: with it the context needed 4178 tokens, 4000 allowed; ";
        for (folder, score, why) in [
            (
                Folder::Terminology,
                0,
                "unscored articles go before any scored one",
            ),
            (
                Folder::Terminology,
                3,
                "terminology articles are trimmed first, lowest score first",
            ),
            (
                Folder::Style,
                1,
                "style guides are trimmed after terminology, lowest score first",
            ),
            (
                Folder::Domains,
                2,
                "domain articles are trimmed after terminology and style, lowest score first",
            ),
            (
                Folder::Clients,
                3,
                "client profiles are trimmed last, lowest score first",
            ),
        ] {
            assert_eq!(said(folder, score), format!("{head}{why}"));
            assert_eq!(over.reason(&c(folder, score, 10)), said(folder, score));
        }
        let unscored = DropReason::Unscored.reason(&c(Folder::Style, 0, 1));
        assert!(matches!(
            unscored,
            std::borrow::Cow::Borrowed(UNSCORED_REASON)
        ));
        assert_eq!(
            DropReason::Unscored.describe(&c(Folder::Style, 0, 1)),
            UNSCORED_REASON
        );
    }

    #[test]
    fn unscored_go_before_any_scored_one() {
        let r = [c(Folder::Clients, 0, 10), c(Folder::Terminology, 1, 10)];
        let t = trim(
            &r,
            BudgetOptions {
                budget: 10,
                include_unscored: true,
            },
        );
        assert_eq!(kept(&t), vec![false, true]);
    }

    #[test]
    fn zero_budget_is_unlimited_and_articles_are_never_cut() {
        let r = [c(Folder::Clients, 3, 1_000_000)];
        let t = trim(
            &r,
            BudgetOptions {
                budget: 0,
                include_unscored: false,
            },
        );
        assert_eq!(t.used_tokens, 1_000_000);
        let t = trim(
            &r,
            BudgetOptions {
                budget: 999_999,
                include_unscored: false,
            },
        );
        assert_eq!(t.used_tokens, 0);
    }
}
