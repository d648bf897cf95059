//! Freeing large values away from the interface's thread. Dropping the
//! rows of a 100,000-file tree or an old bank frees hundreds of thousands
//! of allocations, tens of milliseconds in which no key would be answered.

use std::any::Any;
use std::sync::Mutex;
use std::sync::mpsc::{self, Sender};

type Garbage = Box<dyn Any + Send>;

static BIN: Mutex<Option<Sender<Garbage>>> = Mutex::new(None);

/// Drop `value` on the freeing thread (started on first use), or here if
/// that thread cannot be started.
pub fn drop_later<T: Send + 'static>(value: T) {
    let mut bin = BIN.lock().unwrap_or_else(|e| e.into_inner());
    if bin.is_none() {
        let (tx, rx) = mpsc::channel::<Garbage>();
        let started = std::thread::Builder::new()
            .name("membank-free".into())
            .spawn(move || rx.into_iter().for_each(drop));
        match started {
            Ok(_) => *bin = Some(tx),
            Err(e) => tracing::warn!(error = %e, "freeing large values on this thread"),
        }
    }
    if let Some(tx) = bin.as_ref() {
        // Only fails if the thread is gone; the value comes back and is
        // dropped here.
        let _ = tx.send(Box::new(value));
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
