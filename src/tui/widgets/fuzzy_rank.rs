//! Ranking for the finder, apart from any drawing: what matches a query,
//! in which order, and how many match in all.
//!
//! A name typed exactly or as its beginning is what people look for, so
//! those come first whatever the fuzzy score says; within each tier the
//! bank's own articles come before index and template files, and those
//! before inbox notes and archived inbox notes. Typing one more character
//! only narrows the previous matches, so each keystroke re-scores the
//! matches of the query before it, not the whole bank.

use std::borrow::Cow;

use membank_core::text::nfc;
use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32String};

/// Where an item sits, for ordering among equally good matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Placement {
    /// An article of 01–04.
    Content,
    /// An index, a template or another file outside the content folders.
    Other,
    /// A note waiting in 00_INBOX.
    Inbox,
    /// A processed note in 00_INBOX/_archive.
    Archived,
}

/// One thing that can be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinderItem {
    /// The file name without `.md` (sanitised for the terminal).
    pub name: String,
    /// The article's title when it differs from the name.
    pub title: Option<String>,
    /// The folder it is in, relative to the bank (`02_TERMINOLOGY`).
    pub folder: String,
    pub placement: Placement,
    /// Index into the caller's own list.
    pub id: usize,
}

/// How well an item matches, best first: the tier, then placement, then
/// the fuzzy score, shorter names, and the caller's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct SortKey {
    tier: u8,
    placement: Placement,
    /// `u32::MAX - score`, so that a higher score sorts first.
    inverse_score: u32,
    name_chars: u32,
    item: u32,
}

/// Exact name or title.
const TIER_EXACT: u8 = 0;
/// Name or title starts with the query.
const TIER_PREFIX: u8 = 1;
/// The query starts a word of the name or title.
const TIER_WORD: u8 = 2;
/// The query is inside the name or title.
const TIER_INSIDE: u8 = 3;
/// Only the fuzzy match (letters in order, the folder included).
const TIER_FUZZY: u8 = 4;

/// At most this many matches are put in order; the count covers all.
pub const ORDERED: usize = 1000;

pub struct FuzzyRank {
    items: Vec<FinderItem>,
    /// Lower-case name and title, for the exact and prefix tiers.
    name_lower: Vec<String>,
    title_lower: Vec<Option<String>>,
    /// Characters in each name, for the order among equal scores.
    name_chars: Vec<u32>,
    /// What the fuzzy matcher sees: name, title and the path (folder and
    /// name).
    haystacks: Vec<Utf32String>,
    /// One matcher per core the scoring runs on (a matcher keeps scratch
    /// space, so each thread needs its own).
    matchers: Vec<Matcher>,
    /// Queries typed so far with their unordered matches: the next
    /// character only narrows the last one, Backspace returns to the one
    /// before.
    history: Vec<(String, Vec<u32>)>,
    /// The best matches in order (at most [`ORDERED`]).
    pub ordered: Vec<u32>,
    /// How many items match in all.
    pub total: usize,
    /// Each item's place in alphabetical order (by name, then folder), for
    /// the list shown before anything is typed.
    alphabetical: Vec<u32>,
    /// Each item's place among the recently opened (0 the latest), or
    /// `u32::MAX`: they head the list shown before anything is typed.
    recent: Vec<u32>,
}

impl std::fmt::Debug for FuzzyRank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FuzzyRank")
            .field("items", &self.items.len())
            .field("total", &self.total)
            .finish()
    }
}

fn haystack(item: &FinderItem) -> Utf32String {
    // The path as it reads (`03_DOMAINS/Sub/Pharmaceuticals`), then the
    // title: a path typed or pasted matches in its own order, and the name
    // is there once, so its letters cannot pair with the folder's twice.
    let mut text = String::with_capacity(
        item.folder.len() + item.name.len() + item.title.as_ref().map_or(0, |t| t.len() + 1) + 1,
    );
    if !item.folder.is_empty() {
        text.push_str(&item.folder);
        text.push('/');
    }
    text.push_str(&item.name);
    if let Some(t) = &item.title {
        text.push(' ');
        text.push_str(t);
    }
    // Composed, as the query is: a name from macOS (`Cafe` and a combining
    // accent) is found by `Café` typed with the one character.
    Utf32String::from(nfc(&text).as_ref())
}

/// A query as the finder reads a path: what `y` copies and the command
/// line accepts (`./03_DOMAINS\\Legal.md`) finds the file as
/// `03_DOMAINS/Legal` does.
fn as_path(query: &str) -> String {
    let q = query.trim().replace('\\', "/");
    let q = q.strip_prefix("./").unwrap_or(&q);
    let q = match q.len().checked_sub(3) {
        Some(cut) if q.is_char_boundary(cut) && q[cut..].eq_ignore_ascii_case(".md") => &q[..cut],
        _ => q,
    };
    q.to_owned()
}

