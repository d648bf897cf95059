//! The MCP tools. Each one answers with the JSON object the matching CLI
//! command prints with `--json` (as `structuredContent`) and the readable
//! report it prints without (as text), both built by the command's own
//! functions; argument names are the command's long options with `_`.

use std::sync::Arc;

use anstream::adapter::strip_str;
use membank_core::bank::Bank;
use membank_core::context;
use membank_core::memory::Memory;
use membank_core::text::sanitize_for_terminal;
use membank_core::vocabulary;
use rmcp::handler::server::common::schema_for_type;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::state::Shared;
use super::writes;
use crate::cli::check::{self, CheckArgs};
use crate::cli::context::{self as context_cmd, BudgetArgs, QueryArgs};
use crate::cli::search::{self, SearchArgs};
use crate::cli::{links, read, values};

/// `context`: the query and the budget, as `membank context` takes them.
#[derive(Deserialize, JsonSchema)]
pub struct ContextParams {
    #[serde(flatten)]
    query: QueryArgs,
    #[serde(flatten)]
    budget: BudgetArgs,
}

/// `read`: what `membank read` takes.
#[derive(Deserialize, JsonSchema)]
pub struct ReadParams {
    /// The article: a relative path (`03_DOMAINS/Legal.md`), a name
    /// (`Legal`) or a wikilink (`[[Legal]]`).
    target: String,
}

/// `links`: what `membank links` takes.
#[derive(Deserialize, JsonSchema)]
pub struct LinksParams {
    /// The article: a relative path (`03_DOMAINS/Legal.md`) or a name (`Legal`).
    article: String,
}

/// A tool without arguments.
#[derive(Deserialize, JsonSchema)]
pub struct NoParams {}

/// What a tool produced: the CLI's JSON and its readable report.
pub struct Output {
    pub json: Value,
    pub text: Vec<String>,
}

impl Output {
    pub fn new(json: impl serde::Serialize, text: Vec<String>) -> Result<Output, String> {
        let json = serde_json::to_value(json).map_err(|e| format!("building the result: {e}"))?;
        Ok(Output { json, text })
    }
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

fn tool<T: JsonSchema + 'static>(name: &'static str, description: &'static str) -> Tool {
    Tool::new(name, description, schema_for_type::<T>()).with_annotations(read_only())
}

/// Every tool this server offers; the writing ones only with
/// `--allow-writes`.
pub fn list(allow_writes: bool) -> Vec<Tool> {
    let mut tools = vec![
        tool::<ContextParams>(
            "context",
            "Rank the bank's articles for a client / domain / language pair and fit them into a \
             token budget. Returns, per article, its score, the points per signal, the value \
             that matched, its tokens and whether the budget kept it (and if not, why), plus \
             the assembled context text. Same JSON as `membank context --json`.",
        ),
        tool::<ReadParams>(
            "read",
            "One article, found by relative path, name or [[wikilink]]: its whole text and its \
             frontmatter as an object. Same JSON as `membank read --json`.",
        ),
        tool::<LinksParams>(
            "links",
            "An article's outgoing links (resolved, dead or ambiguous, with line numbers) and \
             the articles linking to it. Same JSON as `membank links --json`.",
        ),
        tool::<CheckArgs>(
            "check",
            "The deterministic health checks: findings with code, severity, file, line and \
             message, and their counts; filter by code and by file or folder. Same JSON as \
             `membank check --json`.",
        ),
        tool::<SearchArgs>(
            "search",
            "Ranked full-text search (BM25) over every document of the memory, everos entries \
             included: each hit with its file, line, entry id, score and a snippet with the \
             matches marked. Same JSON as `membank search --json`.",
        ),
        tool::<NoParams>(
            "values",
            "The clients, domains and language codes the bank uses, each with how many \
             articles carry it: what `context` can match. Same JSON as `membank values --json`.",
        ),
    ];
    if allow_writes {
        tools.extend(writes::tools());
    }
    tools
}

