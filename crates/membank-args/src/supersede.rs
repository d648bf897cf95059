//! `membank supersede`.

use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 written (or nothing to change), 1 edits shown but not \
                        written, 2 error."
)]
pub struct Args {
    /// The project folder (holding memory/) or its memory/ folder.
    pub project: PathBuf,
    /// The record being replaced: its id or path (memory/decisions/x.md).
    pub old: String,
    /// The record replacing it.
    pub new: String,
    /// Write without asking.
    #[arg(long)]
    pub yes: bool,
    /// Print the plan as JSON: {"old", "new", "notes", "edits": [{"path",
    /// "diff"}], "written"}; nothing is written without --yes.
    #[arg(long)]
    pub json: bool,
}
