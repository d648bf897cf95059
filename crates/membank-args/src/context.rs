//! `membank context`, and the query and budget every context shares.

use std::path::PathBuf;

use membank_core::budget::{BudgetOptions, DEFAULT_BUDGET};
use membank_core::scoring::Query;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(clap::Args)]
#[command(after_help = crate::MODEL_TEXT_HELP)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    #[command(flatten)]
    pub query: QueryArgs,
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// List at most N articles, in rank order; the ones the budget kept are
    /// always listed (default: every article; 0 also means every article).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print the assembled context text instead of the table.
    #[arg(long, conflicts_with = "json")]
    pub render: bool,
}

/// The active client, domain and language pair, shared by every command
/// that assembles a context (and by the MCP tools, whose argument schema is
/// generated from this same type).
#[derive(clap::Args, Clone, Default, Deserialize, JsonSchema)]
pub struct QueryArgs {
    /// Active client (compared exactly, ignoring case).
    #[arg(long)]
    pub client: Option<String>,
    /// Active domain (compared exactly, ignoring case).
    #[arg(long)]
    pub domain: Option<String>,
    /// Source language code, e.g. en-US.
    #[arg(long)]
    pub source_lang: Option<String>,
    /// Target language code, e.g. nl-BE.
    #[arg(long)]
    pub target_lang: Option<String>,
}

/// The token budget, shared by every command that assembles a context.
#[derive(clap::Args, Clone, Deserialize, JsonSchema)]
pub struct BudgetArgs {
    /// Token budget; 0 means unlimited.
    #[arg(long, default_value_t = DEFAULT_BUDGET)]
    #[serde(default = "default_budget")]
    #[schemars(default = "default_budget")]
    pub budget: usize,
    /// Make articles that score 0 candidates too: the budget drops them
    /// first, and puts back those that still fit what is left.
    #[arg(long)]
    #[serde(default)]
    pub include_unscored: bool,
}

fn default_budget() -> usize {
    DEFAULT_BUDGET
}

impl BudgetArgs {
    pub fn options(&self) -> BudgetOptions {
        BudgetOptions {
            budget: self.budget,
            include_unscored: self.include_unscored,
        }
    }
}

impl QueryArgs {
    pub fn to_query(&self) -> Query {
        Query {
            client: self.client.clone(),
            domain: self.domain.clone(),
            source_lang: self.source_lang.clone(),
            target_lang: self.target_lang.clone(),
        }
    }
}
