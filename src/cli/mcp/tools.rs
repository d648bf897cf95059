//! The MCP tools. Each one answers with the JSON object the matching CLI
//! command prints with `--json` (as `structuredContent`) and the readable
//! report it prints without (as text), both built by the command's own
//! functions; argument names are the command's long options with `_`.

use std::sync::Arc;

use anstream::adapter::strip_str;
use membank_args::tools::{
    ContextParams, EntriesParams, LinksParams, NoParams, QaParams, ReadDocumentParams, ReadParams,
    RecallParams, TermsParams, ToolArgs, output_schema,
};
use membank_core::bank::Bank;
use membank_core::context;
use membank_core::dejavu::recall::ScanOptions;

use membank_core::everos::MemoryRoot;
use membank_core::everos::entries::EntryId;
use membank_core::everos::query::{self, EntryJson};
use membank_core::memory::{LayoutKind, Memory};
use membank_core::surface::Surface;
use membank_core::text::sanitize_for_terminal;
use membank_core::vocabulary;
use membank_llm::quoting::{self, MEMORY_IS_DATA};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::file_tools;
use super::state::{Shared, WITHHELD_WHY, without_lines};
use super::writes;
use crate::cli::check::{self, CheckArgs};
use crate::cli::common::NamesSeveral;
use crate::cli::context as context_cmd;
use crate::cli::everos::{self, ScopeArgs, ToEntryFilter};
use crate::cli::search::{self, SearchArgs};
use crate::cli::{links, read, recall, values};

/// `terms` answers with an export or a job glossary.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
pub enum TermsAnswer {
    Export {
        format: String,
        text: String,
        /// One line for each article whose date was left out of the
        /// export (not a real day); absent when there is none.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    Glossary(crate::cli::terms::GlossaryOutput),
}

/// A file's text given to a tool, bounded as a file on disk is.
pub fn file_text_within(tool: &str, text: &str) -> Result<(), String> {
    if text.len() as u64 > membank_core::terms::MAX_INPUT_BYTES {
        return Err(format!(
            "{tool}: file_text is larger than {} MiB",
            membank_core::terms::MAX_INPUT_BYTES / 1024 / 1024
        ));
    }
    Ok(())
}

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

/// A read-only tool taking `P` and answering with the JSON of `O`.
fn tool<P: ToolArgs, O: JsonSchema + 'static>(
    name: &'static str,
    description: &'static str,
) -> Tool {
    Tool::new(name, description, P::schema())
        .with_raw_output_schema(output_schema::<O>())
        .with_annotations(read_only())
}

/// `tool` whose `limit` says the range the tool accepts, which is
/// narrower than the command line's (where 0 means every one).
fn limited(mut tool: Tool, min: usize, max: usize, description: &str) -> Tool {
    let mut schema = (*tool.input_schema).clone();
    if let Some(limit) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut("limit"))
        .and_then(|l| l.as_object_mut())
    {
        limit.insert("minimum".into(), min.into());
        limit.insert("maximum".into(), max.into());
        limit.insert("description".into(), description.into());
    }
    tool.input_schema = std::sync::Arc::new(schema);
    tool
}

/// What `read` answers on an everos root: a document or an entry.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used
enum DocumentOrEntry<'a> {
    Document(read::Document),
    Entry(EntryJson<'a>),
}

const BANK: &[LayoutKind] = &[LayoutKind::Bank];
const DEJAVU: &[LayoutKind] = &[LayoutKind::DejaVu];
const EVEROS: &[LayoutKind] = &[LayoutKind::Everos];
const EVERY: &[LayoutKind] = &LayoutKind::ALL;

/// A tool, the layouts it works on and whether it writes.
struct Offer {
    name: &'static str,
    layouts: &'static [LayoutKind],
    writes: bool,
    make: fn() -> Tool,
}

