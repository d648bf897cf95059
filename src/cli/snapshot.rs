//! `membank snapshot`: the §12 snapshot the Health Check agent reviews.

use std::path::PathBuf;
use std::process::ExitCode;

use membank_core::snapshot::{self, DEFAULT_CAP};

use super::common::{open_bank, print_json};

#[derive(clap::Args)]
#[command(after_help = super::common::MODEL_TEXT_HELP)]
pub struct Args {
    /// The memory bank folder.
    bank: PathBuf,
    /// Character cap; whole articles only. 0 means no cap.
    #[arg(long, default_value_t = DEFAULT_CAP)]
    cap: usize,
    /// Print JSON: {"snapshot", "articles", "omitted", "truncated", "chars", "cap"}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bank = open_bank(&args.bank)?;
    let snap = snapshot::build(bank, args.cap);
    if args.json {
        print_json(&snap)?;
    } else {
        // Meant for piping to a model or a file; the summary goes to stderr.
        super::common::print_model_text(&snap.snapshot)?;
        eprintln!(
            "{} articles, {} chars{}",
            snap.articles.len(),
            snap.chars,
            if snap.truncated {
                format!(", truncated: {} articles left out", snap.omitted.len())
            } else {
                String::new()
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
