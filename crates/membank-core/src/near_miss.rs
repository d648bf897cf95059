//! Near misses: a name written with one of the slips people make when they
//! type a link to a file that exists. The rule is small and deterministic so
//! a suggestion can be trusted:
//!
//! - the names are compared folded: case, accents, character width, `&`
//!   against "and", punctuation and `-`/`_` against spaces make no
//!   difference;
//! - failing that, the folded names may differ by one edit (a letter added,
//!   dropped or replaced, or two neighbours swapped), when the name is long
//!   enough for one edit to be a slip rather than another word.
//!
//! A suggestion is only offered. What is applied without asking is
//! narrower ([`NearMisses::same_name`]): a name spelt the same but for
//! case, width, spacing or `&`. One letter makes another word as often as
//! a slip ("Liver" and "Sliver", "TLS 1.0" and "TLS 1.3"), an accent too
//! ("Bar" and "Bär"), and dropped punctuation another name ("C++" and "C").

use std::hash::Hasher;
use std::ops::Range;

use rayon::prelude::*;
use rustc_hash::FxHasher;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Shorter folded names must match exactly after folding: "cat" and "car"
/// are different words, not a slip.
const MIN_LEN_FOR_AN_EDIT: usize = 5;

/// `name` as the near-miss rule compares it: lower case, accents removed,
/// full-width and other compatibility forms read as their plain letters,
/// `&` read as "and", `-`, `_` and other separators read as a space,
/// other punctuation dropped, runs of spaces made one.
pub fn fold(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    fold_into(&mut out, name);
    out
}

/// [`fold`], appended to `out`.
fn fold_into(out: &mut String, name: &str) {
    let mut fold = Fold {
        start: out.len(),
        gap: false,
    };
    let mut rest = name;
    while !rest.is_empty() {
        // An ASCII character decomposes to itself, has no marks and is never
        // reordered with its neighbours, so a run of them is folded a byte
        // at a time, and only the other runs go through the decomposition
        // (most names are ASCII, and a term's only other character is `→`).
        let ascii = rest
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
        for &b in &rest.as_bytes()[..ascii] {
            match b {
                b'a'..=b'z' | b'0'..=b'9' => fold.push(out, b as char),
                b'A'..=b'Z' => fold.push(out, b.to_ascii_lowercase() as char),
                // `char::is_whitespace`'s ASCII characters, and the separators.
                b'\t'..=b'\r' | b' ' | b'-' | b'_' | b'/' | b'.' | b'+' => fold.gap = true,
                b'&' => fold.and(out),
                _ => {}
            }
        }
        rest = &rest[ascii..];
        let other = rest
            .bytes()
            .position(|b| b.is_ascii())
            .unwrap_or(rest.len());
        // A term's `→` decomposes to itself, is never reordered (it is no
        // mark) and is dropped: passed by without the decomposition and
        // the character tables, where it cost more than the rest of the
        // name.
        // The compatibility decomposition, so a full-width `Ａ` is `a`.
        for run in rest[..other].split('→') {
            for c in run.nfkd().filter(|c| !is_combining_mark(*c)) {
                fold.char(out, c);
            }
        }
        rest = &rest[other..];
    }
}

/// `name` as the automatic fix of a dead link compares it: composed in
/// its compatibility form (width, ligatures), lower case, each run of
/// spaces, `-`, `_`, `–` and `—` one space, and `&` read as "and".
/// Every letter, digit, accent and other mark stays what it is: a
/// difference in any of them can be another name, which only the author
/// can tell from a slip. Runs of separators at either end are kept as a
/// space too, so "C-" is not "C".
fn spelling(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut gap = false;
    for c in name.nfkc() {
        if c.is_whitespace() || matches!(c, '-' | '_' | '–' | '—') {
            gap = true;
            continue;
        }
        // "R&D" is "R and D": a word of its own.
        gap |= c == '&' && !out.is_empty();
        if std::mem::take(&mut gap) {
            out.push(' ');
        }
        match c {
            '&' => {
                out.push_str("and");
                gap = true;
            }
            // Σ lowers to σ, or to ς at a word's end: one letter.
            'ς' => out.push('σ'),
            c => out.extend(c.to_lowercase()),
        }
    }
    if gap {
        out.push(' ');
    }
    out
}

/// Where a fold appended to a string stands.
struct Fold {
    /// Where the folded text starts.
    start: usize,
    /// A separator seen since the last word character: one space before
    /// the next.
    gap: bool,
}

impl Fold {
    fn push(&mut self, out: &mut String, c: char) {
        if std::mem::take(&mut self.gap) && out.len() > self.start {
            out.push(' ');
        }
        out.push(c);
    }

    fn and(&mut self, out: &mut String) {
        self.gap = true;
        for c in ['a', 'n', 'd'] {
            self.push(out, c);
        }
        self.gap = true;
    }

