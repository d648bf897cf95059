//! `membank new` and `membank note`.

use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "FOLDER is a folder of the bank (02_TERMINOLOGY) or its short name \
                        (terminology). A term's NAME may be `source → target`. Keys no flag \
                        fills are left empty for you to fill; `membank check` lists them \
                        until then.\n\nExit status: 0 created, 2 refused or error."
)]
pub struct NewArgs {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// The folder of the new article.
    pub folder: String,
    /// Its name (without .md); `sub/Name` puts it in a subfolder. A name
    /// starting with `_` is refused: the bank skips such files.
    pub name: String,
    /// The client the article is for.
    #[arg(long)]
    pub client: Option<String>,
    /// The domain the article belongs to.
    #[arg(long)]
    pub domain: Option<String>,
    /// The language pair, `en-US → de-DE` (or `en-US:de-DE`).
    #[arg(long, value_name = "PAIR")]
    pub pair: Option<String>,
    /// Open the new article in $VISUAL / $EDITOR (on a terminal only).
    #[arg(long)]
    pub edit: bool,
    /// Print what was created as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
#[command(
    after_help = "A bank gets a note in 00_INBOX named by the date and the first words, \
                        for the next Process Inbox; a Deja Vu project gets an event line in \
                        memory/events/<month>.md. everos memory is read-only.\n\nExit status: \
                        0 written, 2 refused or error."
)]
pub struct NoteArgs {
    /// The memory bank or Deja Vu project.
    pub path: PathBuf,
    /// The note's text; read from stdin when none is given (at most 1 MiB;
    /// more is refused and nothing is written).
    pub text: Vec<String>,
    /// Tags of a Deja Vu event (comma-separated; empty ones are dropped;
    /// default `note`).
    #[arg(long, value_delimiter = ',')]
    pub tags: Vec<String>,
    /// Print what was written as JSON.
    #[arg(long)]
    pub json: bool,
}
