//! `membank fix`.

use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "Without --yes nothing is written: the fixes are shown, with what each \
                  changes. A file changed on disk after it was read is not overwritten.\n\n\
                  Exit status: 0 nothing is left to fix (or everything proposed was written \
                  and no finding remains), 1 findings remain (or fixes were shown but not \
                  written), 2 error."
)]
pub struct Args {
    /// The memory bank or Deja Vu project folder.
    pub bank: PathBuf,
    /// Only fix findings with this code (e.g. bad-date); may be repeated.
    #[arg(long, value_name = "CODE")]
    pub code: Vec<String>,
    /// Only fix findings about this file, or about files under this folder.
    #[arg(long, value_name = "PATH")]
    pub path: Option<String>,
    /// Create the article a dead link names when no article is a near
    /// miss of it (a dead link may be a deliberate forward reference, so
    /// nothing is created without this).
    #[arg(long)]
    pub create_missing: bool,
    /// Articles whose last_updated is older than this many days are stale
    /// (0: never), as for `check`: what `--code stale` marks checked.
    #[arg(long, value_name = "N", default_value_t = 365)]
    pub stale_days: u32,
    /// Write the fixes.
    #[arg(long)]
    pub yes: bool,
    /// Print the fixes and the findings left as JSON.
    #[arg(long)]
    pub json: bool,
}
