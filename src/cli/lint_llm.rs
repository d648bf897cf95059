//! `membank lint --llm`: the Health Check agent. The model gets the
//! findings of `membank check` and the §12 snapshot; its review (possibly with
//! `### FILE:` fixes, for `membank blocks`) is printed.

use std::process::ExitCode;

use anyhow::bail;
use membank_core::health::{self, HealthOptions};
use membank_core::snapshot::{self};
use membank_core::templates::Agent;
use membank_llm::agents;

use super::common::{open_bank, safe};
use super::llm_common;

pub use membank_args::lint_llm::Args;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !args.llm {
        bail!(
            "`membank lint` runs the Health Check agent and needs --llm; \
             `membank check` runs the local checks without a model"
        );
    }
    let bank = open_bank(&args.bank)?;
    let client = llm_common::client()?;
    let template = llm_common::template(bank, Agent::Lint);
    let snap = snapshot::build(bank, args.cap);
    let health = health::check(
        bank,
        &HealthOptions {
            stale_after_days: args.stale_days,
            ..HealthOptions::as_of(super::common::clock().today())
        },
    );
    let findings = agents::findings_summary(&health, agents::MAX_LISTED_FINDINGS);
    let prepared = agents::prepare_lint(&template, &findings, &snap);
    eprintln!(
        "membank: health check with {}",
        llm_common::describe_provider(&client)
    );
    eprintln!(
        "membank: snapshot: {} article(s), {} characters{}",
        prepared.snapshot_articles,
        snap.chars,
        if prepared.truncated {
            format!(
                ", truncated at {} characters: {} article(s) left out",
                snap.cap,
                prepared.omitted.len()
            )
        } else {
            String::new()
        }
    );
    for path in &prepared.omitted {
        eprintln!("  left out  {}", safe(path));
    }
    let reply = llm_common::run(&client, &prepared.request, llm_common::Echo::Stdout)?;
    Ok(llm_common::exit_code(&reply))
}
