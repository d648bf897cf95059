//! The safety scan the reference doctor runs over every text file: secrets,
//! personal data, transcripts, raw tool output, oversized files. Keys and
//! tokens are found by the shared detector ([`crate::secrets`]), which
//! holds the reference's patterns and more.
//!
//! The reference uses JavaScript regular expressions without the `u` flag:
//! `\b` and case-insensitivity are ASCII-only there, `\s` includes U+FEFF,
//! `.` stops at CR and U+2028/9. The patterns below say the same in Rust
//! (`(?i-u:…)` around their ASCII letters folds ASCII case only, with no
//! lower-cased copy of a large file).

use std::sync::LazyLock;

use regex::Regex;

use crate::health::Severity;
use crate::secrets::{self, Kind};

/// JavaScript's `\s`.
const JS_SPACE: &str = r"[\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]";

/// Files longer than this many UTF-16 units are reported as large.
pub const LARGE_FILE_UNITS: usize = 20_000;

pub struct Pattern {
    pub code: &'static str,
    pub severity: Severity,
    pub message: &'static str,
    regex: Regex,
}

fn pattern(code: &'static str, severity: Severity, message: &'static str, re: &str) -> Pattern {
    Pattern {
        code,
        severity,
        message,
        regex: Regex::new(re).expect("safety pattern"),
    }
}

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let b = r"(?-u:\b)";
    vec![
        pattern(
            "email-address",
            Severity::Warning,
            "possible e-mail address; memory shared with the repo should hold no personal data",
            &format!(r"{b}(?i-u:[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{{2,}}){b}"),
        ),
        pattern(
            "raw-output",
            Severity::Warning,
            "looks like raw build or debug output; keep the durable signal only",
            &format!(
                r"{b}(?:(?i-u:stack trace|traceback|npm err!)|(?i-u:at )[^\n\r\x{{2028}}\x{{2029}}]+:[0-9]+:[0-9]+){b}"
            ),
        ),
        pattern(
            "credential-assignment",
            Severity::Error,
            "possible credential assignment; remove it and rotate the secret",
            &format!(
                r#"{b}(?i-u:api[_-]?key|secret|token|password){JS_SPACE}*[:=]{JS_SPACE}*["']?(?i-u:[a-z0-9._~+/=-]{{16,}})"#
            ),
        ),
    ]
});

/// One hit of the scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub line: Option<usize>,
}

fn line_at(text: &str, byte: usize) -> usize {
    text[..byte].matches('\n').count() + 1
}

/// `/^(user|assistant|system):/im`: at the start of the text or after any
/// line terminator, ASCII case-insensitively.
pub fn transcript_line(text: &str) -> Option<usize> {
    let starts = std::iter::once(0).chain(
        text.char_indices()
            .filter(|(_, c)| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'))
            .map(|(i, c)| i + c.len_utf8()),
    );
    for start in starts {
        let rest = &text.as_bytes()[start..];
        for word in [&b"user:"[..], b"assistant:", b"system:"] {
            if rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word) {
                return Some(line_at(text, start));
            }
        }
    }
    None
}

/// Scan one file's text.
pub fn scan(text: &str) -> Vec<Hit> {
    let mut hits = secret_hits(text);
    for (i, p) in PATTERNS.iter().enumerate() {
        if let Some(m) = p.regex.find(text) {
            hits.push(Hit {
                code: p.code,
                severity: p.severity,
                message: p.message.to_owned(),
                line: Some(line_at(text, m.start())),
            });
        }
        // The transcript checks sit between e-mail and raw output in the
        // reference; the order only affects listing, not what is found.
        if i == 0 {
            if let Some(line) = transcript_line(text) {
                hits.push(transcript_hit(
                    line,
                    "looks like a chat transcript; summarize the durable signal instead",
                ));
            }
            if let Some(at) = text.find("<subagent_notification>") {
                hits.push(transcript_hit(
                    line_at(text, at),
                    "contains subagent transcript markup; summarize the durable signal instead",
                ));
            }
        }
    }
    let units = crate::dejavu::js::utf16_len(text);
    if units > LARGE_FILE_UNITS {
        hits.push(Hit {
            code: "large-file",
            severity: Severity::Warning,
            message: format!(
                "{units} characters (over {LARGE_FILE_UNITS}); consider compacting to the durable signal"
            ),
            line: None,
        });
    }
    hits
}