/// Run a tool. Every failure a person can act on is a tool error whose
/// text says what to do.
pub fn call(shared: &Arc<Shared>, name: &str, args: Option<JsonObject>) -> CallToolResult {
    let result = match name {
        "context" => parse(name, args).and_then(|p| context_tool(shared, p)),
        "read" => parse(name, args).and_then(|p| read_tool(shared, p)),
        "links" => parse(name, args).and_then(|p| links_tool(shared, p)),
        "check" => parse(name, args).and_then(|p| check_tool(shared, p)),
        "search" => parse(name, args).and_then(|p| search_tool(shared, p)),
        "values" => parse::<NoParams>(name, args).and_then(|_| values_tool(shared)),
        "propose_write" | "apply_write" if !shared.allow_writes => Err(format!(
            "{name} writes to the bank, and this server was started read-only; restart it \
             with `membank mcp BANK --allow-writes` to allow writes"
        )),
        "propose_write" => parse(name, args).and_then(|p| writes::propose(shared, p)),
        "apply_write" => parse(name, args).and_then(|p| writes::apply(shared, p)),
        other => Err(format!(
            "no tool named {:?}; the tools are: {}",
            other,
            list(shared.allow_writes)
                .iter()
                .map(|t| t.name.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    };
    match &result {
        Ok(_) => tracing::info!(tool = name, "mcp tool answered"),
        Err(e) => tracing::info!(tool = name, error = %e, "mcp tool refused"),
    }
    match result {
        Ok(out) => {
            let content = out
                .text
                .iter()
                // The reports carry the terminal's style codes; a client
                // gets plain text.
                .map(|t| ContentBlock::text(sanitize_for_terminal(&strip_str(t).to_string(), true)))
                .collect();
            let mut result = CallToolResult::success(content);
            result.structured_content = Some(out.json);
            result
        }
        Err(message) => CallToolResult::error(vec![ContentBlock::text(sanitize_for_terminal(
            &message, true,
        ))]),
    }
}

/// Decode a tool's arguments, refusing names the tool does not take (a
/// misspelt option would otherwise be ignored without a word).
pub fn parse<T: DeserializeOwned + JsonSchema + 'static>(
    tool: &str,
    args: Option<JsonObject>,
) -> Result<T, String> {
    let args = args.unwrap_or_default();
    let schema = schema_for_type::<T>();
    let known: Vec<&String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().collect())
        .unwrap_or_default();
    if let Some(unknown) = args.keys().find(|k| !known.contains(k)) {
        let names: Vec<&str> = known.iter().map(|k| k.as_str()).collect();
        return Err(if names.is_empty() {
            format!("{tool} takes no arguments, but got {unknown:?}")
        } else {
            format!(
                "{tool} has no argument {unknown:?}; its arguments are: {}",
                names.join(", ")
            )
        });
    }
    serde_json::from_value(Value::Object(args)).map_err(|e| format!("{tool}: {e}"))
}

/// The memory as a bank, for what only banks have.
fn as_bank<'a>(memory: &'a dyn Memory, tool: &str) -> Result<&'a Bank, String> {
    memory.downcast_ref::<Bank>().ok_or_else(|| {
        format!(
            "{tool} works on memory banks; {} is {}",
            sanitize_for_terminal(&memory.root().display().to_string(), false),
            memory.spec().title
        )
    })
}

fn context_tool(shared: &Shared, p: ContextParams) -> Result<Output, String> {
    let memory = shared.memory();
    let bank = as_bank(memory.as_ref(), "context")?;
    let report = context_cmd::build(bank, &p.query, &p.budget);
    let explained = report.explain(bank);
    let table = context_cmd::table(&explained);
    let rendered = context::render(bank, &report);
    Output::new(explained, vec![table, rendered])
}

fn read_tool(shared: &Shared, p: ReadParams) -> Result<Output, String> {
    let memory = shared.memory();
    let doc = read::document(memory.as_ref(), &p.target).map_err(|e| format!("read: {e:#}"))?;
    let text = read::human(&doc);
    Output::new(doc, vec![text])
}

fn links_tool(shared: &Shared, p: LinksParams) -> Result<Output, String> {
    let memory = shared.memory();
    let report = links::report(as_bank(memory.as_ref(), "links")?, &p.article)
        .map_err(|e| format!("links: {e:#}"))?;
    let text = links::human(&report);
    Output::new(report, vec![text])
}

fn check_tool(shared: &Shared, p: CheckArgs) -> Result<Output, String> {
    let memory = shared.memory();
    let report = check::report(memory.as_ref(), &p).map_err(|e| format!("check: {e:#}"))?;
    let text = check::human(&shared.shown_bank, &report);
    Output::new(check::json_report(&shared.shown_bank, report), vec![text])
}

fn values_tool(shared: &Shared) -> Result<Output, String> {
    let memory = shared.memory();
    let v = vocabulary::collect(as_bank(memory.as_ref(), "values")?);
    let text = values::human(&v);
    Output::new(v, vec![text])
}

fn search_tool(shared: &Shared, p: SearchArgs) -> Result<Output, String> {
    let memory = shared.memory();
    let index = shared.search_index(memory.as_ref());
    let (report, hits) = search::report(memory.as_ref(), &index, &shared.shown_bank, &p);
    let text = search::human(&report, &hits, false);
    Output::new(report, vec![text])
}
