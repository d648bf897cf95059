//! The user's file-reading limits, the `[files]` table of the config file:
//!
//! ```toml
//! [files]
//! max_file_mb = 16          # larger files are reported, not read
//! follow_links_out = false  # follow symbolic links that leave the bank
//! ```
//!
//! Only the user's own config file can loosen these; nothing in a bank can.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use membank_core::safe_read::ReadPolicy;
use serde::Deserialize;

#[derive(Debug, Default, Deserialize)]
struct FileTable {
    #[serde(default)]
    files: Files,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Files {
    max_file_mb: Option<u64>,
    follow_links_out: Option<bool>,
}

/// The policy from a config file's text.
pub fn parse(text: &str) -> anyhow::Result<ReadPolicy> {
    // Told without the file's text: the offending line may hold a key.
    let table: FileTable = toml::from_str(text).map_err(|e| {
        anyhow::anyhow!(
            "[files] table: {}",
            membank_core::toml_error::describe(text, &e)
        )
    })?;
    let mut policy = ReadPolicy::default();
    if let Some(mb) = table.files.max_file_mb {
        anyhow::ensure!(mb > 0, "[files] max_file_mb must be at least 1");
        policy.max_file_bytes = mb.saturating_mul(1024 * 1024);
    }
    if let Some(follow) = table.files.follow_links_out {
        policy.follow_links_out = follow;
    }
    Ok(policy)
}

/// The user's config file and its text, read once: the `[files]` and
/// `[undo]` tables both come from it.
#[derive(Debug)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub text: String,
}

impl ConfigFile {
    /// The config file at `path` (`MEMBANK_CONFIG`, else the per-user one
    /// when `None`); `None` when there is no file.
    pub fn read(path: Option<&Path>) -> anyhow::Result<Option<ConfigFile>> {
        let path = match path {
            Some(p) => p.to_path_buf(),
            None => match membank_llm::config::config_file_path() {
                Some(p) => p,
                None => return Ok(None),
            },
        };
        // The one read the other tables' readers share (a pipe reads once).
        match membank_llm::config::read_config_file(&path) {
            Ok(Some(text)) => {
                let text = text.to_string();
                // A syntax error is the file's, wherever it is: said so
                // before a table's reading would claim it as its own. Told
                // by line and column, never by the line's text, which may
                // hold a key pasted in by mistake.
                if let Err(e) = text.parse::<toml::Table>() {
                    anyhow::bail!(
                        "{}: not valid TOML: {}",
                        path.display(),
                        membank_core::toml_error::describe(&text, &e)
                    );
                }
                Ok(Some(ConfigFile { path, text }))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }

    /// The `[files]` policy it sets, its errors named by the file.
    pub fn policy(&self) -> anyhow::Result<ReadPolicy> {
        parse(&self.text).with_context(|| format!("{}", self.path.display()))
    }
}

/// The policy from the config file at `path` (`MEMBANK_CONFIG`, else the
/// per-user one when `None`); defaults when there is no file.
pub fn load(path: Option<&Path>) -> anyhow::Result<ReadPolicy> {
    match ConfigFile::read(path)? {
        Some(config) => config.policy(),
        None => Ok(ReadPolicy::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_safe_and_settings_apply() {
        assert_eq!(parse("").unwrap(), ReadPolicy::default());
        assert!(!ReadPolicy::default().follow_links_out);
        let p =
            parse("theme = \"mono\"\n[files]\nmax_file_mb = 2\nfollow_links_out = true\n").unwrap();
        assert_eq!(p.max_file_bytes, 2 * 1024 * 1024);
        assert!(p.follow_links_out);
        assert!(parse("[files]\nfollow_links = true\n").is_err());
        assert!(parse("[files]\nmax_file_mb = 0\n").is_err());
    }
}
