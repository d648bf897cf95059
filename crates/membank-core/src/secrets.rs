//! The one detector of credentials in memory text: API keys, cloud and
//! forge tokens, private keys, JSON Web Tokens and passwords in URLs.
//!
//! Memories travel with repositories and into prompts, so every write path
//! refuses text this finds ([`refuse`]), `check` reports what a bank
//! already holds, and the Deja Vu safety scan reports it too. Only shapes
//! that are hardly ever anything but a credential are matched, since a
//! refusal has no bypass; messages name the kind and the line, never the
//! secret itself.
//!
//! Word boundaries are ASCII-only (`(?-u:\b)`), as in the Deja Vu
//! reference's patterns, which these include.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// What a found credential is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    PrivateKey,
    OpenAiKey,
    GitHubToken,
    AwsAccessKey,
    GitLabToken,
    SlackToken,
    GoogleApiKey,
    Jwt,
    UrlPassword,
}

impl Kind {
    /// The kind, for messages ("AWS access key").
    pub fn name(self) -> &'static str {
        match self {
            Kind::PrivateKey => "private key",
            Kind::OpenAiKey => "OpenAI-style secret key",
            Kind::GitHubToken => "GitHub token",
            Kind::AwsAccessKey => "AWS access key",
            Kind::GitLabToken => "GitLab token",
            Kind::SlackToken => "Slack token",
            Kind::GoogleApiKey => "Google API key",
            Kind::Jwt => "JSON Web Token",
            Kind::UrlPassword => "password in a URL",
        }
    }

    /// The kind with its article ("an AWS access key").
    pub fn described(self) -> String {
        let article = match self {
            Kind::OpenAiKey | Kind::AwsAccessKey => "an",
            _ => "a",
        };
        format!("{article} {}", self.name())
    }

    /// What to do besides removing it.
    pub fn advice(self) -> &'static str {
        match self {
            Kind::GitHubToken | Kind::GitLabToken | Kind::SlackToken | Kind::Jwt => {
                "revoke the token"
            }
            Kind::UrlPassword => "change the password",
            _ => "rotate the key",
        }
    }
}

const KINDS: [Kind; 9] = [
    Kind::PrivateKey,
    Kind::OpenAiKey,
    Kind::GitHubToken,
    Kind::AwsAccessKey,
    Kind::GitLabToken,
    Kind::SlackToken,
    Kind::GoogleApiKey,
    Kind::Jwt,
    Kind::UrlPassword,
];

fn pattern(kind: Kind) -> String {
    let b = r"(?-u:\b)";
    match kind {
        Kind::PrivateKey => r"-----BEGIN [A-Z ]*PRIVATE KEY-----".into(),
        Kind::OpenAiKey => format!(r"{b}sk-[A-Za-z0-9_-]{{20,}}{b}"),
        Kind::GitHubToken => format!(r"{b}(?:gh[pousr]|github_pat)_[A-Za-z0-9_]{{20,}}{b}"),
        Kind::AwsAccessKey => format!(r"{b}(?:AKIA|ASIA)[0-9A-Z]{{16}}{b}"),
        Kind::GitLabToken => format!(r"{b}glpat-[A-Za-z0-9_-]{{20,}}"),
        Kind::SlackToken => format!(r"{b}xox[abposr]-[A-Za-z0-9-]{{10,}}"),
        Kind::GoogleApiKey => format!(r"{b}AIza[0-9A-Za-z_-]{{35}}"),
        // Header and payload are JSON objects, so both start `{"`.
        Kind::Jwt => {
            format!(r"{b}eyJ[A-Za-z0-9_-]{{8,}}\.eyJ[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{8,}}")
        }
        // The scheme before `://` is checked in code, so the search can
        // start from the literal.
        Kind::UrlPassword => r"://[^\s/?#@:]+:([^\s/?#@]+)@[^\s/?#@]".into(),
    }
}

/// The expressions, built the first time a text holds one of the
/// [`LITERALS`]: most banks hold none, and building the ten expressions
/// cost more than scanning 2,000 articles for the literals.
struct Detector {
    /// Any kind at all: one pass over text that holds none.
    any: Regex,
    each: Vec<(Kind, Regex)>,
}

/// A literal part of every match of each kind, all of them: a text with
/// none of these holds no credential.
const LITERALS: [&str; 20] = [
    "-----BEGIN ",
    "sk-",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "AKIA",
    "ASIA",
    "glpat-",
    "xoxa-",
    "xoxb-",
    "xoxp-",
    "xoxo-",
    "xoxs-",
    "xoxr-",
    "AIza",
    "eyJ",
    "://",
];

