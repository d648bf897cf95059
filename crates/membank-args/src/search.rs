//! `membank search`, and the query the MCP `search` tool shares.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(clap::Args)]
pub struct Args {
    /// A memory of any layout: a bank, a Deja Vu project, an everos memory root.
    pub path: PathBuf,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Print JSON: {"path", "layout", "query", "method", "note", "matches",
    /// "offset", "hits": [{"file", "line", "entry_id", "score", "snippet",
    /// "highlights"}]}.
    #[arg(long)]
    pub json: bool,
}

/// What to look for; shared with the MCP `search` tool, whose argument
/// schema is generated from this type.
#[derive(clap::Args, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// The words to look for (ranked with BM25; case does not matter).
    pub query: String,
    /// At most this many hits (0: every hit, as `check --limit 0` lists
    /// every finding; an MCP answer takes 1 to 100).
    #[arg(long, value_name = "N", default_value_t = 20)]
    #[serde(default = "default_limit")]
    #[schemars(default = "default_limit")]
    pub limit: usize,
    /// Skip the best N hits first, to list the next page.
    #[arg(long, value_name = "N", default_value_t = 0)]
    #[serde(default)]
    pub offset: usize,
}

fn default_limit() -> usize {
    20
}

impl SearchArgs {
    /// How many of the best hits to find: the page's and those it skips.
    pub fn hits_wanted(&self) -> usize {
        match self.limit {
            0 => usize::MAX,
            n => self.offset.saturating_add(n),
        }
    }
}