    fn char(&mut self, out: &mut String, c: char) {
        if c == '&' {
            self.and(out);
        } else if c.is_alphanumeric() {
            for lower in c.to_lowercase() {
                self.push(out, lower);
            }
        } else if c.is_whitespace() || matches!(c, '-' | '_' | '/' | '.' | '+' | '·' | '–' | '—')
        {
            self.gap = true;
        }
        // Anything else (apostrophes, commas, brackets) is dropped: "Client's
        // notes" and "Clients notes" are the same name.
    }
}

/// Are the folded names `a` and `b` at most one edit apart (insert, delete,
/// replace, or swap two neighbours)?
fn within_one_edit(a: &[char], b: &[char]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let first = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    if first == short.len() {
        return true;
    }
    if short.len() == long.len() {
        let rest_same = |from: usize| short[from..] == long[from..];
        // Replaced, or swapped with its neighbour.
        rest_same(first + 1)
            || (first + 1 < short.len()
                && short[first] == long[first + 1]
                && short[first + 1] == long[first]
                && rest_same(first + 2))
    } else {
        short[first..] == long[first + 1..]
    }
}

/// The names of a memory, indexed for [`NearMisses::find`]. The same names
/// give the same answers, whatever order they were given in.
///
/// Kept in a few flat arrays rather than a string and a map entry per name:
/// a bank of 100,000 articles made half a million small allocations here,
/// built and freed on one core while the other waited.
#[derive(Debug, Default)]
pub struct NearMisses {
    /// The names, sorted, each once, end to end; see [`NearMisses::name`].
    /// Where each name ends, 32-bit (see [`to_u32`]): the index is kept
    /// with a report for its re-checks, and 64-bit ends were a fifth of it.
    names: String,
    name_ends: Vec<u32>,
    /// The folded names in the same order, end to end.
    folded: String,
    folded_ends: Vec<u32>,
    /// (hash of a folded name, name), sorted: the names that fold to a
    /// text are found by its hash, then compared, in name order.
    by_fold: Keyed,
    /// (hash of length, end and that half, name), sorted. One edit leaves
    /// the first or the last [`half`] characters of a name as they were,
    /// so a name an edit away shares one of its halves with the written
    /// one: only those few are compared, however many names share a first
    /// letter (100,000 synthetic style guides all begin with "s"). A hash
    /// that collides only adds a name to compare, never changes an answer.
    by_half: Keyed,
}

/// Sorted `(key, name)` pairs, kept as two arrays: a pair of a `u64` and a
/// `u32` takes 16 bytes with its padding, the two arrays 12.
#[derive(Debug, Default)]
struct Keyed {
    keys: Vec<u64>,
    names: Vec<u32>,
    /// When asked for: where the keys whose top bits are `t` start, for
    /// each `t` (and the end last), so a lookup searches a bucket of a key
    /// or two instead of every key. Empty otherwise.
    starts: Vec<u32>,
    /// The keys shifted right by this leave the bits `starts` is indexed by.
    shift: u32,
}

impl Keyed {
    /// The pairs, sorted (by key, then name) and split.
    fn of(mut pairs: Vec<(u64, u32)>, parallel: bool) -> Keyed {
        if parallel {
            pairs.par_sort_unstable();
        } else {
            pairs.sort_unstable();
        }
        Keyed {
            keys: pairs.iter().map(|p| p.0).collect(),
            names: pairs.iter().map(|p| p.1).collect(),
            starts: Vec::new(),
            shift: 0,
        }
    }

    /// [`Keyed::of`] with a bucket for about every key: for the written
    /// names of [`find_each`], looked up hundreds of thousands of times
    /// each, where a binary search missed the cache at every step.
    fn bucketed(pairs: Vec<(u64, u32)>) -> Keyed {
        let mut keyed = Keyed::of(pairs, false);
        let Ok(len) = u32::try_from(keyed.keys.len()) else {
            return keyed;
        };
        let bits = len.max(2).ilog2();
        keyed.shift = u64::BITS - bits;
        let mut starts = Vec::with_capacity((1 << bits) + 1);
        for (i, &key) in keyed.keys.iter().enumerate() {
            let bucket = (key >> keyed.shift) as usize;
            // `i` fits: there are `len` keys.
            starts.resize(starts.len().max(bucket + 1), i as u32);
        }
        starts.resize((1 << bits) + 1, len);
        keyed.starts = starts;
        keyed
    }

    /// The names with this key, in name order.
    fn with_key(&self, key: u64) -> impl Iterator<Item = u32> + '_ {
        let (lo, hi) = match self.starts.get((key >> self.shift) as usize..) {
            Some([lo, hi, ..]) => (*lo as usize, *hi as usize),
            _ => (0, self.keys.len()),
        };
        let keys = self.keys.get(lo..hi).unwrap_or(&[]);
        let from = keys.partition_point(|&k| k < key);
        let to = from + keys[from..].partition_point(|&k| k == key);
        self.names
            .get(lo + from..lo + to)
            .unwrap_or(&[])
            .iter()
            .copied()
    }
}

