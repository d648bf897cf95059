//! `membank check`, and the filter the MCP `check` tool shares.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 no error found (warnings and notes may remain), 1 at least \
                  one error among the findings kept, 2 the memory could not be read or an \
                  argument is wrong."
)]
pub struct Args {
    /// The memory folder (a memory bank; see --format).
    pub bank: PathBuf,
    /// Print the findings as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub filter: CheckArgs,
}

/// What to check and which findings to report; shared with the MCP `check`
/// tool, whose argument schema is generated from this type.
#[derive(clap::Args, Clone, Deserialize, JsonSchema)]
pub struct CheckArgs {
    /// Report articles whose last_updated is older than this many days (0: never).
    #[arg(long, value_name = "N", default_value_t = 365)]
    #[serde(default = "default_stale_days")]
    #[schemars(default = "default_stale_days")]
    pub stale_days: u32,
    /// Only findings with this code (e.g. dead-link); may be repeated.
    #[arg(long, value_name = "CODE")]
    #[serde(default)]
    pub code: Vec<String>,
    /// Only findings about this file, or about files under this folder.
    #[arg(long, value_name = "PATH")]
    #[serde(default)]
    pub path: Option<String>,
    /// List at most N findings, after --offset; the counts stay those of
    /// every finding (0: list every one; the command line's default, while
    /// an MCP answer lists 100 unless told, and at most 500).
    #[arg(long, value_name = "N", default_value_t = 0)]
    #[serde(default = "default_mcp_limit")]
    #[schemars(default = "default_mcp_limit")]
    pub limit: usize,
    /// Skip the first N findings, to list the next page. Pages are cut
    /// from the findings sorted by severity, then code, as the readable
    /// report lists them.
    #[arg(long, value_name = "N", default_value_t = 0)]
    #[serde(default)]
    pub offset: usize,
}

fn default_stale_days() -> u32 {
    365
}

/// Findings an MCP answer lists unless told otherwise.
pub const MCP_DEFAULT_LIMIT: usize = 100;

fn default_mcp_limit() -> usize {
    MCP_DEFAULT_LIMIT
}