/// Every tool there is, in the order they are listed.
const OFFERS: &[Offer] = &[
    Offer {
        name: "context",
        layouts: BANK,
        writes: false,
        make: || {
            tool::<ContextParams, context::ExplainedReport>(
                "context",
                "Rank the bank's articles for a client / domain / language pair and fit them \
                 into a token budget. Returns, per article (the best `limit`, 100 unless told, and \
                 every kept one; `limit` 0 lists every article), its score, the points per signal, the value that matched, \
                 its tokens and whether the budget kept it (and if not, why), plus the \
                 assembled context text. Same JSON as `membank context --json [--limit N]`.",
            )
        },
    },
    Offer {
        name: "recall",
        layouts: DEJAVU,
        writes: false,
        make: || {
            limited(
                tool::<RecallParams, recall::ReferenceJson<'static>>(
                    "recall",
                    "The Deja Vu cue scan over memory/impressions.jsonl, exactly as the reference \
                 scan computes it: the familiarity level, the score, the best matches with \
                 their record paths, and the tokens and arithmetic of the best `limit` matches \
                 (20 unless told; every impression when there are no more than 20); \
                 explanation.total and explanation.truncated say how many were scanned and \
                 whether some are not explained. Same JSON as `membank recall --json` (with \
                 `--limit N` when more are scanned or a limit is given).",
                ),
                1,
                recall::MCP_MAX_LIMIT,
                "Explain this many of the best matches (1 to 500). Unless told, 20, and every impression when there are no more than 20.",
            )
        },
    },
    Offer {
        name: "entries",
        layouts: EVEROS,
        writes: false,
        make: || {
            limited(
                tool::<EntriesParams, everos::EntriesJson<'static>>(
                    "entries",
                    "The entries of the everos daily logs (episodes, atomic facts, foresights, \
                 agent cases), filtered by app, project, user or agent, kind and first day: \
                 each with its file, id, owner, kind, date, line and text; `limit` of them \
                 (100 unless told) from `offset`. Same JSON as `membank entries --json`, plus \
                 total, offset and truncated when only part of the list is given.",
                ),
                1,
                everos::MCP_MAX_LIMIT,
                "List at most this many entries (1 to 1000; 100 unless told).",
            )
        },
    },
    Offer {
        name: "read",
        layouts: EVERY,
        writes: false,
        make: || {
            tool::<ReadParams, read::Document>(
                "read",
                "One document, found by relative path, name or [[wikilink]]: its whole text \
                 and its frontmatter as an object (same JSON as `membank read --json`). On an \
                 everos memory root an entry id reads that entry (same JSON as \
                 `membank entry --json`); name its user or agent when the id is used by \
                 several owners.",
            )
        },
    },
    Offer {
        name: "links",
        layouts: BANK,
        writes: false,
        make: || {
            limited(
                tool::<LinksParams, links::Report>(
                    "links",
                    "An article's outgoing links (resolved, dead or ambiguous, with line numbers) \
                     and the articles linking to it after the first `offset` (`limit` of them, \
                     500 unless told, at most 5000); `backlinks_total` says how many when some \
                     are left out. Same \
                     JSON as `membank links --json`.",
                ),
                1,
                LINKS_MAX_LIMIT,
                "List at most this many backlinks (1 to 5000; 500 unless told).",
            )
        },
    },
    Offer {
        name: "check",
        layouts: EVERY,
        writes: false,
        make: || {
            limited(
                tool::<CheckArgs, check::JsonReport>(
                    "check",
                    "The deterministic health checks of this layout: findings with code, \
                 severity, file, line and message, and the counts of every finding; filter by \
                 code and by file or folder. Lists 100 findings unless `limit` says otherwise \
                 (at most 500); `total` and `truncated` say whether more follow, `offset` \
                 pages. Same JSON as `membank check --json [--limit N] [--offset N]`.",
                ),
                1,
                check::MCP_MAX_LIMIT,
                "List at most this many findings (1 to 500; 100 unless told); `total` says how many there are.",
            )
        },
    },
    Offer {
        name: "search",
        layouts: EVERY,
        writes: false,
        make: || {
            limited(
                tool::<SearchArgs, search::JsonReport>(
                    "search",
                    "Ranked full-text search (BM25) over every document of the memory, everos \
                 entries included: each hit with its file, line, entry id, score and a snippet \
                 with the matches marked, the best `limit` (20 unless told, at most 100) after \
                 `offset`; `matches` counts every match. Same JSON as \
                 `membank search --json`.",
                ),
                1,
                search::MCP_MAX_LIMIT,
                "List at most this many hits (1 to 100; 20 unless told).",
            )
        },
    },
    Offer {
        name: "values",
        layouts: BANK,
        writes: false,
        make: || {
            tool::<NoParams, vocabulary::Vocabulary>(
                "values",
                "The clients, domains and language codes the bank uses, each with how many \
                 articles carry it: what `context` can match. Same JSON as \
                 `membank values --json`.",
            )
        },
    },
    Offer {
        name: "terms",
        layouts: BANK,
        writes: false,
        make: || {
            tool::<TermsParams, TermsAnswer>(
                "terms",
                "The bank's term articles as a TBX-Basic (2008 or 2019), CSV (memoQ) or TSV \
                 (Supervertaler) file, filtered by client, pair and status: `{format, text}`, \
                 and `warnings` naming each date left out. \
                 With `file_text` (a file about to be translated): the bank's terms whose \
                 source occurs in it, for its language pair, each with its target, status, \
                 clients, segment count and first segment id (same JSON as \
                 `membank terms PATH --for FILE --json`).",
            )
        },
    },
    Offer {
        name: "qa",
        layouts: BANK,
        writes: false,
        make: || {
            tool::<QaParams, crate::cli::qa::QaOutput>(
                "qa",
                "Check a translated file's terminology against the bank: term-missing, \
                 term-rejected and term-inconsistent per segment id, with the terms marked \
                 «…», the deciding article and the fix; untranslated segments listed apart. \
                 Same JSON as `membank qa PATH FILE --json`.",
            )
        },
    },
    Offer {
        name: "propose_write",
        layouts: BANK,
        writes: true,
        make: writes::propose_tool,
    },
    Offer {
        name: "import_terms",
        layouts: BANK,
        writes: true,
        make: writes::import_terms_tool,
    },
    Offer {
        name: "supersede",
        layouts: DEJAVU,
        writes: true,
        make: writes::supersede_tool,
    },
    Offer {
        name: "fix",
        layouts: &[LayoutKind::Bank, LayoutKind::DejaVu],
        writes: true,
        make: file_tools::fix_tool,
    },
    Offer {
        name: "mv",
        layouts: &[LayoutKind::Bank, LayoutKind::DejaVu],
        writes: true,
        make: file_tools::mv_tool,
    },
    Offer {
        name: "new",
        layouts: BANK,
        writes: true,
        make: file_tools::new_tool,
    },
    Offer {
        name: "apply_write",
        layouts: &[LayoutKind::Bank, LayoutKind::DejaVu],
        writes: true,
        make: writes::apply_tool,
    },
];

