//! Every impression's explanation as the recall scan made it, kept in a
//! compact form: a few numbers a line and its strings in one text, rather
//! than a string per token. Each [`Explanation`] is remade from it when
//! read, so a reader of all of them needs no second pass over the file.

use std::collections::HashSet;

use rayon::prelude::*;

use super::recall::{Considered, Explanation, arithmetic};

/// Explanations handed to the pool per turn of
/// [`Explanations::map_in_order`]: what is made of them is all that is
/// held at once.
const CHUNK: usize = 2048;

/// A remade line's tokens up to this many are looked through as a list.
const LOOKUP_BELOW: usize = 32;

/// How a line was considered, without its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Scored,
    Inactive,
    Invalid,
}

/// One line's explanation. Its strings follow one another in
/// [`Explanations::text`], starting where the entry before ends: the id,
/// the tokens separated by spaces, then the status or error.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    line: usize,
    id_end: usize,
    tokens_end: usize,
    end: usize,
    weight: f64,
    weight_defaulted: bool,
    outcome: Outcome,
    /// 1-based place among the matches; 0 when it did not match.
    rank: usize,
}

/// The explanations of one scan, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Explanations {
    cue_tokens: Vec<String>,
    entries: Vec<Entry>,
    text: String,
}

impl Explanations {
    /// Room for `lines` explanations: the list is as long as the file's
    /// lines, less those left out, and growing it by doubling would hold
    /// up to twice that.
    pub(super) fn for_cue(cue_tokens: &[String], lines: usize) -> Explanations {
        Explanations {
            cue_tokens: cue_tokens.to_vec(),
            entries: Vec::with_capacity(lines),
            text: String::new(),
        }
    }

    /// Room for the whole file once `read` of its bytes gave what is kept
    /// so far: a file read in pieces has no line count up front, and
    /// doubling the list as it grows would hold up to twice what it needs.
    pub(super) fn reserve_for_share(&mut self, read: u64, size: u64) {
        let Some(scale) = share_scale(read, size) else {
            return;
        };
        let lines = (self.entries.len() as f64 * scale) as usize;
        let text = (self.text.len() as f64 * scale) as usize;
        self.entries
            .reserve_exact(lines.saturating_sub(self.entries.len()));
        self.text
            .reserve_exact(text.saturating_sub(self.text.len()));
    }

    /// Keep `exp`, whose tokens are `tokens`, space-separated.
    pub(super) fn push(&mut self, exp: &Explanation, tokens: &str) {
        self.text.push_str(&exp.id);
        let id_end = self.text.len();
        self.text.push_str(tokens);
        let tokens_end = self.text.len();
        let outcome = match &exp.considered {
            Considered::Scored => Outcome::Scored,
            Considered::Inactive { status } => {
                self.text.push_str(status);
                Outcome::Inactive
            }
            Considered::Invalid { error } => {
                self.text.push_str(error);
                Outcome::Invalid
            }
        };
        self.entries.push(Entry {
            line: exp.line,
            id_end,
            tokens_end,
            end: self.text.len(),
            weight: exp.weight,
            weight_defaulted: exp.weight_defaulted,
            outcome,
            rank: 0,
        });
    }

    /// Give each matched line its place among `matches`, best first.
    pub(super) fn rank(&mut self, matches: &[super::recall::Match]) {
        for (i, m) in matches.iter().enumerate() {
            // Entries are in file order.
            if let Ok(at) = self.entries.binary_search_by_key(&m.line, |e| e.line) {
                self.entries[at].rank = i + 1;
            }
        }
    }

    /// How many lines were explained.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The explanation of the `i`th line explained.
    pub fn get(&self, i: usize) -> Option<Explanation> {
        let entry = self.entries.get(i)?;
        let start = match i {
            0 => 0,
            _ => self.entries[i - 1].end,
        };
        let tokens: Vec<&str> = self.text[entry.id_end..entry.tokens_end]
            .split(' ')
            .filter(|t| !t.is_empty())
            .collect();
        let message = self.text[entry.tokens_end..entry.end].to_owned();
        let considered = match entry.outcome {
            Outcome::Scored => Considered::Scored,
            Outcome::Inactive => Considered::Inactive { status: message },
            Outcome::Invalid => Considered::Invalid { error: message },
        };
        let matched: Vec<String> = if tokens.len() < LOOKUP_BELOW {
            self.cue_tokens
                .iter()
                .filter(|t| tokens.contains(&t.as_str()))
                .cloned()
                .collect()
        } else {
            let set: HashSet<&str> = tokens.iter().copied().collect();
            self.cue_tokens
                .iter()
                .filter(|t| set.contains(t.as_str()))
                .cloned()
                .collect()
        };
        let mut exp = Explanation {
            line: entry.line,
            id: self.text[start..entry.id_end].to_owned(),
            considered,
            tokens: Vec::new(),
            matched: Vec::new(),
            overlap: 0.0,
            weight: entry.weight,
            weight_defaulted: entry.weight_defaulted,
            raw_score: 0.0,
            score: 0.0,
            rank: (entry.rank > 0).then_some(entry.rank),
        };
        // Only a scored line got as far as its arithmetic.
        if entry.outcome == Outcome::Scored {
            arithmetic(&mut exp, matched.len(), self.cue_tokens.len(), tokens.len());
        }
        exp.tokens = tokens.into_iter().map(str::to_owned).collect();
        exp.matched = matched;
        Some(exp)
    }

    /// Every explanation, in file order.
    pub fn iter(&self) -> impl Iterator<Item = Explanation> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// `f` of every explanation, in file order. A long list is remade and
    /// handed to `f` on the pool a chunk at a time (to be written, for
    /// instance), so what `f` makes of a chunk is all that is held at once.
    pub fn map_in_order<'a, T: Send + 'a>(
        &'a self,
        f: impl Fn(Explanation) -> T + Send + Sync + 'a,
    ) -> impl Iterator<Item = T> + 'a {
        let parallel = crate::parallel::pays(self.len());
        let starts = (0..self.len()).step_by(CHUNK);
        starts.flat_map(move |start| {
            let chunk = start..(start + CHUNK).min(self.len());
            let made = |i: usize| self.get(i).map(&f);
            let done: Vec<Option<T>> = if parallel {
                chunk.into_par_iter().map(made).collect()
            } else {
                chunk.map(made).collect()
            };
            done.into_iter().flatten()
        })
    }
}

/// How much more than what `read` of `size` bytes gave the whole file will
/// give, with a little to spare; `None` when nothing is known yet.
pub(super) fn share_scale(read: u64, size: u64) -> Option<f64> {
    (read > 0 && size > read).then(|| size as f64 / read as f64 * 1.05)
}
