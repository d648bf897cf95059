//! `membank translate`.

use std::path::PathBuf;

use crate::context::{BudgetArgs, QueryArgs};

#[derive(clap::Args)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    #[command(flatten)]
    pub query: QueryArgs,
    #[command(flatten)]
    pub budget: BudgetArgs,
}
