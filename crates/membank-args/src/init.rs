//! `membank init`.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Folder for the new bank: missing, or empty apart from hidden entries.
    #[arg(required_unless_present = "demo")]
    pub dir: Option<PathBuf>,
    /// Write the demo bank instead of an empty one. Without DIR, a fresh
    /// copy is extracted into a per-user temporary folder and its path printed.
    #[arg(long)]
    pub demo: bool,
}
