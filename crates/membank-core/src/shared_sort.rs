//! One stable sort for the lists that are short or sorted once: reports,
//! menus, the rows of a listing, the edits to one file.
//!
//! The standard library's sort is generic over the element and the
//! comparison, so each call site with its own closure carries its own copy
//! of the sorting code (about 6 KB of the binary each). Here the positions
//! are sorted through a comparison called by reference, so the whole
//! program shares one copy; only a short loop that moves the elements into
//! place is per element type. The sorts on the timed paths (the bank's
//! articles, the ranked rows, the findings of a large bank) keep the
//! standard library's, which inlines the comparison.

use std::cmp::Ordering;

/// Sorts `items` by `compare`, keeping equal items in their order, exactly
/// as `slice::sort_by` does.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let order = stable_order(items.len(), &mut |a, b| compare(&items[a], &items[b]));
    move_into_order(items, order);
}

/// Sorts `items` by the key `key` gives each, keeping equal keys in their
/// order, exactly as `slice::sort_by_key` does.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// The positions `0..len` in the order `compare` puts the items at them.
#[inline(never)]
fn stable_order(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Rearranges `items` so that position `i` holds what was at `order[i]`,
/// one cycle of the permutation at a time, with swaps only.
fn move_into_order<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..items.len() {
        // Walking a cycle carries the item first at `start` along it; a
        // position already filled points at itself, so each cycle is
        // walked once.
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn equal_keys_keep_their_order() {
        let mut items = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd'), (0, 'e')];
        sort_by_key(&mut items, |&(k, _)| k);
        assert_eq!(items, [(0, 'e'), (1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
    }

    #[test]
    fn items_without_clone_are_moved_not_copied() {
        let mut items: Vec<String> = ["c", "a", "b"].map(String::from).into();
        sort_by(&mut items, |a, b| a.cmp(b));
        assert_eq!(items, ["a", "b", "c"]);
    }

    proptest! {
        #[test]
        fn same_order_as_the_standard_library(items in proptest::collection::vec((0u8..6, any::<u16>()), 0..200)) {
            let mut expected = items.clone();
            expected.sort_by_key(|&(k, _)| k);
            let mut ours = items;
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            prop_assert_eq!(ours, expected);
        }
    }
}
