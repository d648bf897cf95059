//! `check` for a Deja Vu project: the reference lint and doctor
//! diagnostics, then what the layout asks and no tool checks.

mod gitignore;
pub mod reference;
pub mod safety;
pub mod spec;

use std::collections::HashSet;

use crate::dejavu::project::Project;
use crate::dejavu::stream::StreamError;
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

/// Every check, as one report sorted like a bank's. An impressions file
/// read in pieces that changed while it was read, or could not be read
/// again, is reported as unreadable (see [`check_read`]).
pub fn check(project: &Project) -> HealthReport {
    check_read(project).unwrap_or_else(|e| {
        let mut sink = Sink::default();
        sink.add("unreadable-file", Severity::Error, &e.path, e.line, e.why);
        report(sink.findings)
    })
}

/// Every check, as one report sorted like a bank's; an error when the
/// impressions, read in pieces, changed while they were read or could not
/// be read again.
pub fn check_read(project: &Project) -> Result<HealthReport, StreamError> {
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
    // The safety patterns read every byte of every text, the impressions
    // file above all: on a large file they run beside the line checks (a
    // file read in pieces is scanned piece by piece as its lines are
    // checked).
    let scan_texts = || -> Vec<(&String, Vec<safety::Hit>)> {
        project
            .texts
            .iter()
            .map(|(path, text)| (path, safety::scan(text)))
            .collect()
    };
    let lines = project.impressions.as_ref().map_or(0, |f| f.lines.len());
    let (hits, read) = if crate::parallel::pays(lines) {
        rayon::join(scan_texts, || reference::run(project, &mut sink))
    } else {
        let read = reference::run(project, &mut sink);
        (scan_texts(), read)
    };
    let read = read?;
    let streamed = project
        .impressions
        .is_none()
        .then(|| project.impressions_source())
        .flatten();
    let not_utf8 = project
        .not_utf8
        .iter()
        .map(String::as_str)
        .chain(streamed.filter(|_| read.not_utf8).map(|s| s.path()));
    for path in not_utf8 {
        sink.add(
            "not-utf8",
            Severity::Warning,
            path,
            None,
            "not UTF-8 text (binary?); read with replacement characters, as the reference tools read it".into(),
        );
    }
    let streamed_hits = streamed.map(|s| (s.path(), read.hits));
    let hits = hits
        .into_iter()
        .map(|(path, found)| (path.as_str(), found))
        .chain(streamed_hits);
    for (path, found) in hits {
        for hit in found {
            sink.add(hit.code, hit.severity, path, hit.line, hit.message);
        }
    }
    spec::run(project, read.routed.as_ref(), &mut sink);
    Ok(report(sink.findings))
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
        *r.by_code.entry(f.code()).or_insert(0) += 1;
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

#[cfg(test)]
mod tests {
    use crate::dejavu::stream::PIECE;
    use crate::dejavu::{AGENTS_PATH, IMPRESSIONS_PATH, Project, SUMMARY_PATH};

    type Found = Vec<(&'static str, String, Option<usize>, String)>;

    fn found(report: crate::health::HealthReport) -> Found {
        report
            .findings
            .iter()
            .map(|f| {
                (
                    f.code(),
                    f.path.to_string(),
                    f.line(),
                    f.message().into_owned(),
                )
            })
            .collect()
    }

    /// A project whose impressions are `bytes`, checked read whole and read
    /// in pieces.
    fn both(bytes: &[u8]) -> (Found, Found) {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("memory/decisions")).unwrap();
        std::fs::write(tmp.path().join(AGENTS_PATH), "# Rules\n").unwrap();
        std::fs::write(tmp.path().join(SUMMARY_PATH), "# Summary\n").unwrap();
        std::fs::write(
            tmp.path().join("memory/decisions/old.md"),
            "---\nid: old\ntitle: Old\nstatus: archived\nscope: project:x\nupdated: 2026-01-01\n---\n",
        )
        .unwrap();
        std::fs::write(tmp.path().join(IMPRESSIONS_PATH), bytes).unwrap();
        let whole = Project::load_root(tmp.path().to_path_buf());
        let pieces = Project::load_root_streamed(tmp.path().to_path_buf());
        assert!(pieces.impressions.is_none());
        (
            found(super::check(&whole)),
            found(super::check_read(&pieces).unwrap()),
        )
    }

    fn line(id: &str, keywords: &str, extra: &str) -> String {
        format!(
            "{{\"schema_version\":1,\"id\":\"{id}\",\"scope\":\"project:x\",\"title\":\"T\",\"keywords\":[{keywords}],\"record_path\":\"memory/decisions/old.md\",\"updated\":\"2026-01-01\"{extra}}}"
        )
    }

    #[test]
    fn impressions_read_in_pieces_are_checked_as_when_read_whole() {
        // Lines cut by the piece's edge inside a multi-byte character and
        // between `\r` and `\n`, a line longer than a piece, invalid UTF-8
        // and a NUL byte, repeated ids and keyword sets in different
        // pieces, a credential assignment whose value is in the next piece,
        // and a last line without a line feed.
        // The edge falls between `\r` and `\n`, inside `€` twice, inside `é`.
        for shift in [0, 4, 5, 7] {
            let mut bytes = Vec::new();
            bytes.extend(line("a", "\"x\",\"y\",\"z\"", "").bytes());
            bytes.extend(b"\r\n\n");
            let head = line("b", "\"q\"", ",\"note\":\"");
            let tail = "é€\"}\r\n";
            let pad = PIECE - 8 + shift - bytes.len() - (head.len() - 1);
            let b = line(
                "b",
                "\"q\"",
                &format!(",\"note\":\"{}é€\"", "p".repeat(pad)),
            );
            bytes.extend(b.bytes());
            bytes.extend(b"\r\n");
            assert_eq!(bytes.len() - tail.len(), PIECE - 8 + shift);
            bytes.extend(line("a", "\"Z\",\" y\",\"x\",\"x\"", ",\"status\":\"active\"").bytes());
            bytes.extend(b"\n{\"id\":\"\xff\x00\"}\r\n");
            bytes.extend(
                line(
                    "long",
                    "\"k\"",
                    &format!(",\"note\":\"{}\"", "é".repeat(PIECE / 2 + 64)),
                )
                .bytes(),
            );
            bytes.extend(b"\n");
            // An assignment's keyword at the end of a piece, its value on
            // the line that the next piece starts with.
            let edge = (bytes.len() / PIECE + 1) * PIECE;
            let c = line("c", "\"x\",\"y\",\"z\"", ",\"note\":\"\"");
            let note = edge - 5 - shift - bytes.len() - c.len() - 1 - "not json token\n\n".len();
            let c = line(
                "c",
                "\"x\",\"y\",\"z\"",
                &format!(",\"note\":\"{}\"", "c".repeat(note)),
            );
            bytes.extend(c.bytes());
            bytes.extend(b"\nnot json token\n\n");
            assert_eq!(bytes.len(), edge - 5 - shift);
            bytes.extend(b"= abcdefghijklmnopqrstuvwxyz\n");
            bytes.extend(b"user: hello ann@example.com\n");
            bytes.extend(line("b", "\"r\",\"s\",\"t\"", ",\"weight\":2").bytes());
            let (whole, pieces) = both(&bytes);
            assert_eq!(pieces, whole, "shift {shift}");
            let codes: Vec<&str> = whole.iter().map(|f| f.0).collect();
            for code in [
                "duplicate-id",
                "duplicate-keyword-set",
                "not-utf8",
                "invalid-jsonl",
                "route-to-inactive",
                "large-file",
                "email-address",
                "transcript",
                "bad-weight",
                "credential-assignment",
            ] {
                assert!(codes.contains(&code), "{code} in {codes:?}");
            }
        }
        for text in ["", "\n\n", "{}", "null\r\n[]"] {
            let (whole, pieces) = both(text.as_bytes());
            assert_eq!(pieces, whole, "{text:?}");
        }
    }
}
