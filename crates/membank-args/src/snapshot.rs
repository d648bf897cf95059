//! `membank snapshot`.

use std::path::PathBuf;

use membank_core::snapshot::DEFAULT_CAP;

#[derive(clap::Args)]
#[command(after_help = crate::MODEL_TEXT_HELP)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// Character cap; whole articles only. 0 means no cap.
    #[arg(long, default_value_t = DEFAULT_CAP)]
    pub cap: usize,
    /// Print JSON: {"snapshot", "articles", "omitted", "truncated", "chars", "cap"}.
    #[arg(long)]
    pub json: bool,
}
