//! The arguments the MCP tools take, and the answers only the tools give:
//! here rather than beside the tools so that their derived JSON schemas,
//! and the code generating them, are built for size with the rest of the
//! command line's definition.

use std::borrow::Cow;
use std::cell::Cell;
use std::sync::Arc;

use membank_core::review::ProposedFile;
use rmcp::handler::server::common::schema_for_type;
use rmcp::model::JsonObject;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::check::CheckArgs;
use crate::context::{BudgetArgs, QueryArgs};
use crate::everos::{EntriesQuery, ScopeArgs};
use crate::search::SearchArgs;

/// What one MCP tool takes. The schema of each type is generated, and its
/// arguments decoded, by its own non-generic functions here rather than by
/// generic callers in the binary's crate, so that this code is built for
/// size: it runs once per call, not on a timed path.
pub trait ToolArgs: Sized {
    /// The arguments' JSON schema, as `tools/list` gives it.
    fn schema() -> Arc<JsonObject>;

    /// Decode a tool's arguments, refusing names the tool does not take
    /// (a misspelt option would otherwise be ignored without a word).
    fn parse(tool: &str, args: Option<JsonObject>) -> Result<Self, String>;
}

fn parse<T: DeserializeOwned>(
    tool: &str,
    args: Option<JsonObject>,
    schema: &JsonObject,
) -> Result<T, String> {
    let mut args = args.unwrap_or_default();
    only_known_arguments(tool, &args, schema)?;
    whole_numbers_as_integers(&mut args, schema);
    serde_json::from_value(Value::Object(args)).map_err(|e| format!("{tool}: {e}"))
}

/// An argument the schema says is an integer, given as a number with no
/// fraction (`5.0`), as the integer: JSON Schema counts it an integer, and
/// clients whose numbers are all floating point send it so.
fn whole_numbers_as_integers(args: &mut JsonObject, schema: &JsonObject) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let says_integer = |t: &Value| match t {
        Value::String(t) => t == "integer",
        Value::Array(types) => types.iter().any(|t| t == "integer"),
        _ => false,
    };
    // Beyond 2^53 a float no longer holds each whole number exactly.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    for (name, value) in args.iter_mut() {
        let integer = properties
            .get(name)
            .and_then(|p| p.get("type"))
            .is_some_and(says_integer);
        if let Some(f) = value.as_f64().filter(|_| integer && value.is_f64())
            && f.fract() == 0.0
            && f.abs() <= EXACT
        {
            *value = if f < 0.0 {
                Value::from(f as i64)
            } else {
                Value::from(f as u64)
            };
        }
    }
}

/// Refuse argument names the schema does not list; one copy for every tool.
fn only_known_arguments(tool: &str, args: &JsonObject, schema: &JsonObject) -> Result<(), String> {
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
    Ok(())
}

/// `schema` saying what `parse` does: no argument it does not list. A
/// client that checks its calls against the schema then never sends one
/// that is refused for an extra name.
fn closed(schema: Arc<JsonObject>) -> Arc<JsonObject> {
    let mut closed = (*schema).clone();
    closed
        .entry("additionalProperties")
        .or_insert(Value::Bool(false));
    Arc::new(closed)
}

/// What a tool answers, for the answers defined here.
pub trait ToolAnswer {
    /// The answer's JSON schema, as `tools/list` gives it.
    fn answer_schema() -> Arc<JsonObject>;
}

macro_rules! tool_args {
    ($($args:ty),* $(,)?) => {$(
        impl ToolArgs for $args {
            fn schema() -> Arc<JsonObject> {
                closed(schema_for_type::<$args>())
            }

            fn parse(tool: &str, args: Option<JsonObject>) -> Result<Self, String> {
                parse(tool, args, &Self::schema())
            }
        }
    )*};
}

tool_args!(
    ContextParams,
    ReadParams,
    ReadDocumentParams,
    LinksParams,
    RecallParams,
    NoParams,
    TermsParams,
    QaParams,
    ProposeParams,
    SupersedeParams,
    ImportTermsParams,
    ApplyParams,
    MvParams,
    FixParams,
    NewParams,
    CheckArgs,
    SearchArgs,
    EntriesQuery,
    EntriesParams,
);

