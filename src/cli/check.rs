//! `membank check`: the deterministic health checks, for people and scripts.

use std::process::ExitCode;

use membank_core::health::{self, Finding, HealthOptions, HealthReport, Severity};
use membank_core::memory::{LayoutKind, Memory};
use membank_core::surface::Surface;
use membank_core::text::{sanitize_for_terminal, sanitize_into};
use schemars::JsonSchema;
use serde::Serialize;

use membank::severity;

use membank_core::bank::LoadOptions;

use super::common::{detect_memory, layout_error, open_memory_with, print_json};
use super::style;

pub use membank_args::check::{Args, CheckArgs};

/// Findings an MCP answer lists at most.
pub const MCP_MAX_LIMIT: usize = 500;

/// The filter's decisions, made here where the findings are (the
/// arguments' type is defined with the command line).
trait FindingFilter {
    fn keeps(&self, f: &Finding) -> bool;
    fn path_keeps(&self, path: &str) -> bool;
}

impl FindingFilter for CheckArgs {
    fn keeps(&self, f: &Finding) -> bool {
        let code_ok =
            self.code.is_empty() || self.code.iter().any(|c| c.eq_ignore_ascii_case(f.code()));
        code_ok && self.path_keeps(&f.path)
    }

    /// Does `--path` keep the findings about this relative path?
    fn path_keeps(&self, path: &str) -> bool {
        match &self.path {
            None => true,
            // Read as the existence check reads it: `./X`, `X//Y` and `X\Y`
            // name the same place as `X/Y`, and `.` the whole memory.
            Some(p) => match membank_core::bank::normalize_rel_path(p) {
                None => false,
                Some(p) if p.is_empty() => true,
                Some(p) => {
                    path == p
                        || path
                            .strip_prefix(p.as_str())
                            .is_some_and(|rest| rest.starts_with('/'))
                }
            },
        }
    }
}

/// The findings and their counts, as `--json` prints them.
#[derive(Serialize, JsonSchema)]
pub struct JsonReport {
    bank: String,
    /// The findings listed: those the filter kept, from `offset`, at most
    /// `limit`.
    findings: Vec<Finding>,
    /// Of every finding the filter kept, listed or not.
    counts: health::Counts,
    /// How many findings the filter kept, listed or not.
    total: usize,
    /// Findings skipped before the ones listed.
    offset: usize,
    /// True when more findings follow the ones listed.
    truncated: bool,
    /// The findings about private memory the MCP server left out, as it
    /// does not serve that memory; absent when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld: Option<WithheldFindings>,
}

/// How many findings were left out, and why.
#[derive(Serialize, JsonSchema)]
pub struct WithheldFindings {
    pub findings: usize,
    pub reason: &'static str,
}

/// The findings the filter kept, one page of them listed.
pub struct Checked {
    /// The listed findings, and the counts of every finding kept.
    pub report: HealthReport,
    pub total: usize,
    pub offset: usize,
}

impl Checked {
    pub fn truncated(&self) -> bool {
        self.offset + self.report.findings.len() < self.total
    }
}

/// A `--path` that names no file or folder of the memory would only ever
/// answer "no problems": say so, with the closest names that exist and
/// that `hides` does not withhold.
fn check_path_exists(
    memory: &dyn Memory,
    path: &str,
    hides: &dyn Fn(&str) -> bool,
    surface: Surface,
) -> anyhow::Result<()> {
    if names_a_file(memory.root(), path) {
        return Ok(());
    }
    no_such_path(memory, path, hides, surface)
}

/// The refusal of a `--path` that names nothing, with the near misses
/// `hides` does not withhold.
fn no_such_path(
    memory: &dyn Memory,
    path: &str,
    hides: &dyn Fn(&str) -> bool,
    surface: Surface,
) -> anyhow::Result<()> {
    let mut known: Vec<&str> = Vec::new();
    for doc in memory.documents() {
        let mut at = doc.path;
        known.push(at);
        while let Some((folder, _)) = at.rsplit_once('/') {
            known.push(folder);
            at = folder;
        }
    }
    // A folder is withheld when what it holds is (`memory/private`).
    known.retain(|p| !hides(p) && !hides(&format!("{p}/-")));
    known.sort_unstable();
    known.dedup();
    let close = membank_core::suggest::closest(path, known.iter().copied());
    anyhow::bail!(
        "{} {}: no such file or folder in {}{}",
        surface.option("path"),
        sanitize_for_terminal(path, false),
        sanitize_for_terminal(&memory.root().display().to_string(), false),
        sanitize_for_terminal(&membank_core::suggest::did_you_mean(&close), false)
    )
}

