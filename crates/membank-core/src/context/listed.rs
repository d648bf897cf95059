//! The rows a caller lists — the best `limit` articles and every one the
//! budget kept — found without ranking the whole bank into rows.
//!
//! A query scores every article into one byte (which signals it earned),
//! on every core, and sums tokens per (drop tier, score) cell. The budget's
//! drop order runs cell by cell (§8: unscored first, then by tier, lowest
//! score, later-ranked first), so the cell where the budget stops cutting
//! is known from those sums alone, and where in that cell it stops from a
//! look at one chunk. The fill that puts back dropped articles that still
//! fit (see [`crate::budget::trim`]) looks only at dropped articles no
//! larger than what the trim left. One more pass over the bytes finds each
//! listed article's rank and verdict. Per query, besides the one byte per
//! article, only the fill's candidates take room in proportion to the bank
//! (a position each, for every dropped article small enough to come back:
//! few after a narrow query, at most one per article after a broad one);
//! nothing is sorted but the listed rows and those put back, and only the
//! listed rows get their matched values looked up.
//!
//! The result is exactly what [`super::build`] gives with every row past
//! `limit` that the budget did not keep taken out (a test compares them).

use rayon::prelude::*;

use super::{ContextEntry, ContextReport};
use crate::bank::Bank;
use crate::budget::{BudgetOptions, CharsOver4, DropReason, TokenCounter};
use crate::scoring::index::{CLIENT_BIT, DOMAIN_BIT, LANGUAGE_BIT, ScoringIndex};
use crate::scoring::{self, CLIENT_POINTS, DOMAIN_POINTS, LANGUAGE_POINTS, Query, Signals};

/// A report holding only the rows a caller lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The listed rows, in rank order, with their bank-wide ranks.
    pub report: ContextReport,
    /// How many articles were ranked, listed or not.
    pub ranked: usize,
    /// The points each signal earned in at least one article (0 when no
    /// article matched it): a client, domain or language that matched
    /// nothing is probably misspelt.
    pub earned: Signals,
}

/// The best `limit` articles in rank order and every one the budget kept
/// (`limit` 0: every article), with the spec estimator.
pub fn build_listed(bank: &Bank, query: &Query, opts: BudgetOptions, limit: usize) -> Listed {
    // Not through `dyn`: the estimate is then inlined into the passes.
    listed(bank, query, opts, limit, &CharsOver4, CHUNK)
}

pub fn build_listed_with(
    bank: &Bank,
    query: &Query,
    opts: BudgetOptions,
    limit: usize,
    counter: &dyn TokenCounter,
) -> Listed {
    listed(bank, query, opts, limit, counter, CHUNK)
}

