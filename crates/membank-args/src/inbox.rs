//! `membank inbox`.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}
