//! Shared copies of the short strings that repeat across a bank: key names,
//! client and domain values, language codes, dates, statuses. Thousands of
//! articles name the same few dozen of each, so each article holds a
//! pointer to one copy instead of its own strings.

use std::collections::HashSet;
use std::sync::{Arc, LazyLock, RwLock};

/// Beyond this many distinct strings (a hostile or unusual bank), further
/// ones get their own copy, so the shared set stays bounded.
const MOST_SHARED: usize = 1 << 16;

/// Every value of every article is looked up here while loading, so the
/// hash is a fast one, still seeded per process so that a bank's values
/// cannot be chosen to collide.
type Set = HashSet<Arc<str>, foldhash::fast::RandomState>;

static SHARED: LazyLock<RwLock<Set>> = LazyLock::new(Default::default);

thread_local! {
    /// Each loading thread's copies of what it already found in `SHARED`:
    /// most lookups then take no lock, which all threads would contend for.
    static SEEN: std::cell::RefCell<Set> = std::cell::RefCell::new(Set::default());
}

/// The shared copy of `s`.
pub(crate) fn shared(s: &str) -> Arc<str> {
    if let Some(found) = SEEN.with_borrow(|seen| seen.get(s).cloned()) {
        return found;
    }
    let (found, is_shared) = shared_globally(s);
    // A copy the full shared set did not take is not kept here either.
    if is_shared {
        SEEN.with_borrow_mut(|seen| seen.insert(found.clone()));
    }
    found
}

/// The copy from `SHARED`, and whether it is the shared one.
fn shared_globally(s: &str) -> (Arc<str>, bool) {
    if let Some(found) = SHARED.read().ok().and_then(|set| set.get(s).cloned()) {
        return (found, true);
    }
    let Ok(mut set) = SHARED.write() else {
        return (Arc::from(s), false);
    };
    if let Some(found) = set.get(s) {
        return (found.clone(), true);
    }
    let copy: Arc<str> = Arc::from(s);
    let kept = set.len() < MOST_SHARED;
    if kept {
        set.insert(copy.clone());
    }
    (copy, kept)
}

/// Lists of shared strings, e.g. an article's frontmatter key names:
/// articles of one kind mostly carry the same keys in the same order.
type ListSet = HashSet<Arc<[Arc<str>]>, foldhash::fast::RandomState>;

static SHARED_LISTS: LazyLock<RwLock<ListSet>> = LazyLock::new(Default::default);

/// The shared copy of a list of shared strings.
pub(crate) fn shared_list(items: &[Arc<str>]) -> Arc<[Arc<str>]> {
    if let Some(found) = SHARED_LISTS
        .read()
        .ok()
        .and_then(|set| set.get(items).cloned())
    {
        return found;
    }
    let Ok(mut set) = SHARED_LISTS.write() else {
        return Arc::from(items);
    };
    if let Some(found) = set.get(items) {
        return found.clone();
    }
    let copy: Arc<[Arc<str>]> = Arc::from(items);
    if set.len() < MOST_SHARED {
        set.insert(copy.clone());
    }
    copy
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
