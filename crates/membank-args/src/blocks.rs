//! `membank blocks`.

use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Exit status: 0 all blocks valid, 1 some block rejected, 2 error.")]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// File holding the reply (default: standard input; `-` also means it).
    #[arg(long, value_name = "FILE")]
    pub reply: Option<PathBuf>,
    /// Write the valid blocks into the bank (default: only check them).
    #[arg(long)]
    pub apply: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}
