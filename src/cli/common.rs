//! Helpers shared by the subcommands.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use membank_core::bank::{ArticleId, Bank, Resolution};
use membank_core::text::sanitize_for_terminal;

/// Open a bank, turning every failure into a message that names the path.
///
/// The bank lives until the process ends: a command reads it and exits, and
/// freeing hundreds of thousands of small allocations one by one only to
/// exit costs more than the query itself on a small bank.
pub fn open_bank(path: &Path) -> anyhow::Result<&'static Bank> {
    let bank = Bank::load(path).map_err(anyhow::Error::from)?;
    Ok(Box::leak(Box::new(bank)))
}

/// Print a value as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value).context("writing JSON")?;
    writeln!(out)?;
    Ok(())
}

/// Text from a file, safe to print on a terminal.
pub fn safe(s: &str) -> String {
    sanitize_for_terminal(s, false)
}

/// Find an article by relative path (`03_DOMAINS/Legal.md`) or by the name
/// a wikilink would use (`Legal`, `[[Legal]]`, `[[Legal|the law]]`).
pub fn find_article(bank: &Bank, wanted: &str) -> anyhow::Result<ArticleId> {
    if let Some(id) = bank.find(&wanted.replace('\\', "/")) {
        return Ok(id);
    }
    let normalised = link_target(wanted).replace('\\', "/");
    if let Some(id) = bank.find(&normalised) {
        return Ok(id);
    }
    match bank.resolve(&normalised) {
        Resolution::One(id) => Ok(id),
        Resolution::Ambiguous(ids) => {
            let names: Vec<&str> = ids
                .iter()
                .map(|&i| bank.article(i).rel_path.as_str())
                .collect();
            anyhow::bail!(
                "`{wanted}` names several articles: {}; give a path",
                names.join(", ")
            )
        }
        Resolution::Dead => {
            // Inbox and index notes are not link targets but can be inspected.
            let by_stem = bank
                .articles()
                .iter()
                .position(|a| a.stem.to_lowercase() == normalised.to_lowercase());
            by_stem.ok_or_else(|| {
                anyhow::anyhow!("no article `{wanted}` in {}", bank.root().display())
            })
        }
    }
}

/// `[[Target|alias]]` and `[[Target#heading]]` name `Target`.
fn link_target(wanted: &str) -> &str {
    let trimmed = wanted.trim();
    let inner = trimmed
        .strip_prefix("[[")
        .and_then(|s| s.strip_suffix("]]"))
        .unwrap_or(trimmed);
    let end = inner.find(['|', '#']).unwrap_or(inner.len());
    inner[..end].trim()
}
