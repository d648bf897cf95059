//! `membank check`: the deterministic health checks, for people and scripts.

use std::path::PathBuf;
use std::process::ExitCode;

use membank_core::health::{self, Finding, HealthOptions, HealthReport, Severity};
use membank_core::memory::Memory;
use membank_core::text::sanitize_for_terminal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use membank::severity;

use membank_core::bank::LoadOptions;

use super::common::{open_memory_with, print_json};
use super::style;

#[derive(clap::Args)]
pub struct Args {
    /// The memory folder (a memory bank; see --format).
    bank: PathBuf,
    /// Print the findings as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    filter: CheckArgs,
}

/// What to check and which findings to report; shared with the MCP `check`
/// tool, whose argument schema is generated from this type.
#[derive(clap::Args, Clone, Deserialize, JsonSchema)]
pub struct CheckArgs {
    /// Report articles whose last_updated is older than this many days (0: never).
    #[arg(long, value_name = "N", default_value_t = 365)]
    #[serde(default = "default_stale_days")]
    #[schemars(default = "default_stale_days")]
    pub stale_days: u32,
    /// Only findings with this code (e.g. dead-link); may be repeated.
    #[arg(long, value_name = "CODE")]
    #[serde(default)]
    pub code: Vec<String>,
    /// Only findings about this file, or about files under this folder.
    #[arg(long, value_name = "PATH")]
    #[serde(default)]
    pub path: Option<String>,
}

fn default_stale_days() -> u32 {
    365
}

impl CheckArgs {
    fn keeps(&self, f: &Finding) -> bool {
        let code_ok =
            self.code.is_empty() || self.code.iter().any(|c| c.eq_ignore_ascii_case(f.code));
        let path_ok = match &self.path {
            None => true,
            Some(p) => {
                let p = p.replace('\\', "/");
                let p = p.trim_end_matches('/');
                f.path == p
                    || f.path
                        .strip_prefix(p)
                        .is_some_and(|rest| rest.starts_with('/'))
            }
        };
        code_ok && path_ok
    }
}

/// The findings and their counts, as `--json` prints them.
#[derive(Serialize, JsonSchema)]
pub struct JsonReport {
    bank: String,
    findings: Vec<Finding>,
    counts: health::Counts,
}

/// Run the checks and keep the findings the filter asks for; the counts
/// are those of the findings kept.
pub fn report(memory: &dyn Memory, args: &CheckArgs) -> anyhow::Result<HealthReport> {
    // Only a bank's codes are listed in one place; other layouts' filters
    // are taken as given.
    if memory.spec().name == "bank"
        && let Some(unknown) = args.code.iter().find(|c| {
            !health::CODES
                .iter()
                .any(|(code, _)| code.eq_ignore_ascii_case(c))
        })
    {
        let known: Vec<&str> = health::CODES.iter().map(|(code, _)| *code).collect();
        anyhow::bail!(
            "unknown finding code {:?}; the codes are: {}",
            sanitize_for_terminal(unknown, false),
            known.join(", ")
        );
    }
    let opts = HealthOptions {
        stale_after_days: args.stale_days,
        ..HealthOptions::default()
    };
    let mut report = memory.check(&opts);
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
    Ok(report)
}

/// `shown_bank` is the bank as the user named it.
pub fn json_report(shown_bank: &str, report: HealthReport) -> JsonReport {
    JsonReport {
        bank: shown_bank.to_owned(),
        findings: report.findings,
        counts: report.counts,
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // A bank is read without its articles' bodies, which no check reads.
    let memory = open_memory_with(&args.bank, LoadOptions::CHECK)?;
    let shown = args.bank.to_string_lossy();
    let report = report(memory, &args.filter)?;
    let has_errors = report.has_errors();
    if args.json {
        print_json(&json_report(&shown, report))?;
    } else {
        print_human(&shown, &report)?;
    }
    Ok(if has_errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The readable report, coloured when `anstream` allows it, written as it
/// is produced: on a large bank it runs to tens of megabytes.
fn print_human(bank: &str, report: &HealthReport) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, anstream::stdout().lock());
    write_human(&mut out, bank, report)?;
    out.flush()
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
pub fn human(bank: &str, report: &HealthReport) -> String {
    let mut out = Vec::new();
    let _ = write_human(&mut out, bank, report);
    String::from_utf8_lossy(&out).into_owned()
}

/// [`human`] into a writer.
fn write_human(
    out: &mut impl std::io::Write,
    bank: &str,
    report: &HealthReport,
) -> std::io::Result<()> {
    let c = report.counts;
    writeln!(out, "{}", sanitize_for_terminal(bank, false))?;
    writeln!(
        out,
        "{}, {}, {}",
        severity::count(Severity::Error, c.error),
        severity::count(Severity::Warning, c.warning),
        severity::count(Severity::Info, c.info)
    )?;
    if report.findings.is_empty() {
        writeln!(out, "No problems found.")?;
        return Ok(());
    }
    for severity in [Severity::Error, Severity::Warning, Severity::Info] {
        let of_severity: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .collect();
        if of_severity.is_empty() {
            continue;
        }
        let heading_style = severity_style(severity);
        writeln!(
            out,
            "\n{heading_style}{} ({}){heading_style:#}",
            severity::heading(severity).to_uppercase(),
            of_severity.len()
        )?;
        // Codes in name order; within a code the findings keep their
        // path and line order.
        let mut codes: Vec<&str> = of_severity.iter().map(|f| f.code).collect();
        codes.sort_unstable();
        codes.dedup();
        let code_style = style::CODE;
        for code in codes {
            let group: Vec<&&Finding> = of_severity.iter().filter(|f| f.code == code).collect();
            writeln!(out, "  {code_style}{code}{code_style:#} ({})", group.len())?;
            for f in group {
                writeln!(
                    out,
                    "    {}\n      {}",
                    sanitize_for_terminal(&f.location(), false),
                    sanitize_for_terminal(&f.message, false)
                )?;
            }
        }
    }
    Ok(())
}
