//! `membank qa`: the terminology check of a translated file against the
//! bank's term articles. The file is only read.

use std::process::ExitCode;

use membank_core::bank::Bank;
use membank_core::terms::bilingual::BilingualFile;
use membank_core::terms::qa::{self, QaReport};
use membank_core::terms::{self, Filter};
use membank_core::text::sanitize_for_terminal;
use serde::Serialize;

use super::common;
use super::style;
use super::terms::{pair_arg, read_bilingual};

pub use membank_args::qa::Args;

#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct QaOutput {
    pub file: String,
    pub client: Option<String>,
    #[serde(flatten)]
    pub report: QaReport,
}

pub(crate) fn qa_output(
    bank: &Bank,
    shown: &str,
    file: BilingualFile,
    client: Option<String>,
) -> QaOutput {
    let records = terms::records(
        bank,
        &Filter {
            client: client.clone(),
            ..Filter::default()
        },
    );
    let wanted = qa::for_pair(&records, &file);
    QaOutput {
        file: shown.to_owned(),
        client,
        report: qa::check(&wanted, &file),
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let pair = pair_arg(args.pair.as_deref())?;
    let bank = common::open_bank(&args.bank)?;
    common::known_client(bank, args.client.as_deref())?;
    let file = read_bilingual(bank, &args.file, pair)?;
    let out = qa_output(bank, &args.file.display().to_string(), file, args.client);
    // Every segment untranslated: nothing was checked, and exit 0 would
    // read as a clean job.
    if out.report.checked == 0 {
        anyhow::bail!(
            "{}: nothing to check: none of its {} segment(s) has a confirmed translation",
            common::safe(&out.file),
            out.report.segments
        );
    }
    if args.json {
        common::print_json(&out)?;
    } else {
        print_human(&out)?;
    }
    Ok(if out.report.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_human(out: &QaOutput) -> anyhow::Result<()> {
    sout!("{}", human(out))?;
    Ok(())
}

/// The readable report (with the terminal's style codes).
pub(crate) fn human(out: &QaOutput) -> String {
    use std::fmt::Write as _;
    let r = &out.report;
    let safe = |s: &str| sanitize_for_terminal(s, false);
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{}: {} segment(s), {} checked against {} term(s); {} finding(s)",
        safe(&out.file),
        r.segments,
        r.checked,
        r.terms,
        r.findings.len()
    );
    if r.terms == 0 {
        let _ = writeln!(
            text,
            "{}The bank has no term for this language pair{}{:#}: nothing was checked.",
            style::WARNING,
            out.client
                .as_deref()
                .map(|c| format!(" and client {}", safe(c)))
                .unwrap_or_default(),
            style::WARNING
        );
    }
    if r.terms > 0 && r.checked == 0 && r.segments > 0 {
        // The command line refuses such a file; an MCP answer says it.
        let _ = writeln!(
            text,
            "{}None of its segments has a confirmed translation{:#}: nothing was checked.",
            style::WARNING,
            style::WARNING
        );
    }
    for f in &r.findings {
        let code = match f.code {
            "term-rejected" | "term-missing" => style::ERROR,
            _ => style::WARNING,
        };
        let _ = writeln!(
            text,
            "\n  {code}{}{code:#}  segment {}  “{}”  {}",
            f.code,
            safe(&f.segment_label()),
            safe(&f.source_term),
            safe(&f.article)
        );
        let _ = writeln!(text, "      source: {}", safe(&f.source));
        let _ = writeln!(text, "      target: {}", safe(&f.target));
        let _ = writeln!(text, "      fix:    {}", safe(&f.fix));
    }
    if !r.untranslated.is_empty() {
        let ids: Vec<String> = r.untranslated.iter().map(|i| safe(i)).collect();
        let _ = writeln!(
            text,
            "\n{}Not checked{:#} (empty or unconfirmed target): {}",
            style::MUTED,
            style::MUTED,
            ids.join(", ")
        );
    }
    text
}