/// Does `path` name the memory at `root`, or a file or folder in it?
fn names_a_file(root: &std::path::Path, path: &str) -> bool {
    let rel = membank_core::bank::normalize_rel_path(path.trim_end_matches(['/', '\\']));
    rel.is_some_and(|rel| rel.is_empty() || root.join(rel).symlink_metadata().is_ok())
}

/// Run the checks, keep the findings the filter asks for and list the page
/// asked for; the counts are those of every finding kept.
pub fn report(memory: &dyn Memory, args: &CheckArgs) -> anyhow::Result<Checked> {
    report_with(memory, args, None, &|_| false, Surface::CommandLine)
}

/// [`report`] without the findings `withholds` names, and how many those
/// were: the MCP server leaves out what is about private memory it does
/// not serve.
pub fn report_withholding(
    memory: &dyn Memory,
    args: &CheckArgs,
    withholds: &dyn Fn(&health::Finding) -> bool,
) -> anyhow::Result<(Checked, usize)> {
    // An everos root has no private memory, and checks a part on its own.
    if membank::layouts::memory_root(memory).is_some() {
        return Ok((
            report_with(memory, args, None, &|_| false, Surface::Tool)?,
            0,
        ));
    }
    check_codes(memory.spec().kind, args)?;
    // Whether a path is withheld, asked as of a finding about it.
    let hides = |path: &str| withholds(&health::Finding::new("", Severity::Info, path, None, ""));
    check_path(memory, args, &hides, Surface::Tool)?;
    let all = memory.check(&options(args));
    // Only those the filter keeps count: a withheld finding of another
    // code or about another file is not one this answer leaves out.
    let withheld = all
        .findings
        .iter()
        .filter(|f| withholds(f) && args.keeps(f))
        .count();
    let kept: Vec<health::Finding> = all.findings.into_iter().filter(|f| !withholds(f)).collect();
    Ok((
        report_with(
            memory,
            args,
            Some(health::HealthReport::new(kept)),
            &hides,
            Surface::Tool,
        )?,
        withheld,
    ))
}

/// `--path` names something `hides` does not withhold: the same answer
/// whether or not a withheld file exists, and no withheld name among the
/// suggestions, since either would tell what private memory holds.
fn check_path(
    memory: &dyn Memory,
    args: &CheckArgs,
    hides: &dyn Fn(&str) -> bool,
    surface: Surface,
) -> anyhow::Result<()> {
    let Some(path) = &args.path else {
        return Ok(());
    };
    let path_named = path.trim_end_matches(['/', '\\']);
    if hides(path_named) || hides(&format!("{path_named}/-")) {
        // A path withheld for what it is rather than for its name (a link
        // into private memory) is answered as one that names nothing:
        // saying it is private would say that it exists.
        let by_name = |p: &str| membank_core::dejavu::paths::is_private(p);
        if !by_name(path_named) && !by_name(&format!("{path_named}/-")) {
            return no_such_path(memory, path, hides, surface);
        }
        anyhow::bail!(
            "{} {}: names private memory, which this server does not serve",
            surface.option("path"),
            sanitize_for_terminal(path, false)
        );
    }
    check_path_exists(memory, path, hides, surface)
}

/// [`report`] with the checks' report already made, when `checked` is
/// given. A page that lists only part of the findings (`--offset`,
/// `--limit`) is cut from them in the readable report's order (by
/// severity, then code), so the readable pages list in turn what the whole
/// report lists, and a JSON page holds what its readable page shows.
fn report_with(
    memory: &dyn Memory,
    args: &CheckArgs,
    checked: Option<HealthReport>,
    hides: &dyn Fn(&str) -> bool,
    surface: Surface,
) -> anyhow::Result<Checked> {
    check_codes(memory.spec().kind, args)?;
    check_path(memory, args, hides, surface)?;
    let mut report = checked.unwrap_or_else(|| match membank::layouts::memory_root(memory) {
        // A loaded everos root asked about one part checks that part only.
        Some(root) if args.path.is_some() => {
            membank_core::everos::check::check_where(root, |rel| args.path_keeps(rel))
        }
        _ => memory.check(&options(args)),
    });
    if !args.code.is_empty() || args.path.is_some() {
        report.findings.retain(|f| args.keeps(f));
        let mut counts = health::Counts::default();
        for f in &report.findings {
            match f.severity {
                Severity::Error => counts.error += 1,
                Severity::Warning => counts.warning += 1,
                Severity::Info => counts.info += 1,
            }
        }
        report.counts = counts;
    }
    let total = report.findings.len();
    if args.offset > 0 || (args.limit > 0 && args.limit < total) {
        // Stable: within a code the findings keep their path and line order.
        membank_core::shared_sort::sort_by(&mut report.findings, |a, b| {
            (a.severity, a.code()).cmp(&(b.severity, b.code()))
        });
    }
    let offset = args.offset.min(total);
    let end = match args.limit {
        0 => total,
        n => offset.saturating_add(n).min(total),
    };
    report.findings.truncate(end);
    report.findings.drain(..offset);
    Ok(Checked {
        report,
        total,
        offset: args.offset,
    })
}

