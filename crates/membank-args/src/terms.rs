//! `membank terms` and its `export` and `import`.

use std::path::PathBuf;

#[derive(clap::Args)]
// No `args_conflicts_with_subcommands` here: clap counts the global flags
// given before `terms` (such as `--today`) as this command's own and would
// refuse `membank --today D terms export BANK`; `run` checks the mix itself.
#[command(
    after_help = "With --for: the bank's terms whose source occurs in FILE (XLIFF 1.2, \
                  .sdlxliff, .mqxliff, XLIFF 2, TMX or plain text), for the file's language \
                  pair. Exit status: 0 done, 2 error."
)]
pub struct Args {
    #[command(subcommand)]
    pub action: Option<Action>,
    /// The memory bank folder.
    pub bank: Option<PathBuf>,
    /// The file about to be translated: list the bank's terms it uses.
    #[arg(long = "for", value_name = "FILE")]
    pub for_file: Option<PathBuf>,
    /// Only this client's terms (and terms for no client in particular).
    #[arg(long, value_name = "CLIENT")]
    pub client: Option<String>,
    /// The language pair, when the file names none (SRC:TGT, e.g. en-US:nl-BE).
    #[arg(long, value_name = "SRC:TGT")]
    pub pair: Option<String>,
    /// Write the glossary as tbx, csv, tsv or md instead of listing it.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// With --format tbx: 2008 (martif, the default) or 2019 (ISO 30042:2019).
    #[arg(long, value_name = "YEAR", default_value = "2008")]
    pub tbx_version: String,
    /// Print the glossary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Subcommand)]
pub enum Action {
    /// Write the bank's term articles as TBX-Basic, CSV (memoQ) or TSV (Supervertaler).
    Export(ExportArgs),
    /// Propose term articles from a TBX, CSV or TSV file (written with --yes).
    Import(ImportArgs),
}

#[derive(clap::Args)]
#[command(after_help = "Exit status: 0 written, 2 error.")]
pub struct ExportArgs {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// tbx, csv or tsv.
    #[arg(long, value_name = "FORMAT", default_value = "tbx")]
    pub format: String,
    /// 2008 (martif, the default: what MultiTerm and memoQ import) or 2019 (ISO 30042:2019).
    #[arg(long, value_name = "YEAR", default_value = "2008")]
    pub tbx_version: String,
    /// Only this client's terms (and terms for no client in particular).
    #[arg(long, value_name = "CLIENT")]
    pub client: Option<String>,
    /// Only this language pair (SRC:TGT; `en` takes every English).
    #[arg(long, value_name = "SRC:TGT")]
    pub pair: Option<String>,
    /// Only terms with this status (approved, proposed, rejected); may be repeated.
    #[arg(long, value_name = "STATUS")]
    pub status: Vec<String>,
    /// Write to this file instead of standard output (`-`: standard output).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(clap::Args)]
#[command(
    after_help = "Without --yes nothing is written: each term is shown as new, unchanged, \
                  differing in status (left as it is) or as the term-conflict it would create. \
                  Existing articles are never changed.\n\nExit status: 0 nothing left to write \
                  (or all written), 1 articles were proposed but not written, 2 error."
)]
pub struct ImportArgs {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// The TBX, CSV or TSV file (`-`: standard input).
    pub file: PathBuf,
    /// Every imported term is for this client.
    #[arg(long, value_name = "CLIENT")]
    pub client: Option<String>,
    /// The domain of imported terms that name none.
    #[arg(long, value_name = "DOMAIN")]
    pub domain: Option<String>,
    /// The language pair of a file that names no languages (SRC:TGT).
    #[arg(long, value_name = "SRC:TGT")]
    pub pair: Option<String>,
    /// Write the new term articles.
    #[arg(long)]
    pub yes: bool,
    /// Print the proposal as JSON.
    #[arg(long)]
    pub json: bool,
}
