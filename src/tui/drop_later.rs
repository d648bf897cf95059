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
