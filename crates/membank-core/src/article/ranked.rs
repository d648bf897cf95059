//! The frontmatter values a ranking reads, borrowed from a block of the
//! common shape: the `context` command scores each article it reads and
//! drops it, so it reads the values where they are written rather than
//! building an [`Article`](super::Article) whose lists and copies it would
//! drop at once. The values are those the article's reading gives (see
//! `extract_simple_meta`); a test compares the two.

use std::borrow::Cow;

use super::{READ_KEYS, read_key_slot, recycled};
use crate::frontmatter::{self, SimpleValue};

/// One block's values, by the keys the article's reading knows.
pub(crate) struct RankedValues<'e, 'a> {
    read: [Option<&'e SimpleValue<'a>>; READ_KEYS],
}

impl<'a> RankedValues<'_, 'a> {
    fn get(&self, key: &str) -> Option<&SimpleValue<'a>> {
        read_key_slot(key).and_then(|slot| self.read[slot])
    }

    /// Each text value of `key` in order, as the article's reading lists
    /// them, until `each` says stop (returns false); false then.
    /// One body for every caller (`dyn`): the binary's size is shared.
    pub(crate) fn each(&self, key: &str, each: &mut dyn FnMut(Cow<'a, str>) -> bool) -> bool {
        match self.get(key) {
            None => true,
            Some(SimpleValue::List(items)) => {
                items.iter().filter_map(SimpleValue::scalar_str).all(each)
            }
            Some(v) => v.scalar_str().is_none_or(each),
        }
    }

    /// The first text value of `key`.
    pub(crate) fn first(&self, key: &str) -> Option<Cow<'a, str>> {
        match self.get(key)? {
            SimpleValue::List(items) => items.iter().find_map(SimpleValue::scalar_str),
            v => v.scalar_str(),
        }
    }
}

thread_local! {
    /// The reading thread's list of a block's entries, kept empty between
    /// blocks: one allocation a block otherwise.
    static ENTRIES: std::cell::RefCell<Vec<(&'static str, SimpleValue<'static>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// `f` over the values of the block `yaml` when it is of the common shape
/// and not blank (what the article's reading reads from its text); `None`
/// otherwise, for the caller to read the article whole.
pub(crate) fn with_ranked_values<R>(
    yaml: &str,
    f: impl FnOnce(&RankedValues<'_, '_>) -> R,
) -> Option<R> {
    // Over the size bound the whole reading refuses the block.
    if yaml.trim().is_empty() || yaml.len() > frontmatter::MAX_FRONTMATTER_BYTES {
        return None;
    }
    let room = recycled(ENTRIES.with_borrow_mut(std::mem::take));
    let entries = frontmatter::parse_simple_entries_in(yaml, room)?;
    let mut read = [None; READ_KEYS];
    for (k, v) in &entries {
        if let Some(slot) = read_key_slot(k) {
            read[slot] = Some(v);
        }
    }
    let out = f(&RankedValues { read });
    if entries.capacity() <= super::ENTRIES_KEPT {
        ENTRIES.with_borrow_mut(|room| *room = recycled(entries));
    }
    Some(out)
}

/// The codes of a language value, as the article's reading splits them.
pub(crate) fn language_codes(raw: &str) -> impl Iterator<Item = &str> {
    super::language_tag_strs(raw)
}
