//! `membank compile`.

use std::path::PathBuf;

/// Related articles sent along with the inbox files, in tokens (chars/4).
pub const DEFAULT_RELATED_BUDGET: usize = 16_000;

#[derive(clap::Args)]
#[command(
    after_help = "Without --reply the pending inbox files are sent to the configured \
                  model and its reply is shown as a plan; nothing is written unless --yes is \
                  given. The raw reply is saved to a file in the temporary folder (its path is \
                  printed) so that it can be applied later with --reply.\n\n\
                  Exit status: 0 everything applied (or, without --yes, a clean plan), 1 a \
                  block was rejected, a source would not be archived, the reply was \
                  incomplete, or nothing was pending, 2 error."
)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// Apply this saved reply instead of asking the model (`-` for standard
    /// input); it is applied at once unless --plan is given.
    #[arg(long, value_name = "FILE")]
    pub reply: Option<PathBuf>,
    /// Only show what would be written and archived.
    #[arg(long, conflicts_with = "yes")]
    pub plan: bool,
    /// Write the model's files, then stamp and archive the inbox sources.
    #[arg(long)]
    pub yes: bool,
    /// Also print the model's reply (to stderr) as it arrives.
    #[arg(long)]
    pub show_reply: bool,
    /// Token budget for the related articles sent with the inbox; 0 means
    /// unlimited.
    #[arg(long, default_value_t = DEFAULT_RELATED_BUDGET)]
    pub budget: usize,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}
