//! `membank values`.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// Print JSON: {"clients", "domains", "languages"}, each [{"value", "articles"}].
    #[arg(long)]
    pub json: bool,
}