/// Does `needle` start a word of `hay` (after a space or punctuation)?
fn starts_a_word(hay: &str, needle: &str) -> bool {
    hay.match_indices(needle).any(|(i, _)| {
        hay[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric())
    })
}

fn tier_of(name: &str, title: Option<&str>, query: &str) -> u8 {
    let texts = std::iter::once(name).chain(title);
    let mut best = TIER_FUZZY;
    for text in texts {
        let tier = if text == query {
            TIER_EXACT
        } else if text.starts_with(query) {
            TIER_PREFIX
        } else if starts_a_word(text, query) {
            TIER_WORD
        } else if text.contains(query) {
            TIER_INSIDE
        } else {
            TIER_FUZZY
        };
        best = best.min(tier);
    }
    best
}

impl FuzzyRank {
    pub fn new(items: Vec<FinderItem>) -> FuzzyRank {
        let name_lower: Vec<String> = items.iter().map(|i| nfc(&i.name).to_lowercase()).collect();
        let title_lower = items
            .iter()
            .map(|i| i.title.as_ref().map(|t| nfc(t).to_lowercase()))
            .collect();
        let haystacks = items.iter().map(haystack).collect();
        let name_chars = items
            .iter()
            .map(|i| i.name.chars().count() as u32)
            .collect();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
        let mut by_name: Vec<u32> = (0..items.len() as u32).collect();
        by_name.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            name_lower[a]
                .cmp(&name_lower[b])
                .then_with(|| items[a].folder.cmp(&items[b].folder))
        });
        let mut alphabetical = vec![0; items.len()];
        for (place, &i) in by_name.iter().enumerate() {
            alphabetical[i as usize] = place as u32;
        }
        let mut rank = FuzzyRank {
            items,
            name_lower,
            title_lower,
            name_chars,
            haystacks,
            matchers: (0..cores).map(|_| Matcher::new(Config::DEFAULT)).collect(),
            history: Vec::new(),
            ordered: Vec::new(),
            total: 0,
            alphabetical,
            recent: Vec::new(),
        };
        rank.set_query("");
        rank
    }

    /// The items opened lately, the latest first (ids into `items`): the
    /// list shown before anything is typed starts with them.
    pub fn set_recent(&mut self, latest_first: &[u32]) {
        self.recent = vec![u32::MAX; self.items.len()];
        for (place, &i) in latest_first.iter().enumerate() {
            if let Some(slot) = self.recent.get_mut(i as usize)
                && *slot == u32::MAX
            {
                *slot = place as u32;
            }
        }
    }

    pub fn items(&self) -> &[FinderItem] {
        &self.items
    }

    /// Re-rank for `query`.
    pub fn set_query(&mut self, query: &str) {
        let query = nfc(&as_path(query)).to_lowercase();
        // Back to the longest earlier query this one extends: its matches
        // hold every match of this one.
        while let Some((earlier, _)) = self.history.last() {
            if query.starts_with(earlier.as_str()) {
                break;
            }
            self.history.pop();
        }
        let candidates: Vec<u32> = match self.history.last() {
            Some((_, matches)) if !query.is_empty() => matches.clone(),
            _ => (0..self.items.len() as u32).collect(),
        };
        // Matching and the order's keys in one pass over the candidates,
        // split across the cores.
        let keys = self.keys(&query, &candidates);
        if self.history.last().is_none_or(|(q, _)| *q != query) {
            let matched = keys.iter().map(|k| k.item).collect();
            self.history.push((query.clone(), matched));
        }
        self.total = keys.len();
        self.ordered = order(keys);
    }

    /// The sort key of every candidate that matches `query`, in candidate
    /// order.
    fn keys(&mut self, query: &str, candidates: &[u32]) -> Vec<SortKey> {
        let pattern = Pattern::new(
            query,
            CaseMatching::Ignore,
            Normalization::Smart,
            AtomKind::Fuzzy,
        );
        let mut matchers = std::mem::take(&mut self.matchers);
        let this = &*self;
        let key = |i: u32, matcher: &mut Matcher| -> Option<SortKey> {
            let at = i as usize;
            if query.is_empty() {
                // Nothing typed: the recently opened, then A to Z.
                let recent = this.recent.get(at).copied().unwrap_or(u32::MAX);
                return Some(if recent == u32::MAX {
                    SortKey {
                        tier: TIER_FUZZY,
                        placement: this.items[at].placement,
                        inverse_score: 0,
                        name_chars: this.alphabetical[at],
                        item: i,
                    }
                } else {
                    SortKey {
                        tier: TIER_EXACT,
                        placement: Placement::Content,
                        inverse_score: recent,
                        name_chars: 0,
                        item: i,
                    }
                });
            }
            let (tier, score) = {
                let score = pattern.score(this.haystacks[at].slice(..), matcher)?;
                let tier = tier_of(&this.name_lower[at], this.title_lower[at].as_deref(), query);
                (tier, score)
            };
            Some(SortKey {
                tier,
                placement: this.items[at].placement,
                inverse_score: u32::MAX - score,
                name_chars: this.name_chars[at],
                item: i,
            })
        };
        // Threads pay off only on a long list; a small bank is scored here.
        const PER_THREAD: usize = 4096;
        let threads = matchers
            .len()
            .min(candidates.len().div_ceil(PER_THREAD))
            .max(1);
        let keys = if threads == 1 {
            let matcher = &mut matchers[0];
            candidates.iter().filter_map(|&i| key(i, matcher)).collect()
        } else {
            let chunk = candidates.len().div_ceil(threads);
            std::thread::scope(|scope| {
                let parts: Vec<_> = candidates
                    .chunks(chunk)
                    .zip(matchers.iter_mut())
                    .map(|(part, matcher)| {
                        let key = &key;
                        scope.spawn(move || {
                            part.iter()
                                .filter_map(|&i| key(i, matcher))
                                .collect::<Vec<SortKey>>()
                        })
                    })
                    .collect();
                let mut keys = Vec::with_capacity(candidates.len());
                for part in parts {
                    // A panic while scoring is a bug; it goes on from here
                    // as it would have on one thread.
                    keys.extend(part.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
                }
                keys
            })
        };
        self.matchers = matchers;
        keys
    }

    /// Char positions of `item`'s displayed name (and title after " · ")
    /// that match `query`, for highlighting.
    pub fn positions(&mut self, item: u32, query: &str) -> Vec<u32> {
        let query = as_path(query);
        if query.is_empty() {
            return Vec::new();
        }
        let pattern = Pattern::new(
            &nfc(&query),
            CaseMatching::Ignore,
            Normalization::Smart,
            AtomKind::Fuzzy,
        );
        let shown = display_text(&self.items[item as usize]);
        let composed = nfc(&shown);
        let mut positions = Vec::new();
        let hay = Utf32String::from(composed.as_ref());
        pattern.indices(hay.slice(..), &mut self.matchers[0], &mut positions);
        positions.sort_unstable();
        positions.dedup();
        match composed {
            Cow::Borrowed(_) => positions,
            // Matched in composed form; the row shows the name as it is.
            Cow::Owned(_) => shown_positions(&shown, &positions),
        }
    }
}

