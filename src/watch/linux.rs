//! The watcher's Linux backend: inotify on every folder of the memory,
//! asking only for changes. The general watcher also asks the kernel for
//! every file opened, so each read of the memory, by membank or anything
//! else, became an event to receive and throw away: at 100,000 files about
//! 1.4 s of the interface's CPU per whole read, and slower reads for the
//! reader. Links are never followed: a linked folder is not watched.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::thread;

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};
use notify::event::{CreateKind, ModifyKind, RemoveKind};
use notify::{Event, EventKind};

/// What the watcher asks of each folder: changes only, links not followed.
fn mask() -> WatchMask {
    WatchMask::ATTRIB
        | WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::CLOSE_WRITE
        | WatchMask::MODIFY
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
}

/// Watches a folder and every folder under it; dropping it stops the
/// watching and ends its thread.
pub struct FolderWatcher {
    watches: Watches,
    descriptors: Arc<std::sync::Mutex<Vec<WatchDescriptor>>>,
    stop: Arc<AtomicBool>,
}

impl FolderWatcher {
    /// Watch `root`, sending each change as an event to `events`.
    pub fn start(root: &Path, events: Sender<notify::Result<Event>>) -> io::Result<FolderWatcher> {
        let inotify = Inotify::init()?;
        let mut watches = inotify.watches();
        let mut folders = HashMap::new();
        if let Some(missed) = add_tree(&mut watches, root, &mut folders)? {
            let _ = events.send(Err(notify::Error::io(missed)));
        }
        let descriptors = Arc::new(std::sync::Mutex::new(folders.keys().cloned().collect()));
        let stop = Arc::new(AtomicBool::new(false));
        let reader = Reader {
            inotify,
            watches: watches.clone(),
            folders,
            descriptors: Arc::clone(&descriptors),
            stop: Arc::clone(&stop),
            events,
        };
        thread::Builder::new()
            .name("membank-inotify".into())
            .spawn(move || reader.run())?;
        Ok(FolderWatcher {
            watches,
            descriptors,
            stop,
        })
    }
}

impl Drop for FolderWatcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Each removed watch wakes the reader with an event, and it sees
        // the stop.
        let descriptors = match self.descriptors.lock() {
            Ok(mut d) => std::mem::take(&mut *d),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        };
        for wd in descriptors {
            let _ = self.watches.remove(wd);
        }
    }
}

/// Watch `folder` and the folders under it (not through links). Fails
/// when `folder` itself cannot be watched; a folder under it that could
/// not be (the system's limit of watches reached, say) is said in the
/// error returned, the first of them, while the others are still watched.
fn add_tree(
    watches: &mut Watches,
    folder: &Path,
    folders: &mut HashMap<WatchDescriptor, PathBuf>,
) -> io::Result<Option<io::Error>> {
    let mut missed = None;
    let mut pending = vec![folder.to_path_buf()];
    let mut first = true;
    while let Some(dir) = pending.pop() {
        match watches.add(&dir, mask()) {
            Ok(wd) => {
                folders.insert(wd, dir.clone());
            }
            // The root must be watched; a folder gone meanwhile need not.
            Err(e) if first => return Err(e),
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => {
                let why = format!("{} could not be watched: {e}", dir.display());
                missed.get_or_insert(io::Error::new(e.kind(), why));
                continue;
            }
        }
        first = false;
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            // `file_type` does not follow a link: a linked folder is not a
            // folder here.
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                pending.push(entry.path());
            }
        }
    }
    Ok(missed)
}

struct Reader {
    inotify: Inotify,
    watches: Watches,
    folders: HashMap<WatchDescriptor, PathBuf>,
    descriptors: Arc<std::sync::Mutex<Vec<WatchDescriptor>>>,
    stop: Arc<AtomicBool>,
    events: Sender<notify::Result<Event>>,
}

impl Reader {
    fn run(mut self) {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            let read = self.inotify.read_events_blocking(&mut buffer);
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            let batch: Vec<(WatchDescriptor, EventMask, Option<PathBuf>)> = match read {
                Ok(events) => events
                    .map(|e| (e.wd, e.mask, e.name.map(PathBuf::from)))
                    .collect(),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = self.events.send(Err(notify::Error::io(e)));
                    return;
                }
            };
            for (wd, mask, name) in batch {
                if !self.handle(wd, mask, name) {
                    return;
                }
            }
        }
    }

    /// One event: passed on as the path it is about. False once nobody
    /// listens.
    fn handle(&mut self, wd: WatchDescriptor, mask: EventMask, name: Option<PathBuf>) -> bool {
        if mask.contains(EventMask::IGNORED) {
            self.folders.remove(&wd);
            return true;
        }
        let Some(folder) = self.folders.get(&wd) else {
            return true;
        };
        let path = match &name {
            Some(name) => folder.join(name),
            None => folder.clone(),
        };
        // A folder that appears is watched too, with what is under it.
        if mask.contains(EventMask::ISDIR)
            && mask.intersects(EventMask::CREATE | EventMask::MOVED_TO)
        {
            let mut added = HashMap::new();
            let missed = match add_tree(&mut self.watches, &path, &mut added) {
                Ok(missed) => missed,
                Err(e) if e.kind() == io::ErrorKind::NotFound => None,
                Err(e) => Some(e),
            };
            if let Some(e) = missed
                && self.events.send(Err(notify::Error::io(e))).is_err()
            {
                return false;
            }
            if let Ok(mut d) = self.descriptors.lock() {
                d.extend(added.keys().cloned());
            }
            self.folders.extend(added);
        }
        let kind = if mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
            EventKind::Create(CreateKind::Any)
        } else if mask.intersects(
            EventMask::DELETE
                | EventMask::MOVED_FROM
                | EventMask::DELETE_SELF
                | EventMask::MOVE_SELF,
        ) {
            EventKind::Remove(RemoveKind::Any)
        } else {
            EventKind::Modify(ModifyKind::Any)
        };
        self.events
            .send(Ok(Event::new(kind).add_path(path)))
            .is_ok()
    }
}
