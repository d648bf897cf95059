//! Watching a memory's folder for changes, for every front end (the
//! interface and the MCP server): a debounced watcher that reports the
//! memory's own paths that changed, by the layout's rule, to a sink each
//! front end supplies. Reading them in is the core's
//! (`Memory::refreshed`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use membank_core::memory::LayoutSpec;
use membank_core::memory::changes::changed_paths;
use notify::{EventKind, RecursiveMode, Watcher};

/// Quiet time after the last file event before the batch is delivered:
/// editors write a file in several steps (temp file, rename, chmod).
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// What a watcher tells its sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Watched {
    /// The memory's own files or folders that changed (created, modified,
    /// removed, renamed), relative to its root, sorted, each once.
    Changed(Vec<String>),
    /// The watcher failed; it may go on after this.
    Failed(String),
}

/// Watches a memory; dropping it stops the watching.
pub struct MemoryWatcher {
    _watcher: notify::RecommendedWatcher,
}

impl MemoryWatcher {
    /// Watch the memory of layout `spec` at `root`. The sink runs on the
    /// watcher's own thread and returns false once nobody listens any
    /// more, which ends that thread.
    pub fn spawn(
        spec: &'static LayoutSpec,
        root: &Path,
        sink: impl FnMut(Watched) -> bool + Send + 'static,
    ) -> notify::Result<MemoryWatcher> {
        let (raw_tx, raw_rx) = mpsc::channel::<notify::Result<notify::Event>>();
        let mut watcher = notify::recommended_watcher(raw_tx)?;
        watcher.watch(root, RecursiveMode::Recursive)?;
        let root = root.to_path_buf();
        thread::Builder::new()
            .name("membank-watch".into())
            .spawn(move || debounce_loop(raw_rx, spec, &root, sink))
            .map_err(|e| notify::Error::generic(&format!("starting the watcher thread: {e}")))?;
        Ok(MemoryWatcher { _watcher: watcher })
    }
}

fn is_interesting(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any
    )
}

fn debounce_loop(
    raw: Receiver<notify::Result<notify::Event>>,
    spec: &'static LayoutSpec,
    root: &Path,
    mut sink: impl FnMut(Watched) -> bool,
) {
    let mut pending: BTreeSet<PathBuf> = BTreeSet::new();
    let mut deadline: Option<Instant> = None;
    loop {
        let received = match deadline {
            // Nothing pending: sleep until the next event.
            None => raw.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(d) => raw.recv_timeout(d.saturating_duration_since(Instant::now())),
        };
        match received {
            Ok(Ok(event)) => {
                if is_interesting(&event.kind) && !event.paths.is_empty() {
                    pending.extend(event.paths);
                    deadline = Some(Instant::now() + DEBOUNCE);
                }
            }
            Ok(Err(e)) => {
                if !sink(Watched::Failed(format!("watching for changes: {e}"))) {
                    return;
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                deadline = None;
                let batch: Vec<PathBuf> = std::mem::take(&mut pending).into_iter().collect();
                let changed = changed_paths(spec, root, &batch);
                // Only files the memory does not hold changed (`.git/`).
                if changed.is_empty() {
                    continue;
                }
                if !sink(Watched::Changed(changed)) {
                    return;
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real files saved the way editors save them: every article changed
    /// is reported, each path once a batch, never the editor's hidden temp
    /// file, and never before the changes have been quiet for the debounce
    /// time.
    #[test]
    fn real_file_changes_arrive_in_debounced_batches() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("01_CLIENTS")).unwrap();
        let (tx, rx) = mpsc::channel();
        let bank = membank_core::memory::LayoutKind::Bank.spec();
        let _watcher =
            MemoryWatcher::spawn(bank, &root, move |watched| tx.send(watched).is_ok()).unwrap();

        // A temp file renamed over the article, then written again.
        let article = root.join("01_CLIENTS/Acme.md");
        let temp = root.join("01_CLIENTS/.Acme.md.swp");
        std::fs::write(&temp, "draft\n").unwrap();
        std::fs::rename(&temp, &article).unwrap();
        std::fs::write(&article, "final\n").unwrap();
        // No event of the last write can come before it started.
        let last_started = Instant::now();
        std::fs::write(root.join("01_CLIENTS/Beta.md"), "beta\n").unwrap();

        let wanted = ["01_CLIENTS/Acme.md", "01_CLIENTS/Beta.md"];
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut seen = BTreeSet::new();
        while !wanted.iter().all(|w| seen.contains(*w)) {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(watched) = rx.recv_timeout(left) else {
                panic!("no change reported for {wanted:?}; seen {seen:?}");
            };
            let arrived = Instant::now();
            let Watched::Changed(batch) = watched else {
                panic!("not a file change: {watched:?}");
            };
            let unique: BTreeSet<&String> = batch.iter().collect();
            assert_eq!(unique.len(), batch.len(), "{batch:?}");
            assert!(!batch.iter().any(|p| p.contains(".swp")), "{batch:?}");
            if batch.iter().any(|r| r == "01_CLIENTS/Beta.md") {
                assert!(
                    arrived >= last_started + DEBOUNCE,
                    "delivered {:?} after the last write began",
                    arrived - last_started
                );
            }
            seen.extend(batch);
        }
    }
}
