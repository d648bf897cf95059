//! The end of a small bank's walk: every file not read yet is handed to the
//! pool at once, in pieces that get smaller towards the end, instead of
//! waiting for the walk's last batches and then starting a second parallel
//! read. With the batches handed while walking, at most three of 64 files,
//! one core could be left idle while the other read the last batch, and the
//! second read started only after it.

use std::path::PathBuf;
use std::sync::Arc;

use super::walk::{BankWalk, Walked};
use crate::safe_read::OpenDir;

/// A file handed to the pool: its `seq`, its folder held open, its path and
/// whether it is a link.
pub(super) type EarlyFile = (u32, Option<Arc<OpenDir>>, PathBuf, bool);

/// Files up to which a bank's every file is read by the walk's batches.
/// Their reads are held beside the loaded list until the end (about 150
/// bytes a file), so a large bank keeps reading the files the batches did
/// not take in one parallel pass after the walk.
pub(super) const ALL_EARLY_MOST: usize = 16_384;

/// Files in the smallest piece: the last pieces are what one core may
/// still be reading when the other has none left.
const SMALLEST_PIECE: usize = 8;

/// Hand every file of `walk` whose `seq` is not in `handed` to `spawn`, in
/// pieces of about the files left over twice the threads, never fewer than
/// [`SMALLEST_PIECE`].
pub(super) fn hand_the_rest(walk: &BankWalk<'_>, handed: &[u32], spawn: &dyn Fn(Vec<EarlyFile>)) {
    let mut is_handed = vec![false; walk.found.len()];
    for &seq in handed {
        if let Some(h) = is_handed.get_mut(seq as usize) {
            *h = true;
        }
    }
    let mut rest: Vec<EarlyFile> = walk
        .found
        .iter()
        .filter_map(|w| match w {
            // `u32::MAX` is no file's own number: such a file is read after
            // the walk, as before.
            Walked::File {
                path,
                is_link,
                dir,
                seq,
            } if !is_handed.get(*seq as usize).copied().unwrap_or(true) => {
                let open = walk
                    .dirs
                    .get(*dir as usize)
                    .and_then(|(_, open)| open.clone());
                Some((*seq, open, path.clone(), *is_link))
            }
            _ => None,
        })
        .collect();
    let threads = rayon::current_num_threads().max(1);
    while !rest.is_empty() {
        let piece = (rest.len() / (2 * threads))
            .max(SMALLEST_PIECE)
            .min(rest.len());
        // Taken from the end: the pieces are handed in the order they are
        // cut, and no file is moved more than once.
        let at = rest.len() - piece;
        spawn(rest.split_off(at));
    }
}

/// The pieces [`hand_the_rest`] cuts `files` into, by size.
#[cfg(test)]
pub(super) fn pieces(files: usize, threads: usize) -> Vec<usize> {
    let mut left = files;
    let mut sizes = Vec::new();
    while left > 0 {
        let piece = (left / (2 * threads)).max(SMALLEST_PIECE).min(left);
        sizes.push(piece);
        left -= piece;
    }
    sizes
}