impl ToolAnswer for ProposalReport<'static> {
    fn answer_schema() -> Arc<JsonObject> {
        output_schema::<Self>()
    }
}

impl ToolAnswer for ImportTermsReport {
    fn answer_schema() -> Arc<JsonObject> {
        output_schema::<Self>()
    }
}

impl ToolAnswer for FixesReport {
    fn answer_schema() -> Arc<JsonObject> {
        output_schema::<Self>()
    }
}

/// The schema of what a tool answers, generated from the type the CLI's
/// `--json` serialises. MCP wants an object at the root; a choice of
/// objects (`anyOf`) is one, so it is said explicitly.
///
/// Only the type's three schema functions are taken here, so that the code
/// generating the whole schema is compiled once, in this crate built for
/// size, rather than once per answer type in each crate naming one.
pub fn output_schema<T: JsonSchema>() -> Arc<JsonObject> {
    answer_schema_of(AnswerType {
        name: T::schema_name,
        id: T::schema_id,
        schema: T::json_schema,
    })
}

/// An answer type's schema functions, as its `JsonSchema` implementation
/// gives them.
#[derive(Clone, Copy)]
struct AnswerType {
    name: fn() -> Cow<'static, str>,
    id: fn() -> Cow<'static, str>,
    schema: fn(&mut SchemaGenerator) -> Schema,
}

thread_local! {
    /// The type `AnyAnswer` stands for while its schema is generated.
    static ANSWER_TYPE: Cell<Option<AnswerType>> = const { Cell::new(None) };
}

/// Stands for the answer type in `ANSWER_TYPE`: the generator calls a
/// type's schema functions without an instance, so they are looked up.
struct AnyAnswer;

impl AnyAnswer {
    fn answer_type() -> AnswerType {
        ANSWER_TYPE
            .get()
            .expect("AnyAnswer is only used by answer_schema_of, which sets its type")
    }
}

impl JsonSchema for AnyAnswer {
    fn schema_name() -> Cow<'static, str> {
        (Self::answer_type().name)()
    }

    fn schema_id() -> Cow<'static, str> {
        (Self::answer_type().id)()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        (Self::answer_type().schema)(generator)
    }
}

/// What `rmcp`'s `schema_for_output` makes of the type, with `type` said.
fn answer_schema_of(answer: AnswerType) -> Arc<JsonObject> {
    let previous = ANSWER_TYPE.replace(Some(answer));
    let schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<AnyAnswer>();
    ANSWER_TYPE.set(previous);
    let mut schema = match serde_json::to_value(schema) {
        Ok(Value::Object(object)) => object,
        // A schema is an object or a boolean; no answer's is a boolean.
        _ => JsonObject::new(),
    };
    // Noise to a model: the type's name and its doc comment.
    schema.remove("title");
    schema.remove("description");
    schema
        .entry("type")
        .or_insert_with(|| Value::String("object".to_owned()));
    Arc::new(schema)
}

/// `context`: the query and the budget, as `membank context` takes them.
#[derive(Deserialize, JsonSchema)]
pub struct ContextParams {
    #[serde(flatten)]
    pub query: QueryArgs,
    #[serde(flatten)]
    pub budget: BudgetArgs,
    /// At most this many articles, in rank order; the ones the budget kept
    /// are always listed. 100 unless told; 0 lists every article, as the
    /// command line does without --limit (a bank of 100,000 articles then
    /// answers with 100,000 rows).
    #[serde(default = "default_context_limit")]
    pub limit: usize,
}

/// An assistant wants the best articles, not a 70 MB answer listing every
/// one of a large bank: the tool pages by default, as `check` does.
const CONTEXT_DEFAULT_LIMIT: usize = 100;

fn default_context_limit() -> usize {
    CONTEXT_DEFAULT_LIMIT
}

