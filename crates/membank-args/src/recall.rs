//! `membank recall`.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The project folder (holding memory/) or its memory/ folder.
    pub project: PathBuf,
    /// The cue: the task or question, in any number of words.
    #[arg(required = true, num_args = 1..)]
    pub cue: Vec<String>,
    /// Print the reference scan's JSON plus the explanation.
    #[arg(long, conflicts_with = "ask")]
    pub json: bool,
    /// Ask the configured model the cue as a question, with the records
    /// recall selects (never private ones) as its context.
    #[arg(long)]
    pub ask: bool,
    /// Explain this many of the best matches [default: 20; with --json,
    /// every impression; 0: every impression, as --all].
    #[arg(long, value_name = "N", conflicts_with = "all")]
    pub limit: Option<usize>,
    /// Explain every impression line, matched or not.
    #[arg(long)]
    pub all: bool,
}
