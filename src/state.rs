//! membank's own state folder, the one place that decides it for the log,
//! the remembered queries and anything else membank keeps between runs:
//! `$MEMBANK_STATE_DIR` when set, else `membank/` in the platform's state
//! folder (`$XDG_STATE_HOME` or `~/.local/state` on Linux), else in its
//! local data folder.

use std::path::PathBuf;

/// The environment variable that moves the state folder (tests and
/// portable setups use it).
pub const ENV: &str = "MEMBANK_STATE_DIR";

pub fn state_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(ENV).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    dirs::state_dir()
        .or_else(dirs::data_local_dir)
        .map(|d| d.join("membank"))
}
