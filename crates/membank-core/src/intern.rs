//! Shared copies of the short strings that repeat across a bank: key names,
//! client and domain values, language codes, dates, statuses. Thousands of
//! articles name the same few dozen of each, so each article holds a
//! pointer to a shared copy instead of its own strings.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::sync::Arc;

use crate::article::{KeyedValue, LanguageValue, SharedFacts};

/// Beyond this many distinct strings per thread (a hostile or unusual
/// bank), further ones get their own copy, so the shared sets stay bounded.
const MOST_SHARED: usize = 1 << 16;

/// Longer strings are not shared: they seldom repeat, and each thread's set
/// keeps what it holds for as long as the process runs.
pub(crate) const LONGEST_SHARED: usize = 256;

/// Longer lists of values are not shared: an article names a client or
/// two, and a hostile one's thousands must not be kept for the process.
const LONGEST_SHARED_LIST: usize = 16;

/// Key lists kept by their names, at most, per thread: a bank has a few
/// kinds of articles, and a hostile one must not grow the map without end.
const MOST_NAMED_LISTS: usize = 1 << 12;

/// Longest names of one list, written out, that are kept to look it up.
const LONGEST_NAMES: usize = 4 * LONGEST_SHARED;

/// Every value of every article is looked up here while loading, so the
/// hash is a fast one, still seeded per process so that a bank's values
/// cannot be chosen to collide.
type Set = HashSet<Arc<str>, foldhash::fast::RandomState>;

/// Lists of shared strings, e.g. an article's frontmatter key names:
/// articles of one kind mostly carry the same keys in the same order.
type ListSet = HashSet<Arc<[Arc<str>]>, foldhash::fast::RandomState>;

/// Values with their folded form, so a value met again is neither folded
/// nor looked up twice.
type FoldedMap = HashMap<Arc<str>, Arc<str>, foldhash::fast::RandomState>;

/// Lists of an article's values of one kind.
type ValueLists<T> = HashSet<Arc<[T]>, foldhash::fast::RandomState>;

/// Articles' shared facts by a hash of where their parts are (each part is
/// a shared copy already, so equal parts are nearly always one pointer).
type FactsMap = HashMap<u64, Arc<SharedFacts>, foldhash::fast::RandomState>;

thread_local! {
    /// An article's clients or domains: most articles of a bank name one of
    /// a few, so the lists repeat.
    static KEYED_LISTS: RefCell<ValueLists<KeyedValue>> = RefCell::new(ValueLists::default());
    /// An article's languages: a bank has a few pairs.
    static LANGUAGE_LISTS: RefCell<ValueLists<LanguageValue>> =
        RefCell::new(ValueLists::default());
    /// One set per loading thread, not one for the process: a shared copy's
    /// count is then changed by one core only. With one copy for all
    /// threads, every article's dozen values made the cores take the same
    /// few counters (and a lock) from each other, a good part of loading a
    /// large bank. A few dozen strings held once per thread cost nothing.
    static STRINGS: RefCell<Set> = RefCell::new(Set::default());
    static LISTS: RefCell<ListSet> = RefCell::new(ListSet::default());
    static FOLDED: RefCell<FoldedMap> = RefCell::new(FoldedMap::default());
    /// Key lists by their names written out, so an article whose keys were
    /// met before costs one lookup, not one per key and one for the list.
    static LISTS_BY_NAMES: RefCell<NamedLists> = RefCell::new(NamedLists::default());
    static FACTS: RefCell<(FactsMap, foldhash::fast::RandomState)> =
        RefCell::new(Default::default());
    /// Where the names of one list are written out, reused for every list.
    static NAMES: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The shared copy of empty facts, which every article starts from:
    /// looked up once per thread rather than once per article.
    static NO_FACTS: Arc<SharedFacts> = shared_facts(true, SharedFacts::default());
}

/// Lists of shared strings by their names, each written as its length and
/// its bytes so that no two lists write out alike.
type NamedLists = HashMap<Box<[u8]>, Arc<[Arc<str>]>, foldhash::fast::RandomState>;

/// The shared copy of `s`, or without `share` a copy of its own.
pub(crate) fn copy(share: bool, s: &str) -> Arc<str> {
    if share { shared(s) } else { Arc::from(s) }
}

/// The shared copy of `s`.
pub(crate) fn shared(s: &str) -> Arc<str> {
    if s.len() > LONGEST_SHARED {
        return Arc::from(s);
    }
    STRINGS.with_borrow_mut(|set| {
        if let Some(found) = set.get(s) {
            return found.clone();
        }
        let copy: Arc<str> = Arc::from(s);
        if set.len() < MOST_SHARED {
            set.insert(copy.clone());
        }
        copy
    })
}

