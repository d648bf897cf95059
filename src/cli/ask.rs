//! `membank ask`: one question to the Query agent, answered from the
//! context assembled for the active client, domain and languages.

use std::process::ExitCode;

use membank_core::templates::Agent;
use membank_llm::agents::{self, PreparedChat};

use super::common::{open_bank, safe};
use super::llm_common;

pub use membank_args::ask::Args;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bank = open_bank(&args.bank)?;
    let client = llm_common::client()?;
    let template = llm_common::template(bank, Agent::Query);
    let budget = args.budget.options();
    super::common::warn_unknown_values(bank, &args.query.to_query());
    let prepared = agents::prepare_query(
        bank,
        &template,
        &args.query.to_query(),
        budget,
        &[],
        &args.question,
    );
    eprintln!("membank: asking {}", llm_common::describe_provider(&client));
    report_context(&prepared);
    let reply = llm_common::run(&client, &prepared.request, llm_common::Echo::Stdout)?;
    Ok(llm_common::exit_code(&reply))
}

/// Lists on stderr which articles went into the context and which the
/// budget dropped.
pub fn report_context(prepared: &PreparedChat) {
    let report = &prepared.report;
    let budget = if report.budget == 0 {
        "unlimited".to_string()
    } else {
        report.budget.to_string()
    };
    eprintln!(
        "membank: context: {} article(s), {} of {budget} tokens ({})",
        prepared.used.len(),
        report.used_tokens,
        report.token_estimator
    );
    for path in &prepared.used {
        eprintln!("  used     {}", safe(path));
    }
    for dropped in &prepared.dropped {
        eprintln!(
            "  dropped  {} ({})",
            safe(&dropped.path),
            safe(&dropped.reason)
        );
    }
}
