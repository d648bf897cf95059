//! `membank values`: the clients, domains and language codes in use, so a
//! script (or a person) knows what `--client` and `--domain` can match.

use std::path::PathBuf;
use std::process::ExitCode;

use membank_core::vocabulary;

use super::common::{open_bank, print_json, safe};

#[derive(clap::Args)]
pub struct Args {
    /// The memory bank folder.
    bank: PathBuf,
    /// Print JSON: {"clients", "domains", "languages"}, each [{"value", "articles"}].
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bank = open_bank(&args.bank)?;
    let v = vocabulary::collect(bank);
    if args.json {
        print_json(&v)?;
        return Ok(ExitCode::SUCCESS);
    }
    for (title, values) in [
        ("clients", &v.clients),
        ("domains", &v.domains),
        ("languages", &v.languages),
    ] {
        println!("{title}:");
        for value in values.iter() {
            println!("  {:>5}  {}", value.articles, safe(&value.value));
        }
    }
    Ok(ExitCode::SUCCESS)
}
