//! `membank values`: the clients, domains and language codes in use, so a
//! script (or a person) knows what `--client` and `--domain` can match.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use membank_core::vocabulary;

use membank_core::bank::LoadOptions;

use super::common::{open_bank_with, print_json, safe};

#[derive(clap::Args)]
pub struct Args {
    /// The memory bank folder.
    bank: PathBuf,
    /// Print JSON: {"clients", "domains", "languages"}, each [{"value", "articles"}].
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bank = open_bank_with(&args.bank, LoadOptions::METADATA)?;
    let v = vocabulary::collect(bank);
    if args.json {
        print_json(&v)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (title, values) in [
        ("clients", &v.clients),
        ("domains", &v.domains),
        ("languages", &v.languages),
    ] {
        writeln!(out, "{title}:")?;
        for value in values.iter() {
            writeln!(out, "  {:>5}  {}", value.articles, safe(&value.value))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
