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
    /// Left out to fit the budget: with it, the final context would take
    /// `with_it` tokens, more than `budget`.
    OverBudget { with_it: usize, budget: usize },
}

/// What an unscored article is left out for, naming the option `$option`
/// that adds it: one text for each reader (see [`unscored_reason`]).
macro_rules! unscored_reason {
    ($option:literal) => {
        concat!("score 0: not a candidate (add it with ", $option, ")")
    };
}

/// What [`DropReason::describe`] says of an unscored article.
pub const UNSCORED_REASON: &str = unscored_reason!("--include-unscored");

/// [`UNSCORED_REASON`] as `surface` names the option: an MCP tool's
/// argument is `include_unscored` (the JSON reports keep the command's
/// words, as each tool's JSON is the command's).
pub fn unscored_reason(surface: crate::surface::Surface) -> &'static str {
    match surface {
        crate::surface::Surface::CommandLine => UNSCORED_REASON,
        crate::surface::Surface::Tool => unscored_reason!("`include_unscored`"),
    }
}

impl DropReason {
    pub fn describe(&self, c: &Candidate) -> String {
        self.reason(c).into_owned()
    }

    /// [`DropReason::describe`], the unscored article's fixed words not
    /// copied: most rows of a large bank's table say them.
    pub fn reason(&self, c: &Candidate) -> std::borrow::Cow<'static, str> {
        match self {
            DropReason::Unscored => std::borrow::Cow::Borrowed(UNSCORED_REASON),
            DropReason::OverBudget { with_it, budget } => {
                // Put together by hand: the formatting machinery took
                // several times as long, once for each row dropped.
                let mut out = String::with_capacity(160);
                if c.tokens > *budget {
                    // No tier order or fill could have kept it: say so,
                    // not how the tiers go.
                    out.push_str("over budget: it alone needs ");
                    crate::json::push_uint(&mut out, c.tokens as u64);
                    out.push_str(" tokens, more than the whole budget of ");
                    crate::json::push_uint(&mut out, *budget as u64);
                    return std::borrow::Cow::Owned(out);
                }
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
                // The final context's total with this article added: true
                // of the context as sent, whatever was dropped or put back.
                out.push_str("over budget: with it the context would need ");
                crate::json::push_uint(&mut out, *with_it as u64);
                out.push_str(" of ");
                crate::json::push_uint(&mut out, *budget as u64);
                out.push_str(" tokens; ");
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
///
/// Two passes (§8): the trim drops articles in the spec's order until the
/// rest fits; the fill then goes back over the dropped ones, most
/// important first (the reverse of the drop order), and puts back each one
/// that still fits in what is left. Without the fill a small article
/// dropped early stayed out after a large one had to go too, and a client
/// profile larger than the whole budget took everything else with it.
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
        let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); DROP_KEYS];
        for (i, c) in ranked.iter().enumerate() {
            if decisions[i].is_none() {
                buckets[drop_key(c.folder.drop_tier(), c.score)].push(i);
            }
        }
        let order = buckets.into_iter().flat_map(|b| b.into_iter().rev());
        let mut dropped = Vec::new();
        for i in order {
            if total <= opts.budget {
                break;
            }
            dropped.push(i);
            total -= ranked[i].tokens;
        }
        // The fill: once over the dropped articles, last dropped first.
        let mut left_out = Vec::with_capacity(dropped.len());
        for &i in dropped.iter().rev() {
            if ranked[i].tokens <= opts.budget - total {
                total += ranked[i].tokens;
            } else {
                left_out.push(i);
            }
        }
        // Only now is the final total known: each reason names it.
        let dropped = left_out;
        for &i in &dropped {
            decisions[i] = Some(DropReason::OverBudget {
                with_it: total + ranked[i].tokens,
                budget: opts.budget,
            });
        }
    }
    Trim {
        decisions,
        used_tokens: total,
    }
}

/// Scores at or above this share the last drop key (scores run 0-6).
const SCORE_KEYS: usize = 8;
/// Drop tiers run 0-4 ([`Folder::drop_tier`]).
const TIER_KEYS: usize = 5;
const DROP_KEYS: usize = 2 * TIER_KEYS * SCORE_KEYS;

