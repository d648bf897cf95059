//! Finding many terms in text in one pass: both sides folded (lower case,
//! accents, Arabic tatweel and invisible format characters removed,
//! whitespace runs as one space), every term in one
//! Aho-Corasick automaton, and a hit kept only when it is a whole word.
//! Han, kana and Hangul are words of one character each, as in search.

use std::ops::Range;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// ARABIC TATWEEL (kashida), U+0640.
const TATWEEL: char = '\u{0640}';

/// Text folded for matching, with each folded byte's place in the original.
#[derive(Debug, Clone, Default)]
pub struct Folded {
    pub text: String,
    /// `map[i]`: the original byte offset of folded byte `i`; one extra
    /// entry for the end.
    map: Vec<u32>,
}

impl Folded {
    pub fn new(original: &str) -> Folded {
        Folded::with_accents(original, false)
    }

    /// Folded as [`Folded::new`] but, with `keep_accents`, accents kept
    /// (as combining marks after their letter), for terms that only
    /// accents tell apart.
    pub fn with_accents(original: &str, keep_accents: bool) -> Folded {
        let mut f = Folded {
            text: String::with_capacity(original.len()),
            map: Vec::with_capacity(original.len() + 1),
        };
        let mut last_space = true;
        for (at, c) in original.char_indices() {
            if c.is_whitespace() {
                if !last_space {
                    f.push(' ', at);
                    last_space = true;
                }
                continue;
            }
            // Arabic tatweel only stretches a word for typesetting
            // (`عـقـد` is `عقد`), as harakat are left out as marks.
            if c == TATWEEL {
                continue;
            }
            // Soft hyphens, zero-width spaces and joiners and the like
            // change how a word is shown, not which word it is: a target
            // typed `verwerkings\u{AD}verantwoordelijke` has the term.
            // Left out, they stay inside the original range a hit marks.
            if crate::text::is_invisible_format(c) {
                continue;
            }
            last_space = false;
            let c = match c {
                '\u{2019}' | '\u{2018}' | '\u{02BC}' => '\'',
                c => c,
            };
            if c.is_ascii() {
                f.push(c.to_ascii_lowercase(), at);
                continue;
            }
            for lower in c.to_lowercase() {
                // Full case folding: `ß` (and `ẞ`) is `ss`, so "STRASSE"
                // and "Straße" are one word, as a CAT tool's QA finds them.
                if lower == 'ß' {
                    f.push('s', at);
                    f.push('s', at);
                    continue;
                }
                decompose_canonical(lower, |d| {
                    if keep_accents || !is_combining_mark(d) {
                        f.push(d, at);
                    }
                });
            }
        }
        while f.text.ends_with(' ') {
            f.text.pop();
            f.map.pop();
        }
        f.map.push(original.len() as u32);
        f
    }

    fn push(&mut self, c: char, at: usize) {
        self.text.push(c);
        for _ in 0..c.len_utf8() {
            self.map.push(at as u32);
        }
    }

    /// The original byte range of a folded range.
    pub fn original(&self, r: Range<usize>, original: &str) -> Range<usize> {
        let start = self.map.get(r.start).copied().unwrap_or(0) as usize;
        // The end is the original character after the last folded byte.
        let last = self.map.get(r.end.saturating_sub(1)).copied().unwrap_or(0) as usize;
        let end = original[last..]
            .chars()
            .next()
            .map_or(original.len(), |c| last + c.len_utf8());
        start..end.max(start)
    }
}

/// A term's folded form, as the text is folded.
pub fn fold(term: &str) -> String {
    Folded::new(term).text
}

/// Han, kana and Hangul: written without spaces, so each character is a
/// word boundary of its own.
pub fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF
        | 0x20000..=0x2FA1F
    )
}

fn is_word(c: char) -> bool {
    // A combining mark belongs to its letter: text folded with accents
    // kept has them, and `ano` must not match the start of `anó`.
    c.is_alphanumeric() || c == '_' || is_combining_mark(c)
}

/// Terms compiled for matching; each pattern is a distinct folded term.
pub struct TermMatcher {
    automaton: Option<AhoCorasick>,
    patterns: Vec<String>,
}

impl TermMatcher {
    /// The matcher of `terms` and, for each term, its pattern index
    /// (`None` for a term that folds to nothing).
    pub fn new<'a>(terms: impl IntoIterator<Item = &'a str>) -> (TermMatcher, Vec<Option<usize>>) {
        TermMatcher::with_accents(terms, false)
    }

    /// [`TermMatcher::new`], keeping accents with `keep_accents` (the text
    /// is then folded by [`Folded::with_accents`] alike).
    pub fn with_accents<'a>(
        terms: impl IntoIterator<Item = &'a str>,
        keep_accents: bool,
    ) -> (TermMatcher, Vec<Option<usize>>) {
        let mut patterns: Vec<String> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = Default::default();
        let mut of_term = Vec::new();
        for t in terms {
            let f = Folded::with_accents(t, keep_accents).text;
            if f.is_empty() {
                of_term.push(None);
                continue;
            }
            let n = patterns.len();
            let id = *index.entry(f.clone()).or_insert_with(|| {
                patterns.push(f);
                n
            });
            of_term.push(Some(id));
        }
        let automaton = (!patterns.is_empty())
            .then(|| {
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::Standard)
                    .build(&patterns)
                    .ok()
            })
            .flatten();
        (
            TermMatcher {
                automaton,
                patterns,
            },
            of_term,
        )
    }

    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Each whole-word occurrence in `text` (folded): pattern and range.
    pub fn find(&self, text: &Folded, mut f: impl FnMut(usize, Range<usize>)) {
        let Some(ac) = &self.automaton else {
            return;
        };
        let s = text.text.as_str();
        for m in ac.find_overlapping_iter(s) {
            let (start, end) = (m.start(), m.end());
            if whole_word(s, start, end) {
                f(m.pattern().as_usize(), start..end);
            }
        }
    }
}

/// Whether `s[start..end]` stands as words: a letter or digit on either
/// side ends it, unless one of the two is written without spaces.
fn whole_word(s: &str, start: usize, end: usize) -> bool {
    let first = s[start..end].chars().next();
    let last = s[start..end].chars().next_back();
    let before = s[..start].chars().next_back();
    let after = s[end..].chars().next();
    let edge_ok = |outside: Option<char>, inside: Option<char>| match (outside, inside) {
        (None, _) => true,
        (Some(o), Some(i)) => !is_word(o) || !is_word(i) || is_unspaced(o) || is_unspaced(i),
        (Some(_), None) => true,
    };
    edge_ok(before, first) && edge_ok(after, last)
}

/// `original` with each range (original byte offsets, sorted, not
/// overlapping) wrapped in `«` and `»`.
pub fn mark(original: &str, ranges: &[Range<usize>]) -> String {
    let mut ranges: Vec<Range<usize>> = ranges.to_vec();
    ranges.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut out = String::with_capacity(original.len() + ranges.len() * 4);
    let mut at = 0;
    for r in ranges {
        if r.start < at || r.end > original.len() {
            continue;
        }
        out.push_str(&original[at..r.start]);
        out.push('«');
        out.push_str(&original[r.start..r.end]);
        out.push('»');
        at = r.end;
    }
    out.push_str(&original[at..]);
    out
}
