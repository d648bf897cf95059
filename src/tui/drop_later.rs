//! Freeing large values away from the interface's thread. Dropping the
//! rows of a 100,000-file tree or an old bank frees hundreds of thousands
//! of allocations, tens of milliseconds in which no key would be answered.
//! After the largest frees, the pages left empty go back to the system.

use std::any::Any;
use std::sync::Mutex;
use std::sync::mpsc::{self, Sender};

type Garbage = Box<dyn Any + Send>;

/// What the freeing thread is asked to do, in the order asked.
enum Chore {
    Drop(Garbage),
    GiveBackPages,
}

static BIN: Mutex<Option<Sender<Chore>>> = Mutex::new(None);

/// Drop `value` on the freeing thread (started on first use), or here if
/// that thread cannot be started.
pub fn drop_later<T: Send + 'static>(value: T) {
    if let Err(Chore::Drop(value)) = send(Chore::Drop(Box::new(value))) {
        drop(value);
    }
}

/// Once everything given to [`drop_later`] before is freed, hand the
/// allocator's empty pages back to the system, on the freeing thread.
pub fn give_back_pages_later() {
    if send(Chore::GiveBackPages).is_err() {
        give_back_pages();
    }
}

/// Hand the pages the allocator holds but no live value uses back to the
/// system. Reading or indexing a large bank on several threads leaves tens
/// of megabytes of freed buffers in their arenas, which glibc keeps
/// resident otherwise. Takes a few milliseconds: never on the interface's
/// thread.
pub fn give_back_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases free memory the allocator owns;
    // it takes its own locks and touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Keep glibc's threshold for giving a large block its own mapping where
/// it starts (128 KiB). Left alone, glibc raises it to the size of each
/// large block freed, up to 32 MiB: once a large bank's first growing
/// arrays are freed, every later array or buffer under that size is cut
/// from an arena among small blocks that last, and the holes it leaves
/// when freed stay resident (about 25 MB of a 100,000-file bank). Set when
/// the interface starts; the commands keep glibc's defaults.
pub fn keep_large_blocks_mapped() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's tunables; it takes the
    // allocator's own lock and has no memory-safety preconditions.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// `chore` to the freeing thread, or back when it cannot be started.
fn send(chore: Chore) -> Result<(), Chore> {
    let mut bin = BIN.lock().unwrap_or_else(|e| e.into_inner());
    if bin.is_none() {
        let (tx, rx) = mpsc::channel::<Chore>();
        let started = std::thread::Builder::new()
            .name("membank-free".into())
            .spawn(move || {
                for chore in rx {
                    match chore {
                        Chore::Drop(garbage) => drop(garbage),
                        Chore::GiveBackPages => give_back_pages(),
                    }
                }
            });
        match started {
            Ok(_) => *bin = Some(tx),
            Err(e) => tracing::warn!(error = %e, "freeing large values on this thread"),
        }
    }
    match bin.as_ref() {
        // Only fails if the thread is gone; the chore comes back.
        Some(tx) => tx.send(chore).map_err(|e| e.0),
        None => Err(chore),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Is `block` a mapping of its own? glibc marks such a block in the
    /// size word just before it (bit 1, `IS_MMAPPED`).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn has_own_mapping(block: &[u8]) -> bool {
        // SAFETY: every block glibc's malloc hands out (the system
        // allocator's, for this alignment) has its size word just before it.
        let size_word = unsafe { block.as_ptr().cast::<usize>().sub(1).read_unaligned() };
        size_word & 2 != 0
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn a_large_block_keeps_its_own_mapping_after_a_larger_one_is_freed() {
        keep_large_blocks_mapped();
        // Left to itself, glibc would now serve blocks up to 8 MiB from an
        // arena, where their pages outlive them among small blocks.
        let larger = std::hint::black_box(vec![1u8; 8 << 20]);
        assert!(has_own_mapping(&larger));
        drop(larger);
        let large = std::hint::black_box(vec![1u8; 1 << 20]);
        assert!(has_own_mapping(&large));
        let small = std::hint::black_box(vec![1u8; 1 << 10]);
        assert!(!has_own_mapping(&small));
    }

    #[test]
    fn a_value_given_away_is_freed_not_leaked() {
        let shared = Arc::new(());
        drop_later(Arc::clone(&shared));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while Arc::strong_count(&shared) > 1 {
            assert!(std::time::Instant::now() < deadline, "never freed");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}
