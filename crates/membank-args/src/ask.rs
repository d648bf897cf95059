//! `membank ask`.

use std::path::PathBuf;

use crate::context::{BudgetArgs, QueryArgs};

#[derive(clap::Args)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// The question.
    pub question: String,
    #[command(flatten)]
    pub query: QueryArgs,
    #[command(flatten)]
    pub budget: BudgetArgs,
}
