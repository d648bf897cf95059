//! Where the app's messages come from: the keyboard (a reader thread that
//! can be paused while an editor owns the terminal) and the file system (a
//! debounced watcher). Both feed one channel, so the main loop sleeps until
//! something actually happens.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};
use ratatui::crossterm::event::{self as term_event, Event as TermEvent};

/// Something that happened outside the app.
#[derive(Debug)]
pub enum Input {
    Terminal(TermEvent),
    /// Files under the bank changed (created, modified, removed, renamed).
    FilesChanged(Vec<PathBuf>),
    /// A message from a model call.
    Llm(membank_llm::WorkerMessage),
    /// The watcher or the reader failed; shown in the status bar.
    Error(String),
    /// Files read so far by the loader thread.
    Loading(usize),
    /// The files the loader's walk found, before it reads them.
    Listed(Box<crate::tui::panes::bank::ListedTree>),
    /// The loader thread finished reading the bank.
    Loaded(Box<Result<crate::tui::app::ReadMemory, String>>),
    /// What the app's own background work produced.
    App(Box<crate::tui::app::Msg>),
}

enum Control {
    Pause,
    Resume,
}

/// The keyboard reader thread.
pub struct InputReader {
    control: Sender<Control>,
    paused_ack: Receiver<()>,
}

/// How long the reader waits for a key before checking for a pause
/// request. Nothing is redrawn on this timeout.
const READER_POLL: Duration = Duration::from_millis(50);

impl InputReader {
    pub fn spawn(tx: Sender<Input>) -> InputReader {
        let (control, control_rx) = mpsc::channel();
        let (ack_tx, paused_ack) = mpsc::channel();
        thread::Builder::new()
            .name("membank-input".into())
            .spawn(move || read_loop(tx, control_rx, ack_tx))
            .expect("spawning the input thread");
        InputReader {
            control,
            paused_ack,
        }
    }

    /// Stop reading the terminal until `resume`; returns once the reader
    /// has actually stopped, so nothing it reads can be lost to a child.
    pub fn pause(&self) {
        if self.control.send(Control::Pause).is_ok() {
            let _ = self.paused_ack.recv_timeout(Duration::from_secs(2));
        }
    }

    pub fn resume(&self) {
        let _ = self.control.send(Control::Resume);
    }
}

fn read_loop(tx: Sender<Input>, control: Receiver<Control>, ack: Sender<()>) {
    loop {
        match control.try_recv() {
            Ok(Control::Pause) => {
                let _ = ack.send(());
                // Block until resumed; other pause requests are acknowledged
                // at once.
                loop {
                    match control.recv() {
                        Ok(Control::Resume) => break,
                        Ok(Control::Pause) => {
                            let _ = ack.send(());
                        }
                        Err(_) => return,
                    }
                }
            }
            Ok(Control::Resume) => {}
            Err(mpsc::TryRecvError::Disconnected) => return,
            Err(mpsc::TryRecvError::Empty) => {}
        }
        match term_event::poll(READER_POLL) {
            Ok(true) => match term_event::read() {
                Ok(ev) => {
                    if tx.send(Input::Terminal(ev)).is_err() {
                        return;
                    }
                }
                Err(e) => {
                    let _ = tx.send(Input::Error(format!("reading the terminal: {e}")));
                    return;
                }
            },
            Ok(false) => {}
            Err(e) => {
                let _ = tx.send(Input::Error(format!("reading the terminal: {e}")));
                return;
            }
        }
    }
}

/// Quiet time after the last file event before the batch is delivered:
/// editors write a file in several steps (temp file, rename, chmod).
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// Watches the bank; dropping it stops the watching.
pub struct BankWatcher {
    _watcher: notify::RecommendedWatcher,
}

impl BankWatcher {
    pub fn spawn(root: &Path, tx: Sender<Input>) -> notify::Result<BankWatcher> {
        let (raw_tx, raw_rx) = mpsc::channel::<notify::Result<notify::Event>>();
        let mut watcher = notify::recommended_watcher(raw_tx)?;
        watcher.watch(root, RecursiveMode::Recursive)?;
        thread::Builder::new()
            .name("membank-watch".into())
            .spawn(move || debounce_loop(raw_rx, tx))
            .expect("spawning the watcher thread");
        Ok(BankWatcher { _watcher: watcher })
    }
}

fn is_interesting(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any
    )
}

fn debounce_loop(raw: Receiver<notify::Result<notify::Event>>, tx: Sender<Input>) {
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
                let _ = tx.send(Input::Error(format!("watching the bank: {e}")));
            }
            Err(RecvTimeoutError::Timeout) => {
                deadline = None;
                let batch: Vec<PathBuf> = std::mem::take(&mut pending).into_iter().collect();
                if tx.send(Input::FilesChanged(batch)).is_err() {
                    return;
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// A watched path as the bank names it (relative, `/`-separated), or `None`
/// for paths outside the bank or in hidden folders (.obsidian, .git,
/// .trash), which are not the bank's.
pub fn bank_relative(root: &Path, path: &Path) -> Option<String> {
    let rel = if path.is_absolute() {
        path.strip_prefix(root).ok()?
    } else {
        path
    };
    let parts: Vec<&str> = rel
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect::<Option<_>>()?;
    if parts.is_empty() || parts.iter().any(|p| p.starts_with('.')) {
        return None;
    }
    Some(parts.join("/"))
}

/// Did a folder appear, vanish or get renamed among these changed paths?
pub fn folder_changed(root: &Path, rels: &[String]) -> bool {
    rels.iter().any(|rel| {
        let path = root.join(rel);
        path.is_dir() || (!path.exists() && Path::new(rel).extension().is_none())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real files saved the way editors save them: every article changed
    /// is reported, each path once a batch, and never before the changes
    /// have been quiet for the debounce time.
    #[test]
    fn real_file_changes_arrive_in_debounced_batches() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("01_CLIENTS")).unwrap();
        let (tx, rx) = mpsc::channel();
        let _watcher = BankWatcher::spawn(&root, tx).unwrap();

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
            let Ok(input) = rx.recv_timeout(left) else {
                panic!("no change reported for {wanted:?}; seen {seen:?}");
            };
            let arrived = Instant::now();
            let Input::FilesChanged(batch) = input else {
                panic!("not a file change: {input:?}");
            };
            let unique: BTreeSet<&PathBuf> = batch.iter().collect();
            assert_eq!(unique.len(), batch.len(), "{batch:?}");
            let rels: Vec<String> = batch
                .iter()
                .filter_map(|p| bank_relative(&root, p))
                .collect();
            if rels.iter().any(|r| r == "01_CLIENTS/Beta.md") {
                assert!(
                    arrived >= last_started + DEBOUNCE,
                    "delivered {:?} after the last write began",
                    arrived - last_started
                );
            }
            seen.extend(rels);
        }
    }
}
