//! The index's postings, packed: for each term, the units it occurs in
//! and how often, as variable-length numbers in one byte array.
//!
//! A unit is written as its distance from the term's unit before (from 0
//! for the first), so most take one byte, and so do most counts; a
//! `(u32, u32)` pair per posting and a map entry per term took four to
//! five times as much at 100,000 articles. Terms are kept sorted in one
//! string and found by binary search, so the whole table is four
//! allocations however large the vocabulary.

use rustc_hash::FxHashMap;

/// Append `n` seven bits at a time, low bits first; the high bit of a
/// byte says another follows.
pub(super) fn push_varint(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Read a number written by [`push_varint`] at `*at`, moving past it. A
/// truncated number ends where the bytes do.
fn read_varint(bytes: &[u8], at: &mut usize) -> u32 {
    let mut n = 0u32;
    let mut shift = 0;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        if shift < 32 {
            n |= u32::from(b & 0x7f) << shift;
        }
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    n
}

/// One term's postings while they are gathered: packed already, with the
/// last unit written so the next can be written as a distance from it.
#[derive(Default)]
pub(super) struct Growing {
    bytes: Vec<u8>,
    last: u32,
    units: u32,
}

impl Growing {
    /// Add `unit` (larger than any added before) with `count` occurrences.
    pub(super) fn push(&mut self, unit: u32, count: u32) {
        let gap = if self.units == 0 {
            unit
        } else {
            unit - self.last
        };
        push_varint(&mut self.bytes, gap);
        push_varint(&mut self.bytes, count);
        self.last = unit;
        self.units += 1;
    }

    /// Append postings gathered for later units than these.
    pub(super) fn append(&mut self, later: Growing) {
        if self.units == 0 {
            *self = later;
            return;
        }
        if later.units == 0 {
            return;
        }
        // Its first unit is written from 0: write it again as a distance
        // from this one's last, and take the rest as it is.
        let mut at = 0;
        let first = read_varint(&later.bytes, &mut at);
        push_varint(&mut self.bytes, first - self.last);
        self.bytes.extend_from_slice(&later.bytes[at..]);
        self.last = later.last;
        self.units += later.units;
    }
}

/// Where one term is in [`Postings`]: the end of its text in `terms` and
/// of its postings in `bytes` (each starts where the term before ends),
/// and how many units it occurs in.
#[derive(Debug, Clone, Copy)]
struct Entry {
    term_end: usize,
    bytes_end: usize,
    units: u32,
}

/// Every term's postings, sorted by term.
#[derive(Debug, Default)]
pub(super) struct Postings {
    terms: String,
    entries: Vec<Entry>,
    bytes: Vec<u8>,
}

impl Postings {
    /// Pack the gathered postings of every term.
    pub(super) fn pack(gathered: FxHashMap<Box<str>, Growing>) -> Postings {
        let mut sorted: Vec<(Box<str>, Growing)> = gathered.into_iter().collect();
        sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let term_bytes = sorted.iter().map(|(t, _)| t.len()).sum();
        let posting_bytes = sorted.iter().map(|(_, g)| g.bytes.len()).sum();
        let mut out = Postings {
            terms: String::with_capacity(term_bytes),
            entries: Vec::with_capacity(sorted.len()),
            bytes: Vec::with_capacity(posting_bytes),
        };
        for (term, growing) in sorted {
            out.terms.push_str(&term);
            out.bytes.extend_from_slice(&growing.bytes);
            out.entries.push(Entry {
                term_end: out.terms.len(),
                bytes_end: out.bytes.len(),
                units: growing.units,
            });
        }
        out
    }

    fn term(&self, i: usize) -> &str {
        let start = if i == 0 {
            0
        } else {
            self.entries[i - 1].term_end
        };
        &self.terms[start..self.entries[i].term_end]
    }

    /// The postings of `term`, if it occurs anywhere.
    pub(super) fn get(&self, term: &str) -> Option<TermPostings<'_>> {
        let (mut lo, mut hi) = (0, self.entries.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.term(mid).cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let start = if mid == 0 {
                        0
                    } else {
                        self.entries[mid - 1].bytes_end
                    };
                    let entry = self.entries[mid];
                    return Some(TermPostings {
                        bytes: &self.bytes[start..entry.bytes_end],
                        units: entry.units,
                    });
                }
            }
        }
        None
    }
}

/// One term's postings, read back.
pub(super) struct TermPostings<'p> {
    bytes: &'p [u8],
    units: u32,
}

impl<'p> TermPostings<'p> {
    /// How many units the term occurs in.
    pub(super) fn units(&self) -> u32 {
        self.units
    }

    /// `(unit, occurrences)`, by unit.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, u32)> + 'p {
        let bytes = self.bytes;
        let mut at = 0;
        let mut unit = 0u32;
        let mut first = true;
        std::iter::from_fn(move || {
            if at >= bytes.len() {
                return None;
            }
            let gap = read_varint(bytes, &mut at);
            unit = if first { gap } else { unit.saturating_add(gap) };
            first = false;
            let count = read_varint(bytes, &mut at);
            Some((unit, count))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packed(terms: &[(&str, &[(u32, u32)])]) -> Postings {
        let mut gathered: FxHashMap<Box<str>, Growing> = FxHashMap::default();
        for (term, postings) in terms {
            let g = gathered.entry((*term).into()).or_default();
            for &(unit, count) in *postings {
                g.push(unit, count);
            }
        }
        Postings::pack(gathered)
    }

    #[test]
    fn postings_read_back_as_written_across_byte_boundaries() {
        let big: &[(u32, u32)] = &[
            (0, 1),
            (127, 128),
            (128, 16_383),
            (16_511, 16_384),
            (2_000_000, 1),
            (u32::MAX, u32::MAX),
        ];
        let p = packed(&[("zeta", big), ("alpha", &[(5, 2)]), ("mid", &[(0, 7)])]);
        let got: Vec<(u32, u32)> = p.get("zeta").unwrap().iter().collect();
        assert_eq!(got, big);
        assert_eq!(p.get("zeta").unwrap().units(), 6);
        assert_eq!(p.get("alpha").unwrap().iter().collect::<Vec<_>>(), [(5, 2)]);
        assert_eq!(p.get("mid").unwrap().iter().collect::<Vec<_>>(), [(0, 7)]);
        for absent in ["", "a", "alphabet", "zz", "m"] {
            assert!(p.get(absent).is_none(), "{absent}");
        }
        assert!(Postings::default().get("x").is_none());
    }

    #[test]
    fn appended_parts_continue_the_distances() {
        let mut whole = Growing::default();
        let mut first = Growing::default();
        let mut second = Growing::default();
        let mut empty_then = Growing::default();
        for (unit, count) in [(3, 1), (300, 2)] {
            first.push(unit, count);
            whole.push(unit, count);
        }
        for (unit, count) in [(301, 9), (70_000, 1)] {
            second.push(unit, count);
            whole.push(unit, count);
        }
        first.append(second);
        first.append(Growing::default());
        empty_then.append(first);
        assert_eq!(empty_then.bytes, whole.bytes);
        assert_eq!((empty_then.last, empty_then.units), (70_000, 4));
    }
}
