//! Helpers shared by the subcommands.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use membank_core::bank::Bank;
use membank_core::text::sanitize_for_terminal;

/// Open a bank, turning every failure into a message that names the path.
pub fn open_bank(path: &Path) -> anyhow::Result<Bank> {
    Bank::load(path).map_err(anyhow::Error::from)
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
