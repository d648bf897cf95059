//! `membank template`.

use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = crate::MODEL_TEXT_HELP)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// compile, lint, query, translate or distill.
    pub agent: String,
    /// Print {"agent","source","path","text"} as JSON.
    #[arg(long)]
    pub json: bool,
}
