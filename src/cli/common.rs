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
    let bank = Bank::load(path).map_err(anyhow::Error::from)?;
    Ok(Box::leak(Box::new(bank)))
}

/// Warn on stderr about each query value no article carries, with the
/// closest values the bank uses: a typo would otherwise just score nothing.
pub fn warn_unknown_values(bank: &Bank, query: &membank_core::scoring::Query) {
    let vocabulary = membank_core::vocabulary::collect(bank);
    for unknown in membank_core::suggest::unknown_values(&vocabulary, query) {
        eprintln!("membank: warning: {}", safe(&unknown.to_string()));
    }
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