/// The char positions of `shown` that make up the given positions of its
/// composed form: `e` and the combining accent after it both light up
/// where `é` matched. A character's place in the composed form is how many
/// characters the composed text up to and including it has, less one
/// (names are short, and only uncomposed ones come here).
fn shown_positions(shown: &str, composed: &[u32]) -> Vec<u32> {
    shown
        .char_indices()
        .enumerate()
        .filter(|&(_, (at, c))| {
            let upto = nfc(&shown[..at + c.len_utf8()]).chars().count() as u32;
            composed.binary_search(&upto.saturating_sub(1)).is_ok()
        })
        .map(|(i, _)| i as u32)
        .collect()
}

/// The best [`ORDERED`] keys, in rank order.
fn order(mut keys: Vec<SortKey>) -> Vec<u32> {
    if keys.len() > ORDERED {
        keys.select_nth_unstable(ORDERED);
        keys.truncate(ORDERED);
    }
    keys.sort_unstable();
    keys.into_iter().map(|k| k.item).collect()
}

/// What a row shows before the folder: the name, and the title if it
/// differs.
pub fn display_text(item: &FinderItem) -> String {
    match &item.title {
        Some(t) => format!("{} · {t}", item.name),
        None => item.name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: usize, name: &str, folder: &str, placement: Placement) -> FinderItem {
        FinderItem {
            name: name.to_owned(),
            title: None,
            folder: folder.to_owned(),
            placement,
            id,
        }
    }

    fn names(rank: &FuzzyRank) -> Vec<&str> {
        rank.ordered
            .iter()
            .map(|&i| rank.items()[i as usize].name.as_str())
            .collect()
    }

    fn bank_items() -> Vec<FinderItem> {
        vec![
            item(
                0,
                "Harbour Lines booking site strings",
                "00_INBOX/_archive",
                Placement::Archived,
            ),
            item(1, "harbour dues", "02_TERMINOLOGY", Placement::Content),
            item(
                2,
                "The Harbour Lines fleet",
                "03_DOMAINS",
                Placement::Content,
            ),
            item(3, "Harbour Lines", "01_CLIENTS", Placement::Content),
            item(4, "Harbour Lines call", "00_INBOX", Placement::Inbox),
            item(5, "hull", "02_TERMINOLOGY", Placement::Content),
        ]
    }

    #[test]
    fn exact_then_prefix_then_words_and_content_before_inbox() {
        let mut rank = FuzzyRank::new(bank_items());
        rank.set_query("Harbour Lines");
        assert_eq!(
            names(&rank),
            vec![
                "Harbour Lines",
                "Harbour Lines call",
                "Harbour Lines booking site strings",
                "The Harbour Lines fleet",
            ]
        );
        rank.set_query("harbour");
        assert_eq!(
            names(&rank)[..4],
            [
                "harbour dues",
                "Harbour Lines",
                "Harbour Lines call",
                "Harbour Lines booking site strings",
            ]
        );
    }

    #[test]
    fn the_count_is_every_match_not_a_cap() {
        let items: Vec<FinderItem> = (0..6000)
            .map(|i| {
                item(
                    i,
                    &format!("term {i}"),
                    "02_TERMINOLOGY",
                    Placement::Content,
                )
            })
            .collect();
        let mut rank = FuzzyRank::new(items);
        assert_eq!(rank.total, 6000);
        rank.set_query("term 7");
        let with_a_seven = (0..6000).filter(|i| i.to_string().contains('7')).count();
        assert_eq!(rank.total, with_a_seven);
        assert!(rank.total > ORDERED);
        assert_eq!(rank.ordered.len(), ORDERED);
        rank.set_query("term 1");
        assert_eq!(names(&rank)[0], "term 1");
    }

    /// A path as the status bar, the Health rows and the search hits show
    /// it finds its file, whole or in part.
    #[test]
    fn a_path_typed_or_pasted_finds_its_file() {
        let mut rank = FuzzyRank::new(bank_items());
        for query in [
            "02_TERMINOLOGY/hull",
            "TERMINOLOGY/harb",
            "_archive/harbour",
            "02_TERMINOLOGY/hull.md",
            "./02_TERMINOLOGY\\hull.MD",
        ] {
            rank.set_query(query);
            assert_eq!(rank.total, 1, "{query}: {:?}", names(&rank));
        }
        rank.set_query("02_TERMINOLOGY/hull");
        assert_eq!(names(&rank), ["hull"]);
    }

    #[test]
    fn the_folder_matches_and_narrowing_then_backspace_agree_with_a_fresh_search() {
        let mut rank = FuzzyRank::new(bank_items());
        rank.set_query("terminology");
        let mut found = names(&rank);
        found.sort_unstable();
        assert_eq!(found, vec!["harbour dues", "hull"]);
        for query in ["h", "ha", "har", "harb", "har", "hu", "hul", "h", ""] {
            rank.set_query(query);
            let mut fresh = FuzzyRank::new(bank_items());
            fresh.set_query(query);
            assert_eq!(rank.ordered, fresh.ordered, "{query}");
            assert_eq!(rank.total, fresh.total, "{query}");
        }
    }

    /// macOS writes `é` in a file name as `e` and a combining accent; typed,
    /// it is the one character. Either way the name is found, and the
    /// highlight falls on the name as shown.
    #[test]
    fn a_name_with_a_combining_accent_is_found_by_the_composed_letter() {
        let mut items = bank_items();
        items.push(item(
            6,
            "Cafe\u{301} NFD style",
            "03_DOMAINS",
            Placement::Content,
        ));
        items.push(item(
            7,
            "Caf\u{e9} composed",
            "03_DOMAINS",
            Placement::Content,
        ));
        let mut rank = FuzzyRank::new(items);
        for (query, found) in [
            ("Caf\u{e9} NFD", 6),
            ("Cafe\u{301} NFD", 6),
            ("caf\u{e9} nfd style", 6),
            ("Cafe\u{301} comp", 7),
        ] {
            rank.set_query(query);
            assert_eq!(
                rank.ordered.first(),
                Some(&found),
                "{query:?}: {:?}",
                names(&rank)
            );
        }
        rank.set_query("caf\u{e9}");
        assert_eq!(rank.total, 2, "{:?}", names(&rank));
        // `C a f e ◌́ ␠ N F D`: the accent lights up with its letter.
        assert_eq!(
            rank.positions(6, "Caf\u{e9} NFD"),
            vec![0, 1, 2, 3, 4, 6, 7, 8]
        );
        assert_eq!(rank.positions(6, "NFD"), vec![6, 7, 8]);
        assert_eq!(rank.positions(7, "Cafe\u{301}"), vec![0, 1, 2, 3]);
    }

    #[test]
    fn positions_point_into_the_shown_text() {
        let mut rank = FuzzyRank::new(bank_items());
        assert_eq!(rank.positions(5, "hul"), vec![0, 1, 2]);
        assert!(rank.positions(5, "").is_empty());
    }
}
