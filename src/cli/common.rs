//! Helpers shared by the subcommands.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use membank_core::bank::Bank;
use membank_core::text::sanitize_for_terminal;

/// Open a bank, turning every failure into a message that names the path.
///
/// The bank lives until the process ends: a command reads it and exits, and
/// freeing hundreds of thousands of small allocations one by one only to
/// exit costs more than the query itself on a small bank.
pub fn open_bank(path: &Path) -> anyhow::Result<&'static Bank> {
    let policy = membank::read_settings::load(None)?;
    let bank = Bank::load_with(path, policy).map_err(anyhow::Error::from)?;
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