/// `n` in 32 bits, saturated: the names of a bank are far from 4 GB
/// together, and a saturated end only makes its name read as empty
/// (see [`NearMisses::span`]), never out of bounds.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// How many characters at either end of a name of `len` characters one
/// edit cannot reach both of: an edit at position p keeps the p characters
/// before it and all but two of the characters after it.
fn half(len: usize) -> usize {
    len.saturating_sub(2) / 2
}

/// The key of the first (`prefix`) or last [`half`] of `len` characters
/// of the folded text `folded`, which has `chars` characters.
fn half_key(folded: &str, chars: usize, len: usize, prefix: bool) -> Option<u64> {
    let h = half(len);
    if chars < h {
        return None;
    }
    // A text with as many characters as bytes is ASCII: each at its byte.
    let ascii = chars == folded.len();
    let byte_at = |nth: usize| match ascii {
        true => nth.min(folded.len()),
        false => folded
            .char_indices()
            .nth(nth)
            .map_or(folded.len(), |(i, _)| i),
    };
    let part = if prefix {
        &folded[..byte_at(h)]
    } else {
        &folded[byte_at(chars - h)..]
    };
    let mut hasher = FxHasher::default();
    hasher.write_usize(len);
    hasher.write_u8(u8::from(prefix));
    hasher.write(part.as_bytes());
    Some(hasher.finish())
}

fn text_hash(text: &str) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(text.as_bytes());
    hasher.finish()
}

/// What one run of consecutive names adds to the index, made on any core.
struct Part {
    folded: String,
    folded_ends: Vec<usize>,
    by_fold: Vec<(u64, u32)>,
    by_half: Vec<(u64, u32)>,
}

/// Names folded and keyed in runs of this many, a run per task.
const RUN: usize = 1024;

impl NearMisses {
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> NearMisses {
        let mut names: Vec<&str> = names.into_iter().collect();
        let parallel = crate::parallel::pays(names.len());
        if parallel {
            names.par_sort_unstable();
        } else {
            names.sort_unstable();
        }
        names.dedup();
        let fold_run = |(run, names): (usize, &[&str])| {
            let first = run * RUN;
            let mut part = Part {
                folded: String::new(),
                folded_ends: Vec::with_capacity(names.len()),
                by_fold: Vec::with_capacity(names.len()),
                by_half: Vec::new(),
            };
            for (i, name) in names.iter().enumerate() {
                let i = u32::try_from(first + i).unwrap_or(u32::MAX);
                let start = part.folded.len();
                fold_into(&mut part.folded, name);
                let folded = &part.folded[start..];
                let chars = folded.chars().count();
                if chars >= MIN_LEN_FOR_AN_EDIT {
                    for prefix in [true, false] {
                        if let Some(key) = half_key(folded, chars, chars, prefix) {
                            part.by_half.push((key, i));
                        }
                    }
                }
                part.by_fold.push((text_hash(folded), i));
                part.folded_ends.push(part.folded.len());
            }
            part
        };
        let parts: Vec<Part> = if parallel {
            names.par_chunks(RUN).enumerate().map(fold_run).collect()
        } else {
            names.chunks(RUN).enumerate().map(fold_run).collect()
        };
        let mut index = NearMisses {
            names: String::with_capacity(names.iter().map(|n| n.len()).sum()),
            name_ends: Vec::with_capacity(names.len()),
            folded: String::with_capacity(parts.iter().map(|p| p.folded.len()).sum()),
            folded_ends: Vec::with_capacity(names.len()),
            by_fold: Keyed::default(),
            by_half: Keyed::default(),
        };
        let mut by_fold = Vec::with_capacity(names.len());
        let mut by_half = Vec::with_capacity(parts.iter().map(|p| p.by_half.len()).sum());
        for name in &names {
            index.names.push_str(name);
            index.name_ends.push(to_u32(index.names.len()));
        }
        for part in parts {
            let offset = index.folded.len();
            index.folded.push_str(&part.folded);
            index
                .folded_ends
                .extend(part.folded_ends.iter().map(|end| to_u32(end + offset)));
            by_fold.extend(part.by_fold);
            by_half.extend(part.by_half);
        }
        // Name numbers break ties, so names with the same key stay in name order.
        if parallel {
            (index.by_fold, index.by_half) =
                rayon::join(|| Keyed::of(by_fold, true), || Keyed::of(by_half, true));
        } else {
            index.by_fold = Keyed::of(by_fold, false);
            index.by_half = Keyed::of(by_half, false);
        }
        index
    }

    fn span(ends: &[u32], i: usize) -> Range<usize> {
        let start = if i == 0 { 0 } else { ends[i - 1] as usize };
        start..ends[i] as usize
    }

    /// The `i`th name in name order.
    fn name(&self, i: u32) -> &str {
        self.names
            .get(Self::span(&self.name_ends, i as usize))
            .unwrap_or("")
    }

