//! How the user arranged the interface (the tree pane's width), kept in
//! the state folder so that the next launch looks the same. One setting
//! for every memory: it follows the terminal, not the bank.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::state::state_dir;

/// A state file larger than this is not ours, or is damaged; it is ignored.
const MAX_STATE_BYTES: u64 = 64 * 1024;
const FILE_NAME: &str = "layout.json";

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedLayout {
    /// The tree pane's width in columns, when the user chose one.
    #[serde(default)]
    pub tree_width: Option<u16>,
}

/// The layout saved in `dir`; the default when there is none or it is
/// unreadable (a link, a folder, too large, not our JSON).
pub fn load_from(dir: &Path) -> SavedLayout {
    let file = dir.join(FILE_NAME);
    let Ok(meta) = std::fs::symlink_metadata(&file) else {
        return SavedLayout::default();
    };
    if !meta.is_file() || meta.len() > MAX_STATE_BYTES {
        return SavedLayout::default();
    }
    std::fs::read(&file)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Keep `layout` in `dir` (created if missing), replacing the file whole.
pub fn save_to(dir: &Path, layout: &SavedLayout) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let bytes = serde_json::to_vec_pretty(layout).map_err(std::io::Error::other)?;
    membank_core::atomic::write_atomic(&dir.join(FILE_NAME), &bytes)
}

/// The layout from the user's state folder.
pub fn load() -> SavedLayout {
    state_dir().map(|d| load_from(&d)).unwrap_or_default()
}

/// Keep the layout in the user's state folder.
pub fn save(layout: &SavedLayout) -> std::io::Result<()> {
    match state_dir() {
        Some(dir) => save_to(&dir, layout),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chosen_tree_width_comes_back() {
        let state = tempfile::tempdir().unwrap();
        assert_eq!(load_from(state.path()), SavedLayout::default());
        let wide = SavedLayout {
            tree_width: Some(44),
        };
        save_to(state.path(), &wide).unwrap();
        assert_eq!(load_from(state.path()), wide);
    }

    #[test]
    fn a_damaged_or_foreign_file_is_ignored_and_replaced() {
        let state = tempfile::tempdir().unwrap();
        let file = state.path().join(FILE_NAME);
        for junk in ["{not json", "[1, 2]", "{\"tree_width\": -3}", ""] {
            std::fs::write(&file, junk).unwrap();
            assert_eq!(load_from(state.path()), SavedLayout::default(), "{junk}");
        }
        let narrow = SavedLayout {
            tree_width: Some(20),
        };
        save_to(state.path(), &narrow).unwrap();
        assert_eq!(load_from(state.path()), narrow);
    }
}