fn listed<C: TokenCounter + ?Sized>(
    bank: &Bank,
    query: &Query,
    opts: BudgetOptions,
    limit: usize,
    counter: &C,
    chunk_len: usize,
) -> Listed {
    // Listing everything, or a query with no signal (every score 0, no
    // packed arrays needed), is the whole report.
    let packed = (limit > 0 && counter.count_chars(0).is_some())
        .then(|| {
            let ix = bank.scoring_index();
            scoring::packed_query(ix, query).map(|q| (ix, q))
        })
        .flatten();
    let Some((ix, packed)) = packed else {
        return whole(bank, query, opts, limit, &Dyn(counter));
    };
    let tokens = |pos: usize| {
        counter
            .count_chars(ix.chars[pos])
            .unwrap_or_else(|| counter.count(bank.article(ix.ids[pos])))
    };
    let mut scratch = ix.scratch.lock().unwrap_or_else(|e| e.into_inner());
    let masks = &mut *scratch;
    masks.resize(ix.ids.len(), 0);
    ix.signal_masks(&packed, masks);
    let masks: &[u8] = masks;

    // Pass 1, on every core for a large bank: per chunk, the articles and
    // tokens of every cell.
    let parallel = crate::parallel::pays(masks.len());
    let count_chunk = |(c, chunk): (usize, &[u8])| {
        let mut sums = Sums::default();
        for (i, &mask) in chunk.iter().enumerate() {
            let pos = c * chunk_len + i;
            let cell = cell_of(ix, pos, mask);
            let t = tokens(pos) as u64;
            sums.count[cell] += 1;
            sums.tokens[cell] += t;
            sums.least[cell] = sums.least[cell].min(t);
            sums.earned |= mask;
        }
        sums
    };
    let chunks: Vec<Sums> = if parallel {
        masks
            .par_chunks(chunk_len)
            .enumerate()
            .map(count_chunk)
            .collect()
    } else {
        masks
            .chunks(chunk_len)
            .enumerate()
            .map(count_chunk)
            .collect()
    };
    let mut all = Sums::default();
    for s in &chunks {
        all.add(s);
    }

    let mut plan = Plan::new(&all, opts, limit, ix.ids.len());
    // Where each chunk starts: per score, the articles before it (the rank
    // order within a score).
    let mut before_by_score = vec![[0u64; SCORES]; chunks.len()];
    for c in 1..chunks.len() {
        let mut b = before_by_score[c - 1];
        for (cell, n) in chunks[c - 1].count.iter().enumerate() {
            b[cell % SCORES] += n;
        }
        before_by_score[c] = b;
    }
    let chunk_of = |c: usize| c * chunk_len..((c + 1) * chunk_len).min(masks.len());

    if let Some(cut) = plan.cut {
        // The trim in the cut cell: its articles go last-ranked first
        // while what is left is over the budget. Whole chunks are passed
        // on their sums; only the chunk where it stops is looked at.
        let need = plan.total - plan.dropped - plan.budget;
        let mut given_up = 0u64;
        for c in (0..chunks.len()).rev() {
            if given_up + chunks[c].tokens[cut] < need {
                given_up += chunks[c].tokens[cut];
                plan.first_cut = chunk_of(c).start;
                continue;
            }
            for pos in chunk_of(c).rev() {
                if cell_of(ix, pos, masks[pos]) != cut {
                    continue;
                }
                if given_up >= need {
                    break;
                }
                given_up += tokens(pos) as u64;
                plan.first_cut = pos;
            }
            break;
        }
        let trimmed = plan.total - plan.dropped - given_up;
        plan.used = trimmed;

        // The fill: the dropped articles again, most important first (the
        // cut cell from its first dropped one, then the dropped cells in
        // reverse drop order, each in rank order), each put back that fits
        // in what is left. Only articles no larger than what the trim left
        // can come back, so only they are gathered.
        let mut fill: Vec<usize> = (0..CELLS)
            .filter(|&c| plan.fate[c] == Fate::Dropped)
            .collect();
        fill.sort_unstable_by_key(|&c| std::cmp::Reverse(drop_key(c)));
        fill.insert(0, cut);
        let room = plan.budget - trimmed;
        let least = fill.iter().map(|&c| all.least[c]).min().unwrap_or(u64::MAX);
        if room >= least {
            let (fate, first_cut) = (&plan.fate, plan.first_cut);
            let gather = |c: usize| -> Vec<usize> {
                chunk_of(c)
                    .filter(|&pos| match fate[cell_of(ix, pos, masks[pos])] {
                        Fate::Dropped => true,
                        Fate::Cut => pos >= first_cut,
                        _ => false,
                    })
                    .filter(|&pos| tokens(pos) as u64 <= room)
                    .collect()
            };
            let found: Vec<Vec<usize>> = if parallel {
                (0..chunks.len()).into_par_iter().map(gather).collect()
            } else {
                (0..chunks.len()).map(gather).collect()
            };
            let mut by_cell: Vec<Vec<usize>> = vec![Vec::new(); CELLS];
            for pos in found.into_iter().flatten() {
                by_cell[cell_of(ix, pos, masks[pos])].push(pos);
            }
            let mut left = room;
            for &cell in &fill {
                for &pos in &by_cell[cell] {
                    let t = tokens(pos) as u64;
                    if t <= left {
                        left -= t;
                        plan.put_back.push(pos);
                        plan.may_list[cell] = true;
                    }
                }
            }
            plan.put_back.sort_unstable();
            plan.used = plan.budget - left;
        }
    }

    // Pass 2, on every core for a large bank: the rank and verdict of each
    // listed article.
    let list_chunk = |c: usize| {
        let mut seen_by_score = before_by_score[c];
        let plan = &plan;
        chunk_of(c).filter_map(move |pos| {
            let mask = masks[pos];
            let cell = cell_of(ix, pos, mask);
            let score = SCORE_OF[usize::from(mask)];
            let within_score = seen_by_score[score];
            seen_by_score[score] += 1;
            // Most articles are neither among the best nor kept, and
            // no listed one's verdict needs them looked at.
            if !plan.may_list[cell] {
                return None;
            }
            let t = tokens(pos);
            let drop = plan.verdict(cell, pos, t);
            let top = score > plan.lowest_listed_score
                || (score == plan.lowest_listed_score && within_score < plan.listed_at_lowest);
            (top || drop.is_none()).then(|| Row {
                rank: plan.above[score] + within_score as usize + 1,
                pos,
                mask,
                tokens: t,
                drop,
            })
        })
    };
    let mut rows: Vec<Row> = if parallel {
        (0..chunks.len())
            .into_par_iter()
            .flat_map_iter(list_chunk)
            .collect()
    } else {
        (0..chunks.len()).flat_map(list_chunk).collect()
    };
    drop(scratch);
    rows.sort_unstable_by_key(|r| r.rank);

    let used_tokens = plan.used as usize;
    let articles = rows
        .into_iter()
        .map(|r| {
            let hits = ix.hits(r.pos, &packed);
            debug_assert_eq!(SCORE_OF[usize::from(r.mask)], hits.total() as usize);
            ContextEntry {
                id: ix.ids[r.pos],
                rank: r.rank,
                score: hits.total(),
                hits,
                tokens: r.tokens,
                included: r.drop.is_none(),
                drop: r.drop,
            }
        })
        .collect();
    Listed {
        report: ContextReport {
            query: query.clone(),
            budget: opts.budget,
            include_unscored: opts.include_unscored,
            used_tokens,
            token_estimator: counter.name(),
            articles,
        },
        ranked: ix.ids.len(),
        earned: earned(all.earned),
    }
}