    /// The `i`th name, folded.
    fn folded_name(&self, i: u32) -> &str {
        self.folded
            .get(Self::span(&self.folded_ends, i as usize))
            .unwrap_or("")
    }

    /// Is `name` itself one of the names?
    fn contains(&self, name: &str) -> bool {
        let (mut low, mut high) = (0, self.name_ends.len());
        while low < high {
            let mid = low + (high - low) / 2;
            match self.name(mid as u32).cmp(name) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }

    /// The names that fold to `folded`, in name order.
    fn folding_to<'s>(&'s self, folded: &'s str) -> impl Iterator<Item = u32> + 's {
        self.by_fold
            .with_key(text_hash(folded))
            .filter(move |&i| self.folded_name(i) == folded)
    }

    /// The names one edit away from the folded `folded`, in name order.
    fn one_edit_away(&self, folded: &str) -> Vec<u32> {
        let chars: Vec<char> = folded.chars().collect();
        let len = chars.len();
        if len < MIN_LEN_FOR_AN_EDIT.saturating_sub(1) {
            return Vec::new();
        }
        let mut near: Vec<u32> = (len.saturating_sub(1)..=len + 1)
            .flat_map(|l| {
                [
                    half_key(folded, len, l, true),
                    half_key(folded, len, l, false),
                ]
            })
            .flatten()
            .flat_map(|key| self.by_half.with_key(key))
            .filter(|&i| {
                let other: Vec<char> = self.folded_name(i).chars().collect();
                len.min(other.len()) >= MIN_LEN_FOR_AN_EDIT && within_one_edit(&chars, &other)
            })
            .collect();
        near.sort_unstable();
        near.dedup();
        near
    }

    /// The name `written` most likely meant: one that folds to the same
    /// text, else the first (in name order) one edit away. `None` when no
    /// name is that close, or when `written` is itself one of the names.
    pub fn find(&self, written: &str) -> Option<&str> {
        if self.contains(written) {
            return None;
        }
        let folded = fold(written);
        if let Some(i) = self.folding_to(&folded).next() {
            return Some(self.name(i));
        }
        self.one_edit_away(&folded).first().map(|&i| self.name(i))
    }

    /// The one name `written` can have meant, for a change made without
    /// asking: the only name that folds to the same text, or, when none
    /// does, the only one an edit away. `None` when there are several.
    pub fn only(&self, written: &str) -> Option<&str> {
        if self.contains(written) {
            return None;
        }
        let folded = fold(written);
        let mut same = self.folding_to(&folded);
        match (same.next(), same.next()) {
            (Some(i), None) => return Some(self.name(i)),
            (Some(_), Some(_)) => return None,
            _ => {}
        }
        match self.one_edit_away(&folded).as_slice() {
            [i] => Some(self.name(*i)),
            _ => None,
        }
    }

    /// The one name `written` is spelt as but for case, width, spacing
    /// (`-`, `_` for a space) or `&` for "and" (see [`spelling`]), or a
    /// `.md` written after it: a difference that cannot make another name,
    /// so the link can be pointed at it without asking. `None` when no
    /// name or several are, or when `written` is itself one of the names.
    pub fn same_name(&self, written: &str) -> Option<&str> {
        if self.contains(written) {
            return None;
        }
        let written = written.strip_suffix(".md").unwrap_or(written);
        let key = spelling(written);
        let folded = fold(written);
        // A name spelt the same folds the same: only those are compared.
        let mut same = self
            .folding_to(&folded)
            .filter(|&i| spelling(self.name(i)) == key);
        match (same.next(), same.next()) {
            (Some(i), None) => Some(self.name(i)),
            _ => None,
        }
    }
}

/// What one name found for one of the written names of [`find_each`].
#[derive(Clone, Copy)]
enum Hit {
    /// The written name is this name.
    Listed,
    /// This name folds to the same text.
    Same,
    /// This name is one edit away.
    Edit,
}

/// The written names of [`find_each`], indexed as [`NearMisses`] indexes
/// names: by their text, by what they fold to, and by the halves an edit
/// leaves as they were, for each length a name one edit away may have.
struct Written<'w> {
    written: &'w [&'w str],
    folded: Vec<Vec<char>>,
    folded_text: Vec<String>,
    by_text: Keyed,
    by_fold: Keyed,
    by_half: Keyed,
    /// The bytes the written names begin with, and their folds begin and
    /// end with. A name that is one, folds the same or shares a half with
    /// one begins or ends as it does: most names of a bank need none of
    /// the lookups but the fold (a hash that collides is no hit to miss:
    /// a name an edit away shares a half as it is, not just its hash).
    text_first: Bytes,
    fold_first: Bytes,
    fold_last: Bytes,
}

/// A set of bytes.
#[derive(Default)]
struct Bytes([u64; 4]);

impl Bytes {
    fn insert(&mut self, b: Option<&u8>) {
        if let Some(&b) = b {
            self.0[usize::from(b >> 6)] |= 1 << (b & 63);
        }
    }