/// The shared copies of `s` and of `fold(s)`, or without `share` copies
/// of their own.
pub(crate) fn shared_and_folded(
    share: bool,
    s: &str,
    fold: impl FnOnce(&str) -> String,
) -> (Arc<str>, Arc<str>) {
    // Without sharing the folded form is made again too: remembering
    // it cost a read that drops its articles more (and held more) than
    // folding each value again.
    if !share {
        return (Arc::from(s), Arc::from(fold(s)));
    }
    if s.len() > LONGEST_SHARED {
        return (Arc::from(s), shared(&fold(s)));
    }
    if let Some(found) =
        FOLDED.with_borrow(|map| map.get_key_value(s).map(|(k, v)| (k.clone(), v.clone())))
    {
        return found;
    }
    let pair = (shared(s), shared(&fold(s)));
    FOLDED.with_borrow_mut(|map| {
        if map.len() < MOST_SHARED {
            map.insert(pair.0.clone(), pair.1.clone());
        }
    });
    pair
}

/// The shared copy of a list of shared strings, or without `share` its own.
pub(crate) fn shared_list(share: bool, items: &[Arc<str>]) -> Arc<[Arc<str>]> {
    if !share || items.is_empty() {
        return own(items);
    }
    LISTS.with_borrow_mut(|set| {
        if let Some(found) = set.get(items) {
            return found.clone();
        }
        let copy: Arc<[Arc<str>]> = Arc::from(items);
        if set.len() < MOST_SHARED {
            set.insert(copy.clone());
        }
        copy
    })
}

/// The shared copy of a list of clients or domains, or without `share` its
/// own.
pub(crate) fn shared_keyed(share: bool, items: &[KeyedValue]) -> Arc<[KeyedValue]> {
    if !share {
        return own(items);
    }
    shared_in(&KEYED_LISTS, items)
}

/// The shared copy of a list of languages, or without `share` its own.
pub(crate) fn shared_languages(share: bool, items: &[LanguageValue]) -> Arc<[LanguageValue]> {
    if !share {
        return own(items);
    }
    shared_in(&LANGUAGE_LISTS, items)
}

/// A list's own copy; an empty one is the empty list every article
/// starts from (one static list, never allocated).
fn own<T: Clone>(items: &[T]) -> Arc<[T]> {
    if items.is_empty() {
        Arc::default()
    } else {
        Arc::from(items)
    }
}

fn shared_in<T: Hash + Eq + Clone>(
    lists: &'static std::thread::LocalKey<RefCell<ValueLists<T>>>,
    items: &[T],
) -> Arc<[T]> {
    // Most articles leave some kind empty: the one static empty list, not
    // looked up.
    if items.len() > LONGEST_SHARED_LIST || items.is_empty() {
        return own(items);
    }
    lists.with_borrow_mut(|set| {
        if let Some(found) = set.get(items) {
            return found.clone();
        }
        let copy: Arc<[T]> = Arc::from(items);
        if set.len() < MOST_SHARED {
            set.insert(copy.clone());
        }
        copy
    })
}

/// The shared copy of an article's facts. Found by where its parts are,
/// compared by what they hold: equal facts whose parts were not shared
/// only miss being one copy, and a part freed and its place reused can
/// never make unequal facts one.
pub(crate) fn shared_facts(share: bool, facts: SharedFacts) -> Arc<SharedFacts> {
    if !share {
        return Arc::new(facts);
    }
    fn at<T: ?Sized>(part: Option<&Arc<T>>) -> usize {
        part.map_or(0, |p| Arc::as_ptr(p).cast::<u8>() as usize)
    }
    fn list<T>(part: &Arc<[T]>) -> usize {
        // Empty lists are alike wherever they are.
        if part.is_empty() { 0 } else { at(Some(part)) }
    }
    let parts = [
        list(&facts.keys),
        list(&facts.empty_keys),
        list(&facts.languages),
        at(facts.status.as_ref()),
        at(facts.source_lang.as_ref()),
        at(facts.target_lang.as_ref()),
    ];
    FACTS.with_borrow_mut(|(map, hasher)| {
        use std::hash::BuildHasher;
        let key = hasher.hash_one(parts);
        match map.get(&key) {
            Some(found) if **found == facts => found.clone(),
            // Other facts under the same hash: kept apart, not shared.
            Some(_) => Arc::new(facts),
            None => {
                let copy = Arc::new(facts);
                if map.len() < MOST_SHARED {
                    map.insert(key, copy.clone());
                }
                copy
            }
        }
    })
}

/// [`shared_facts`] of empty facts.
pub(crate) fn no_facts() -> Arc<SharedFacts> {
    NO_FACTS.with(Arc::clone)
}

