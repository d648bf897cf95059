//! `membank undo`.

use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "Every change membank writes is journalled in its state folder (never in the \
                  memory). An undo is journalled too; running undo again takes back the change \
                  before. With --json: {\"undone\": {id, time, kind, files…}, \"warnings\": […]}, or \
                  {\"undone\": null, \"reason\": \"…\"} when nothing was reverted (exit 1). \
                  Exit status: 0 reverted (or listed), 1 nothing reverted, 2 error."
)]
pub struct Args {
    /// The memory bank or Deja Vu project folder.
    pub memory: PathBuf,
    /// List the journalled changes, newest first, instead of undoing.
    #[arg(long)]
    pub list: bool,
    /// Print as JSON.
    #[arg(long)]
    pub json: bool,
}
