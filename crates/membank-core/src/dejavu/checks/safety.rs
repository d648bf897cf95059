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
        hits.push(large_file_hit(units));
    }
    hits
}

/// [`scan`] of a text read in pieces of whole lines (each piece starts a
/// line and ends with a line feed, or with the text): the same hits, with
/// no more than a piece held. Each kind of hit is the first in the text,
/// so a kind found in one piece is not looked for in the next.
#[derive(Default)]
pub struct PieceScan {
    hits: Vec<Hit>,
    secrets_found: Vec<Kind>,
    patterns_found: [bool; 3],
    transcript_found: bool,
    markup_found: bool,
    units: usize,
    /// The text read so far from the start of its last line that holds
    /// more than spaces, `:` and `=`, with the number of that line: a
    /// credential assignment (`token =`, then spaces and line feeds) may
    /// start there and end in the next piece. Every other pattern stays
    /// within a line.
    carry: String,
    carry_line: usize,
}

/// The regular pattern whose match may span lines.
const ASSIGNMENT: usize = 2;

/// Only spaces and the `:` or `=` of an assignment: a line an assignment
/// may run through without a match having started or ended there.
fn runs_through(line: &str) -> bool {
    line.chars()
        .all(|c| crate::dejavu::js::is_js_space(c) || c == ':' || c == '=')
}

impl PieceScan {
    /// Scan the next piece; its first line is numbered `first_line`.
    pub fn piece(&mut self, first_line: usize, text: &str) {
        let at_line = |byte: usize| first_line + line_at(text, byte) - 1;
        for found in secrets::find(text) {
            if !self.secrets_found.contains(&found.kind) {
                self.secrets_found.push(found.kind);
                self.hits
                    .push(secret_hit(found.kind, at_line(found.range.start)));
            }
        }
        // An assignment begun in the pieces before, ending in this one:
        // earlier than any that starts here.
        if !self.patterns_found[ASSIGNMENT] && !self.carry.is_empty() {
            let end = text
                .split_inclusive('\n')
                .scan(0, |len, line| {
                    *len += line.len();
                    Some((*len, line))
                })
                .find(|(_, line)| !runs_through(line))
                .map_or(text.len(), |(len, _)| len);
            let joined = format!("{}{}", self.carry, &text[..end]);
            if let Some(m) = PATTERNS[ASSIGNMENT].regex.find(&joined)
                && m.start() < self.carry.len()
            {
                let line = self.carry_line + line_at(&joined, m.start()) - 1;
                self.pattern_hit(ASSIGNMENT, line);
            }
        }
        for (i, p) in PATTERNS.iter().enumerate() {
            if !self.patterns_found[i]
                && let Some(m) = p.regex.find(text)
            {
                self.pattern_hit(i, at_line(m.start()));
            }
        }
        if !self.transcript_found
            && let Some(line) = transcript_line(text)
        {
            self.transcript_found = true;
            self.hits.push(transcript_hit(
                first_line + line - 1,
                "looks like a chat transcript; summarize the durable signal instead",
            ));
        }
        if !self.markup_found
            && let Some(at) = text.find("<subagent_notification>")
        {
            self.markup_found = true;
            self.hits.push(transcript_hit(
                at_line(at),
                "contains subagent transcript markup; summarize the durable signal instead",
            ));
        }
        self.units += crate::dejavu::js::utf16_len(text);
        if !self.patterns_found[ASSIGNMENT] {
            self.keep_carry(first_line, text);
        }
    }

    fn pattern_hit(&mut self, i: usize, line: usize) {
        self.patterns_found[i] = true;
        let p = &PATTERNS[i];
        self.hits.push(Hit {
            code: p.code,
            severity: p.severity,
            message: p.message.to_owned(),
            line: Some(line),
        });
    }

    fn keep_carry(&mut self, first_line: usize, text: &str) {
        let mut start = None;
        let mut at = 0;
        for (number, line) in (first_line..).zip(text.split_inclusive('\n')) {
            if !runs_through(line) {
                start = Some((at, number));
            }
            at += line.len();
        }
        match start {
            Some((at, number)) => {
                self.carry.clear();
                self.carry.push_str(&text[at..]);
                self.carry_line = number;
            }
            // Nothing but spaces: whatever began before may still go on.
            None if !self.carry.is_empty() => self.carry.push_str(text),
            None => {}
        }
    }

    /// The hits of the whole text.
    pub fn finish(mut self) -> Vec<Hit> {
        if self.units > LARGE_FILE_UNITS {
            self.hits.push(large_file_hit(self.units));
        }
        self.hits
    }
}