/// A counter passed on as `dyn`.
struct Dyn<'a, C: ?Sized>(&'a C);

impl<C: TokenCounter + ?Sized> TokenCounter for Dyn<'_, C> {
    fn count(&self, article: &crate::article::Article) -> usize {
        self.0.count(article)
    }
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn count_chars(&self, chars: usize) -> Option<usize> {
        self.0.count_chars(chars)
    }
}

/// The whole report, cut to the listed rows.
fn whole(
    bank: &Bank,
    query: &Query,
    opts: BudgetOptions,
    limit: usize,
    counter: &dyn TokenCounter,
) -> Listed {
    let mut report = super::build_with(bank, query, opts, counter);
    let ranked = report.articles.len();
    let mask = report.articles.iter().fold(0, |m, e| {
        let h = e.hits;
        m | if h.client.is_some() { CLIENT_BIT } else { 0 }
            | if h.domain.is_some() { DOMAIN_BIT } else { 0 }
            | if h.language.is_some() {
                LANGUAGE_BIT
            } else {
                0
            }
    });
    if limit > 0 {
        report.articles.retain(|e| e.rank <= limit || e.included);
    }
    Listed {
        report,
        ranked,
        earned: earned(mask),
    }
}

fn earned(mask: u8) -> Signals {
    let points = |bit: u8, p: u32| if mask & bit != 0 { p } else { 0 };
    Signals {
        client: points(CLIENT_BIT, CLIENT_POINTS),
        domain: points(DOMAIN_BIT, DOMAIN_POINTS),
        language: points(LANGUAGE_BIT, LANGUAGE_POINTS),
    }
}

/// Articles per chunk of a pass: enough work to be worth a core, small
/// enough that both cores get several.
const CHUNK: usize = 8192;
/// Scores run 0–6.
const SCORES: usize = (CLIENT_POINTS + DOMAIN_POINTS + LANGUAGE_POINTS) as usize + 1;
/// Drop tiers run 0–4 (`Folder::drop_tier`).
const TIERS: usize = 5;
const CELLS: usize = TIERS * SCORES;

/// The score of each signal mask.
const SCORE_OF: [usize; 8] = {
    const fn points(mask: usize, bit: u8, points: u32) -> usize {
        if mask as u8 & bit != 0 {
            points as usize
        } else {
            0
        }
    }
    let mut t = [0; 8];
    let mut m = 0;
    while m < 8 {
        t[m] = points(m, CLIENT_BIT, CLIENT_POINTS)
            + points(m, DOMAIN_BIT, DOMAIN_POINTS)
            + points(m, LANGUAGE_BIT, LANGUAGE_POINTS);
        m += 1;
    }
    t
};

fn cell_of(ix: &ScoringIndex, pos: usize, mask: u8) -> usize {
    usize::from(ix.tiers[pos]).min(TIERS - 1) * SCORES + SCORE_OF[usize::from(mask)]
}

/// Where a cell comes in the budget's drop order: `budget::trim`'s key.
fn drop_key(cell: usize) -> usize {
    let (tier, score) = (cell / SCORES, cell % SCORES);
    crate::budget::drop_key(tier as u8, score as u32)
}

/// Articles and tokens per cell, the fewest tokens of any article in
/// each, and the signals any article earned.
#[derive(Clone)]
struct Sums {
    count: [u64; CELLS],
    tokens: [u64; CELLS],
    least: [u64; CELLS],
    earned: u8,
}

impl Default for Sums {
    fn default() -> Self {
        Sums {
            count: [0; CELLS],
            tokens: [0; CELLS],
            least: [u64::MAX; CELLS],
            earned: 0,
        }
    }
}

