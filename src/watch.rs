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
use notify::EventKind;

#[cfg(target_os = "linux")]
mod linux;

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
    #[cfg(target_os = "linux")]
    _watcher: linux::FolderWatcher,
    #[cfg(not(target_os = "linux"))]
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
        // Events name paths under the folder as it was watched, and only a
        // path under an absolute root is taken as the memory's: watching a
        // relative root (`membank mcp .`) would report nothing at all.
        let root = &root
            .canonicalize()
            .or_else(|_| std::path::absolute(root))
            .map_err(notify::Error::io)?;
        let (raw_tx, raw_rx) = mpsc::channel::<notify::Result<notify::Event>>();
        #[cfg(target_os = "linux")]
        let watcher = linux::FolderWatcher::start(root, raw_tx).map_err(notify::Error::io)?;
        #[cfg(not(target_os = "linux"))]
        let watcher = {
            use notify::Watcher;
            // A linked folder may lead out of the memory: not watched.
            let config = notify::Config::default().with_follow_symlinks(false);
            let mut watcher = notify::RecommendedWatcher::new(raw_tx, config)?;
            watcher.watch(root, notify::RecursiveMode::Recursive)?;
            watcher
        };
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

    /// Wait for a batch naming `wanted`, failing after a generous time.
    fn wait_for(rx: &mpsc::Receiver<Watched>, wanted: &str) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(Watched::Changed(batch)) => {
                    seen.extend(batch);
                    if seen.iter().any(|p| p == wanted) {
                        return seen;
                    }
                }
                Ok(other) => panic!("not a file change: {other:?}"),
                Err(_) => panic!("{wanted} not reported; seen {seen:?}"),
            }
        }
    }

    /// A folder made after the watching began is watched too, with what is
    /// written in it; a folder linked from outside the memory is not
    /// followed, so a change out there is never reported.
    #[test]
    fn new_folders_are_watched_and_linked_ones_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bank")).unwrap();
        let root = dir.path().join("bank").canonicalize().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(outside.join("sub")).unwrap();
        std::fs::create_dir(root.join("02_TERMINOLOGY")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, root.join("02_TERMINOLOGY/linked")).unwrap();
        let (tx, rx) = mpsc::channel();
        let bank = membank_core::memory::LayoutKind::Bank.spec();
        let _watcher =
            MemoryWatcher::spawn(bank, &root, move |watched| tx.send(watched).is_ok()).unwrap();

        std::fs::create_dir_all(root.join("02_TERMINOLOGY/new/deeper")).unwrap();
        std::fs::write(outside.join("sub/Out.md"), "out\n").unwrap();
        std::fs::write(outside.join("Out.md"), "out\n").unwrap();
        // The new folders are watched once their creation is seen: written
        // again until the write is reported (an early one may come first).
        let term = "02_TERMINOLOGY/new/deeper/Term.md";
        let mut seen = Vec::new();
        for attempt in 0..100 {
            std::fs::write(root.join(term), format!("{attempt}\n")).unwrap();
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(Watched::Changed(batch)) => seen.extend(batch),
                Ok(other) => panic!("not a file change: {other:?}"),
                Err(_) => {}
            }
            if seen.iter().any(|p| p == term) {
                break;
            }
        }
        assert!(
            seen.iter().any(|p| p == term),
            "{term} never reported: {seen:?}"
        );
        std::fs::write(root.join("02_TERMINOLOGY/Last.md"), "last\n").unwrap();
        let mut seen_all = seen;
        seen_all.extend(wait_for(&rx, "02_TERMINOLOGY/Last.md"));
        assert!(
            !seen_all.iter().any(|p| p.contains("Out.md")),
            "a change through a link was reported: {seen_all:?}"
        );
    }

    /// Reading the memory's files is not a change, and with the Linux
    /// backend the kernel is not even asked to report it: the raw events
    /// stay empty however many files are read.
    #[cfg(target_os = "linux")]
    #[test]
    fn reading_files_makes_no_events() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("01_CLIENTS")).unwrap();
        for i in 0..50 {
            std::fs::write(root.join(format!("01_CLIENTS/C{i}.md")), "c\n").unwrap();
        }
        let (tx, rx) = mpsc::channel();
        let _watcher = linux::FolderWatcher::start(&root, tx).unwrap();
        for i in 0..50 {
            let _ = std::fs::read(root.join(format!("01_CLIENTS/C{i}.md"))).unwrap();
        }
        let _ = std::fs::read_dir(root.join("01_CLIENTS")).unwrap().count();
        // A write after the reads: the first event to arrive must be it.
        std::fs::write(root.join("01_CLIENTS/C7.md"), "changed\n").unwrap();
        let first = rx.recv_timeout(Duration::from_secs(20)).unwrap().unwrap();
        assert_eq!(first.paths, [root.join("01_CLIENTS/C7.md")], "{first:?}");
    }
}
