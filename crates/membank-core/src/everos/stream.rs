//! Reading a root once, a window of files at a time, for the commands
//! that need each file only once (`entries`, `check`, `search`): a file is
//! read, parsed and handed to the caller on a pool thread, and only what
//! the caller keeps of it outlives the window. The walk, the parse and
//! the order are [`load`](super::load)'s, so what is found is the same.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::load::{self, LoadFilter, WalkedFile};
use super::paths::SystemKind;
use super::{MemFile, MemoryRoot};
use crate::health::Finding;
use crate::safe_read::RootReader;

/// Files read together: enough to keep both cores busy, few enough that
/// the texts in flight stay a small part of a large root.
const WINDOW: usize = 1024;

/// A walked root: every file `filter` wants, sorted by path, none read.
pub struct Walked {
    root: PathBuf,
    reader: RootReader,
    files: Vec<WalkedFile>,
    skill_dirs: Vec<(String, bool)>,
    system_dirs: Vec<(String, SystemKind)>,
    problems: Vec<Finding>,
}

/// Walk `root` for the files `filter` wants, reading none of them.
pub fn walk(root: &Path, filter: &LoadFilter) -> Result<Walked, String> {
    let (root, reader, mut walk) = load::walk_root(root, filter)?;
    walk.files.sort_unstable_by(|a, b| a.1.cmp(&b.1));
    walk.skill_dirs.sort();
    crate::shared_sort::sort_by(&mut walk.system_dirs, |a, b| a.0.cmp(&b.0));
    Ok(Walked {
        root,
        reader,
        files: walk.files,
        skill_dirs: walk.skill_dirs,
        system_dirs: walk.system_dirs,
        problems: walk.problems,
    })
}

impl Walked {
    /// How many files were found (read or not, documents or not).
    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The relative path of the `i`th file in path order.
    pub fn rel_path(&self, i: usize) -> &str {
        &self.files[i].1
    }

    /// Was a file of this relative path found?
    pub fn has_file(&self, rel_path: &str) -> bool {
        self.files
            .binary_search_by(|f| f.1.as_str().cmp(rel_path))
            .is_ok()
    }

    /// Skill folders with whether they hold a `SKILL.md`, sorted.
    pub fn skill_dirs(&self) -> &[(String, bool)] {
        &self.skill_dirs
    }

    /// Read and parse the `i`th file, with the problems reading it found.
    pub(crate) fn read_one(&self, i: usize) -> (MemFile, Vec<Finding>) {
        let (abs, rel, segs, is_link) = &self.files[i];
        load::read_file(&self.reader, abs, *is_link, rel.clone(), segs)
    }

    /// Read every file, in path order a window at a time: `visit` gets
    /// each file's index and the file on a pool thread, and `keep` gets
    /// what it returned on this thread, in path order; reading stops
    /// after the window in which `keep` returns false (its reader has
    /// gone). Returns the problems of the walk and of reading, sorted as
    /// a loaded root's.
    pub fn read<T: Send>(
        &self,
        visit: impl Fn(usize, MemFile) -> T + Sync,
        keep: impl FnMut(T) -> bool,
    ) -> Vec<Finding> {
        self.read_where(|_| true, visit, keep)
    }

    /// [`read`](Self::read) for only the files whose relative path
    /// `wanted` accepts: the others are never opened, and only their
    /// reading's problems are missing from what is returned.
    pub fn read_where<T: Send>(
        &self,
        wanted: impl Fn(&str) -> bool,
        visit: impl Fn(usize, MemFile) -> T + Sync,
        mut keep: impl FnMut(T) -> bool,
    ) -> Vec<Finding> {
        let chosen: Vec<usize> = (0..self.files.len())
            .filter(|&i| wanted(&self.files[i].1))
            .collect();
        let mut problems = self.problems.clone();
        let one = |&i: &usize| {
            let (file, found) = self.read_one(i);
            (visit(i, file), found)
        };
        let mut take = |done: Vec<(T, Vec<Finding>)>| {
            let mut go_on = true;
            for (kept, found) in done {
                problems.extend(found);
                go_on = go_on && keep(kept);
            }
            go_on
        };
        let windows = chosen.chunks(WINDOW);
        if !crate::parallel::pays(chosen.len()) {
            // A small root is read on this thread (see `parallel`).
            for window in windows {
                if !take(window.iter().map(one).collect()) {
                    break;
                }
            }
        } else {
            // The pool reads the next window while this thread hands on
            // the last one, so the cores never wait for what `keep` does
            // (writing, mostly). One window waits at most: memory stays
            // a few windows' worth.
            std::thread::scope(|scope| {
                let (sender, windows_read) = std::sync::mpsc::sync_channel(1);
                let one = &one;
                scope.spawn(move || {
                    for window in windows {
                        let done: Vec<(T, Vec<Finding>)> = window.par_iter().map(one).collect();
                        if sender.send(done).is_err() {
                            // `keep` asked to stop.
                            break;
                        }
                    }
                });
                for done in windows_read {
                    if !take(done) {
                        break;
                    }
                }
            });
        }
        crate::shared_sort::sort_by(&mut problems, |a, b| {
            (&a.path, a.line()).cmp(&(&b.path, b.line()))
        });
        problems
    }

    /// The root with what the walk found but no files: what a command
    /// that streamed its answer shows of the layout.
    pub fn listing(&self, problems: Vec<Finding>) -> MemoryRoot {
        MemoryRoot {
            root: self.root.clone(),
            skill_dirs: self.skill_dirs.clone(),
            system_dirs: self.system_dirs.clone(),
            problems,
            ..MemoryRoot::default()
        }
    }
}