impl Sums {
    fn add(&mut self, other: &Sums) {
        for cell in 0..CELLS {
            self.count[cell] += other.count[cell];
            self.tokens[cell] += other.tokens[cell];
            self.least[cell] = self.least[cell].min(other.least[cell]);
        }
        self.earned |= other.earned;
    }
}

/// What happens to a cell's candidates.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Not candidates: score 0 without `include_unscored`.
    Unscored,
    Kept,
    /// Every one dropped by the trim.
    Dropped,
    /// The cell where the trim stops: its later-ranked articles are
    /// dropped until the rest fits.
    Cut,
}

/// The budget's decisions per cell and which ranks are listed.
struct Plan {
    fate: [Fate; CELLS],
    /// Tokens of the cells dropped whole.
    dropped: u64,
    cut: Option<usize>,
    /// The cut cell's articles from this position on were dropped by the
    /// trim (rank order within a cell is position order).
    first_cut: usize,
    /// Positions the fill put back, in order.
    put_back: Vec<usize>,
    total: u64,
    /// Tokens of the final context.
    used: u64,
    budget: u64,
    /// Per score: how many articles score higher.
    above: [usize; SCORES],
    /// Articles scoring more than this are listed, and the first
    /// `listed_at_lowest` scoring exactly this.
    lowest_listed_score: usize,
    listed_at_lowest: u64,
    /// Cells that may hold a listed article: kept, cut or put back by the
    /// budget, or scoring at least `lowest_listed_score`.
    may_list: [bool; CELLS],
}

impl Plan {
    fn new(all: &Sums, opts: BudgetOptions, limit: usize, articles: usize) -> Plan {
        let candidate = |cell: usize| !cell.is_multiple_of(SCORES) || opts.include_unscored;
        let mut fate = [Fate::Unscored; CELLS];
        for (cell, f) in fate.iter_mut().enumerate() {
            if candidate(cell) {
                *f = Fate::Kept;
            }
        }
        let total: u64 = (0..CELLS)
            .filter(|&c| candidate(c))
            .map(|c| all.tokens[c])
            .sum();
        let budget = opts.budget as u64;
        let mut dropped = 0;
        let mut cut = None;
        if budget > 0 && total > budget {
            let mut order: Vec<usize> = (0..CELLS).filter(|&c| candidate(c)).collect();
            order.sort_unstable_by_key(|&c| drop_key(c));
            for cell in order {
                if total - dropped - all.tokens[cell] > budget {
                    fate[cell] = Fate::Dropped;
                    dropped += all.tokens[cell];
                } else {
                    fate[cell] = Fate::Cut;
                    cut = Some(cell);
                    break;
                }
            }
        }

        let mut by_score = [0usize; SCORES];
        for cell in 0..CELLS {
            by_score[cell % SCORES] += all.count[cell] as usize;
        }
        let mut above = [0usize; SCORES];
        for s in (0..SCORES - 1).rev() {
            above[s] = above[s + 1] + by_score[s + 1];
        }
        let limit = if limit == 0 { articles } else { limit };
        let (lowest_listed_score, listed_at_lowest) = (0..SCORES)
            .rev()
            .find(|&s| above[s] + by_score[s] >= limit)
            .map(|s| (s, (limit - above[s]) as u64))
            .unwrap_or((0, u64::MAX));
        let mut may_list = [false; CELLS];
        for (cell, may) in may_list.iter_mut().enumerate() {
            *may = matches!(fate[cell], Fate::Kept | Fate::Cut)
                || cell % SCORES >= lowest_listed_score;
        }
        Plan {
            may_list,
            fate,
            dropped,
            cut,
            first_cut: articles,
            put_back: Vec::new(),
            total,
            // Until the trim and fill say otherwise: everything fits.
            used: total,
            budget,
            above,
            lowest_listed_score,
            listed_at_lowest,
        }
    }

    /// The verdict for the article at `pos` of `cell`, `tokens` in size.
    fn verdict(&self, cell: usize, pos: usize, tokens: usize) -> Option<DropReason> {
        match self.fate[cell] {
            Fate::Unscored => Some(DropReason::Unscored),
            Fate::Kept => None,
            Fate::Cut if pos < self.first_cut => None,
            _ if self.put_back.binary_search(&pos).is_ok() => None,
            _ => Some(DropReason::OverBudget {
                with_it: (self.used as usize).saturating_add(tokens),
                budget: self.budget as usize,
            }),
        }
    }
}

/// One listed article.
struct Row {
    rank: usize,
    pos: usize,
    mask: u8,
    tokens: usize,
    drop: Option<DropReason>,
}

#[cfg(test)]
mod tests;
