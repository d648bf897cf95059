//! `membank values`: the clients, domains and language codes in use, so a
//! script (or a person) knows what `--client` and `--domain` can match.

use std::fmt::Write as _;
use std::process::ExitCode;

use membank_core::vocabulary::{self, Vocabulary};

use super::common::{open_bank_with, print_json, safe};

pub use membank_args::values::Args;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bank = open_bank_with(&args.bank, membank_core::bank::LoadOptions::METADATA)?;
    let v = vocabulary::collect(bank);
    if args.json {
        print_json(&v)?;
    } else {
        out!("{}", human(&v))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Each list with how many articles use each value.
pub fn human(v: &Vocabulary) -> String {
    let mut out = String::new();
    for (title, values) in [
        ("clients", &v.clients),
        ("domains", &v.domains),
        ("languages", &v.languages),
    ] {
        let _ = writeln!(out, "{title}:");
        for value in values.iter() {
            let _ = writeln!(out, "  {:>5}  {}", value.articles, safe(&value.value));
        }
    }
    out
}