/// The shared list of the shared copies of the names `names()` gives: what
/// [`shared_list`] of each name's [`shared`] copy gives.
///
/// Shared for every load, even one that drops its articles once read: one
/// lookup by the names written out costs less than a copy of each name.
pub(crate) fn shared_names<'a, I: Iterator<Item = &'a str>>(
    names: impl Fn() -> I,
) -> Arc<[Arc<str>]> {
    let found = NAMES.with_borrow_mut(|written| {
        written.clear();
        for name in names() {
            written.extend_from_slice(&name.len().to_le_bytes());
            written.extend_from_slice(name.as_bytes());
        }
        if written.len() > LONGEST_NAMES {
            return None;
        }
        LISTS_BY_NAMES.with_borrow(|lists| lists.get(written.as_slice()).cloned())
    });
    if let Some(found) = found {
        return found;
    }
    let list = shared_list(true, &names().map(shared).collect::<Vec<_>>());
    NAMES.with_borrow(|written| {
        LISTS_BY_NAMES.with_borrow_mut(|lists| {
            if written.len() <= LONGEST_NAMES && lists.len() < MOST_NAMED_LISTS {
                lists.insert(written.as_slice().into(), list.clone());
            }
        })
    });
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_lists_share_one_copy() {
        let keys = [shared("client"), shared("languages")];
        let a = shared_list(true, &keys);
        let b = shared_list(true, &keys.clone());
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn equal_names_share_the_list_of_their_copies() {
        let a = shared_names(|| ["client", "domain"].into_iter());
        let b = shared_names(|| ["client", "domain"].into_iter());
        assert!(Arc::ptr_eq(&a, &b));
        // The same list as one made of the shared copies name by name.
        let c = shared_list(true, &[shared("client"), shared("domain")]);
        assert!(Arc::ptr_eq(&a, &c));
        assert!(Arc::ptr_eq(&a[0], &shared("client")));
    }

    #[test]
    fn names_split_differently_are_different_lists() {
        let a = shared_names(|| ["ab", "c"].into_iter());
        let b = shared_names(|| ["a", "bc"].into_iter());
        let c = shared_names(|| ["abc"].into_iter());
        let d = shared_names(std::iter::empty::<&str>);
        assert_eq!(&*a, &[shared("ab"), shared("c")][..]);
        assert_eq!(&*b, &[shared("a"), shared("bc")][..]);
        assert_eq!(&*c, &[shared("abc")][..]);
        assert!(d.is_empty());
    }

    #[test]
    fn equal_value_lists_share_one_copy_and_long_ones_are_their_own() {
        let value = |raw: &str| KeyedValue {
            key: "client",
            raw: shared(raw),
            folded: shared(&raw.to_lowercase()),
        };
        let a = shared_keyed(true, &[value("Acme")]);
        let b = shared_keyed(true, &[value("Acme")]);
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &shared_keyed(true, &[value("Beta")])));
        let many: Vec<KeyedValue> = (0..=LONGEST_SHARED_LIST)
            .map(|i| value(&format!("c{i}")))
            .collect();
        let (c, d) = (shared_keyed(true, &many), shared_keyed(true, &many));
        assert_eq!(c, d);
        assert!(!Arc::ptr_eq(&c, &d));
    }

    #[test]
    fn value_lists_are_one_copy_only_when_they_hold_the_same() {
        let raw = shared("Acme");
        let value = |folded: &str| KeyedValue {
            key: "client",
            raw: raw.clone(),
            folded: Arc::from(folded),
        };
        // The same shared text, other folded text: not one copy.
        let a = shared_keyed(true, &[value("acme")]);
        let b = shared_keyed(true, &[value("other")]);
        assert_eq!(&*a, &[value("acme")][..]);
        assert_eq!(&*b, &[value("other")][..]);
        assert!(!Arc::ptr_eq(&a, &b));
        // Equal values whose text is not the shared copy: equal lists, by
        // value, whether or not they are one copy.
        let own = KeyedValue {
            key: "client",
            raw: Arc::from("Acme"),
            folded: Arc::from("acme"),
        };
        assert_eq!(shared_keyed(true, std::slice::from_ref(&own)), a);
        // Empty lists are the one empty list, in either kind of load.
        assert!(shared_keyed(true, &[]).is_empty());
        assert!(Arc::ptr_eq(
            &shared_keyed(true, &[]),
            &shared_keyed(false, &[])
        ));
        assert!(shared_list(true, &[]).is_empty());
    }

    #[test]
    fn without_sharing_every_list_and_string_is_its_own_copy() {
        let keys = [shared("client")];
        let a = shared_list(false, &keys);
        assert_eq!(&*a, &keys[..]);
        assert!(!Arc::ptr_eq(&a, &shared_list(false, &keys)));
        let (raw, folded) = shared_and_folded(false, "Acme", |s| s.to_lowercase());
        assert_eq!((&*raw, &*folded), ("Acme", "acme"));
        assert!(!Arc::ptr_eq(&raw, &shared("Acme")));
        assert!(!Arc::ptr_eq(&copy(false, "x"), &copy(false, "x")));
        assert!(Arc::ptr_eq(&copy(true, "x"), &copy(true, "x")));
    }

    #[test]
    fn no_facts_are_the_shared_copy_of_empty_facts() {
        let a = no_facts();
        assert!(Arc::ptr_eq(&a, &shared_facts(true, SharedFacts::default())));
        assert_eq!(*a, SharedFacts::default());
        assert!(Arc::ptr_eq(&a, &no_facts()));
    }

    #[test]
    fn equal_strings_share_one_copy() {
        let a = shared("last_updated");
        let b = shared(&String::from("last_updated"));
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*a, "last_updated");
    }
}
