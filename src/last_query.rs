//! The last Context query per bank (client, domain, languages, budget),
//! kept in the user's state folder so that the next launch starts where
//! the last one stopped. Nothing is written inside the bank.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// A state file larger than this is not ours, or is damaged; it is ignored.
const MAX_STATE_BYTES: u64 = 1 << 20;
/// Banks remembered; the least recently used ones are forgotten first.
const MAX_BANKS: usize = 100;
const FILE_NAME: &str = "last-queries.json";

/// What the Context pane's form holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedQuery {
    #[serde(default)]
    pub client: String,
    #[serde(default)]
    pub domain: String,
    #[serde(default)]
    pub source_lang: String,
    #[serde(default)]
    pub target_lang: String,
    #[serde(default)]
    pub budget: String,
    #[serde(default)]
    pub include_unscored: bool,
}

impl SavedQuery {
    pub fn is_empty(&self) -> bool {
        self.client.is_empty()
            && self.domain.is_empty()
            && self.source_lang.is_empty()
            && self.target_lang.is_empty()
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StateFile {
    /// Bank folder (absolute) → its last query and when it was saved
    /// (a counter, larger is newer).
    #[serde(default)]
    banks: BTreeMap<String, (u64, SavedQuery)>,
}

use crate::state::state_dir;

fn key(bank_root: &Path) -> String {
    bank_root
        .canonicalize()
        .unwrap_or_else(|_| bank_root.to_path_buf())
        .display()
        .to_string()
}

fn read_state(file: &Path) -> StateFile {
    let Ok(meta) = std::fs::symlink_metadata(file) else {
        return StateFile::default();
    };
    if !meta.is_file() || meta.len() > MAX_STATE_BYTES {
        return StateFile::default();
    }
    std::fs::read(file)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// The last query saved for `bank_root` in `dir`.
pub fn load_from(dir: &Path, bank_root: &Path) -> Option<SavedQuery> {
    read_state(&dir.join(FILE_NAME))
        .banks
        .remove(&key(bank_root))
        .map(|(_, q)| q)
}

/// Remember `query` for `bank_root` in `dir` (created if missing).
pub fn save_to(dir: &Path, bank_root: &Path, query: &SavedQuery) -> std::io::Result<()> {
    let file = dir.join(FILE_NAME);
    let mut state = read_state(&file);
    let newest = state.banks.values().map(|(n, _)| *n).max().unwrap_or(0);
    state
        .banks
        .insert(key(bank_root), (newest + 1, query.clone()));
    while state.banks.len() > MAX_BANKS {
        let oldest = state
            .banks
            .iter()
            .min_by_key(|(_, (n, _))| *n)
            .map(|(k, _)| k.clone());
        match oldest {
            Some(k) => state.banks.remove(&k),
            None => break,
        };
    }
    std::fs::create_dir_all(dir)?;
    let bytes = serde_json::to_vec_pretty(&state).map_err(std::io::Error::other)?;
    membank_core::atomic::write_atomic(&file, &bytes)
}

/// The last query for `bank_root` from the user's state folder.
pub fn load(bank_root: &Path) -> Option<SavedQuery> {
    load_from(&state_dir()?, bank_root)
}

/// Save the query for `bank_root` in the user's state folder.
pub fn save(bank_root: &Path, query: &SavedQuery) -> std::io::Result<()> {
    match state_dir() {
        Some(dir) => save_to(&dir, bank_root, query),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(client: &str) -> SavedQuery {
        SavedQuery {
            client: client.to_owned(),
            target_lang: "nl".to_owned(),
            budget: "1500".to_owned(),
            ..SavedQuery::default()
        }
    }

    #[test]
    fn each_bank_gets_its_own_query_back() {
        let state = tempfile::tempdir().unwrap();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        assert_eq!(load_from(state.path(), a.path()), None);
        save_to(state.path(), a.path(), &query("Acme")).unwrap();
        save_to(state.path(), b.path(), &query("Globex")).unwrap();
        save_to(state.path(), a.path(), &query("Acme Corporation")).unwrap();
        assert_eq!(
            load_from(state.path(), a.path()),
            Some(query("Acme Corporation"))
        );
        assert_eq!(load_from(state.path(), b.path()), Some(query("Globex")));
        // Nothing was written next to the banks.
        assert_eq!(std::fs::read_dir(a.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_damaged_state_file_is_ignored_and_replaced() {
        let state = tempfile::tempdir().unwrap();
        let bank = tempfile::tempdir().unwrap();
        std::fs::write(state.path().join(FILE_NAME), "{not json").unwrap();
        assert_eq!(load_from(state.path(), bank.path()), None);
        save_to(state.path(), bank.path(), &query("Acme")).unwrap();
        assert_eq!(load_from(state.path(), bank.path()), Some(query("Acme")));
    }

    #[test]
    fn only_the_most_recent_banks_are_kept() {
        let state = tempfile::tempdir().unwrap();
        for i in 0..MAX_BANKS + 5 {
            save_to(state.path(), Path::new(&format!("/banks/{i}")), &query("x")).unwrap();
        }
        let kept = read_state(&state.path().join(FILE_NAME)).banks;
        assert_eq!(kept.len(), MAX_BANKS);
        assert!(!kept.contains_key("/banks/0"));
        assert!(kept.contains_key(&format!("/banks/{}", MAX_BANKS + 4)));
    }
}
