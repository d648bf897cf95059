//! The five agents as MCP prompts: the bank's own template (its
//! `06_TEMPLATES/` override, else the bundled default) with the same inputs
//! the agents send to a model, so an assistant can run Process Inbox or
//! Translate with the bank's instructions.

use membank_core::bank::Bank;
use membank_core::budget::{BudgetOptions, DEFAULT_BUDGET};
use membank_core::health::{self, HealthOptions};
use membank_core::scoring::Query;
use membank_core::snapshot;
use membank_core::templates::{self, Agent};
use membank_core::text::sanitize_for_terminal;
use membank_llm::agents;
use membank_llm::documents::parse_document;
use membank_llm::{ChatRequest, Role};
use rmcp::model::{
    GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role as McpRole,
};
use serde_json::Value;

/// The related articles Process Inbox sends along, in tokens (as the
/// interface does).
const COMPILE_RELATED_BUDGET: usize = 16_000;

fn arg(name: &str, description: &str, required: bool) -> PromptArgument {
    PromptArgument::new(name)
        .with_description(description)
        .with_required(required)
}

fn query_args() -> Vec<PromptArgument> {
    vec![
        arg(
            "client",
            "Active client (compared exactly, ignoring case).",
            false,
        ),
        arg(
            "domain",
            "Active domain (compared exactly, ignoring case).",
            false,
        ),
        arg("source_lang", "Source language code, e.g. en-US.", false),
        arg("target_lang", "Target language code, e.g. nl-BE.", false),
        arg(
            "budget",
            &format!("Token budget for the context; 0 means unlimited (default {DEFAULT_BUDGET})."),
            false,
        ),
    ]
}

/// The arguments each agent's prompt takes.
fn arguments(agent: Agent) -> Vec<PromptArgument> {
    match agent {
        Agent::Query => {
            let mut a = vec![arg("question", "What to ask about the bank.", true)];
            a.extend(query_args());
            a
        }
        Agent::Translate => {
            let mut a = vec![arg("text", "The source text to translate.", true)];
            a.extend(query_args());
            a
        }
        Agent::Distill => {
            let mut a = vec![
                arg(
                    "document",
                    "The document's text (plain text, Markdown, TMX or TBX).",
                    true,
                ),
                arg(
                    "file_name",
                    "Its file name, which tells its kind (default document.txt).",
                    false,
                ),
            ];
            a.extend(query_args().into_iter().take(4));
            a
        }
        Agent::Compile | Agent::Lint => Vec::new(),
    }
}

pub fn list() -> Vec<Prompt> {
    Agent::ALL
        .into_iter()
        .map(|agent| {
            Prompt::new(
                agent.name(),
                Some(format!(
                    "{}: the bank's {} template with the inputs membank's agent sends.",
                    agent.title(),
                    agent.file_name()
                )),
                Some(arguments(agent)),
            )
            .with_title(agent.title())
        })
        .collect()
}

/// A given argument's text; `get` has refused any that is not a string.
fn text_arg(args: &JsonObject, name: &str) -> Option<String> {
    match args.get(name) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// The JSON type of a value, as an error names it.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn query_of(args: &JsonObject) -> Query {
    Query {
        client: text_arg(args, "client"),
        domain: text_arg(args, "domain"),
        source_lang: text_arg(args, "source_lang"),
        target_lang: text_arg(args, "target_lang"),
    }
}

fn budget_of(args: &JsonObject) -> Result<BudgetOptions, String> {
    let budget = match text_arg(args, "budget") {
        None => DEFAULT_BUDGET,
        Some(b) => b.trim().parse().map_err(|_| {
            format!(
                "budget must be a whole number of tokens (0 for unlimited), not {}",
                membank_core::text::quoted(&b)
            )
        })?,
    };
    Ok(BudgetOptions {
        budget,
        include_unscored: false,
    })
}