/// `read`: what `membank read` takes; on an everos root also an entry id,
/// with the owner options of `membank entry`.
#[derive(Deserialize, JsonSchema)]
pub struct ReadParams {
    /// The document: a relative path (`03_DOMAINS/Legal.md`), a name
    /// (`Legal`) or a wikilink (`[[Legal]]`); on an everos memory root also
    /// an entry id (`ep_20260601_00000001`).
    pub target: String,
    /// everos: the owner and scope, for an entry id used in several files
    /// or a document every owner has one of (`user.md`).
    #[serde(flatten)]
    pub scope: ScopeArgs,
}

/// `read` where there are no entries: only the document.
#[derive(Deserialize, JsonSchema)]
pub struct ReadDocumentParams {
    /// The document: a relative path (`03_DOMAINS/Legal.md`), a name
    /// (`Legal`) or a wikilink (`[[Legal]]`).
    pub target: String,
}

/// `links`: what `membank links` takes.
#[derive(Deserialize, JsonSchema)]
pub struct LinksParams {
    /// The article: a relative path (`03_DOMAINS/Legal.md`) or a name (`Legal`).
    pub article: String,
    /// List at most this many backlinks (1 to 5000; 500 unless told);
    /// `backlinks_total` says how many there are when some are left out.
    #[serde(default = "default_links_limit")]
    #[schemars(default = "default_links_limit")]
    pub limit: usize,
    /// Skip this many backlinks first, to list the next page.
    #[serde(default)]
    pub offset: usize,
}

fn default_links_limit() -> usize {
    500
}

