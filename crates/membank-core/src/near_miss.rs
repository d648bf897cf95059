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
    /// Folded name → its first name.
    by_fold: HashMap<String, u32>,
    /// (length, first char) and (length, last char) → names: one edit keeps
    /// the first or the last character, and changes the length by at most one.
    by_ends: HashMap<(usize, char, bool), Vec<u32>>,
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
            if let (Some(&first), Some(&last)) = (chars.first(), chars.last()) {
                for key in [(chars.len(), first, true), (chars.len(), last, false)] {
                    index.by_ends.entry(key).or_default().push(i);
                }
            }
            index.by_fold.entry(folded).or_insert(i);
            index.folded.push(chars);
        }
        index.names = names;
        index
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
        if let Some(&i) = self.by_fold.get(&folded) {
            return Some(&self.names[i as usize]);
        }
        let chars: Vec<char> = folded.chars().collect();
        let (Some(&first), Some(&last)) = (chars.first(), chars.last()) else {
            return None;
        };
        let len = chars.len();
        (len.saturating_sub(1)..=len + 1)
            .flat_map(|l| [(l, first, true), (l, last, false)])
            .filter_map(|key| self.by_ends.get(&key))
            .flatten()
            .copied()
            .filter(|&i| {
                let other = &self.folded[i as usize];
                len.min(other.len()) >= MIN_LEN_FOR_AN_EDIT && within_one_edit(&chars, other)
            })
            .min()
            .map(|i| self.names[i as usize].as_str())
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
        let chars: Vec<char> = folded.chars().collect();
        let same: Vec<u32> = (0..self.names.len() as u32)
            .filter(|&i| self.folded[i as usize] == chars)
            .collect();
        match same.as_slice() {
            [i] => return Some(&self.names[*i as usize]),
            [_, _, ..] => return None,
            [] => {}
        }
        let (Some(&first), Some(&last)) = (chars.first(), chars.last()) else {
            return None;
        };
        let len = chars.len();
        let mut near: Vec<u32> = (len.saturating_sub(1)..=len + 1)
            .flat_map(|l| [(l, first, true), (l, last, false)])
            .filter_map(|key| self.by_ends.get(&key))
            .flatten()
            .copied()
            .filter(|&i| {
                let other = &self.folded[i as usize];
                len.min(other.len()) >= MIN_LEN_FOR_AN_EDIT && within_one_edit(&chars, other)
            })
            .collect();
        near.sort_unstable();
        near.dedup();
        match near.as_slice() {
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
}
