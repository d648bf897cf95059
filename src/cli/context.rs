//! `membank context`: the ranked, budgeted context for a query, with the
//! reason for every decision.

use std::borrow::Cow;
use std::path::PathBuf;
use std::process::ExitCode;

use membank_core::bank::Bank;
use membank_core::budget::{BudgetOptions, DEFAULT_BUDGET};
use membank_core::context::{self, ExplainedEntry, ExplainedReport, Listed, Streamed};
use membank_core::scoring::{Query, SignalMatch};
use schemars::JsonSchema;
use serde::Deserialize;

use super::common::safe;
use super::style;

#[derive(clap::Args)]
#[command(after_help = super::common::MODEL_TEXT_HELP)]
pub struct Args {
    /// The memory bank folder.
    bank: PathBuf,
    #[command(flatten)]
    query: QueryArgs,
    #[command(flatten)]
    budget: BudgetArgs,
    /// List at most N articles, in rank order; the ones the budget kept are
    /// always listed (default: every article; 0 also means every article).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Print the assembled context text instead of the table.
    #[arg(long, conflicts_with = "json")]
    render: bool,
}

/// The active client, domain and language pair, shared by every command
/// that assembles a context (and by the MCP tools, whose argument schema is
/// generated from this same type).
#[derive(clap::Args, Clone, Default, Deserialize, JsonSchema)]
pub struct QueryArgs {
    /// Active client (compared exactly, ignoring case).
    #[arg(long)]
    pub client: Option<String>,
    /// Active domain (compared exactly, ignoring case).
    #[arg(long)]
    pub domain: Option<String>,
    /// Source language code, e.g. en-US.
    #[arg(long)]
    pub source_lang: Option<String>,
    /// Target language code, e.g. nl-BE.
    #[arg(long)]
    pub target_lang: Option<String>,
}

/// The token budget, shared by every command that assembles a context.
#[derive(clap::Args, Clone, Deserialize, JsonSchema)]
pub struct BudgetArgs {
    /// Token budget; 0 means unlimited.
    #[arg(long, default_value_t = DEFAULT_BUDGET)]
    #[serde(default = "default_budget")]
    #[schemars(default = "default_budget")]
    pub budget: usize,
    /// Let articles that score 0 fill leftover budget.
    #[arg(long)]
    #[serde(default)]
    pub include_unscored: bool,
}

fn default_budget() -> usize {
    DEFAULT_BUDGET
}

impl BudgetArgs {
    pub fn options(&self) -> BudgetOptions {
        BudgetOptions {
            budget: self.budget,
            include_unscored: self.include_unscored,
        }
    }
}