fn large_file_hit(units: usize) -> Hit {
    Hit {
        code: "large-file",
        severity: Severity::Warning,
        message: format!(
            "{units} characters (over {LARGE_FILE_UNITS}); consider compacting to the durable signal"
        ),
        line: None,
    }
}

fn secret_hit(kind: Kind, line: usize) -> Hit {
    let code = match kind {
        Kind::PrivateKey => "private-key",
        Kind::UrlPassword => "credential-assignment",
        _ => "api-key",
    };
    // For the reference's kinds this is the reference's wording.
    let message = format!("possible {}; remove it and {}", kind.name(), kind.advice());
    Hit {
        code,
        severity: Severity::Error,
        message,
        line: Some(line),
    }
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
        hits.push(secret_hit(found.kind, found.line));
    }
    hits
}

/// `Err` for a text a Deja Vu write must not add: one holding anything the
/// safety scan reports as an error (`private-key`, `api-key`,
/// `credential-assignment`), as a writeback refuses it. Stricter than the
/// shared [`secrets::refuse`]: an assignment such as `password: …` is a
/// credential to this layout's `check`, so a write adding one would leave
/// the project failing its own check. Each text is named by its subject
/// ("the event").
pub fn refuse_credentials(texts: &[(&str, &str)]) -> Result<(), String> {
    for (subject, text) in texts {
        // Every detector match, as `check` reports them (not only the
        // likely ones the shared refusal stops at).
        if let Some(f) = secrets::find(text)
            .into_iter()
            .min_by_key(|f| f.range.start)
        {
            let what = f.kind.described();
            return Err(secrets::refusal(subject, &what, f.line, f.kind.advice()));
        }
        if let Some(m) = PATTERNS[ASSIGNMENT].regex.find(text) {
            return Err(secrets::refusal(
                subject,
                "a credential assignment (a password, secret, token or API key with its value)",
                line_at(text, m.start()),
                "rotate the secret",
            ));
        }
    }
    Ok(())
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

    /// The hits of `text` scanned in pieces cut after the lines whose
    /// numbers (0-based) are in `cuts`.
    fn in_pieces(text: &str, cuts: &[usize]) -> Vec<Hit> {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let mut scan = PieceScan::default();
        let mut from = 0;
        for end in cuts.iter().map(|c| c + 1).chain([lines.len()]) {
            if end > from {
                scan.piece(from + 1, &lines[from..end].concat());
                from = end;
            }
        }
        scan.finish()
    }

    fn sorted(mut hits: Vec<Hit>) -> Vec<(&'static str, Option<usize>, String)> {
        let mut hits: Vec<_> = hits
            .drain(..)
            .map(|h| (h.code, h.line, h.message))
            .collect();
        hits.sort();
        hits
    }

    #[test]
    fn a_text_scanned_in_pieces_gives_the_hits_of_the_whole() {
        let texts = [
            "a\nTOKEN\n\n  =  \n\n\"abcdefghijklmnopqrs\"\nrest\n",
            "x secret:\n\u{2028}\n abcdefghijklmnopqrstu\nuser: hi\n",
            "password\n=\n=abcdefghijklmnopqrstu\napi_key\n\nshort\n",
            "ok\nmail ann@example.com\r\n  at f (a.js:1:2)\nsk-abcdefghijklmnopqrstuv\n",
            "token\n\n\n",
            "\u{feff}é\n<subagent_notification>\nAKIAABCDEFGHIJKLMNOP\nghp_abcdefghijklmnopqrstuvwxyz\nlast",
        ];
        for text in texts {
            let whole = sorted(scan(text));
            let n = text.split_inclusive('\n').count();
            for a in 0..n {
                for b in a..n {
                    assert_eq!(
                        sorted(in_pieces(text, &[a, b])),
                        whole,
                        "{text:?} cut after {a}, {b}"
                    );
                }
            }
        }
        // Pieces holding only spaces between the keyword and the value.
        let text = "token\n \n\n:\n\n abcdefghijklmnopqrstuv\n";
        let every: Vec<usize> = (0..6).collect();
        assert_eq!(sorted(in_pieces(text, &every)), sorted(scan(text)));
        assert_eq!(scan(text)[0].line, Some(1));
        let big = "😀".repeat(6_000) + "\n";
        assert_eq!(
            sorted(in_pieces(&big.repeat(2), &[0])),
            sorted(scan(&big.repeat(2)))
        );
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