/// The tools this server offers on a memory of this layout; the writing
/// ones only with `--allow-writes`.
pub fn list(layout: LayoutKind, allow_writes: bool) -> Vec<Tool> {
    offered(layout, allow_writes)
        .map(|o| {
            let tool = (o.make)();
            match (o.name, layout) {
                ("read", LayoutKind::Everos) => {
                    tool.with_raw_output_schema(output_schema::<DocumentOrEntry<'static>>())
                }
                // Entry ids and their owners are everos's alone.
                ("read", _) => Tool::new(
                    "read",
                    "One document, found by relative path, name or [[wikilink]]: its whole \
                     text and its frontmatter as an object. Same JSON as `membank read --json`.",
                    ReadDocumentParams::schema(),
                )
                .with_raw_output_schema(output_schema::<read::Document>())
                .with_annotations(read_only()),
                _ => tool,
            }
        })
        .collect()
}

fn offered(layout: LayoutKind, allow_writes: bool) -> impl Iterator<Item = &'static Offer> {
    OFFERS
        .iter()
        .filter(move |o| o.layouts.contains(&layout) && (allow_writes || !o.writes))
}

/// A name no tool of any layout has: the protocol's "unknown tool", an
/// error of the request rather than of a tool, with the tools here.
pub fn unknown_tool(shared: &Shared, name: &str) -> Option<String> {
    if OFFERS.iter().any(|o| o.name == name) {
        return None;
    }
    Some(not_offered(shared, name))
}

