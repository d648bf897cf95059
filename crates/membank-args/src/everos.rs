//! `membank everos`, `entries` and `entry`, and the scope the MCP tools share.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;

/// Scope and owner options shared by `entries` and `entry`, and by the MCP
/// `entries` and `read` tools, whose argument schemas come from this type.
#[derive(clap::Args, Clone, Default, Deserialize, JsonSchema)]
pub struct ScopeArgs {
    /// Only this app (`default` for default_app).
    #[arg(long, value_name = "A")]
    #[serde(default)]
    pub app: Option<String>,
    /// Only this project (`default` for default_project).
    #[arg(long, value_name = "P")]
    #[serde(default)]
    pub project: Option<String>,
    /// Only this user's memory.
    #[arg(long, value_name = "U", conflicts_with = "agent")]
    #[serde(default)]
    pub user: Option<String>,
    /// Only this agent's memory.
    #[arg(long, value_name = "G")]
    #[serde(default)]
    pub agent: Option<String>,
}

/// Which entries `entries` lists; shared with the MCP `entries` tool.
#[derive(clap::Args, Clone, Default, Deserialize, JsonSchema)]
pub struct EntriesQuery {
    #[command(flatten)]
    #[serde(flatten)]
    pub scope: ScopeArgs,
    /// Only this kind: episode, atomic_fact, foresight, agent_case.
    #[arg(long, value_name = "K")]
    #[serde(default)]
    pub kind: Option<String>,
    /// Only daily logs of this day (YYYY-MM-DD) or later.
    #[arg(long, value_name = "DATE")]
    #[serde(default)]
    pub since: Option<String>,
}

#[derive(clap::Args)]
pub struct EntriesArgs {
    /// The everos memory root.
    pub root: PathBuf,
    #[command(flatten)]
    pub query: EntriesQuery,
    /// Print JSON: {"entries": [{"file", "id", "app", "project", "owner_kind",
    /// "owner", "kind", "date", "line", "text"}]}; a page that is not the
    /// whole list adds "total", "offset" and "truncated".
    #[arg(long)]
    pub json: bool,
    /// List at most N entries, after --offset (0: every one).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub limit: usize,
    /// Skip the first N entries, to list the next page.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
}

#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 the entry printed, 1 no entry has that id (or several owners' \
                  entries do: they are listed), 2 error. As with grep, an id not found is an \
                  answer, not an error."
)]
pub struct EntryArgs {
    /// The everos memory root.
    pub root: PathBuf,
    /// The entry id, e.g. ep_20260601_00000001.
    pub id: String,
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// Print JSON: one object as in `membank entries --json`.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct RootArgs {
    /// Print only the root and the rule that chose it.
    #[arg(long)]
    pub print: bool,
}

impl ScopeArgs {
    /// Whether any option narrows the owner or scope.
    pub fn is_empty(&self) -> bool {
        self.app.is_none() && self.project.is_none() && self.user.is_none() && self.agent.is_none()
    }
}
