//! `membank distill`.

use std::path::PathBuf;

use crate::context::QueryArgs;

#[derive(clap::Args)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// The document to distill (.txt, .md, .tmx, .tbx or .docx).
    pub file: PathBuf,
    /// Write the note into 00_INBOX/ instead of only printing it.
    #[arg(long)]
    pub yes: bool,
    /// What the document is about, when known (passed on to the model).
    #[command(flatten)]
    pub query: QueryArgs,
}