/// The first credential of each kind.
fn secret_hits(text: &str) -> Vec<Hit> {
    let mut hits: Vec<Hit> = Vec::new();
    let mut seen: Vec<Kind> = Vec::new();
    for found in secrets::find(text) {
        if seen.contains(&found.kind) {
            continue;
        }
        seen.push(found.kind);
        let code = match found.kind {
            Kind::PrivateKey => "private-key",
            Kind::UrlPassword => "credential-assignment",
            _ => "api-key",
        };
        // For the reference's kinds this is the reference's wording.
        let message = format!(
            "possible {}; remove it and {}",
            found.kind.name(),
            found.kind.advice()
        );
        hits.push(Hit {
            code,
            severity: Severity::Error,
            message,
            line: Some(found.line),
        });
    }
    hits
}

/// The text with every secret, credential and e-mail match blanked out.
pub fn redact(text: &str) -> String {
    let mut ranges: Vec<std::ops::Range<usize>> =
        secrets::find(text).into_iter().map(|f| f.range).collect();
    for p in PATTERNS.iter().filter(|p| p.code != "raw-output") {
        ranges.extend(p.regex.find_iter(text).map(|m| m.range()));
    }
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if ranges.iter().any(|r| r.contains(&i)) {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

fn transcript_hit(line: usize, message: &str) -> Hit {
    Hit {
        code: "transcript",
        severity: Severity::Warning,
        message: message.to_owned(),
        line: Some(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str) -> Vec<&'static str> {
        scan(text).into_iter().map(|h| h.code).collect()
    }

    #[test]
    fn secrets_are_found_with_their_line() {
        let hits = scan("ok\nkey sk-abcdefghijklmnopqrstuv here\n");
        assert_eq!(hits[0].code, "api-key");
        assert_eq!(hits[0].line, Some(2));
        assert_eq!(
            codes("-----BEGIN RSA PRIVATE KEY-----"),
            vec!["private-key"]
        );
        assert_eq!(codes("AKIAABCDEFGHIJKLMNOP"), vec!["api-key"]);
        assert_eq!(
            scan("AKIAABCDEFGHIJKLMNOP")[0].message,
            "possible AWS access key; remove it and rotate the key"
        );
        assert_eq!(codes("ghp_abcdefghijklmnopqrstuvwxyz"), vec!["api-key"]);
        assert_eq!(
            codes("Password = 'abcdefghijklmnop1'"),
            vec!["credential-assignment"]
        );
        assert_eq!(codes("Mail Ann@Example.COM"), vec!["email-address"]);
        // Beyond the reference: the shared detector's other kinds.
        assert_eq!(codes("glpat-xY3zA6bC9dE2fG5hJ8kL"), vec!["api-key"]);
        assert_eq!(
            codes("db postgres://app:Tr0ub4dor3@db/prod"),
            vec!["credential-assignment"]
        );
    }

    #[test]
    fn word_boundaries_and_case_are_ascii_only() {
        // `é` is not a word character for a non-Unicode JavaScript `\b`.
        assert_eq!(codes("ésk-abcdefghijklmnopqrstuv"), vec!["api-key"]);
        assert!(codes("xsk-abcdefghijklmnopqrstuv").is_empty());
        // The Kelvin sign does not fold to `k` there.
        assert!(codes("api_\u{212A}ey=abcdefghijklmnopq").is_empty());
        // "npm ERR!" needs a word character right after the bang.
        assert!(codes("npm ERR! x").is_empty());
        assert_eq!(codes("npm ERR!x"), vec!["raw-output"]);
        assert_eq!(codes("  at f (a.js:1:2)"), vec!["raw-output"]);
        assert_eq!(codes("  AT f (A.js:1:2)"), vec!["raw-output"]);
        assert_eq!(codes("Stack Trace:"), vec!["raw-output"]);
        assert_eq!(
            codes("TOKEN:\n\u{feff}ABCDEFGHIJKLMNOP"),
            vec!["credential-assignment"]
        );
        // Only ASCII folds: the long s is not an s, and a match is found
        // where it is in the text as written.
        assert!(codes("\u{17f}ecret=abcdefghijklmnopq").is_empty());
        assert_eq!(scan("é\nMail ANN@X.ORG")[0].line, Some(2));
    }

    #[test]
    fn transcripts_start_a_line() {
        assert_eq!(transcript_line("a\rUser: hi"), Some(1));
        assert_eq!(transcript_line("x\nASSISTANT: hi"), Some(2));
        assert_eq!(transcript_line("the user: said"), None);
        assert_eq!(codes("<subagent_notification>"), vec!["transcript"]);
    }

    #[test]
    fn large_files_count_utf16_units() {
        assert!(codes(&"a".repeat(20_000)).is_empty());
        assert_eq!(codes(&"😀".repeat(10_001)), vec!["large-file"]);
    }
}
