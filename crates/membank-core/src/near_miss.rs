//! Near misses: a name written with one of the slips people make when they
//! type a link to a file that exists. The rule is small and deterministic so
//! a suggestion can be trusted, and one day applied without asking:
//!
//! - the names are compared folded: case, accents, `&` against "and",
//!   punctuation and `-`/`_` against spaces make no difference;
//! - failing that, the folded names may differ by one edit (a letter added,
//!   dropped or replaced, or two neighbours swapped), when the name is long
//!   enough for one edit to be a slip rather than another word.

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Shorter folded names must match exactly after folding: "cat" and "car"
/// are different words, not a slip.
const MIN_LEN_FOR_AN_EDIT: usize = 5;

/// `name` as the near-miss rule compares it: lower case, accents removed,
/// `&` read as "and", `-`, `_` and other separators read as a space,
/// other punctuation dropped, runs of spaces made one.
pub fn fold(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    // A separator seen since the last word character: one space before the next.
    let mut gap = false;
    let push = |out: &mut String, text: &str, gap: &mut bool| {
        if std::mem::take(gap) && !out.is_empty() {
            out.push(' ');
        }
        out.push_str(text);
    };
    for c in name.nfd().filter(|c| !is_combining_mark(*c)) {
        if c == '&' {
            gap = true;
            push(&mut out, "and", &mut gap);
            gap = true;
        } else if c.is_alphanumeric() {
            let mut buf = [0u8; 4];
            for lower in c.to_lowercase() {
                push(&mut out, lower.encode_utf8(&mut buf), &mut gap);
            }
        } else if c.is_whitespace() || matches!(c, '-' | '_' | '/' | '.' | '+' | '·' | '–' | '—')
        {
            gap = true;
        }
        // Anything else (apostrophes, commas, brackets) is dropped: "Client's
        // notes" and "Clients notes" are the same name.
    }
    out
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
#[derive(Debug, Default)]
pub struct NearMisses {
    /// The names, sorted, each once.
    names: Vec<String>,
    folded: Vec<Vec<char>>,
    /// Folded name → the names that fold to it, in name order.
    by_fold: HashMap<String, Vec<u32>>,
    /// (length, prefix or suffix, hash of that half) → names. One edit
    /// leaves the first or the last [`half`] characters of a name as they
    /// were, so a name an edit away shares one of its halves with the
    /// written one: only those few are compared, however many names share
    /// a first letter (100,000 synthetic style guides all begin with "s").
    by_half: HashMap<(usize, bool, u64), Vec<u32>>,
}

/// How many characters at either end of a name of `len` characters one
/// edit cannot reach both of: an edit at position p keeps the p characters
/// before it and all but two of the characters after it.
fn half(len: usize) -> usize {
    len.saturating_sub(2) / 2
}

fn half_key(chars: &[char], len: usize, prefix: bool) -> Option<(usize, bool, u64)> {
    use std::hash::{Hash, Hasher};
    let h = half(len);
    if chars.len() < h {
        return None;
    }
    let part = if prefix {
        &chars[..h]
    } else {
        &chars[chars.len() - h..]
    };
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    part.hash(&mut hasher);
    Some((len, prefix, hasher.finish()))
}

impl NearMisses {
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> NearMisses {
        let mut names: Vec<String> = names.into_iter().map(str::to_owned).collect();
        names.sort_unstable();
        names.dedup();
        let mut index = NearMisses::default();
        for (i, name) in names.iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            let folded = fold(name);
            let chars: Vec<char> = folded.chars().collect();
            if chars.len() >= MIN_LEN_FOR_AN_EDIT {
                for prefix in [true, false] {
                    if let Some(key) = half_key(&chars, chars.len(), prefix) {
                        index.by_half.entry(key).or_default().push(i);
                    }
                }
            }
            index.by_fold.entry(folded).or_default().push(i);
            index.folded.push(chars);
        }
        index.names = names;
        index
    }

    /// The names one edit away from the folded `chars`, in name order.
    fn one_edit_away(&self, chars: &[char]) -> Vec<u32> {
        let len = chars.len();
        if len < MIN_LEN_FOR_AN_EDIT.saturating_sub(1) {
            return Vec::new();
        }
        let mut near: Vec<u32> = (len.saturating_sub(1)..=len + 1)
            .flat_map(|l| [half_key(chars, l, true), half_key(chars, l, false)])
            .flatten()
            .filter_map(|key| self.by_half.get(&key))
            .flatten()
            .copied()
            .filter(|&i| {
                let other = &self.folded[i as usize];
                len.min(other.len()) >= MIN_LEN_FOR_AN_EDIT && within_one_edit(chars, other)
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
        if self
            .names
            .binary_search_by(|n| n.as_str().cmp(written))
            .is_ok()
        {
            return None;
        }
        let folded = fold(written);
        if let Some(&i) = self.by_fold.get(&folded).and_then(|same| same.first()) {
            return Some(&self.names[i as usize]);
        }
        let chars: Vec<char> = folded.chars().collect();
        self.one_edit_away(&chars)
            .first()
            .map(|&i| self.names[i as usize].as_str())
    }

    /// The one name `written` can have meant, for a change made without
    /// asking: the only name that folds to the same text, or, when none
    /// does, the only one an edit away. `None` when there are several.
    pub fn only(&self, written: &str) -> Option<&str> {
        if self
            .names
            .binary_search_by(|n| n.as_str().cmp(written))
            .is_ok()
        {
            return None;
        }
        let folded = fold(written);
        match self.by_fold.get(&folded).map(Vec::as_slice) {
            Some([i]) => return Some(&self.names[*i as usize]),
            Some([_, _, ..]) => return None,
            _ => {}
        }
        let chars: Vec<char> = folded.chars().collect();
        match self.one_edit_away(&chars).as_slice() {
            [i] => Some(&self.names[*i as usize]),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    /// would, on names close enough to collide in many ways.
    #[test]
    fn the_index_finds_what_comparing_every_name_finds() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
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
        let names: Vec<String> = (0..400).map(|_| word(&mut next)).collect();
        let index = NearMisses::new(names.iter().map(String::as_str));
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        let folded: Vec<Vec<char>> = sorted.iter().map(|n| fold(n).chars().collect()).collect();
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
        }
    }
}
