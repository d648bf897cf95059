//! `check` for a Deja Vu project: the reference lint and doctor
//! diagnostics, then what the layout asks and no tool checks.

mod gitignore;
pub mod reference;
pub mod safety;
pub mod spec;

use std::collections::HashSet;

use crate::dejavu::project::Project;
use crate::health::{Finding, HealthReport, Severity};

/// Collects findings; the same code on the same file and line is kept once.
#[derive(Default)]
pub struct Sink {
    findings: Vec<Finding>,
    seen: HashSet<(&'static str, String, Option<usize>, String)>,
}

impl Sink {
    pub fn add(
        &mut self,
        code: &'static str,
        severity: Severity,
        path: &str,
        line: Option<usize>,
        message: String,
    ) {
        if self
            .seen
            .insert((code, path.to_owned(), line, message.clone()))
        {
            self.findings
                .push(Finding::new(code, severity, path, line, message));
        }
    }
}

/// Every check, as one report sorted like a bank's.
pub fn check(project: &Project) -> HealthReport {
    let mut sink = Sink::default();
    for p in &project.problems {
        let (code, severity) = if p.message.contains("symbolic link") {
            ("symlink", Severity::Warning)
        } else {
            ("unreadable-file", Severity::Error)
        };
        sink.add(code, severity, &p.path, None, p.message.clone());
        if let Some(f) = project.files.iter().find(|f| f.path == p.path)
            && f.size > safety::LARGE_FILE_UNITS as u64 * 4
        {
            sink.add(
                "large-file",
                Severity::Warning,
                &p.path,
                None,
                format!(
                    "{} bytes; consider compacting to the durable signal",
                    f.size
                ),
            );
        }
    }
    for path in &project.not_utf8 {
        sink.add(
            "not-utf8",
            Severity::Warning,
            path,
            None,
            "not UTF-8 text (binary?); read with replacement characters, as the reference tools read it".into(),
        );
    }
    // The safety patterns read every byte of every text, the impressions
    // file above all: on a large file they run beside the line checks.
    let scan_texts = || -> Vec<(&String, Vec<safety::Hit>)> {
        project
            .texts
            .iter()
            .map(|(path, text)| (path, safety::scan(text)))
            .collect()
    };
    let lines = project.impressions.as_ref().map_or(0, |f| f.lines.len());
    let hits = if crate::parallel::pays(lines) {
        rayon::join(scan_texts, || reference::run(project, &mut sink)).0
    } else {
        reference::run(project, &mut sink);
        scan_texts()
    };
    for (path, found) in hits {
        for hit in found {
            sink.add(hit.code, hit.severity, path, hit.line, hit.message);
        }
    }
    spec::run(project, &mut sink);
    report(sink.findings)
}

/// Sorted errors first, then by path, line and code, with the counts.
pub fn report(mut findings: Vec<Finding>) -> HealthReport {
    findings.sort_by(Finding::report_order);
    let mut r = HealthReport::default();
    for f in &findings {
        match f.severity {
            Severity::Error => r.counts.error += 1,
            Severity::Warning => r.counts.warning += 1,
            Severity::Info => r.counts.info += 1,
        }
        *r.by_code.entry(f.code).or_insert(0) += 1;
    }
    r.findings = findings;
    r
}

/// Every code `check` can emit for a Deja Vu project, with its severity.
pub const CODES: &[(&str, Severity)] = &[
    ("missing-agents-md", Severity::Error),
    ("missing-summary", Severity::Error),
    ("missing-impressions", Severity::Error),
    ("invalid-jsonl", Severity::Error),
    ("not-an-object", Severity::Error),
    ("impression-missing-field", Severity::Error),
    ("schema-version", Severity::Warning),
    ("scope-not-project", Severity::Warning),
    ("bad-status", Severity::Error),
    ("bad-weight", Severity::Error),
    ("bad-date", Severity::Warning),
    ("bad-keywords", Severity::Error),
    ("few-keywords", Severity::Warning),
    ("many-keywords", Severity::Warning),
    ("duplicate-keywords", Severity::Warning),
    ("generic-keywords", Severity::Warning),
    ("duplicate-keyword-set", Severity::Warning),
    ("bad-aliases", Severity::Error),
    ("duplicate-id", Severity::Error),
    ("record-path-outside", Severity::Error),
    ("record-path-missing", Severity::Warning),
    ("bad-outcome", Severity::Error),
    ("bad-query", Severity::Error),
    ("bad-matched-id", Severity::Error),
    ("unresolved-matched-id", Severity::Warning),
    ("long-query", Severity::Warning),
    ("large-summary", Severity::Warning),
    ("missing-frontmatter", Severity::Warning),
    ("record-missing-field", Severity::Warning),
    ("superseded-without-successor", Severity::Warning),
    ("missing-section", Severity::Warning),
    ("private-key", Severity::Error),
    ("api-key", Severity::Error),
    ("credential-assignment", Severity::Error),
    ("email-address", Severity::Warning),
    ("transcript", Severity::Warning),
    ("raw-output", Severity::Warning),
    ("large-file", Severity::Warning),
    ("unreadable-file", Severity::Error),
    ("not-utf8", Severity::Warning),
    ("symlink", Severity::Warning),
    ("index-missing-link", Severity::Warning),
    ("summary-missing-link", Severity::Warning),
    ("superseded-by-unresolved", Severity::Error),
    ("supersedes-unresolved", Severity::Warning),
    ("supersedes-missing", Severity::Warning),
    ("supersession-one-sided", Severity::Warning),
    ("supersession-cycle", Severity::Error),
    ("index-not-updated", Severity::Warning),
    ("route-to-inactive", Severity::Warning),
    ("no-impression-route", Severity::Warning),
    ("dead-link", Severity::Warning),
    ("link-outside", Severity::Warning),
    ("private-not-ignored", Severity::Error),
];
