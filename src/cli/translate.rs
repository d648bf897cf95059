//! `membank translate`: translates standard input with the memory bank
//! context for the active client, domain and languages.

use std::io::Read;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use membank_core::templates::Agent;
use membank_llm::agents;

use super::ask::report_context;
use super::common::open_bank;
use super::llm_common;

pub use membank_args::translate::Args;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bank = open_bank(&args.bank)?;
    super::common::say_reading_stdin("the text to translate");
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("reading the text to translate from standard input")?;
    let source = match membank_core::text::decode(&bytes) {
        Ok(d) => d.text,
        Err(e) => bail!("standard input: {e}"),
    };
    if source.trim().is_empty() {
        bail!("nothing to translate: standard input is empty");
    }
    let client = llm_common::client()?;
    let template = llm_common::template(bank, Agent::Translate);
    let budget = args.budget.options();
    super::common::warn_unknown_values(bank, &args.query.to_query());
    let prepared = agents::prepare_translate(
        bank,
        &template,
        &args.query.to_query(),
        budget,
        source.trim_end(),
    );
    eprintln!(
        "membank: translating with {}",
        llm_common::describe_provider(&client)
    );
    report_context(&prepared);
    let reply = llm_common::run(&client, &prepared.request, llm_common::Echo::Stdout)?;
    Ok(llm_common::exit_code(&reply))
}
