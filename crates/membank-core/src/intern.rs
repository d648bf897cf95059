//! Shared copies of the short strings that repeat across a bank: key names,
//! client and domain values, language codes, dates, statuses. Thousands of
//! articles name the same few dozen of each, so each article holds a
//! pointer to a shared copy instead of its own strings.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Beyond this many distinct strings per thread (a hostile or unusual
/// bank), further ones get their own copy, so the shared sets stay bounded.
const MOST_SHARED: usize = 1 << 16;

/// Longer strings are not shared: they seldom repeat, and each thread's set
/// keeps what it holds for as long as the process runs.
const LONGEST_SHARED: usize = 256;

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

thread_local! {
    /// One set per loading thread, not one for the process: a shared copy's
    /// count is then changed by one core only. With one copy for all
    /// threads, every article's dozen values made the cores take the same
    /// few counters (and a lock) from each other, a good part of loading a
    /// large bank. A few dozen strings held once per thread cost nothing.
    static STRINGS: RefCell<Set> = RefCell::new(Set::default());
    static LISTS: RefCell<ListSet> = RefCell::new(ListSet::default());
    static FOLDED: RefCell<FoldedMap> = RefCell::new(FoldedMap::default());
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

/// The shared copies of `s` and of `fold(s)`.
pub(crate) fn shared_and_folded(
    s: &str,
    fold: impl FnOnce(&str) -> String,
) -> (Arc<str>, Arc<str>) {
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

/// The shared copy of a list of shared strings.
pub(crate) fn shared_list(items: &[Arc<str>]) -> Arc<[Arc<str>]> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_lists_share_one_copy() {
        let keys = [shared("client"), shared("languages")];
        let a = shared_list(&keys);
        let b = shared_list(&keys.clone());
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn equal_strings_share_one_copy() {
        let a = shared("last_updated");
        let b = shared(&String::from("last_updated"));
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*a, "last_updated");
    }
}
