//! `membank links`.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// The article: a relative path (`03_DOMAINS/Legal.md`) or a name (`Legal`).
    pub article: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}
