//! Files that changed on disk, as a memory takes them in: which of them are
//! the memory's own (the layout's rule), and the memory with them read
//! again. Every front end that watches a memory asks here, so they agree
//! on what a change is.

use std::path::{Path, PathBuf};

use super::{LayoutSpec, Memory, OpenError};

/// Folders no layout keeps memory in: version control, editor settings,
/// trash and indexes derived from the memory.
const NEVER_MEMORY: &[&str] = &[".git", ".index", ".tmp", ".obsidian", ".trash"];

/// The rule of a layout whose hidden files and folders are never its own
/// (a bank: `.obsidian/`, `.git/`, an editor's `.Acme.md.swp`).
pub fn visible_only(parts: &[&str]) -> bool {
    !parts.iter().any(|p| p.starts_with('.'))
}

/// The rule of a layout that keeps memory in hidden folders too (everos's
/// `.atomic_facts/` and `.foresights/`): only [`NEVER_MEMORY`] is left out.
pub fn hidden_kept(parts: &[&str]) -> bool {
    !parts.iter().any(|p| NEVER_MEMORY.contains(p))
}

/// A changed path as the memory names it (relative, `/`-separated), or
/// `None` when it lies outside the root or the layout says it is none of
/// the memory's. A relative path is taken as relative to the root.
pub fn memory_relative(spec: &LayoutSpec, root: &Path, path: &Path) -> Option<String> {
    let rel = if path.is_absolute() {
        path.strip_prefix(root).ok()?
    } else {
        path
    };
    let parts: Vec<&str> = rel
        .components()
        .map(|c| match c {
            std::path::Component::Normal(name) => name.to_str(),
            // `..`, a root or a prefix would name something outside.
            _ => None,
        })
        .collect::<Option<_>>()?;
    if parts.is_empty() || !(spec.may_hold)(&parts) {
        return None;
    }
    Some(parts.join("/"))
}

/// The memory's own paths among `paths`, sorted, each once. An atomic
/// write's temporary file is none of them: it is the written file, which is
/// named too, on its way in.
pub fn changed_paths(spec: &LayoutSpec, root: &Path, paths: &[PathBuf]) -> Vec<String> {
    let mut rels: Vec<String> = paths
        .iter()
        .filter(|p| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(crate::atomic::is_temp_name)
        })
        .filter_map(|p| memory_relative(spec, root, p))
        .collect();
    rels.sort();
    rels.dedup();
    rels
}

/// Did a folder appear, vanish or get renamed among these changed paths?
/// Then files changed that the paths do not name one by one.
pub fn folder_changed(root: &Path, rels: &[String]) -> bool {
    rels.iter().any(|rel| {
        let path = root.join(rel);
        path.is_dir() || (!path.exists() && Path::new(rel).extension().is_none())
    })
}

/// A memory with changed files read again; see [`Memory::refreshed`].
#[derive(Debug)]
pub struct Refreshed {
    pub memory: Box<dyn Memory>,
    /// Only the changed files were read again and the rest kept, so checks
    /// of what those files touch are enough; otherwise it was read whole.
    pub in_part: bool,
}

/// The memory at `root` read again whole, as the layout it was opened as.
pub fn read_whole(spec: &LayoutSpec, root: &Path) -> Result<Refreshed, OpenError> {
    Ok(Refreshed {
        memory: (spec.open)(root)?,
        in_part: false,
    })
}
