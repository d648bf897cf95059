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
    let pair = pair_arg(args.pair.as_deref(), super::terms::PAIR_FLAG)?;
    let bank = common::open_bank(&args.bank)?;
    common::known_client(bank, args.client.as_deref())?;
    let file = read_bilingual(bank, &args.file, pair)?;
    let out = qa_output(bank, &args.file.display().to_string(), file, args.client);
    if let Some(why) = nothing_checked(&out) {
        anyhow::bail!(why);
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

/// Why a check checked nothing, if it did not: every segment is
/// untranslated, or the bank has no term for the file's pair (or the
/// client). Exit 0 would read as a clean job, so this is an error, on
/// the command line and over MCP alike.
pub(crate) fn nothing_checked(out: &QaOutput) -> Option<String> {
    let r = &out.report;
    if r.checked == 0 {
        return Some(format!(
            "{}: nothing to check: none of its {} segment(s) has a confirmed translation",
            common::safe(&out.file),
            r.segments
        ));
    }
    if r.terms == 0 {
        let lang = |l: &Option<String>| l.as_deref().map_or_else(|| "?".into(), common::safe);
        return Some(format!(
            "{}: nothing was checked: the bank has no term for {} → {}{}",
            common::safe(&out.file),
            lang(&r.source_lang),
            lang(&r.target_lang),
            out.client
                .as_deref()
                .map(|c| format!(" and client {}", common::safe(c)))
                .unwrap_or_default(),
        ));
    }
    None
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
