//! `membank lint`.

use std::path::PathBuf;

use membank_core::snapshot::DEFAULT_CAP;

#[derive(clap::Args)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// Send the bank to the configured model for review.
    #[arg(long)]
    pub llm: bool,
    /// Snapshot character cap; whole articles only. 0 means no cap.
    #[arg(long, default_value_t = DEFAULT_CAP)]
    pub cap: usize,
    /// Report articles whose last_updated is older than this many days (0: never).
    #[arg(long, value_name = "N", default_value_t = 365)]
    pub stale_days: u32,
}
