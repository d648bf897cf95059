//! `membank feedback`.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The project folder (holding memory/) or its memory/ folder.
    pub project: PathBuf,
    /// Print the reference report's JSON; with --add, the line appended
    /// (`{"path": …, "appended": {…}}`).
    #[arg(long)]
    pub json: bool,
    /// Append a line for a cue just tried: helpful, irrelevant, missed or overloaded.
    #[arg(long, value_name = "OUTCOME", requires = "cue")]
    pub add: Option<String>,
    /// The cue the line is about (stored sanitized: lower-case words, no secrets).
    #[arg(long)]
    pub cue: Option<String>,
    /// The impression id the recall matched, if any.
    #[arg(long, value_name = "ID")]
    pub matched_id: Option<String>,
    /// A short note.
    #[arg(long)]
    pub note: Option<String>,
}
