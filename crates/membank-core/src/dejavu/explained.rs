//! Every impression's explanation as the recall scan made it, kept in a
//! compact form: a few numbers a line and its strings in one text, rather
//! than a string per token. Each [`Explanation`] is remade from it when
//! read, so a reader of all of them needs no second pass over the file.

use std::collections::HashSet;

use rayon::prelude::*;

use super::recall::{Considered, Explanation, arithmetic};
use crate::json;

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
        let parts = self.parts(i)?;
        let message = parts.message.to_owned();
        let mut exp = parts.numbers;
        exp.id = parts.id.to_owned();
        exp.considered = match parts.outcome {
            Outcome::Scored => Considered::Scored,
            Outcome::Inactive => Considered::Inactive { status: message },
            Outcome::Invalid => Considered::Invalid { error: message },
        };
        exp.tokens = parts.tokens.into_iter().map(str::to_owned).collect();
        exp.matched = parts.matched.into_iter().map(str::to_owned).collect();
        Some(exp)
    }

    /// The `i`th explanation as [`crate::json::to_string`] writes it, each
    /// line break followed by `indent`, appended to `out`: written from
    /// the kept text, without making the explanation's strings (a report
    /// of every impression writes tens of thousands). False when there is
    /// no `i`th.
    pub fn push_json(&self, i: usize, out: &mut String, indent: &str) -> bool {
        let Some(p) = self.parts(i) else {
            return false;
        };
        let field = |out: &mut String, name: &str| {
            out.push_str(",\n");
            out.push_str(indent);
            out.push_str("  \"");
            out.push_str(name);
            out.push_str("\": ");
        };
        let list = |out: &mut String, items: &[&str]| {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                out.push_str(if n == 0 { "\n" } else { ",\n" });
                out.push_str(indent);
                out.push_str("    ");
                json::push_string(out, item);
            }
            out.push('\n');
            out.push_str(indent);
            out.push_str("  ]");
        };
        out.push_str("{\n");
        out.push_str(indent);
        out.push_str("  \"line\": ");
        json::push_uint(out, p.numbers.line as u64);
        field(out, "id");
        json::push_string(out, p.id);
        field(out, "outcome");
        match p.outcome {
            Outcome::Scored => out.push_str("\"scored\""),
            Outcome::Inactive => {
                out.push_str("\"inactive\"");
                field(out, "status");
                json::push_string(out, p.message);
            }
            Outcome::Invalid => {
                out.push_str("\"invalid\"");
                field(out, "error");
                json::push_string(out, p.message);
            }
        }
        field(out, "tokens");
        list(out, &p.tokens);
        field(out, "matched");
        list(out, &p.matched);
        field(out, "overlap");
        push_f64(out, p.numbers.overlap);
        field(out, "weight");
        push_f64(out, p.numbers.weight);
        field(out, "weight_defaulted");
        out.push_str(if p.numbers.weight_defaulted {
            "true"
        } else {
            "false"
        });
        field(out, "raw_score");
        push_f64(out, p.numbers.raw_score);
        field(out, "score");
        push_f64(out, p.numbers.score);
        field(out, "rank");
        match p.numbers.rank {
            Some(rank) => json::push_uint(out, rank as u64),
            None => out.push_str("null"),
        }
        out.push('\n');
        out.push_str(indent);
        out.push('}');
        true
    }

    /// The `i`th explanation's numbers (its strings left empty) and its
    /// strings as slices of the kept text.
    fn parts(&self, i: usize) -> Option<Parts<'_>> {
        let entry = self.entries.get(i)?;
        let start = match i {
            0 => 0,
            _ => self.entries[i - 1].end,
        };
        let tokens: Vec<&str> = self.text[entry.id_end..entry.tokens_end]
            .split(' ')
            .filter(|t| !t.is_empty())
            .collect();
        let matched: Vec<&str> = if tokens.len() < LOOKUP_BELOW {
            self.cue_tokens
                .iter()
                .map(String::as_str)
                .filter(|t| tokens.contains(t))
                .collect()
        } else {
            let set: HashSet<&str> = tokens.iter().copied().collect();
            self.cue_tokens
                .iter()
                .map(String::as_str)
                .filter(|t| set.contains(t))
                .collect()
        };
        let mut numbers = Explanation {
            line: entry.line,
            id: String::new(),
            considered: Considered::Scored,
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
            arithmetic(
                &mut numbers,
                matched.len(),
                self.cue_tokens.len(),
                tokens.len(),
            );
        }
        Some(Parts {
            numbers,
            outcome: entry.outcome,
            id: &self.text[start..entry.id_end],
            tokens,
            matched,
            message: &self.text[entry.tokens_end..entry.end],
        })
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

impl Explanations {
    /// Every explanation as [`Explanations::push_json`] writes it, `sep`
    /// between them, in blocks of a few hundred made on the pool a chunk
    /// at a time and handed over in file order: what a chunk makes is all
    /// that is held at once.
    pub fn json_blocks<'a>(
        &'a self,
        indent: &'a str,
        sep: &'a str,
    ) -> impl Iterator<Item = String> + 'a {
        const BLOCK: usize = 256;
        let parallel = crate::parallel::pays(self.len());
        (0..self.len()).step_by(CHUNK).flat_map(move |start| {
            let end = (start + CHUNK).min(self.len());
            let block = |&from: &usize| {
                let mut out = String::new();
                for i in from..(from + BLOCK).min(end) {
                    if i > from {
                        out.push_str(sep);
                    }
                    self.push_json(i, &mut out, indent);
                }
                // A chunk's blocks wait to be written: without the room
                // left by doubling as they grew.
                out.shrink_to_fit();
                out
            };
            let starts: Vec<usize> = (start..end).step_by(BLOCK).collect();
            let blocks: Vec<String> = if parallel {
                starts.par_iter().map(block).collect()
            } else {
                starts.iter().map(block).collect()
            };
            blocks
        })
    }
}

/// One explanation's parts, borrowed from [`Explanations`].
struct Parts<'a> {
    numbers: Explanation,
    outcome: Outcome,
    id: &'a str,
    tokens: Vec<&'a str>,
    matched: Vec<&'a str>,
    /// The status or the error.
    message: &'a str,
}

/// `x` as serde_json writes a float: `null` unless finite.
fn push_f64(out: &mut String, x: f64) {
    use serde_json::ser::Formatter;
    if !x.is_finite() {
        out.push_str("null");
        return;
    }
    let mut buf = [0u8; 32];
    let mut at = std::io::Cursor::new(&mut buf[..]);
    if serde_json::ser::CompactFormatter
        .write_f64(&mut at, x)
        .is_ok()
    {
        let len = at.position() as usize;
        // Only ASCII digits, signs, a point and an exponent were written.
        out.push_str(std::str::from_utf8(&buf[..len]).unwrap_or_default());
    }
}

/// How much more than what `read` of `size` bytes gave the whole file will
/// give, with a little to spare; `None` when nothing is known yet.
pub(super) fn share_scale(read: u64, size: u64) -> Option<f64> {
    (read > 0 && size > read).then(|| size as f64 / read as f64 * 1.05)
}