impl QueryArgs {
    pub fn to_query(&self) -> Query {
        Query {
            client: self.client.clone(),
            domain: self.domain.clone(),
            source_lang: self.source_lang.clone(),
            target_lang: self.target_lang.clone(),
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (report, warnings) = rank(&args)?;
    for warning in warnings {
        eprintln!("membank: warning: {warning}");
    }
    // Each row is put into words only while it is written, so the whole
    // report is never held in words at once.
    if args.json {
        use anyhow::Context as _;
        use std::io::Write as _;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        report.write_json(&mut out).context("writing JSON")?;
        writeln!(out)?;
        out.flush()?;
    } else if args.render {
        let text = report
            .render()
            .map_err(|p| anyhow::anyhow!("{}", safe(&format!("{}: {}", p.path, p.message))))?;
        super::common::print_model_text(&text)?;
    } else {
        print_table(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// The command's report, and a warning for each value of the query no
/// article carries, naming the closest ones the bank uses. Each article is
/// ranked as it is read and dropped: the bank is never held (see
/// `context::stream`), and read once: the values for the warnings are
/// gathered during that read.
fn rank(args: &Args) -> anyhow::Result<(Streamed, Vec<String>)> {
    let root = super::common::bank_root(&args.bank)?;
    let query = args.query.to_query();
    let report = context::stream(
        &root,
        &query,
        args.budget.options(),
        args.limit.unwrap_or(0),
    )
    .map_err(|e| anyhow::anyhow!(safe(&e.to_string())))?;
    tracing::info!(root = %root.display(), ranked = report.ranked, "ranked");
    let warnings = report
        .unknown_values
        .iter()
        .map(|unknown| safe(&unknown.to_string()))
        .collect();
    Ok((report, warnings))
}

/// The ranked, budgeted report for a query, listing the first `limit`
/// articles in rank order and every one the budget kept (0: every
/// article); `explain` of its report is what `--json` prints,
/// `context::render` the assembled context text. The context itself is
/// the same whatever the limit: it holds only kept articles.
pub fn build(bank: &Bank, query: &QueryArgs, budget: &BudgetArgs, limit: usize) -> Listed {
    context::build_listed(bank, &query.to_query(), budget.options(), limit)
}

/// The readable report as text, with style codes that `anstream` keeps or
/// strips; `total` is how many articles were ranked, listed or not.
pub fn table(r: &ExplainedReport, total: usize) -> String {
    let mut out = Vec::new();
    let head = TableHead {
        query: &r.query,
        budget: r.budget,
        used_tokens: r.used_tokens,
        token_estimator: r.token_estimator,
        articles: total,
        listed: r.articles.len(),
        kept: r.articles.iter().filter(|e| e.included).count(),
    };
    let _ = write_table(&mut out, &head, r.articles.iter().map(Cow::Borrowed));
    String::from_utf8_lossy(&out).into_owned()
}

/// What the table says above its rows.
struct TableHead<'a> {
    query: &'a Query,
    budget: usize,
    used_tokens: usize,
    token_estimator: &'static str,
    /// Articles ranked, listed or not.
    articles: usize,
    /// Rows that follow.
    listed: usize,
    kept: usize,
}

fn describe(m: &Option<SignalMatch>, points: u32) -> Option<String> {
    m.as_ref()
        .map(|m| format!("{} → +{points}", safe(&m.to_string())))
}

fn why(e: &ExplainedEntry) -> String {
    let parts: Vec<String> = [
        describe(&e.matched.client, e.signals.client),
        describe(&e.matched.domain, e.signals.domain),
        describe(&e.matched.language, e.signals.language),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        "no signal matched".to_owned()
    } else {
        parts.join("; ")
    }
}

fn print_table(r: &Streamed) {
    use rayon::prelude::*;
    use std::io::Write;
    let stdout = std::io::stdout();
    // Styles kept or dropped as they would be for the real standard output,
    // decided once here and applied to each block where it is made.
    let choice = anstream::AutoStream::choice(&stdout);
    let styled =
        |write: &dyn Fn(&mut dyn Write) -> std::io::Result<()>| style::styled_block(choice, write);
    // One write per block, not per line: a 100,000-row table is otherwise
    // hundreds of thousands of system calls.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let head = TableHead {
        query: &r.query,
        budget: r.budget,
        used_tokens: r.used_tokens,
        token_estimator: r.token_estimator,
        articles: r.ranked,
        listed: r.len(),
        kept: r.kept(),
    };
    let _ = out.write_all(&styled(&|o| write_head(o, &head)));
    // Rows are put into words on all cores, a window at a time, so the
    // whole table is never held at once. Without colours they are written
    // plain rather than written with styles and stripped.
    let colored = choice != anstream::ColorChoice::Never;
    const ROWS_PER_BLOCK: usize = 1024;
    let block_of = |rows: std::ops::Range<usize>| {
        let explained = rows.map(|i| Cow::Owned(r.explain(i)));
        if colored {
            styled(&|o| write_rows(o, explained.clone(), true))
        } else {
            let mut block = Vec::new();
            let _ = write_rows(&mut block, explained, false);
            block
        }
    };
    // A short table is written on this thread: starting the pool would
    // cost more than it saves.
    let parallel = membank_core::parallel::pays(r.len());
    let blocks_of = |start: usize| {
        (start..r.len().min(start + ROWS_PER_BLOCK * 16))
            .step_by(ROWS_PER_BLOCK)
            .map(|b| b..r.len().min(b + ROWS_PER_BLOCK))
    };
    for window in (0..r.len()).step_by(ROWS_PER_BLOCK * 16) {
        let blocks: Vec<Vec<u8>> = if parallel {
            blocks_of(window)
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(block_of)
                .collect()
        } else {
            blocks_of(window).map(block_of).collect()
        };
        for block in blocks {
            let _ = out.write_all(&block);
        }
    }
    let _ = out.write_all(&styled(&|o| write_tail(o, &head)));
    let _ = out.flush();
}

/// The readable report: the query, the budget, then every article in rank
/// order with why it scored and, for each one left out, why.
fn write_table<'a>(
    out: &mut impl std::io::Write,
    r: &TableHead<'_>,
    rows: impl Iterator<Item = Cow<'a, ExplainedEntry>>,
) -> std::io::Result<()> {
    write_head(out, r)?;
    write_rows(out, rows, true)?;
    write_tail(out, r)
}

/// The query and the budget, and the columns' heading.
fn write_head(out: &mut dyn std::io::Write, r: &TableHead<'_>) -> std::io::Result<()> {
    let q = r.query;
    let show = |v: &Option<String>| v.as_deref().map(safe).unwrap_or_else(|| "-".into());
    writeln!(
        out,
        "query: client {} | domain {} | {} → {}",
        show(&q.client),
        show(&q.domain),
        show(&q.source_lang),
        show(&q.target_lang)
    )?;
    let budget = if r.budget == 0 {
        "unlimited".to_owned()
    } else {
        r.budget.to_string()
    };
    writeln!(
        out,
        "budget: {} / {budget} tokens used ({}), {} of {} articles kept",
        r.used_tokens, r.token_estimator, r.kept, r.articles
    )?;
    writeln!(out)?;
    let heading = style::HEADING;
    writeln!(
        out,
        "{heading}{:>4}  {:>5}  {:>2} {:>2} {:>2}  {:>6}  {:<10}  {:<4}  path{heading:#}",
        "rank", "score", "C", "D", "L", "tokens", "updated", "kept"
    )
}

/// Every article in rank order with why it scored and, for each one left
/// out, why.
fn write_rows<'a>(
    out: &mut dyn std::io::Write,
    rows: impl Iterator<Item = Cow<'a, ExplainedEntry>>,
    colored: bool,
) -> std::io::Result<()> {
    let paint = |s: anstyle::Style| if colored { s } else { anstyle::Style::new() };
    let muted = paint(style::MUTED);
    for e in rows {
        let e = e.as_ref();
        let (kept_word, kept_style) = if e.included {
            ("yes", paint(style::GOOD))
        } else {
            ("no", muted)
        };
        writeln!(
            out,
            "{:>4}  {:>5}  {:>2} {:>2} {:>2}  {:>6}  {:<10}  {kept_style}{kept_word:<4}{kept_style:#}  {}",
            e.rank,
            e.score,
            e.signals.client,
            e.signals.domain,
            e.signals.language,
            e.tokens,
            date_cell(e.last_updated.as_deref()),
            safe(&e.path)
        )?;
        if e.score > 0 {
            writeln!(out, "{:>40}  why: {}", "", why(e))?;
        }
        if !e.included {
            let reason = e.drop_reason.as_deref().unwrap_or("not in the context");
            writeln!(
                out,
                "{:>40}  {muted}left out: {}{muted:#}",
                "",
                safe(reason)
            )?;
        }
    }
    Ok(())
}

/// How many articles the listing left out.
fn write_tail(out: &mut dyn std::io::Write, r: &TableHead<'_>) -> std::io::Result<()> {
    if r.articles > r.listed {
        let muted = style::MUTED;
        writeln!(
            out,
            "{muted}… {} more articles not listed (limit){muted:#}",
            r.articles - r.listed
        )?;
    }
    Ok(())
}

/// The `updated` column: the date, `-` when there is none, and `invalid`
/// for text that is not a `YYYY-MM-DD` date (shown raw it would break the
/// column and look like a date that counts).
fn date_cell(raw: Option<&str>) -> String {
    match raw {
        None => "-".into(),
        Some(d) if membank_core::frontmatter::parse_iso_date(d).is_some() => d.to_owned(),
        Some(_) => "invalid".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    #[derive(clap::Parser)]
    struct Command {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn a_value_no_article_carries_is_told_after_one_read_of_the_bank() {
        let d = tempfile::tempdir().unwrap();
        for (rel, text) in [
            (
                "01_CLIENTS/Acme.md",
                "---\nclient: Acme Corporation\n---\nbody\n",
            ),
            ("03_DOMAINS/Legal.md", "---\ndomain: Legal\n---\nbody\n"),
        ] {
            let path = d.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let bank = d.path().to_str().unwrap();
        for (query, want) in [
            (
                ["--client", "Acme"],
                vec!["no client 'Acme' in this bank; did you mean 'Acme Corporation'?"],
            ),
            (["--client", "acme corporation"], vec![]),
        ] {
            let args = Command::parse_from(["context", bank].into_iter().chain(query)).args;
            let reads = membank_core::bank::reads_begun_on_this_thread();
            let (report, warnings) = rank(&args).unwrap();
            assert_eq!(warnings, want, "{query:?}");
            assert_eq!(report.ranked, 2);
            assert_eq!(
                membank_core::bank::reads_begun_on_this_thread() - reads,
                1,
                "{query:?}: the bank was read more than once"
            );
        }
    }
}