/// Why a tool that exists is not offered here, or that it does not exist.
fn not_offered(shared: &Shared, name: &str) -> String {
    let memory = shared.memory();
    let layout = memory.spec();
    let here: Vec<&str> = offered(layout.kind, shared.allow_writes)
        .map(|o| o.name)
        .collect();
    let here = format!("the tools here are: {}", here.join(", "));
    let Some(offer) = OFFERS.iter().find(|o| o.name == name) else {
        return format!(
            "no tool named {}; {here}",
            membank_core::text::quoted(&sanitize_for_terminal(name, false))
        );
    };
    if !offer.layouts.contains(&layout.kind) {
        let wanted: Vec<&str> = offer.layouts.iter().map(|kind| kind.spec().title).collect();
        return format!(
            "{name} works on {}; {} is {}, and {here}",
            wanted.join(" and "),
            sanitize_for_terminal(&memory.root().display().to_string(), false),
            layout.title
        );
    }
    format!(
        "{name} writes to the memory, and this server was started read-only; restart it with \
         `membank mcp PATH --allow-writes` to allow writes"
    )
}

/// Run a tool. Every failure a person can act on is a tool error whose
/// text says what to do.
pub fn call(
    shared: &Arc<Shared>,
    owner: writes::Owner,
    name: &str,
    args: Option<JsonObject>,
) -> CallToolResult {
    let layout = shared.memory().spec().kind;
    let result = if offered(layout, shared.allow_writes).all(|o| o.name != name) {
        Err(not_offered(shared, name))
    } else {
        match name {
            "context" => parse(name, args).and_then(|p| context_tool(shared, p)),
            "recall" => parse(name, args).and_then(|p| recall_tool(shared, p)),
            "entries" => parse(name, args).and_then(|p| entries_tool(shared, p)),
            "read" if layout == LayoutKind::Everos => {
                parse(name, args).and_then(|p| read_tool(shared, p))
            }
            "read" => parse(name, args).and_then(|p: ReadDocumentParams| {
                let p = ReadParams {
                    target: p.target,
                    scope: ScopeArgs::default(),
                };
                read_tool(shared, p)
            }),
            "links" => parse(name, args).and_then(|p| links_tool(shared, p)),
            "check" => parse(name, args).and_then(|p| check_tool(shared, p)),
            "search" => parse(name, args).and_then(|p| search_tool(shared, p)),
            "values" => parse::<NoParams>(name, args).and_then(|_| values_tool(shared)),
            "terms" => parse(name, args).and_then(|p| terms_tool(shared, p)),
            "qa" => parse(name, args).and_then(|p| qa_tool(shared, p)),
            "import_terms" => {
                parse(name, args).and_then(|p| writes::import_terms(shared, owner, p))
            }
            "propose_write" => parse(name, args).and_then(|p| writes::propose(shared, owner, p)),
            "supersede" => parse(name, args).and_then(|p| writes::supersede(shared, owner, p)),
            "fix" => parse(name, args).and_then(|p| file_tools::fix(shared, owner, p)),
            "mv" => parse(name, args).and_then(|p| file_tools::mv(shared, owner, p)),
            "new" => parse(name, args).and_then(|p| file_tools::new(shared, owner, p)),
            "apply_write" => parse(name, args).and_then(|p| writes::apply(shared, owner, p)),
            other => Err(not_offered(shared, other)),
        }
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
                // gets plain text. What the memory says is quoted as data,
                // since the client's reader is a model.
                .map(|t| {
                    let plain = sanitize_for_terminal(&strip_str(t).to_string(), true);
                    ContentBlock::text(format!("{MEMORY_IS_DATA}\n{}", quoting::quote(&plain)))
                })
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

/// A tool's arguments, decoded where their type is defined.
fn parse<T: ToolArgs>(tool: &str, args: Option<JsonObject>) -> Result<T, String> {
    T::parse(tool, args)
}

/// The memory as a bank, for what only banks have.
fn as_bank<'a>(memory: &'a dyn Memory, tool: &str) -> Result<&'a Bank, String> {
    membank::layouts::bank(memory).ok_or_else(|| {
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
    let listed = context_cmd::build(bank, &p.query, &p.budget, p.limit);
    let warnings = crate::cli::common::unknown_values_of(bank, &listed);
    let report = listed.report;
    let mut explained = report.explain(bank);
    explained.total = listed.ranked;
    explained.truncated = listed.ranked > explained.articles.len();
    let mut table = context_cmd::table(&explained, listed.ranked, Surface::Tool);
    for w in warnings {
        table.push_str(&format!("warning: {}\n", sanitize_for_terminal(&w, false)));
    }
    let rendered = context::render(bank, &report);
    Output::new(explained, vec![table, rendered])
}

fn read_tool(shared: &Shared, p: ReadParams) -> Result<Output, String> {
    let memory = shared.memory();
    if let Some(root) = membank::layouts::memory_root(&**memory) {
        // A path or name first; an entry id when nothing else matches, or
        // at once when an owner or scope says it is one.
        if p.scope.is_empty() {
            match read::document(memory.as_ref(), &p.target) {
                Ok(doc) => {
                    let text = read::human(&doc);
                    return Output::new(doc, vec![text]);
                }
                Err(e) if EntryId::parse(p.target.trim()).is_err() => {
                    return Err(format!("read: {e:#}"));
                }
                Err(_) => {}
            }
        } else if EntryId::parse(p.target.trim()).is_err() {
            return owners_document(memory.as_ref(), root, &p);
        }
        return entry_tool(shared, root, &p);
    }
    // One answer for a document that is not there and one that is
    // withheld, naming only what was asked for: either answer told apart,
    // or the path a name leads to, would tell what private memory holds.
    let not_served = || {
        format!(
            "read: `{}`: no document of that name or path is served here (it does not exist, \
             or it is private memory: {WITHHELD_WHY})",
            sanitize_for_terminal(&p.target, false)
        )
    };
    let hides_private = shared.hides_private(memory.as_ref());
    // A name a withheld document shares finds the served one, and an
    // ambiguity lists only served documents: naming the withheld one, or
    // refusing for its sake, would say it exists.
    let served = |id| !hides_private || !shared.withholds(memory.as_ref(), id);
    let mut doc = match read::served_document(memory.as_ref(), &p.target, &served) {
        Ok(doc) => doc,
        Err(e) if hides_private && !e.is::<NamesSeveral>() => {
            return Err(not_served());
        }
        Err(e) => return Err(format!("read: {e:#}")),
    };
    if let Some(id) = memory.find(&doc.path) {
        if shared.withholds(memory.as_ref(), id) {
            return Err(not_served());
        }
        // A shared file's links and routes into private memory name it.
        let (text, withheld) =
            without_lines(&doc.text, &shared.withheld_lines(memory.as_ref(), id));
        if withheld > 0 {
            doc.text = text;
            doc.withheld_lines = Some(withheld);
        }
    }
    let text = read::human(&doc);
    Output::new(doc, vec![text])
}

/// A document of the owner and scope `p` names, such as a user's
/// `user.md` profile, which every user of a root has one of: by its path
/// under the owner's folder or its file name.
fn owners_document(
    memory: &dyn Memory,
    root: &MemoryRoot,
    p: &ReadParams,
) -> Result<Output, String> {
    let mut filter = p.scope.filter().map_err(|e| format!("read: {e:#}"))?;
    filter.settle(root.root());
    let wanted = p.target.trim().trim_start_matches("./").to_lowercase();
    let wanted_name = wanted.strip_suffix(".md").unwrap_or(&wanted);
    let named: Vec<&str> = root
        .files
        .iter()
        .filter(|f| filter.keeps_owner(f))
        .map(|f| f.rel_path.as_str())
        .filter(|path| {
            let lower = path.to_lowercase();
            let file = lower.rsplit('/').next().unwrap_or(&lower);
            lower == wanted
                || lower.ends_with(&format!("/{wanted}"))
                || file.strip_suffix(".md").unwrap_or(file) == wanted_name
        })
        .collect();
    match named.as_slice() {
        [path] => {
            let doc = read::document(memory, path).map_err(|e| format!("read: {e:#}"))?;
            let text = read::human(&doc);
            Output::new(doc, vec![text])
        }
        [] => Err(format!(
            "read: no document `{}` of that owner and scope",
            sanitize_for_terminal(&p.target, false)
        )),
        several => Err(format!(
            "read: `{}` names several documents of that owner and scope: {}; give a path",
            sanitize_for_terminal(&p.target, false),
            sanitize_for_terminal(&several.join(", "), false)
        )),
    }
}

/// An everos entry by id, as `membank entry --json` prints it.
fn entry_tool(shared: &Shared, root: &MemoryRoot, p: &ReadParams) -> Result<Output, String> {
    let mut filter = p.scope.filter().map_err(|e| format!("read: {e:#}"))?;
    filter.settle(root.root());
    let hits = query::find(root, p.target.trim(), &filter);
    let one = everos::one_entry(
        hits,
        p.target.trim(),
        &shared.shown_bank,
        &filter,
        everos::OwnerNaming::Arguments,
    )
    .map_err(|e| format!("read: {e}"))?;
    let text = everos::entry_human(&one);
    Output::new(one.to_json(), vec![text])
}

fn recall_tool(shared: &Shared, p: RecallParams) -> Result<Output, String> {
    if let Some(n) = p.limit
        && !(1..=recall::MCP_MAX_LIMIT).contains(&n)
    {
        return Err(format!(
            "recall: limit {n} is out of range; one answer explains 1 to {} of the best matches",
            recall::MCP_MAX_LIMIT
        ));
    }
    let memory = shared.memory();
    let project = membank::layouts::project(&**memory)
        .ok_or_else(|| "recall works on Deja Vu projects".to_owned())?;
    let cue = recall::cue_of(&p.cue).map_err(|e| format!("recall: {e:#}"))?;
    // Impressions pointing at a private record are left out unless the
    // user opted in.
    let mut options = ScanOptions {
        shared: !shared.include_private,
        explain_all: false,
    };
    let limit = p.limit.unwrap_or(recall::DEFAULT_LIMIT);
    let (mut result, mut kept) =
        recall::scan(project, &cue, options).map_err(|e| format!("recall: {e:#}"))?;
    // As `membank recall` does: a short scan is explained whole (kept
    // from one scan), a long one only at its best `limit` matches, so an
    // answer stays small however many impressions match.
    let short = recall::shown_whole(&result, Some(limit)).is_none();
    if short {
        options.explain_all = true;
        (result, kept) =
            recall::scan(project, &cue, options).map_err(|e| format!("recall: {e:#}"))?;
    }
    let impressions = project.impressions_source();
    let text = recall::human(&result, impressions, Some(limit), short.then_some(&kept))
        .map_err(|e| format!("recall: {e:#}"))?;
    let json = match (short, p.limit) {
        (true, None) => recall::ReferenceJson::new(&result, impressions, Some(&kept)),
        _ => recall::ReferenceJson::new(&result, impressions, None).limited(Some(limit)),
    };
    Output::new(json, vec![text])
}

fn entries_tool(shared: &Shared, p: EntriesParams) -> Result<Output, String> {
    page_size("entries", "entries", p.limit, everos::MCP_MAX_LIMIT)?;
    let memory = shared.memory();
    let root = membank::layouts::memory_root(&**memory)
        .ok_or_else(|| "entries works on everos memory roots".to_owned())?;
    let mut filter = p.query.filter().map_err(|e| format!("entries: {e:#}"))?;
    filter.settle(root.root());
    let rows = query::entries(root, &filter);
    let total = rows.len();
    let page = &rows[p.offset.min(total)..p.offset.saturating_add(p.limit).min(total)];
    let mut text = everos::entries_human(page);
    if rows.is_empty()
        && let Some(warning) = everos::no_such_scope_warning(root.root(), &filter)
    {
        text.push_str(&format!("warning: {warning}\n"));
    }
    // Files whose entries could not be read, as the command says them.
    for warning in everos::unread_warnings(&root.problems, "its entries are not listed") {
        text.push_str(&format!("warning: {warning}\n"));
    }
    let mut json = everos::entries_json(page);
    let listed = everos::PageOf {
        listed: page.len(),
        total,
        offset: p.offset,
    };
    // Said only of a page that is not the whole list, so a whole list is
    // the JSON of `membank entries --json`.
    json.page = listed.page();
    text.push_str(&listed.line());
    Output::new(json, vec![text])
}

/// The most backlinks one `links` answer lists: a hub note of a large
/// bank is linked from thousands.
const LINKS_MAX_LIMIT: usize = 5000;

fn links_tool(shared: &Shared, p: LinksParams) -> Result<Output, String> {
    page_size("links", "backlinks", p.limit, LINKS_MAX_LIMIT)?;
    let memory = shared.memory();
    let mut report = links::report(as_bank(memory.as_ref(), "links")?, &p.article)
        .map_err(|e| format!("links: {e:#}"))?;
    report.page_backlinks(p.offset, p.limit);
    let text = links::human(&report);
    Output::new(report, vec![text])
}

/// An answer's size is bounded: more than `max` rows is refused with how
/// to page instead.
fn page_size(tool: &str, what: &str, limit: usize, max: usize) -> Result<(), String> {
    if (1..=max).contains(&limit) {
        return Ok(());
    }
    Err(format!(
        "{tool}: limit {limit} is out of range; one answer lists 1 to {max} {what}, \
         and `offset` pages through the rest"
    ))
}

fn check_tool(shared: &Shared, p: CheckArgs) -> Result<Output, String> {
    page_size("check", "findings", p.limit, check::MCP_MAX_LIMIT)?;
    let memory = shared.memory();
    let withholds = shared.finding_withholder(memory.as_ref());
    let (checked, withheld) = check::report_withholding(memory.as_ref(), &p, &withholds)
        .map_err(|e| format!("check: {e:#}"))?;
    let mut text = check::human(&shared.shown_bank, &checked, Surface::Tool);
    let mut json = check::json_report(&shared.shown_bank, checked);
    if withheld > 0 {
        text.push_str(&format!(
            "{withheld} finding(s) about private memory not listed: {WITHHELD_WHY}\n"
        ));
        json.withheld = Some(check::WithheldFindings {
            findings: withheld,
            reason: WITHHELD_WHY,
        });
    }
    Output::new(json, vec![text])
}

fn values_tool(shared: &Shared) -> Result<Output, String> {
    let memory = shared.memory();
    let v = vocabulary::collect(as_bank(memory.as_ref(), "values")?);
    let text = values::human(&v);
    Output::new(v, vec![text])
}

fn search_tool(shared: &Shared, p: SearchArgs) -> Result<Output, String> {
    page_size("search", "hits", p.limit, search::MCP_MAX_LIMIT)?;
    search::query_has_words(&p.query).map_err(|e| format!("search: {e}"))?;
    let memory = shared.memory();
    let index = shared.search_index(memory.as_ref());
    let (mut report, hits) = search::report(memory.as_ref(), &index, &shared.shown_bank, &p);
    let withheld = shared.withheld_count(memory.as_ref());
    if withheld > 0 {
        report.withheld = Some(search::Withheld {
            documents: withheld,
            reason: WITHHELD_WHY,
        });
    }
    let text = search::human(&report, &hits, false, Surface::Tool);
    Output::new(report, vec![text])
}

/// How a message names the file a tool was given the text of: by its
/// `file_name`, or, when none was given, as the argument holding it
/// (an empty name made "terms: : names no languages").
fn shown_file(name: &str) -> &str {
    if name.is_empty() { "`file_text`" } else { name }
}

fn terms_tool(shared: &Shared, p: TermsParams) -> Result<Output, String> {
    use crate::cli::terms as cmd;
    let err = |e: anyhow::Error| format!("terms: {e:#}");
    let memory = shared.memory();
    let bank = as_bank(memory.as_ref(), "terms")?;
    let pair = cmd::pair_arg(p.pair.as_deref(), "pair").map_err(err)?;
    crate::cli::common::known_client(bank, p.client.as_deref()).map_err(err)?;
    if let Some(text) = &p.file_text {
        file_text_within("terms", text)?;
        let name = p.file_name.unwrap_or_default();
        let file =
            cmd::bilingual_of(bank, shown_file(&name), &name, text, pair, "pair").map_err(err)?;
        let out = cmd::glossary_output(bank, &name, file, p.client);
        let human = out
            .terms
            .iter()
            .map(|e| {
                format!(
                    "{} → {}  {}  {} segment(s), first {}\n",
                    e.term.source,
                    e.term.target,
                    e.term.status.as_str(),
                    e.segments,
                    e.first_segment
                )
            })
            .collect::<String>();
        return Output::new(TermsAnswer::Glossary(out), vec![human]);
    }
    let format_name = p.format.unwrap_or_else(|| "tbx".into());
    let format = membank_core::terms::Format::parse(&format_name)
        .ok_or_else(|| "terms: format is tbx, csv or tsv".to_owned())?;
    let version = cmd::tbx_version(p.tbx_version.as_deref().unwrap_or("2008")).map_err(err)?;
    let filter = cmd::filter_of(p.client, pair, &p.status).map_err(err)?;
    // A date that is no date is left out of the text, and said so, as the
    // command line says it on standard error.
    let (text, warnings) = cmd::export_text(bank, format, version, &filter).map_err(err)?;
    let mut said = vec![text.clone()];
    if !warnings.is_empty() {
        said.push(warnings.iter().map(|w| format!("warning: {w}\n")).collect());
    }
    Output::new(
        TermsAnswer::Export {
            format: format_name,
            text,
            warnings,
        },
        said,
    )
}

fn qa_tool(shared: &Shared, p: QaParams) -> Result<Output, String> {
    use crate::cli::terms as cmd;
    let err = |e: anyhow::Error| format!("qa: {e:#}");
    file_text_within("qa", &p.file_text)?;
    let memory = shared.memory();
    let bank = as_bank(memory.as_ref(), "qa")?;
    let pair = cmd::pair_arg(p.pair.as_deref(), "pair").map_err(err)?;
    let name = p.file_name.unwrap_or_default();
    crate::cli::common::known_client(bank, p.client.as_deref()).map_err(err)?;
    let file = cmd::bilingual_of(bank, shown_file(&name), &name, &p.file_text, pair, "pair")
        .map_err(err)?;
    let out = crate::cli::qa::qa_output(bank, &name, file, p.client);
    // Nothing checked is the command line's error, so it is the tool's:
    // an answer of "0 findings" would read as a clean job.
    if let Some(why) = crate::cli::qa::nothing_checked(&out) {
        return Err(format!("qa: {why}"));
    }
    let human = crate::cli::qa::human(&out);
    Output::new(out, vec![human])
}