    /// Can a text with this byte at that end be one of the set's? An empty
    /// text always can.
    fn may_hold(&self, b: Option<&u8>) -> bool {
        b.is_none_or(|&b| self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0)
    }
}

impl<'w> Written<'w> {
    fn new(written: &'w [&'w str]) -> Written<'w> {
        let mut folded_names = Vec::with_capacity(written.len());
        let mut folded_texts = Vec::with_capacity(written.len());
        let mut by_text = Vec::with_capacity(written.len());
        let mut by_fold = Vec::with_capacity(written.len());
        let mut by_half = Vec::new();
        let (mut text_first, mut fold_first, mut fold_last) = Default::default();
        for (j, w) in written.iter().enumerate() {
            let j = u32::try_from(j).unwrap_or(u32::MAX);
            let folded = fold(w);
            let len = folded.chars().count();
            // The keys `NearMisses::one_edit_away` looks a name up by.
            if len >= MIN_LEN_FOR_AN_EDIT.saturating_sub(1) {
                for l in len.saturating_sub(1)..=len + 1 {
                    for prefix in [true, false] {
                        if let Some(key) = half_key(&folded, len, l, prefix) {
                            by_half.push((key, j));
                        }
                    }
                }
            }
            Bytes::insert(&mut text_first, w.as_bytes().first());
            Bytes::insert(&mut fold_first, folded.as_bytes().first());
            Bytes::insert(&mut fold_last, folded.as_bytes().last());
            by_text.push((text_hash(w), j));
            by_fold.push((text_hash(&folded), j));
            folded_names.push(folded.chars().collect());
            folded_texts.push(folded);
        }
        Written {
            written,
            folded: folded_names,
            folded_text: folded_texts,
            by_text: Keyed::bucketed(by_text),
            by_fold: Keyed::bucketed(by_fold),
            by_half: Keyed::bucketed(by_half),
            text_first,
            fold_first,
            fold_last,
        }
    }

    /// What `name` is to each written name it is, or may have been meant
    /// by, appended to `hits`; `folded` is room for its folded text.
    fn hits<'a>(&self, name: &'a str, folded: &mut String, hits: &mut Vec<(u32, Hit, &'a str)>) {
        if self.text_first.may_hold(name.as_bytes().first()) {
            for j in self.by_text.with_key(text_hash(name)) {
                if self.written[j as usize] == name {
                    hits.push((j, Hit::Listed, name));
                }
            }
        }
        folded.clear();
        fold_into(folded, name);
        let first = self.fold_first.may_hold(folded.as_bytes().first());
        if first {
            for j in self.by_fold.with_key(text_hash(folded)) {
                if self.folded_text[j as usize] == *folded {
                    hits.push((j, Hit::Same, name));
                }
            }
        }
        // Only a name this long is indexed by its halves (see `NearMisses::new`).
        let len = folded.chars().count();
        if len < MIN_LEN_FOR_AN_EDIT {
            return;
        }
        let mut chars: Option<Vec<char>> = None;
        let last = self.fold_last.may_hold(folded.as_bytes().last());
        for prefix in [true, false] {
            if !(if prefix { first } else { last }) {
                continue;
            }
            let Some(key) = half_key(folded, len, len, prefix) else {
                continue;
            };
            for j in self.by_half.with_key(key) {
                let w = &self.folded[j as usize];
                let chars = chars.get_or_insert_with(|| folded.chars().collect());
                if w.len().min(len) >= MIN_LEN_FOR_AN_EDIT && within_one_edit(w, chars) {
                    hits.push((j, Hit::Edit, name));
                }
            }
        }
    }
}