/// `recall`: what `membank recall` takes.
#[derive(Deserialize, JsonSchema)]
pub struct RecallParams {
    /// The cue: the task or question, in any number of words.
    pub cue: String,
    /// Explain this many of the best matches (1 to 500). Unless told, 20,
    /// and every impression when there are no more than 20.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `entries`: what `membank entries` takes, one page of the list at a time.
#[derive(Deserialize, JsonSchema)]
pub struct EntriesParams {
    #[serde(flatten)]
    pub query: EntriesQuery,
    /// List at most this many entries (1 to 1000).
    #[serde(default = "default_entries_limit")]
    #[schemars(default = "default_entries_limit")]
    pub limit: usize,
    /// Skip this many entries first, to list the next page.
    #[serde(default)]
    pub offset: usize,
}

fn default_entries_limit() -> usize {
    100
}

/// A tool without arguments.
#[derive(Deserialize, JsonSchema)]
pub struct NoParams {}

/// `terms`: what `membank terms export` takes; with `file_text`, the job
/// glossary of `membank terms --for` instead.
#[derive(Deserialize, JsonSchema)]
pub struct TermsParams {
    /// Export format: tbx (the default), csv or tsv.
    #[serde(default)]
    pub format: Option<String>,
    /// With tbx: 2008 (the default) or 2019.
    #[serde(default)]
    pub tbx_version: Option<String>,
    /// Only this client's terms (and terms for no client in particular).
    #[serde(default)]
    pub client: Option<String>,
    /// Only this language pair, SRC:TGT (export), or the pair of a file
    /// that names none (glossary).
    #[serde(default)]
    pub pair: Option<String>,
    /// Export only terms with these statuses (approved, proposed, rejected).
    #[serde(default)]
    pub status: Vec<String>,
    /// The text of a file about to be translated (XLIFF 1.2 or 2, TMX or
    /// plain text): answer with the bank's terms it uses.
    #[serde(default)]
    pub file_text: Option<String>,
    /// The file's name; its extension tells .sdlxliff and .mqxliff apart.
    #[serde(default)]
    pub file_name: Option<String>,
}

/// `qa`: what `membank qa` takes, with the file's text instead of a path.
#[derive(Deserialize, JsonSchema)]
pub struct QaParams {
    /// The translated file's text (XLIFF 1.2 or 2, TMX, or plain text with
    /// source and target separated by a tab).
    pub file_text: String,
    /// The file's name; its extension tells .sdlxliff and .mqxliff apart.
    #[serde(default)]
    pub file_name: Option<String>,
    /// Only this client's terms (and terms for no client in particular).
    #[serde(default)]
    pub client: Option<String>,
    /// The language pair of a file that names none, SRC:TGT.
    #[serde(default)]
    pub pair: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct ProposeParams {
    /// The reply: any text with `### FILE: <path>` blocks, each followed by
    /// the whole new content of that file.
    pub reply: String,
}

/// `supersede`: what `membank supersede` takes.
#[derive(Deserialize, JsonSchema)]
pub struct SupersedeParams {
    /// The record being replaced: its id or path (memory/decisions/x.md).
    pub old: String,
    /// The record replacing it.
    pub new: String,
}

/// `import_terms`: what `membank terms import` takes, with the file's
/// text instead of a path.
#[derive(Deserialize, JsonSchema)]
pub struct ImportTermsParams {
    /// The TBX, CSV or TSV file's text.
    pub file_text: String,
    /// The file's name: its extension (.tbx, .csv, .tsv) says the format.
    pub file_name: String,
    /// Every imported term is for this client.
    #[serde(default)]
    pub client: Option<String>,
    /// The domain of imported terms that name none.
    #[serde(default)]
    pub domain: Option<String>,
    /// The language pair of a file that names no languages, SRC:TGT.
    #[serde(default)]
    pub pair: Option<String>,
}

/// `import_terms`' answer: each term's outcome, and the id that writes
/// the new articles (`null` when there is nothing to write).
#[derive(Serialize, JsonSchema)]
pub struct ImportTermsReport {
    pub proposal_id: Option<String>,
    pub terms: Vec<membank_core::terms::import::Proposed>,
    /// Each row or entry of the file no term came from, and why.
    pub left_out: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct ApplyParams {
    /// The `proposal_id` a proposing tool returned (`propose_write`,
    /// `fix`, `mv`, `new`, `import_terms`, `supersede`).
    pub proposal_id: String,
}

/// One block as the review classifies it, with the whole new file when it
/// is new (a diff against nothing says less).
#[derive(Serialize, JsonSchema)]
pub struct ProposedBlock<'a> {
    #[serde(flatten)]
    pub file: &'a ProposedFile,
    /// The whole new file (`new` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<&'a str>,
}

#[derive(Serialize, JsonSchema)]
pub struct ProposalReport<'a> {
    pub proposal_id: String,
    pub blocks: Vec<ProposedBlock<'a>>,
    pub warnings: &'a [String],
}

/// What `apply_write` answers for `fix`, `mv` and `new`: the files
/// written (created or changed) and those deleted (a moved file's old
/// path, a leftover `.tmp`).
#[derive(Serialize, JsonSchema)]
pub struct FixesApplied {
    pub written: Vec<String>,
    pub deleted: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct MvParams {
    /// What to rename or move, relative to the memory: in a bank a note
    /// or a folder (03_DOMAINS/Legal.md, 03_DOMAINS/legal); in a Deja Vu
    /// project a record (memory/decisions/old.md).
    pub from: String,
    /// Its new path; ending in `/`, a folder it moves into. A note's new
    /// name gets .md when given without it.
    pub to: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct FixParams {
    /// Only findings with these codes (e.g. bad-date). `stale` is fixed
    /// (last_updated set to today) only when named here, after the user
    /// has checked the article.
    #[serde(default)]
    pub code: Vec<String>,
    /// Only findings about this file, or files under this folder.
    pub path: Option<String>,
    /// Create the article a dead link names when no article is a near
    /// miss of it (a dead link may be a deliberate forward reference).
    #[serde(default)]
    pub create_missing: bool,
    /// Articles whose last_updated is older than this many days are
    /// stale (0: never), as for the check tool; what `stale` fixes.
    #[serde(default = "default_stale_days")]
    #[schemars(default = "default_stale_days")]
    pub stale_days: u32,
}

fn default_stale_days() -> u32 {
    365
}

#[derive(Deserialize, JsonSchema)]
pub struct NewParams {
    /// The folder: 01_CLIENTS, 02_TERMINOLOGY, 03_DOMAINS, 04_STYLE,
    /// 05_INDICES, 00_INBOX (or clients, terminology, domains…).
    pub folder: String,
    /// The note's name without .md; a term's may be `source → target`.
    pub name: String,
    pub client: Option<String>,
    pub domain: Option<String>,
    /// Source language code, e.g. en-US.
    pub source_lang: Option<String>,
    /// Target language code, e.g. de-DE.
    pub target_lang: Option<String>,
}

/// One file of a proposal, as `membank mv --json` lists it.
#[derive(Serialize, JsonSchema)]
pub struct ProposedFix {
    pub path: String,
    /// `moved`, `changed` or `new`.
    pub action: &'static str,
    /// Where a moved file goes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// The codes of the findings the change fixes, as `membank fix --json`
    /// lists them; absent for a rename or a new article.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub codes: Vec<&'static str>,
    pub notes: Vec<String>,
    pub diff: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct FixesReport {
    /// `null` when there is nothing to change.
    pub proposal_id: Option<String>,
    pub files: Vec<ProposedFix>,
    /// How many links a rename rewrites.
    pub links_rewritten: usize,
    /// Files of a moved folder that stay where they are (not notes).
    pub left_in_place: Vec<String>,
    /// Findings `fix` has no automatic fix for, each with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remaining: Vec<Remaining>,
    /// How many findings about private memory were left out, as the
    /// server does not serve it; absent when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld_findings: Option<usize>,
}

/// A finding left as it is, and why.
#[derive(Serialize, JsonSchema)]
pub struct Remaining {
    pub code: &'static str,
    pub path: String,
    pub line: Option<usize>,
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::handler::server::common::schema_for_output;

    /// What rmcp makes of the type, with the root `type` said as MCP wants.
    fn rmcp_answer_schema<T: JsonSchema + 'static>() -> JsonObject {
        let mut schema = schema_for_output::<T>().as_ref().clone();
        schema
            .entry("type")
            .or_insert_with(|| Value::String("object".to_owned()));
        schema
    }

    /// Refers to itself: the generator must know the stand-in as this type.
    #[derive(JsonSchema)]
    #[allow(dead_code)] // only its schema is used
    struct Outline {
        heading: String,
        sections: Vec<Outline>,
    }

    #[test]
    fn a_whole_number_is_taken_for_an_integer_argument_and_a_fraction_is_not() {
        let args = |v: Value| match v {
            Value::Object(o) => Some(o),
            _ => None,
        };
        let p = LinksParams::parse(
            "links",
            args(serde_json::json!({"article": "A", "limit": 5.0, "offset": 2.0})),
        )
        .unwrap();
        assert_eq!((p.limit, p.offset), (5, 2));
        let p = RecallParams::parse(
            "recall",
            args(serde_json::json!({"cue": "c", "limit": 3.0})),
        )
        .unwrap();
        assert_eq!(p.limit, Some(3));
        for refused in [
            serde_json::json!(5.5),
            serde_json::json!(-1.0),
            serde_json::json!(1e300),
        ] {
            let given = args(serde_json::json!({"article": "A", "limit": refused}));
            assert!(LinksParams::parse("links", given).is_err(), "{refused}");
        }
    }

    #[test]
    fn answer_schemas_are_the_ones_rmcp_makes() {
        assert_eq!(
            *output_schema::<FixesReport>(),
            rmcp_answer_schema::<FixesReport>()
        );
        assert_eq!(
            *output_schema::<ImportTermsReport>(),
            rmcp_answer_schema::<ImportTermsReport>()
        );
        assert_eq!(
            *output_schema::<ProposalReport<'static>>(),
            rmcp_answer_schema::<ProposalReport<'static>>()
        );
        assert_eq!(
            *output_schema::<membank_core::context::ExplainedReport>(),
            rmcp_answer_schema::<membank_core::context::ExplainedReport>()
        );
        assert_eq!(
            *output_schema::<membank_core::vocabulary::Vocabulary>(),
            rmcp_answer_schema::<membank_core::vocabulary::Vocabulary>()
        );
        assert_eq!(*output_schema::<Outline>(), rmcp_answer_schema::<Outline>());
    }
}