/// Build one agent's prompt from the current bank.
pub fn get(bank: &Bank, name: &str, args: Option<JsonObject>) -> Result<GetPromptResult, String> {
    let agent = Agent::from_name(name).ok_or_else(|| {
        format!(
            "no prompt named {}; the prompts are: {}",
            membank_core::text::quoted(&sanitize_for_terminal(name, false)),
            Agent::ALL.map(Agent::name).join(", ")
        )
    })?;
    let args = args.unwrap_or_default();
    let known = arguments(agent);
    if let Some(unknown) = args.keys().find(|k| !known.iter().any(|a| &a.name == *k)) {
        return Err(format!(
            "the {} prompt has no argument {}",
            agent.name(),
            membank_core::text::quoted(&sanitize_for_terminal(unknown, false))
        ));
    }
    // A prompt's arguments are text (MCP declares them strings): one of
    // another type is refused whichever argument it is, not read as text
    // when a number and as missing when anything else.
    if let Some((name, value)) = args.iter().find(|(_, v)| !v.is_string()) {
        return Err(format!(
            "the {} prompt's argument {} must be a string, not {}",
            agent.name(),
            membank_core::text::quoted(&sanitize_for_terminal(name, false)),
            type_name(value)
        ));
    }
    for required in known.iter().filter(|a| a.required == Some(true)) {
        if text_arg(&args, &required.name).is_none() {
            return Err(format!(
                "the {} prompt needs the argument {:?}",
                agent.name(),
                required.name
            ));
        }
    }
    let template = templates::resolve(bank.root(), agent);
    if let Some(warning) = &template.warning {
        eprintln!(
            "membank mcp: warning: {}",
            sanitize_for_terminal(warning, false)
        );
    }
    let text = template.text;
    let request = match agent {
        Agent::Query => {
            let question = text_arg(&args, "question").unwrap_or_default();
            let mut session = agents::ChatSession::new(query_of(&args), budget_of(&args)?);
            session.ask(bank, &text, &question).request
        }
        Agent::Translate => {
            let source = text_arg(&args, "text").unwrap_or_default();
            agents::prepare_translate(bank, &text, &query_of(&args), budget_of(&args)?, &source)
                .request
        }
        Agent::Compile => {
            let today = crate::cli::common::clock().today().to_string();
            agents::prepare_compile(bank, &text, &today, COMPILE_RELATED_BUDGET)
                .ok_or("00_INBOX has no pending files, so Process Inbox has nothing to do")?
                .request
        }
        Agent::Lint => {
            let report = health::check(
                bank,
                &HealthOptions::as_of(crate::cli::common::clock().today()),
            );
            let findings = agents::findings_summary(&report, agents::MAX_LISTED_FINDINGS);
            let snap = snapshot::build(bank, snapshot::DEFAULT_CAP);
            agents::prepare_lint(&text, &findings, &snap).request
        }
        Agent::Distill => {
            let body = text_arg(&args, "document").unwrap_or_default();
            let file_name =
                text_arg(&args, "file_name").unwrap_or_else(|| "document.txt".to_owned());
            let document =
                parse_document(&file_name, body.as_bytes()).map_err(|e| e.to_string())?;
            agents::prepare_distill(
                &text,
                &document,
                &query_of(&args),
                crate::cli::common::clock().timestamp(),
            )
            .request
        }
    };
    let mut result = GetPromptResult::new(messages(&request));
    result.description = Some(format!(
        "{} ({})",
        agent.title(),
        match &template.path {
            Some(path) => format!("the bank's {}", sanitize_for_terminal(path, false)),
            None => "membank's bundled template".to_owned(),
        }
    ));
    Ok(result)
}

/// MCP prompts have no system role: the instructions (template and
/// context) open the conversation as the first user message.
fn messages(request: &ChatRequest) -> Vec<PromptMessage> {
    let mut out = vec![PromptMessage::new_text(
        McpRole::User,
        sanitize_for_terminal(&request.system, true),
    )];
    out.extend(request.messages.iter().map(|m| {
        let role = match m.role {
            Role::User => McpRole::User,
            Role::Assistant => McpRole::Assistant,
        };
        PromptMessage::new_text(role, sanitize_for_terminal(&m.content, true))
    }));
    out
}
