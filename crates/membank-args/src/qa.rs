//! `membank qa`.

use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "Reports term-missing (an approved source term is in the source and none of \
                  its approved targets in the target), term-rejected (the target uses a term \
                  the bank rejects for it) and term-inconsistent (one source term rendered by \
                  different approved targets across the file). Segments with an empty or \
                  unconfirmed target are listed apart, never as misses.\n\nExit status: 0 no \
                  finding, 1 findings, 2 error."
)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// The translated file: XLIFF 1.2 (.xlf, .sdlxliff, .mqxliff), XLIFF 2, TMX or text;
    /// `-` reads it from standard input.
    pub file: PathBuf,
    /// Only this client's terms (and terms for no client in particular).
    #[arg(long, value_name = "CLIENT")]
    pub client: Option<String>,
    /// The language pair, when the file names none (SRC:TGT).
    #[arg(long, value_name = "SRC:TGT")]
    pub pair: Option<String>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}