/// Could a credential be in `text`? The vector search for the literals
/// answers for nearly every article at half the cost of the combined
/// expression, whose search looks for the same literals first but costs
/// more to start on each of the few hundred bytes of a block or body.
fn might_hold(text: &str) -> bool {
    LITERAL_SEARCH
        .as_ref()
        .is_none_or(|s| s.find(text).is_some())
}

/// The literal every match of some kind holds (see [`might_hold`]);
/// `None` where the vector search is not available.
static LITERAL_SEARCH: LazyLock<Option<aho_corasick::packed::Searcher>> =
    LazyLock::new(|| aho_corasick::packed::Searcher::new(LITERALS));

static DETECTOR: LazyLock<Detector> = LazyLock::new(|| {
    let each: Vec<(Kind, Regex)> = KINDS
        .iter()
        .map(|&k| (k, Regex::new(&pattern(k)).expect("secret pattern")))
        .collect();
    let any = KINDS
        .iter()
        .map(|&k| format!("(?:{})", pattern(k)))
        .collect::<Vec<_>>()
        .join("|");
    Detector {
        any: Regex::new(&any).expect("secret patterns"),
        each,
    }
});

/// One credential found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub kind: Kind,
    /// 1-based line in the text.
    pub line: usize,
    /// Where it is, in bytes (for blanking it out).
    pub range: Range<usize>,
}

/// Example passwords in documentation are not credentials.
fn is_placeholder(password: &str) -> bool {
    let lower = password.to_ascii_lowercase();
    password.starts_with(['$', '<', '{', '%', '['])
        || password.chars().all(|c| matches!(c, '*' | 'x' | 'X' | '.'))
        || matches!(
            lower.as_str(),
            "password" | "pass" | "passwd" | "pwd" | "secret" | "changeme" | "example"
        )
}

fn line_at(text: &str, byte: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..byte]).count() + 1
}

/// What a memory's reader should be warned of, and a write refuses:
/// [`find`], less the `sk-` matches whose body is a plain word list (a
/// Slovak slug such as `en-sk-legal-terminology-review`) rather than a
/// key's random mix of cases and digits.
pub fn find_likely(text: &str) -> Vec<Found> {
    let mut found = find(text);
    found.retain(|f| {
        f.kind != Kind::OpenAiKey || looks_random(&text[f.range.start + 3..f.range.end])
    });
    found
}

