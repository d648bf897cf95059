//! `membank mv`.

use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "FROM and TO are paths inside the bank (03_DOMAINS/Legal.md, 03_DOMAINS/legal). \
                  A TO ending in / is a folder the note or folder moves into; a note's new \
                  name gets .md when given without it. Every link that opened the note \
                  opens it still; a name that is taken or would make links ambiguous is \
                  refused.\n\nIn a Deja Vu project FROM is a record (memory/decisions/x.md): its \
                  links, supersedes/superseded_by values and impressions' record_path \
                  follow it.\n\nWithout --yes nothing is written. Exit status: 0 written, 1 \
                  shown but not written, 2 refused (a name taken, a move to where FROM \
                  already is) or error."
)]
pub struct Args {
    /// The memory bank folder, or a Deja Vu project.
    pub bank: PathBuf,
    /// The note or folder to rename or move.
    pub from: String,
    /// Its new path.
    pub to: String,
    /// Write the plan.
    #[arg(long)]
    pub yes: bool,
    /// Print the plan as JSON.
    #[arg(long)]
    pub json: bool,
}