/// A code no check of this layout gives would only ever answer "no
/// problems": a typo in a CI filter must not read as a pass.
fn check_codes(kind: LayoutKind, args: &CheckArgs) -> anyhow::Result<()> {
    let codes = match kind {
        LayoutKind::Bank => health::CODES,
        LayoutKind::DejaVu => membank_core::dejavu::checks::CODES,
        LayoutKind::Everos => membank_core::everos::check::CODES,
    };
    if let Some(unknown) = args
        .code
        .iter()
        .find(|c| !codes.iter().any(|(code, _)| code.eq_ignore_ascii_case(c)))
    {
        let known: Vec<&str> = codes.iter().map(|(code, _)| *code).collect();
        anyhow::bail!(
            "unknown finding code {}; the codes are: {}",
            membank_core::text::quoted(&sanitize_for_terminal(unknown, false)),
            known.join(", ")
        );
    }
    Ok(())
}

/// The checks `args` asks for, with staleness measured from today.
fn options(args: &CheckArgs) -> HealthOptions {
    HealthOptions {
        stale_after_days: args.stale_days,
        ..HealthOptions::as_of(super::common::clock().today())
    }
}

/// `shown_bank` is the bank as the user named it.
pub fn json_report(shown_bank: &str, checked: Checked) -> JsonReport {
    let truncated = checked.truncated();
    JsonReport {
        bank: shown_bank.to_owned(),
        findings: checked.report.findings,
        counts: checked.report.counts,
        total: checked.total,
        offset: checked.offset,
        truncated,
        withheld: None,
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let detected = detect_memory(&args.bank)?;
    let shown = args.bank.to_string_lossy();
    let streams = detected.spec.kind == LayoutKind::Everos
        && (args.filter.path.as_deref()).is_none_or(|p| names_a_file(&detected.root, p));
    let checked = if streams {
        // An everos root is checked as it is read and never held whole,
        // and with `--path` only that part is read. A `--path` that names
        // nothing needs the root's documents to suggest one.
        let filter = &args.filter;
        let (root, found) =
            membank_core::everos::check::check_streamed_where(&detected.root, |rel| {
                filter.path_keeps(rel)
            })
            .map_err(|message| layout_error(&detected.root, message))?;
        report_with(&root, filter, Some(found), &|_| false, Surface::CommandLine)?
    } else if detected.spec.kind == LayoutKind::Bank {
        // Each article is checked on the thread that read it; only what the
        // passes over the whole bank need is kept (see `check_streamed`).
        check_codes(LayoutKind::Bank, &args.filter)?;
        if let Some(path) = &args.filter.path
            && !names_a_file(&detected.root, path)
        {
            // Read as a whole only to suggest the paths that do exist.
            check_path_exists(
                open_memory_with(&args.bank, LoadOptions::CHECK)?,
                path,
                &|_| false,
                Surface::CommandLine,
            )?;
        }
        let (bank, found) = health::check_streamed(&detected.root, &options(&args.filter))
            .map_err(|e| layout_error(&detected.root, e.to_string()))?;
        tracing::info!(
            layout = LayoutKind::Bank.spec().name,
            root = %detected.root.display(),
            findings = found.findings.len(),
            "opened and checked as read"
        );
        // Freeing it only delays the exit.
        let bank: &'static membank_core::bank::Bank = Box::leak(Box::new(bank));
        report_with(
            bank,
            &args.filter,
            Some(found),
            &|_| false,
            Surface::CommandLine,
        )?
    } else if detected.spec.kind == LayoutKind::DejaVu
        && (args.filter.path.as_deref()).is_none_or(|p| names_a_file(&detected.root, p))
    {
        // The impressions are checked as they are read, never held whole;
        // only the lines a finding must confirm are read again.
        super::recall::give_back_freed_memory();
        let project = super::common::open_dejavu_streamed(&args.bank)?;
        let found = membank_core::dejavu::checks::check_read(&project)
            .map_err(|e| anyhow::anyhow!("{}", super::common::safe(&e.to_string())))?;
        // Freeing it only delays the exit.
        let project: &'static membank_core::dejavu::Project = Box::leak(Box::new(project));
        report_with(
            project,
            &args.filter,
            Some(found),
            &|_| false,
            Surface::CommandLine,
        )?
    } else {
        // A bank is read without its articles' bodies, which no check reads.
        let memory = open_memory_with(&args.bank, LoadOptions::CHECK)?;
        report(memory, &args.filter)?
    };
    let has_errors = checked.report.has_errors();
    if args.json {
        let report = json_report(&shown, checked);
        print_json(&report)?;
        // Freeing 100,000 findings one by one only delays the exit.
        std::mem::forget(report);
    } else {
        print_human(&shown, &checked, Surface::CommandLine).map_err(super::common::stdout_error)?;
        std::mem::forget(checked);
    }
    Ok(if has_errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The readable report, coloured when `anstream` allows it, written while
/// it is produced: on a large bank it runs to tens of megabytes. The
/// findings' lines have no styles: they are put into words on all cores,
/// a window at a time, and written as they are.
fn print_human(bank: &str, checked: &Checked, surface: Surface) -> std::io::Result<()> {
    use rayon::prelude::*;
    use std::io::Write;
    let stdout = std::io::stdout();
    let choice = anstream::AutoStream::choice(&stdout);
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    // The first failed write is kept and ends the run; the parts after it
    // are not put into words for nothing.
    let mut failed: Option<std::io::Error> = None;
    write_human(bank, checked, surface, &mut |part| match part {
        _ if failed.is_some() => {}
        Part::Styled(text) => {
            let block = style::styled_block(choice, &|o| o.write_all(text.as_bytes()));
            failed = out.write_all(&block).err();
        }
        Part::Findings(findings) => {
            // Blocks small enough (tens of kilobytes) to be made where the
            // last window's were freed: blocks of a few hundred kilobytes
            // were each mapped afresh, a page fault every 4 KB.
            const PER_BLOCK: usize = 64;
            for window in findings.chunks(PER_BLOCK * 64) {
                let blocks: Vec<String> = window
                    .par_chunks(PER_BLOCK)
                    .map(|chunk| {
                        // Each path is read first, all together: they lie
                        // all over the heap, and read one finding at a
                        // time each waited for memory in turn, a third of
                        // the report's time.
                        let first_bytes = chunk
                            .iter()
                            .fold(0u8, |acc, f| acc ^ f.path.bytes().next().unwrap_or(0));
                        std::hint::black_box(first_bytes);
                        let mut block = String::new();
                        chunk.iter().for_each(|f| finding_lines(&mut block, f));
                        block
                    })
                    .collect();
                for block in blocks {
                    if let Err(e) = out.write_all(block.as_bytes()) {
                        failed = Some(e);
                        return;
                    }
                }
            }
        }
    });
    match failed {
        Some(e) => Err(e),
        None => out.flush(),
    }
}

/// A piece of the readable report.
enum Part<'a> {
    /// Text with style codes that `anstream` keeps or strips.
    Styled(String),
    /// Findings, each on two lines of plain text.
    Findings(Vec<&'a Finding>),
}

/// One finding: where, then what.
fn finding_lines(out: &mut String, f: &Finding) {
    out.push_str("    ");
    // `Finding::location`, written in place: a report has a line like
    // this for each of up to hundreds of thousands of findings. The line
    // number needs no sanitising, so the path alone is.
    if f.path.is_empty() {
        out.push_str("(bank)");
    } else {
        sanitize_into(out, &f.path, false);
        if let Some(line) = f.line() {
            // Digits put down by hand: the formatting machinery cost more
            // than the rest of the line.
            out.push(':');
            membank_core::json::push_uint(out, line as u64);
        }
    }
    out.push_str("\n      ");
    f.write_message_for_terminal(out);
    out.push('\n');
}

fn severity_style(severity: Severity) -> anstyle::Style {
    match severity {
        Severity::Error => style::ERROR,
        Severity::Warning => style::WARNING,
        Severity::Info => style::NOTE,
    }
}

/// Counts first, then findings grouped by severity and code, with style
/// codes that `anstream` keeps or strips.
pub fn human(bank: &str, checked: &Checked, surface: Surface) -> String {
    let mut out = String::new();
    write_human(bank, checked, surface, &mut |part| match part {
        Part::Styled(text) => out.push_str(&text),
        Part::Findings(findings) => findings.iter().for_each(|f| finding_lines(&mut out, f)),
    });
    out
}

/// [`human`] in parts, in order.
fn write_human<'a>(
    bank: &str,
    checked: &'a Checked,
    surface: Surface,
    emit: &mut dyn FnMut(Part<'a>),
) {
    use std::fmt::Write;
    let mut text = String::new();
    let out = &mut text;
    let report = &checked.report;
    let c = report.counts;
    let _ = writeln!(out, "{}", sanitize_for_terminal(bank, false));
    let _ = writeln!(
        out,
        "{}, {}, {}",
        severity::count(Severity::Error, c.error),
        severity::count(Severity::Warning, c.warning),
        severity::count(Severity::Info, c.info)
    );
    let listed = report.findings.len();
    if listed < checked.total {
        let _ = if listed == 0 {
            writeln!(
                out,
                "No findings listed: {} {} is past the last of the {} findings.",
                surface.option("offset"),
                checked.offset,
                checked.total
            )
        } else {
            writeln!(
                out,
                "Findings {}–{} of {} listed (see {} and {}).",
                checked.offset + 1,
                checked.offset + listed,
                checked.total,
                surface.option("offset"),
                surface.option("limit")
            )
        };
    }
    if checked.total == 0 {
        let _ = writeln!(out, "No problems found.");
    }
    for severity in [Severity::Error, Severity::Warning, Severity::Info] {
        // Codes in name order; within a code the findings keep their path
        // and line order. Grouped in one pass: sorting every finding's code
        // to find the few distinct ones took longer than the grouping.
        let mut by_code: Vec<(&str, Vec<&Finding>)> = Vec::new();
        for f in report.findings.iter().filter(|f| f.severity == severity) {
            match by_code.iter_mut().find(|(code, _)| *code == f.code()) {
                Some((_, group)) => group.push(f),
                None => by_code.push((f.code(), vec![f])),
            }
        }
        if by_code.is_empty() {
            continue;
        }
        membank_core::shared_sort::sort_by_key(&mut by_code, |(code, _)| *code);
        let heading_style = severity_style(severity);
        let _ = writeln!(
            out,
            "\n{heading_style}{} ({}){heading_style:#}",
            severity::heading(severity).to_uppercase(),
            by_code.iter().map(|(_, group)| group.len()).sum::<usize>()
        );
        let code_style = style::CODE;
        for (code, group) in by_code {
            let _ = writeln!(out, "  {code_style}{code}{code_style:#} ({})", group.len());
            emit(Part::Styled(std::mem::take(out)));
            emit(Part::Findings(group));
        }
    }
    if !text.is_empty() {
        emit(Part::Styled(text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The readable report writes a finding's location in place; it must
    /// read as `Finding::location` does, sanitised the same way.
    #[test]
    fn a_finding_is_written_as_its_location_and_message() {
        let findings = [
            Finding::new("orphan", Severity::Info, "03_DOMAINS/a\tb.md", None, "m"),
            Finding::new(
                "dead-link",
                Severity::Warning,
                "01_CLIENTS/\u{1b}[31mred\u{202e}.md",
                Some(12),
                "[[x\u{7}]] does not match",
            ),
            Finding::new("missing-folder", Severity::Warning, "", Some(3), "none"),
            Finding::new("stale", Severity::Info, "04_STYLE/é.md", Some(1), "ok"),
            Finding::new("stale", Severity::Info, "a.md", Some(10), "ok"),
            Finding::new(
                "bad-date",
                Severity::Error,
                "b.md",
                Some(4_294_967_294),
                "x",
            ),
            Finding::new("bad-date", Severity::Error, "b.md", Some(1_000_009), "x"),
        ];
        for f in &findings {
            let mut written = String::new();
            finding_lines(&mut written, f);
            let expected = format!(
                "    {}\n      {}\n",
                sanitize_for_terminal(&f.location(), false),
                sanitize_for_terminal(&f.message(), false)
            );
            assert_eq!(written, expected);
        }
    }
}
