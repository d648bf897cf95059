use std::process::ExitCode;

use anyhow::{Context as _, bail};
use membank_core::safe_read::RootReader;
use membank_core::templates::{self, Agent, Source};
use membank_core::text::sanitize_for_terminal;

pub use membank_args::template::Args;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Some(agent) = Agent::from_name(&args.agent) else {
        bail!(
            "unknown agent {}; expected one of: {}",
            membank_core::text::quoted(&sanitize_for_terminal(&args.agent, false)),
            Agent::ALL.map(Agent::name).join(", ")
        );
    };
    // Detected as every bank command does: a bank's subfolder or another
    // folder would otherwise answer "bundled default" even where the bank
    // has its own template in 06_TEMPLATES.
    let root = super::common::bank_root(&args.bank)?;
    let reader =
        RootReader::for_root(&root).with_context(|| format!("opening {}", root.display()))?;
    let template = templates::resolve_with(&reader, agent);
    if let Some(warning) = &template.warning {
        eprintln!(
            "membank: warning: {}",
            sanitize_for_terminal(warning, false)
        );
    }
    if args.json {
        super::common::print_json(&template)?;
    } else {
        let origin = match (&template.source, &template.path) {
            (Source::Bank, Some(path)) => format!("bank override {path}"),
            _ => "bundled default".to_owned(),
        };
        eprintln!(
            "{} template ({}): {}",
            agent.title(),
            agent.name(),
            sanitize_for_terminal(&origin, false)
        );
        super::common::print_model_text(&template.text)?;
    }
    Ok(ExitCode::SUCCESS)
}