/// Where an article comes in §8's drop order, smaller first: unscored
/// before scored, then by tier, then by score.
pub fn drop_key(tier: u8, score: u32) -> usize {
    let scored = usize::from(score > 0);
    let tier = usize::from(tier).min(TIER_KEYS - 1);
    let score = (score as usize).min(SCORE_KEYS - 1);
    (scored * TIER_KEYS + tier) * SCORE_KEYS + score
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
                for (with_it, budget) in [(4, 3), (9, 8), (12_345, 100), (usize::MAX, 3)] {
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
                        "over budget: with it the context would need {with_it} of {budget} \
                         tokens; {why}{order}"
                    );
                    let d = DropReason::OverBudget { with_it, budget };
                    assert_eq!(d.reason(&c), want);
                    assert_eq!(d.describe(&c), want);
                    // Larger than the whole budget: that alone is the reason.
                    let big = Candidate {
                        tokens: budget + 1,
                        ..c
                    };
                    assert_eq!(
                        d.describe(&big),
                        format!(
                            "over budget: it alone needs {} tokens, more than the whole \
                             budget of {budget}",
                            budget + 1
                        )
                    );
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
            with_it: 4178,
            budget: 4000,
        };
        let said = |folder, score| over.describe(&c(folder, score, 10));
        let head = "over budget: with it the context would need 4178 of 4000 tokens; ";
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

    /// A small unscored article dropped first is put back once a larger
    /// scored one has had to go: the budget is not left unused.
    #[test]
    fn a_dropped_article_that_fits_what_is_left_is_put_back() {
        let r = [
            c(Folder::Terminology, 1, 223),
            c(Folder::Terminology, 0, 25),
        ];
        let t = trim(
            &r,
            BudgetOptions {
                budget: 100,
                include_unscored: true,
            },
        );
        assert_eq!(kept(&t), vec![false, true]);
        assert_eq!(t.used_tokens, 25);
        assert_eq!(
            t.decisions[0],
            Some(DropReason::OverBudget {
                with_it: 248,
                budget: 100
            })
        );
    }

    /// A client profile larger than the whole budget is left out alone:
    /// the terms and domain it took with it are put back.
    #[test]
    fn a_profile_larger_than_the_budget_does_not_empty_the_context() {
        let r = [
            c(Folder::Clients, 3, 5029),
            c(Folder::Terminology, 3, 46),
            c(Folder::Terminology, 3, 46),
            c(Folder::Domains, 3, 28),
        ];
        let t = trim(&r, BudgetOptions::default());
        assert_eq!(kept(&t), vec![false, true, true, true]);
        assert_eq!(t.used_tokens, 120);
        let reason = t.decisions[0].unwrap().describe(&r[0]);
        assert_eq!(
            reason,
            "over budget: it alone needs 5029 tokens, more than the whole budget of 4000"
        );
    }

    /// The fill goes most important first: of two that each fit what is
    /// left but not together, the one dropped last is put back.
    #[test]
    fn the_fill_puts_back_the_most_important_first() {
        let r = [
            c(Folder::Clients, 3, 100),
            c(Folder::Domains, 3, 60),
            c(Folder::Terminology, 3, 30),
            c(Folder::Style, 3, 30),
        ];
        // Trim: terminology, style, then the domain go (220 to 100), 50
        // to spare. Tried back: the domain (60) does not fit, the style
        // guide (30) does, and then the terminology (30) no longer does.
        let t = trim(
            &r,
            BudgetOptions {
                budget: 150,
                include_unscored: false,
            },
        );
        assert_eq!(kept(&t), vec![true, false, false, true]);
        assert_eq!(t.used_tokens, 130);
    }

    /// Every "left out" reason is true of the final context: with the
    /// article added it would be over the budget.
    #[test]
    fn every_reason_is_true_of_the_final_context() {
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let folders = [
            Folder::Clients,
            Folder::Terminology,
            Folder::Domains,
            Folder::Style,
        ];
        for _ in 0..500 {
            let r: Vec<Candidate> = (0..next(12))
                .map(|_| {
                    c(
                        folders[next(4) as usize],
                        next(7) as u32,
                        1 + next(80) as usize,
                    )
                })
                .collect();
            let opts = BudgetOptions {
                budget: 1 + next(200) as usize,
                include_unscored: next(2) == 1,
            };
            let t = trim(&r, opts);
            let used: usize = r
                .iter()
                .zip(&t.decisions)
                .filter(|(_, d)| d.is_none())
                .map(|(c, _)| c.tokens)
                .sum();
            assert_eq!(used, t.used_tokens);
            assert!(used <= opts.budget);
            for (c, d) in r.iter().zip(&t.decisions) {
                if let Some(DropReason::OverBudget { with_it, budget }) = d {
                    assert_eq!(*with_it, used + c.tokens);
                    assert!(with_it > budget, "{r:?} {opts:?}");
                }
            }
        }
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
        assert!(t.decisions[0].is_some());
    }
}
