//! `membank snapshot`: the §12 snapshot the Health Check agent reviews.

use std::process::ExitCode;

use membank_core::snapshot::{self};

use super::common::{open_bank, print_json};

pub use membank_args::snapshot::Args;

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