/// Every credential in `text`, in the order of [`Kind`], then position.
///
/// Every match is kept, as the Deja Vu doctor reports them.
pub fn find(text: &str) -> Vec<Found> {
    if !might_hold(text) {
        return Vec::new();
    }
    let detector = &*DETECTOR;
    if !detector.any.is_match(text) {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (kind, re) in &detector.each {
        for caps in re.captures_iter(text) {
            let whole = caps.get(0).expect("a match");
            if *kind == Kind::UrlPassword {
                let scheme_end = text.as_bytes()[..whole.start()].last();
                let password = caps.get(1).map_or("", |m| m.as_str());
                if !scheme_end.is_some_and(u8::is_ascii_alphanumeric) || is_placeholder(password) {
                    continue;
                }
            }
            found.push(Found {
                kind: *kind,
                line: line_at(text, whole.start()),
                range: whole.range(),
            });
        }
    }
    found
}

/// A key's body mixes cases and digits; a slug such as
/// `sk-translation-memory-guidelines` (Slovak, a file name) does not.
fn looks_random(body: &str) -> bool {
    body.bytes().any(|b| b.is_ascii_digit())
        && body.bytes().any(|b| b.is_ascii_uppercase())
        && body.bytes().any(|b| b.is_ascii_lowercase())
}

/// `Err` naming the first credential's kind and line, for a write that
/// must not happen; the text is refused whole, since a key left in a
/// memory is shared with everyone the memory is.
pub fn refuse(text: &str) -> Result<(), String> {
    refuse_each(&[("it", text)])
}

/// [`refuse`] for a write made of several texts, each named in the
/// message ("the note").
pub fn refuse_each(texts: &[(&str, &str)]) -> Result<(), String> {
    for (subject, text) in texts {
        if let Some(f) = find_likely(text).into_iter().min_by_key(|f| f.range.start) {
            return Err(refusal(
                subject,
                &f.kind.described(),
                f.line,
                f.kind.advice(),
            ));
        }
    }
    Ok(())
}

/// The words of every credential refusal: `subject` ("the note") holds
/// `what` ("an AWS access key") on `line`; `advice` besides removing it.
pub fn refusal(subject: &str, what: &str, line: usize, advice: &str) -> String {
    format!(
        "{subject} holds what looks like {what} on line {line}; memories travel with \
         repositories, so credentials are never written to one: remove it (and {advice})"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Kind> {
        find_likely(text).into_iter().map(|f| f.kind).collect()
    }

    #[test]
    fn a_slug_after_sk_is_no_key_to_a_reader_but_stays_a_doctor_match() {
        let slug = "see [[en-sk-legal-terminology-review]]";
        assert!(find_likely(slug).is_empty());
        assert!(refuse(slug).is_ok());
        assert_eq!(find(slug).len(), 1, "the Deja Vu doctor keeps every match");
        let key = "key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t";
        assert_eq!(find_likely(key).len(), 1);
        assert!(refuse(key).is_err());
    }

    #[test]
    fn each_kind_is_found_with_its_line() {
        let cases = [
            ("-----BEGIN OPENSSH PRIVATE KEY-----", Kind::PrivateKey),
            ("key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", Kind::OpenAiKey),
            (
                "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
                Kind::GitHubToken,
            ),
            ("github_pat_11ABCDEFG0abcdefghijklmnop", Kind::GitHubToken),
            ("aws AKIAIOSFODNN7EXAMPLE.", Kind::AwsAccessKey),
            ("glpat-xY3zA6bC9dE2fG5hJ8kL", Kind::GitLabToken),
            ("xoxb-1234567890-abcdefghij", Kind::SlackToken),
            (
                "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
                Kind::GoogleApiKey,
            ),
            (
                "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
                Kind::Jwt,
            ),
            (
                "postgres://app:Tr0ub4dor3@db.internal/prod",
                Kind::UrlPassword,
            ),
        ];
        for (text, kind) in cases {
            let found = find(&format!("fine\n\n{text}\n"));
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert_eq!((found[0].kind, found[0].line), (kind, 3), "{text}");
        }
    }

    #[test]
    fn ordinary_memory_text_holds_none() {
        for text in [
            "The sk-SK locale and the sk-en pair.",
            "See https://example.com/a:b@c and mailto:ann@example.com",
            "Connect with postgres://user:password@localhost/db or \
             https://me:${TOKEN}@host/ or https://u:****@host",
            "ghp_short, AKIA123, eyJhbGciOi alone, xoxb-123",
            "-----BEGIN PUBLIC KEY-----",
            "task-ghp_ not a token; ask-abcdefghijklmnopqrstuvwxyz1",
            "[[sk-translation-memory-guidelines]] and sk-legal-terminology-2026-review",
        ] {
            assert!(kinds(text).is_empty(), "{text}: {:?}", find(text));
        }
    }

    /// The quick look never says "none" where the full search finds one:
    /// pieces of every pattern joined at random, broken, across lines and
    /// at the very end.
    #[test]
    fn the_quick_look_misses_nothing_the_search_finds() {
        let pieces = [
            "-----BEGIN ",
            "RSA ",
            "PRIVATE KEY-----",
            "sk-",
            "gh",
            "p_",
            "github_pat_",
            "AKIA",
            "ASIA",
            "AIza",
            "glpat-",
            "xoxb-",
            "eyJ",
            "hbGciOiJIUzI1",
            ".",
            "://",
            "u:",
            "pw@",
            "h",
            "Ab3dEf6hIj9kLm2nOp5q",
            "0123456789ABCDEF",
            "_-",
            "\n",
            "\r\n",
            " ",
            "é",
        ];
        let mut found = 0;
        for text in crate::random_text::joined(&pieces, 12, 0x51_7CC1_B727_220A).take(40_000) {
            let any = DETECTOR.any.is_match(&text);
            assert!(!any || might_hold(&text), "{text:?}");
            found += usize::from(any);
        }
        assert!(found > 1_000, "the pieces make credentials: {found}");
        assert!(LITERAL_SEARCH.is_some(), "the quick look is made");
        for text in ["", "-", "ey", "A", "sk", "a:/", "ghp", "xox-", "ASI"] {
            assert!(!might_hold(text), "{text:?}");
        }
    }

    #[test]
    fn credentials_at_the_end_and_after_line_breaks_keep_their_lines() {
        let key = "AKIAIOSFODNN7EXAMPLE";
        let found = find(&format!("a\r\nb\r\n{key}"));
        assert_eq!((found.len(), found[0].line), (1, 3));
        let url = "x\nhttps://u:Tr0ub4dor3@h";
        assert_eq!(find(url)[0].line, 2);
        assert!(find("sk-\nAb3dEf6hIj9kLm2nOp5qRs8t").is_empty());
    }

    #[test]
    fn a_refusal_names_the_kind_and_line_but_not_the_secret() {
        let key = "AKIAIOSFODNN7EXAMPLE";
        let err = refuse(&format!("a\nb {key}\n")).unwrap_err();
        assert!(err.contains("an AWS access key on line 2"), "{err}");
        assert!(!err.contains(key), "{err}");
        assert!(refuse("nothing secret here").is_ok());
    }
}
