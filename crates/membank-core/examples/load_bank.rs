//! Load a bank, print what it holds and how long that took; with query
//! options, also build a context the way `membank context` does.
//!
//! `load_bank DIR [--client X] [--domain D] [--source L] [--target L] [--quiet]`

use std::process::ExitCode;
use std::time::Instant;

use membank_core::bank::Bank;
use membank_core::budget::BudgetOptions;
use membank_core::context;
use membank_core::scoring::Query;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut dir = None;
    let mut query = Query::default();
    let mut quiet = false;
    while let Some(a) = args.next() {
        let slot = match a.as_str() {
            "--client" => &mut query.client,
            "--domain" => &mut query.domain,
            "--source" => &mut query.source_lang,
            "--target" => &mut query.target_lang,
            "--quiet" => {
                quiet = true;
                continue;
            }
            _ if dir.is_none() && !a.starts_with("--") => {
                dir = Some(a);
                continue;
            }
            _ => {
                eprintln!("unexpected argument {a:?}");
                return ExitCode::from(2);
            }
        };
        match args.next() {
            Some(v) => *slot = Some(v),
            None => {
                eprintln!("{a} needs a value");
                return ExitCode::from(2);
            }
        }
    }
    let Some(dir) = dir else {
        eprintln!("usage: load_bank DIR [--client X] [--domain D] [--source L] [--target L]");
        return ExitCode::from(2);
    };
    let start = Instant::now();
    let bank = match Bank::load(&dir) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let loaded = start.elapsed();
    let content = bank.content_ids().count();
    let links: usize = bank.articles().iter().map(|a| a.links.len()).sum();
    let text_bytes: usize = bank.articles().iter().map(|a| a.text.len()).sum();
    if !quiet {
        println!(
            "{} articles ({content} content, {} pending inbox), {links} links, {text_bytes} bytes of text, {} problems, {} skipped; loaded in {loaded:.2?}",
            bank.articles().len(),
            bank.pending_inbox().len(),
            bank.problems.len(),
            bank.skipped.len(),
        );
    }
    if !query.is_empty() {
        let start = Instant::now();
        let report = context::build(&bank, &query, BudgetOptions::default());
        let text = context::render(&bank, &report);
        let took = start.elapsed();
        let included = report.included().count();
        // The first query also builds the packed scoring arrays; time a
        // second one too, which is what every later keystroke costs.
        let start = Instant::now();
        let again = context::build(&bank, &query, BudgetOptions::default());
        let text_again = context::render(&bank, &again);
        let took_again = start.elapsed();
        assert_eq!(text, text_again);
        if !quiet {
            println!(
                "context: {included} of {} ranked articles included, {} tokens, {} bytes; first query {took:.2?}, next {took_again:.2?}",
                report.articles.len(),
                report.used_tokens,
                text.len()
            );
        }
    }
    ExitCode::SUCCESS
}
