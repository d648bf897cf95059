//! `membank writeback`.

use std::path::PathBuf;

/// Records sent whole with the notes, in tokens (chars/4).
pub const DEFAULT_RECORD_BUDGET: usize = 16_000;

#[derive(clap::Args)]
#[command(
    after_help = "Without --yes nothing is written: every proposed file is shown as new, \
                  changed (with its diff), unchanged or rejected (with the reason). The raw \
                  reply is saved in the temporary folder (its path is printed) so it can be \
                  applied later with --reply.\n\n\
                  Exit status: 0 every proposal accepted (and, with --yes, written), 1 a \
                  proposal was rejected, the reply was incomplete or proposed nothing, 2 error."
)]
pub struct Args {
    /// The project folder (holding memory/) or its memory/ folder.
    pub project: PathBuf,
    /// Files with the notes or conversation to write back (`-` for
    /// standard input).
    #[arg(value_name = "NOTE")]
    pub notes: Vec<PathBuf>,
    /// Read the notes or conversation from standard input.
    #[arg(long)]
    pub stdin: bool,
    /// Review this saved reply instead of asking the model (`-` for
    /// standard input).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["notes", "stdin"])]
    pub reply: Option<PathBuf>,
    /// Write the accepted records and append the accepted impression lines.
    #[arg(long)]
    pub yes: bool,
    /// Also print the model's reply (to stderr) as it arrives.
    #[arg(long)]
    pub show_reply: bool,
    /// Token budget for the records sent whole; 0 means unlimited.
    #[arg(long, default_value_t = DEFAULT_RECORD_BUDGET)]
    pub budget: usize,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}