/// For each of `written`, what [`NearMisses::find`] answers on the index
/// of `names`, found without that index: the written names are indexed
/// instead, and each name is looked up among them. A check asks this for
/// the few thousand names its dead links give against every file's name:
/// each name is folded once, and nothing of the names' size is sorted or
/// kept.
pub fn find_each<'a>(names: &[&'a str], written: &[&str]) -> Vec<Option<&'a str>> {
    let index = Written::new(written);
    let run = |names: &[&'a str]| {
        let mut folded = String::new();
        let mut hits = Vec::new();
        for name in names {
            index.hits(name, &mut folded, &mut hits);
        }
        hits
    };
    let hits: Vec<Vec<(u32, Hit, &'a str)>> = if crate::parallel::pays(names.len()) {
        names.par_chunks(RUN).map(run).collect()
    } else {
        vec![run(names)]
    };
    // (listed, the first name that folds the same, the first an edit away)
    let mut best: Vec<(bool, Option<&'a str>, Option<&'a str>)> =
        vec![(false, None, None); written.len()];
    let first = |slot: &mut Option<&'a str>, name: &'a str| {
        if slot.is_none_or(|s| name < s) {
            *slot = Some(name);
        }
    };
    for (j, hit, name) in hits.into_iter().flatten() {
        let b = &mut best[j as usize];
        match hit {
            Hit::Listed => b.0 = true,
            Hit::Same => first(&mut b.1, name),
            Hit::Edit => first(&mut b.2, name),
        }
    }
    best.into_iter()
        .map(|(listed, same, edit)| if listed { None } else { same.or(edit) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bucketed index answers every key as the plain one does: keys that
    /// share their top bits or differ only there, repeated keys with
    /// several names, the ends of the range, and no keys or one.
    #[test]
    fn buckets_find_what_the_plain_index_finds() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for len in [0usize, 1, 2, 3, 7, 64, 1000] {
            let mut pairs: Vec<(u64, u32)> = (0..len)
                .map(|i| {
                    let key = match next() % 4 {
                        0 => next() >> 40,
                        1 => next() | (u64::MAX << 60),
                        2 => (i as u64 / 3) << 50,
                        _ => next(),
                    };
                    (key, (next() % 50) as u32)
                })
                .collect();
            pairs.extend(
                [(0, 1), (u64::MAX, 2), (u64::MAX, 0)]
                    .iter()
                    .take(len.min(3)),
            );
            let plain = Keyed::of(pairs.clone(), false);
            let bucketed = Keyed::bucketed(pairs.clone());
            let asked = pairs
                .iter()
                .flat_map(|&(k, _)| [k, k.wrapping_add(1), k.wrapping_sub(1), k ^ (1 << 63)])
                .chain([0, 1, u64::MAX]);
            for key in asked {
                let want: Vec<u32> = plain.with_key(key).collect();
                assert_eq!(
                    bucketed.with_key(key).collect::<Vec<_>>(),
                    want,
                    "{len} {key:#x}"
                );
            }
        }
    }

    /// The fold as it was written before ASCII runs were folded a byte at
    /// a time: every character through the (compatibility) decomposition.
    fn fold_through_decomposition(name: &str) -> String {
        let mut out = String::new();
        let mut gap = false;
        let push = |out: &mut String, text: &str, gap: &mut bool| {
            if std::mem::take(gap) && !out.is_empty() {
                out.push(' ');
            }
            out.push_str(text);
        };
        for c in name.nfkd().filter(|c| !is_combining_mark(*c)) {
            if c == '&' {
                gap = true;
                push(&mut out, "and", &mut gap);
                gap = true;
            } else if c.is_alphanumeric() {
                let mut buf = [0u8; 4];
                for lower in c.to_lowercase() {
                    push(&mut out, lower.encode_utf8(&mut buf), &mut gap);
                }
            } else if c.is_whitespace()
                || matches!(c, '-' | '_' | '/' | '.' | '+' | '·' | '–' | '—')
            {
                gap = true;
            }
        }
        out
    }

    /// A small deterministic generator (xorshift) of numbers below `n`,
    /// so a failing case can be run again.
    fn xorshift(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        }
    }

    /// Names joined from pieces that fold in every way: each ASCII
    /// character, accents precomposed and as marks after ASCII and other
    /// letters (marks reordered by their classes), separators of both
    /// kinds, `&`, letters that lower to two characters or by their
    /// neighbours, and marks at the start.
    #[test]
    fn the_fold_is_the_decompositions_fold() {
        let pieces: Vec<String> = (0..128u8)
            .map(|b| char::from(b).to_string())
            .chain(
                [
                    "é",
                    "e\u{301}",
                    "\u{301}",
                    "a\u{316}\u{301}",
                    "a\u{301}\u{316}",
                    "Å",
                    "Ω",
                    "→",
                    "·",
                    "–",
                    "—",
                    "\u{a0}",
                    "\u{2003}",
                    "İ",
                    "Σ",
                    "ς",
                    "ẞ",
                    "ß",
                    "\u{212A}",
                    "Ǆ",
                    "ﬁ",
                    "한",
                    "\u{1100}\u{1161}",
                    "😀",
                    "\u{fffd}",
                    "٣",
                    "Ⅻ",
                    "Ⓐ",
                    " & ",
                    "-_-",
                    "  ",
                    "Café",
                    "Crème brûlée",
                ]
                .map(str::to_owned),
            )
            .collect();
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for piece in &pieces {
            assert_eq!(fold(piece), fold_through_decomposition(piece), "{piece:?}");
        }
        for _ in 0..20_000 {
            let name: String = (0..next(8))
                .map(|_| pieces[next(pieces.len())].as_str())
                .collect();
            assert_eq!(fold(&name), fold_through_decomposition(&name), "{name:?}");
            // Appended after text already there, as the index folds.
            let mut out = String::from("x y");
            fold_into(&mut out, &name);
            assert_eq!(out, format!("x y{}", fold(&name)), "{name:?}");
        }
    }

    /// The answers of [`find_each`] on names chosen to meet at either end
    /// and not: the written names' first and last bytes pass some names
    /// by before their halves are looked up, so each is asked about names
    /// an edit away at the first and the last character, in other cases
    /// and accents, with separators, and about names too short for an
    /// edit, against comparing every name.
    #[test]
    fn find_each_finds_what_comparing_every_name_finds() {
        let mut next = xorshift(0x0123_4567_89ab_cdef);
        let letters = [
            "a", "b", "c", "A", "É", "é", "e\u{301}", " ", "_", "-", "&", "→", "'",
        ];
        let word = |next: &mut dyn FnMut(usize) -> usize| -> String {
            let len = 1 + next(9);
            (0..len).map(|_| letters[next(letters.len())]).collect()
        };
        let mut names: Vec<String> = (0..1500).map(|_| word(&mut next)).collect();
        names.push(String::new());
        names.push("x".repeat(300));
        let mut written: Vec<String> = Vec::new();
        for name in names.iter().take(400) {
            let chars: Vec<char> = name.chars().collect();
            let edited = |i: usize, with: &str| -> String {
                let mut c = chars.clone();
                if i < c.len() {
                    c.remove(i);
                }
                let at = i.min(c.len());
                let mut s: String = c[..at].iter().collect();
                s.push_str(with);
                s.extend(&c[at..]);
                s
            };
            written.push(name.to_uppercase());
            written.push(edited(0, "z"));
            written.push(edited(chars.len().saturating_sub(1), "z"));
            written.push(format!("q{name}"));
            written.push(format!("{name}q"));
            written.push(name.replace(' ', "_"));
        }
        written.extend((0..400).map(|_| word(&mut next)));
        written.push("x".repeat(299));
        written.push(String::new());
        written.sort_unstable();
        written.dedup();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let written: Vec<&str> = written.iter().map(String::as_str).collect();
        let index = NearMisses::new(names.iter().copied());
        let found = find_each(&names, &written);
        let folded: Vec<Vec<char>> = names.iter().map(|n| fold(n).chars().collect()).collect();
        for (w, found) in written.iter().zip(found) {
            assert_eq!(found, index.find(w), "{w:?}");
            let f: Vec<char> = fold(w).chars().collect();
            let first = |keep: &dyn Fn(usize) -> bool| {
                (0..names.len())
                    .filter(|&i| keep(i))
                    .map(|i| names[i])
                    .min()
            };
            let same = first(&|i| folded[i] == f);
            let edit = first(&|i| {
                f.len().min(folded[i].len()) >= MIN_LEN_FOR_AN_EDIT
                    && within_one_edit(&f, &folded[i])
            });
            let want = if names.contains(w) {
                None
            } else {
                same.or(edit)
            };
            assert_eq!(found, want, "{w:?}");
        }
    }

    fn near(written: &str, names: &[&str]) -> Option<String> {
        NearMisses::new(names.iter().copied())
            .find(written)
            .map(str::to_owned)
    }

    #[test]
    fn folding_ignores_case_accents_ampersands_and_punctuation() {
        assert_eq!(fold("Travel & Tourism"), "travel and tourism");
        assert_eq!(fold("travel-and_tourism"), "travel and tourism");
        assert_eq!(fold("Café  Crème"), "cafe creme");
        assert_eq!(fold("Client's notes (2024)"), "clients notes 2024");
    }

    #[test]
    fn an_ascii_name_folds_as_its_decomposition_does() {
        // "é" sends the name through the decomposition; "e" is what it
        // folds to, and leaves the name ASCII.
        for c in (0..128u8).map(char::from) {
            assert_eq!(
                fold(&format!("ab{c}Cdé")),
                fold(&format!("ab{c}Cde")),
                "{c:?}"
            );
        }
    }

    #[test]
    fn only_answers_when_one_name_is_that_close() {
        let index = NearMisses::new(["Travel and Tourism", "Contract", "Contracts", "Legal"]);
        assert_eq!(index.only("Travel & Tourism"), Some("Travel and Tourism"));
        assert_eq!(index.only("legal"), Some("Legal"));
        // "Contracte" is one edit from both: no single answer.
        assert_eq!(index.only("Contracte"), None);
        assert_eq!(
            index.only("Legal"),
            None,
            "a name that exists is no near miss"
        );
        let twins = NearMisses::new(["Café", "Cafe"]);
        assert_eq!(twins.only("CAFE"), None);
    }

    /// What a dead link is pointed at without asking: a name spelt the
    /// same but for case, width, spacing or `&`. A letter, a digit, an
    /// accent or punctuation more or less can be another name, which is
    /// only suggested.
    #[test]
    fn the_same_name_differs_only_where_no_other_name_can() {
        let index = NearMisses::new([
            "Travel and Tourism",
            "Data-Science",
            "Ｗｉｄｅ",
            "Sliver",
            "Monkey",
            "TLS 1.3",
            "Plane",
            "Bär",
            "C",
            "Node.js",
            "Client's notes",
        ]);
        for (written, meant) in [
            ("Travel & Tourism", "Travel and Tourism"),
            ("travel-and_tourism", "Travel and Tourism"),
            ("Data Science", "Data-Science"),
            ("data_science", "Data-Science"),
            ("Data  –  Science", "Data-Science"),
            ("Data Science.md", "Data-Science"),
            ("Wide", "Ｗｉｄｅ"),
            ("SLIVER", "Sliver"),
        ] {
            assert_eq!(index.same_name(written), Some(meant), "{written:?}");
        }
        for written in [
            "Liver",
            "Money",
            "TLS 1.0",
            "Plant",
            "Bar",
            "C++",
            "C-",
            "Node js",
            "Clients notes",
        ] {
            assert_eq!(index.same_name(written), None, "{written:?}");
            assert!(
                index.find(written).is_some(),
                "still suggested: {written:?}"
            );
        }
        assert_eq!(index.same_name("Sliver"), None, "a name that exists");
        let twins = NearMisses::new(["Data Science", "data-science"]);
        assert_eq!(twins.same_name("Data_Science"), None, "two are the same");
    }

    #[test]
    fn a_name_that_folds_the_same_is_found() {
        let names = ["Travel and Tourism", "Legal", "Medical"];
        assert_eq!(
            near("Travel & Tourism", &names).as_deref(),
            Some("Travel and Tourism")
        );
        assert_eq!(near("legal", &names).as_deref(), Some("Legal"));
        assert_eq!(near("Médical", &names).as_deref(), Some("Medical"));
    }

    #[test]
    fn one_edit_is_a_slip_two_are_another_name() {
        let names = ["Terminology", "Pharmaceutical"];
        assert_eq!(near("Terminolgy", &names).as_deref(), Some("Terminology"));
        assert_eq!(near("Termionlogy", &names).as_deref(), Some("Terminology"));
        assert_eq!(near("Terminologyy", &names).as_deref(), Some("Terminology"));
        assert_eq!(near("Tarminolgy", &names), None);
        assert_eq!(near("Pharma", &names), None);
    }

    #[test]
    fn short_names_must_fold_the_same() {
        assert_eq!(near("Car", &["Cat"]), None);
        assert_eq!(near("CAT", &["Cat"]).as_deref(), Some("Cat"));
    }

    #[test]
    fn an_existing_name_is_no_miss_and_ties_go_to_the_first_name() {
        assert_eq!(near("Legal", &["Legal", "legal"]), None);
        assert_eq!(
            near("Contract", &["Contracts", "Contrast"]).as_deref(),
            Some("Contracts")
        );
        assert_eq!(
            near("Contract", &["Contrast", "Contracts"]).as_deref(),
            Some("Contracts")
        );
    }

    /// The index answers as comparing the written name with every name
    /// would, on names close enough to collide in many ways: a few names
    /// indexed on this thread, and enough to be indexed in several runs on
    /// the pool.
    #[test]
    fn the_index_finds_what_comparing_every_name_finds() {
        for count in [200, 400, 3 * RUN + 7] {
            finds_what_comparing_every_name_finds(count);
        }
    }

    fn finds_what_comparing_every_name_finds(count: usize) {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15 ^ count as u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        let word = |next: &mut dyn FnMut(u64) -> u64| -> String {
            let len = 3 + next(7) as usize;
            (0..len)
                .map(|_| ['a', 'b', 'e', ' ', 'É', '&'][next(6) as usize])
                .collect()
        };
        let names: Vec<String> = (0..count).map(|_| word(&mut next)).collect();
        let index = NearMisses::new(names.iter().map(String::as_str));
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        let folded: Vec<Vec<char>> = sorted.iter().map(|n| fold(n).chars().collect()).collect();
        let mut asked = Vec::new();
        for _ in 0..2000 {
            let written = word(&mut next);
            let w: Vec<char> = fold(&written).chars().collect();
            let exact: Vec<usize> = (0..sorted.len()).filter(|&i| folded[i] == w).collect();
            let edit: Vec<usize> = (0..sorted.len())
                .filter(|&i| {
                    w.len().min(folded[i].len()) >= MIN_LEN_FOR_AN_EDIT
                        && within_one_edit(&w, &folded[i])
                })
                .collect();
            let listed = sorted.binary_search(&written).is_ok();
            let find = match (listed, exact.first(), edit.first()) {
                (true, ..) => None,
                (false, Some(&i), _) | (false, None, Some(&i)) => Some(sorted[i].as_str()),
                (false, None, None) => None,
            };
            assert_eq!(index.find(&written), find, "{written:?}");
            let only = match (listed, exact.as_slice(), edit.as_slice()) {
                (true, ..) => None,
                (false, [i], _) | (false, [], [i]) => Some(sorted[*i].as_str()),
                _ => None,
            };
            assert_eq!(index.only(&written), only, "{written:?}");
            asked.push(written);
        }
        // The same answers, found from the written names' side.
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let asked: Vec<&str> = asked.iter().map(String::as_str).collect();
        let found = find_each(&names, &asked);
        for (written, found) in asked.iter().zip(found) {
            assert_eq!(found, index.find(written), "{written:?}");
        }
    }
}
