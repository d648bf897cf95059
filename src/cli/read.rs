//! `membank read`: one article as the bank holds it, with its frontmatter
//! parsed, found by path or by the name a wikilink would use.

use std::path::PathBuf;
use std::process::ExitCode;

use membank_core::article::{Article, FrontmatterState};
use membank_core::bank::Bank;
use serde::Serialize;

use membank_core::text::sanitize_for_terminal;

use super::common::{find_article, open_bank, print_json};

#[derive(clap::Args)]
pub struct Args {
    /// The memory bank folder.
    bank: PathBuf,
    /// The article: a relative path (`03_DOMAINS/Legal.md`), a name
    /// (`Legal`) or a wikilink (`[[Legal]]`).
    target: String,
    /// Print {"path","folder","title","frontmatter","frontmatter_problem","text"} as JSON.
    #[arg(long)]
    json: bool,
}

/// An article as `--json` prints it.
#[derive(Serialize)]
pub struct Document {
    pub path: String,
    pub folder: &'static str,
    pub title: String,
    /// The frontmatter as a JSON object; `null` when there is none or it
    /// does not parse.
    pub frontmatter: Option<serde_json::Value>,
    /// Why `frontmatter` is `null` when the file has a block that does not
    /// parse; `null` otherwise.
    pub frontmatter_problem: Option<String>,
    /// The whole article, frontmatter included, with LF line endings.
    pub text: String,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bank = open_bank(&args.bank)?;
    let doc = document(bank, &args.target)?;
    if args.json {
        print_json(&doc)?;
    } else {
        print!("{}", human(&doc));
    }
    Ok(ExitCode::SUCCESS)
}

/// Find the article and describe it.
pub fn document(bank: &Bank, target: &str) -> anyhow::Result<Document> {
    let id = find_article(bank, target)?;
    Ok(describe(bank.article(id)))
}

fn describe(a: &Article) -> Document {
    let (frontmatter, frontmatter_problem) = match &a.frontmatter {
        FrontmatterState::Parsed(_) => {
            // Keys YAML allows but JSON does not (numbers, lists) make the
            // block unrepresentable; say so rather than guess.
            match a.mapping().map(|m| serde_json::to_value(&m)) {
                Some(Ok(v)) => (Some(v), None),
                Some(Err(e)) => (None, Some(format!("not representable as JSON: {e}"))),
                None => (None, None),
            }
        }
        FrontmatterState::Missing => (None, None),
        FrontmatterState::Unclosed => (
            None,
            Some("the frontmatter block opened by `---` never closes".to_owned()),
        ),
        FrontmatterState::Invalid(e) => (
            None,
            Some(match e.line {
                Some(line) => format!("line {line}: {}", e.message),
                None => e.message.clone(),
            }),
        ),
    };
    Document {
        path: a.rel_path.clone(),
        folder: a.folder.dir_name(),
        title: a.title.clone(),
        frontmatter,
        frontmatter_problem,
        text: a.text.clone(),
    }
}

/// The article text as it is, made safe for a terminal.
pub fn human(doc: &Document) -> String {
    let mut out = sanitize_for_terminal(&doc.text, true);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}
