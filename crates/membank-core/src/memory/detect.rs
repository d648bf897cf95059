//! Recognising each layout by a few names at a path. Only metadata is read,
//! links are never followed, and no folder listing is read past a bound:
//! the path may come from a hostile repository.

use std::path::{Path, PathBuf};

/// Folder entries looked at per level when searching the everos
/// `<app>/<project>/users|agents` tree.
const EVEROS_SCAN_LIMIT: usize = 64;

fn is_file(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file())
}

fn is_dir(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

/// A memory bank: at least one of the numbered folders 00_INBOX … 06_TEMPLATES.
pub fn bank_root(path: &Path) -> Option<PathBuf> {
    crate::bank::is_bank(path).then(|| path.to_path_buf())
}

fn has_dejavu_memory(memory_dir: &Path) -> bool {
    is_file(&memory_dir.join("impressions.jsonl")) || is_file(&memory_dir.join("summary.md"))
}

/// A Deja Vu project: a folder whose `memory/` holds `impressions.jsonl` or
/// `summary.md`. The `memory/` folder itself names its project.
pub fn dejavu_root(path: &Path) -> Option<PathBuf> {
    if has_dejavu_memory(&path.join("memory")) {
        return Some(path.to_path_buf());
    }
    if !has_dejavu_memory(path) {
        return None;
    }
    // `membank .` inside `memory/` has no name to look at until resolved.
    let named_memory = |p: &Path| p.file_name().is_some_and(|n| n == "memory");
    if named_memory(path) {
        return path.parent().map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p.to_path_buf()
            }
        });
    }
    let resolved = path.canonicalize().ok()?;
    named_memory(&resolved)
        .then(|| resolved.parent().map(Path::to_path_buf))
        .flatten()
}

/// Up to `EVEROS_SCAN_LIMIT` visible sub-folders of `dir`, links excluded.
fn visible_dirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .take(EVEROS_SCAN_LIMIT)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect()
}

/// An everos memory root: `ome.toml`, a `.index/` folder, or an
/// `<app>/<project>/users|agents` tree.
pub fn everos_root(path: &Path) -> Option<PathBuf> {
    if is_file(&path.join("ome.toml")) || is_dir(&path.join(".index")) {
        return Some(path.to_path_buf());
    }
    let scoped = visible_dirs(path).iter().any(|app| {
        visible_dirs(app)
            .iter()
            .any(|project| is_dir(&project.join("users")) || is_dir(&project.join("agents")))
    });
    scoped.then(|| path.to_path_buf())
}
