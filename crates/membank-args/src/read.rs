//! `membank read`.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The memory folder (a memory bank; see --format).
    pub bank: PathBuf,
    /// The document: a relative path (`03_DOMAINS/Legal.md`), a name
    /// (`Legal`) or a wikilink (`[[Legal]]`).
    pub target: String,
    /// Print {"path","title","kind","status","frontmatter","frontmatter_problem","text"} as JSON.
    #[arg(long)]
    pub json: bool,
}
