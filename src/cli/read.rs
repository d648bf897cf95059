//! `membank read`: one article as the bank holds it, with its frontmatter
//! parsed, found by path or by the name a wikilink would use.

use std::process::ExitCode;

use membank_core::frontmatter;
use membank_core::memory::{self, Memory};
use membank_core::text::sanitize_for_terminal;
use schemars::JsonSchema;
use serde::Serialize;

use super::common::{find_document, open_memory, print_json};

pub use membank_args::read::Args;

/// A document as `--json` prints it.
#[derive(Serialize, JsonSchema)]
pub struct Document {
    pub path: String,
    pub title: String,
    /// The kind of document in the layout's words (`clients`, `decision`).
    pub kind: String,
    /// Its lifecycle word, when the layout has one.
    pub status: Option<String>,
    /// The frontmatter as a JSON object; `null` when there is none or it
    /// does not parse.
    pub frontmatter: Option<serde_json::Value>,
    /// Why `frontmatter` is `null` when the file opens a block that does
    /// not parse; `null` otherwise.
    pub frontmatter_problem: Option<String>,
    /// The whole document, frontmatter included, with LF line endings.
    pub text: String,
    /// How many lines of `text` the MCP server replaced by a marker, as they
    /// name private memory it does not serve; absent when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld_lines: Option<usize>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let memory = open_memory(&args.bank)?;
    let doc = document(memory, &args.target)?;
    if args.json {
        print_json(&doc)?;
    } else {
        out!("{}", human(&doc))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Find the document and describe it.
pub fn document(memory: &dyn Memory, target: &str) -> anyhow::Result<Document> {
    let id = find_document(memory, target)?;
    Ok(describe(&memory.document(id)))
}

/// [`document`] among the documents `served` keeps (the MCP server's,
/// without the private memory it withholds).
pub fn served_document(
    memory: &dyn Memory,
    target: &str,
    served: &dyn Fn(memory::DocId) -> bool,
) -> anyhow::Result<Document> {
    let id = super::common::find_served_document(memory, target, served)?;
    Ok(describe(&memory.document(id)))
}

fn describe(d: &memory::Document<'_>) -> Document {
    let (frontmatter, frontmatter_problem) = match d.frontmatter_text() {
        Some(yaml) => match frontmatter::parse_yaml(yaml, 2) {
            // Keys YAML allows but JSON does not (numbers, lists) make the
            // block unrepresentable; say so rather than guess.
            Ok(mapping) => match serde_json::to_value(&mapping) {
                Ok(v) => (Some(v), None),
                Err(e) => (None, Some(format!("not representable as JSON: {e}"))),
            },
            Err(e) => (None, Some(e.message)),
        },
        None if d.text.starts_with("---") => (
            None,
            Some("the frontmatter block does not parse; `check` says where".to_owned()),
        ),
        None => (None, None),
    };
    Document {
        path: d.path.to_owned(),
        title: d.title.to_string(),
        kind: d.kind.to_string(),
        status: d.status.as_ref().map(|s| s.to_string()),
        frontmatter,
        frontmatter_problem,
        text: d.text.to_owned(),
        withheld_lines: None,
    }
}

/// The document text as it is, made safe for a terminal.
pub fn human(doc: &Document) -> String {
    let mut out = sanitize_for_terminal(&doc.text, true);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}
