//! `membank check`: the deterministic health checks, for people and scripts.

use std::path::PathBuf;
use std::process::ExitCode;

use membank_core::health::{self, Finding, HealthOptions, HealthReport, Severity};
use membank_core::text::sanitize_for_terminal;
use serde::Serialize;

use membank::severity;

use super::common::{open_memory, print_json};
use super::style;

#[derive(clap::Args)]
pub struct Args {
    /// The memory folder (a memory bank; see --format).
    bank: PathBuf,
    /// Print the findings as JSON.
    #[arg(long)]
    json: bool,
    /// Report articles whose last_updated is older than this many days (0: never).
    #[arg(long, value_name = "N", default_value_t = 365)]
    stale_days: u32,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    bank: String,
    findings: &'a [Finding],
    counts: health::Counts,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let memory = open_memory(&args.bank)?;
    let opts = HealthOptions {
        stale_after_days: args.stale_days,
        ..HealthOptions::default()
    };
    let report = memory.check(&opts);
    if args.json {
        let out = JsonReport {
            bank: args.bank.to_string_lossy().into_owned(),
            findings: &report.findings,
            counts: report.counts,
        };
        print_json(&out)?;
    } else {
        print_human(&args.bank.to_string_lossy(), &report);
    }
    Ok(if report.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The readable report, coloured when `anstream` allows it.
fn print_human(bank: &str, report: &HealthReport) {
    use std::io::Write;
    let mut out = anstream::stdout().lock();
    let _ = out.write_all(human(bank, report).as_bytes());
    let _ = out.flush();
}

fn severity_style(severity: Severity) -> anstyle::Style {
    match severity {
        Severity::Error => style::ERROR,
        Severity::Warning => style::WARNING,
        Severity::Info => style::NOTE,
    }
}

/// Counts first, then findings grouped by severity and code.
fn human(bank: &str, report: &HealthReport) -> String {
    use std::fmt::Write;
    let c = report.counts;
    let mut out = String::new();
    let _ = writeln!(out, "{}", sanitize_for_terminal(bank, false));
    let _ = writeln!(
        out,
        "{}, {}, {}",
        severity::count(Severity::Error, c.error),
        severity::count(Severity::Warning, c.warning),
        severity::count(Severity::Info, c.info)
    );
    if report.findings.is_empty() {
        let _ = writeln!(out, "No problems found.");
        return out;
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
        let _ = writeln!(
            out,
            "\n{heading_style}{} ({}){heading_style:#}",
            severity::heading(severity).to_uppercase(),
            of_severity.len()
        );
        // Codes in name order; within a code the findings keep their
        // path and line order.
        let mut codes: Vec<&str> = of_severity.iter().map(|f| f.code).collect();
        codes.sort_unstable();
        codes.dedup();
        let code_style = style::CODE;
        for code in codes {
            let group: Vec<&&Finding> = of_severity.iter().filter(|f| f.code == code).collect();
            let _ = writeln!(out, "  {code_style}{code}{code_style:#} ({})", group.len());
            for f in group {
                let _ = writeln!(
                    out,
                    "    {}\n      {}",
                    sanitize_for_terminal(&f.location(), false),
                    sanitize_for_terminal(&f.message, false)
                );
            }
        }
    }
    out
}
