//! Stamping an inbox file as compiled (spec §11) by editing its text, so
//! every other key keeps its place, comments and formatting byte for byte
//! (spec §4.4: unknown keys survive round trips).
//!
//! `compiled`, `compiled_date` and `compiled_to` replace their old entries
//! in place (continuation lines included) or are appended at the end of the
//! frontmatter; a file without frontmatter gets a new block. A file wrapped
//! in a code fence (§4.3) keeps its fence: the keys go into the frontmatter
//! inside it, where §4.3 readers look. The result is parsed again before it
//! is returned, so a stamp never leaves a file readers cannot parse.

use std::fmt;

use yaml_serde::{Mapping, Value};

use crate::frontmatter::{self, Block};

pub const KEYS: [&str; 3] = ["compiled", "compiled_date", "compiled_to"];

/// Why a file could not be stamped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StampError {
    pub reason: String,
}

impl fmt::Display for StampError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for StampError {}

fn err(reason: impl Into<String>) -> StampError {
    StampError {
        reason: reason.into(),
    }
}

/// A YAML double-quoted scalar holding `s` exactly.
pub fn yaml_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Bytes the `compiled_to` entry takes in the frontmatter for these paths.
pub fn compiled_to_bytes<S: AsRef<str>>(compiled_to: &[S]) -> usize {
    if compiled_to.is_empty() {
        return "compiled_to: []\n".len();
    }
    "compiled_to:\n".len()
        + compiled_to
            .iter()
            .map(|p| "  - \n".len() + yaml_quote(p.as_ref()).len())
            .sum::<usize>()
}

/// Why a stamp whose frontmatter would be `bytes` long (listing `files`
/// in `compiled_to`) cannot be written: readers refuse frontmatter over
/// the bound, so the stamped note would become unreadable. The note itself
/// is fine; it stays in the inbox.
pub fn oversized(bytes: usize, files: usize) -> Option<String> {
    (bytes > frontmatter::MAX_FRONTMATTER_BYTES).then(|| {
        format!(
            "its compiled_to stamp would list {files} files, making its frontmatter {} KB, \
             over the {} KB membank reads; so it is not stamped and stays in the inbox \
             (move it to 00_INBOX/_archive/ yourself once the files are written)",
            bytes.div_ceil(1024),
            frontmatter::MAX_FRONTMATTER_BYTES / 1024
        )
    })
}

/// How long the frontmatter of `original` is once stamped with an empty
/// `compiled_to`: add [`compiled_to_bytes`] less that of no paths for
/// the size with paths, without stamping again.
pub fn stamped_base_bytes(original: &str, date: jiff::civil::Date) -> Result<usize, StampError> {
    stamped_parts(original, date, &[]).map(|parts| parts.yaml_len)
}

/// `text` (`original` with LF endings) with `start..end` replaced by
/// `middle`; the new frontmatter is `yaml_len` bytes.
struct Parts {
    text: String,
    start: usize,
    end: usize,
    middle: String,
    yaml_len: usize,
}

fn stamp_lines(date: jiff::civil::Date, compiled_to: &[String]) -> [String; 3] {
    let list = if compiled_to.is_empty() {
        "compiled_to: []\n".to_owned()
    } else {
        let mut s = "compiled_to:\n".to_owned();
        for p in compiled_to {
            s.push_str("  - ");
            s.push_str(&yaml_quote(p));
            s.push('\n');
        }
        s
    };
    [
        "compiled: true\n".to_owned(),
        format!("compiled_date: {date}\n"),
        list,
    ]
}

/// The top-level key a frontmatter line starts, if it starts one.
fn top_level_key(line: &str) -> Option<&str> {
    let first = line.chars().next()?;
    if first.is_whitespace() || matches!(first, '#' | '-' | '\n') {
        return None;
    }
    if first == '"' || first == '\'' {
        let end = line[1..].find(first)? + 1;
        let rest = line[end + 1..].trim_start_matches([' ', '\t']);
        return rest.starts_with(':').then(|| &line[1..end]);
    }
    let colon = line.find(':')?;
    let after = line[colon + 1..].chars().next();
    if !matches!(after, None | Some(' ' | '\t' | '\n' | '\r')) {
        return None;
    }
    Some(line[..colon].trim_end())
}

/// Does this line continue the value of the key above it?
fn continues_value(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.is_empty() || line.starts_with([' ', '\t']) || line.starts_with('-')
}

/// Replace or append the stamp keys in a YAML block (LF, ends with `\n` or empty).
fn splice_yaml(yaml: &str, lines_new: &[String; 3]) -> String {
    let lines: Vec<&str> = yaml.split_inclusive('\n').collect();
    let mut out = String::with_capacity(yaml.len() + 128);
    let mut written = [false; 3];
    let mut i = 0;
    while i < lines.len() {
        let Some(idx) = top_level_key(lines[i]).and_then(|k| KEYS.iter().position(|s| *s == k))
        else {
            out.push_str(lines[i]);
            i += 1;
            continue;
        };
        // The key's extent: its line plus continuation lines, minus trailing
        // blank lines and comments, which belong to what follows.
        let mut end = i + 1;
        while end < lines.len() && continues_value(lines[end]) {
            end += 1;
        }
        while end > i + 1 && {
            let t = lines[end - 1].trim();
            t.is_empty() || (t.starts_with('#') && !lines[end - 1].starts_with([' ', '\t']))
        } {
            end -= 1;
        }
        if !written[idx] {
            out.push_str(&lines_new[idx]);
            written[idx] = true;
        }
        i = end;
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for (idx, done) in written.iter().enumerate() {
        if !done {
            out.push_str(&lines_new[idx]);
        }
    }
    out
}

/// Stamp a file's text as compiled. `original` may carry a BOM and CRLF; the
/// result has no BOM. Only the frontmatter is rewritten: every other line
/// keeps its own line ending, and the frontmatter's lines take the ending
/// of the file's first line.
pub fn stamp_compiled(
    original: &str,
    date: jiff::civil::Date,
    compiled_to: &[String],
) -> Result<String, StampError> {
    let original = original.strip_prefix('\u{feff}').unwrap_or(original);
    let crlf = original
        .find('\n')
        .is_some_and(|i| original[..i].ends_with('\r'));
    let Parts {
        text,
        start,
        end,
        middle,
        yaml_len,
    } = stamped_parts(original, date, compiled_to)?;
    // Said before parsing would blame the note's YAML for the size.
    if let Some(reason) = oversized(yaml_len, compiled_to.len()) {
        return Err(err(reason));
    }
    let stamped = format!("{}{middle}{}", &text[..start], &text[end..]);
    verify(&text, &stamped, date, compiled_to)?;

    // Put back the parts around the frontmatter byte for byte.
    let middle = match crlf {
        true => middle.replace('\n', "\r\n"),
        false => middle,
    };
    Ok(format!(
        "{}{middle}{}",
        &original[..with_crlf_offset(original, start)],
        &original[with_crlf_offset(original, end)..]
    ))
}

fn stamped_parts(
    original: &str,
    date: jiff::civil::Date,
    compiled_to: &[String],
) -> Result<Parts, StampError> {
    let original = original.strip_prefix('\u{feff}').unwrap_or(original);
    let text = original.replace("\r\n", "\n");
    let located = frontmatter::locate(&text);

    // Where `located.text` starts in `text`: after the lines §4.3 removed.
    let offset: usize = text
        .split_inclusive('\n')
        .take(located.line_shift)
        .map(str::len)
        .sum();
    let new_lines = stamp_lines(date, compiled_to);

    // The stamped text is `text` with `start..end` replaced by `middle`.
    let (start, end, middle) = match &located.block {
        Block::Unclosed => {
            return Err(err(
                "its frontmatter starts with --- but is never closed; fix it before it can be archived",
            ));
        }
        Block::Missing => (
            offset,
            offset,
            format!("---\n{}---\n", splice_yaml("", &new_lines)),
        ),
        Block::Present(range) => {
            let yaml = &located.text[range.clone()];
            let (start, end) = (offset + range.start, offset + range.end);
            if text.get(start..end) != Some(yaml) {
                return Err(err(
                    "its code fence and frontmatter overlap in a way that cannot be edited safely",
                ));
            }
            (start, end, splice_yaml(yaml, &new_lines))
        }
    };
    let yaml_len = match located.block {
        Block::Present(_) => middle.len(),
        _ => middle.len() - "---\n---\n".len(),
    };
    Ok(Parts {
        text,
        start,
        end,
        middle,
        yaml_len,
    })
}

/// Where byte `at` of `original` with its CRLFs folded to LF lies in
/// `original` itself.
fn with_crlf_offset(original: &str, at: usize) -> usize {
    let bytes = original.as_bytes();
    let mut folded = 0;
    let mut i = 0;
    while folded < at && i < bytes.len() {
        // A CR before LF is dropped by the fold, so it counts for nothing.
        if !(bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n')) {
            folded += 1;
        }
        i += 1;
    }
    i
}

fn mapping_of(text: &str) -> Result<Mapping, StampError> {
    let located = frontmatter::locate(text);
    match &located.block {
        Block::Present(r) => frontmatter::parse_yaml(&located.text[r.clone()], 2).map_err(|e| {
            err(format!(
                "its frontmatter is not valid YAML ({}{}); fix it before it can be archived",
                e.message,
                e.line
                    .map(|l| format!(", near line {l}"))
                    .unwrap_or_default()
            ))
        }),
        _ => Ok(Mapping::new()),
    }
}

/// Check that the stamped text parses, carries the stamp, and kept every
/// other key with its value.
fn verify(
    before: &str,
    after: &str,
    date: jiff::civil::Date,
    compiled_to: &[String],
) -> Result<(), StampError> {
    let mut old = mapping_of(before)?;
    let mut new = mapping_of(after).map_err(|e| err(format!("stamping would break it: {e}")))?;
    let ok = new.get("compiled") == Some(&Value::Bool(true))
        && frontmatter::strings(&new, "compiled_date") == vec![date.to_string()]
        && frontmatter::strings(&new, "compiled_to") == compiled_to;
    for k in KEYS {
        old.remove(k);
        new.remove(k);
    }
    if !ok || old != new {
        return Err(err(
            "its frontmatter layout could not be edited without changing other keys; left as it was",
        ));
    }
    Ok(())
}

/// Does this text's frontmatter say `compiled: true`?
pub fn is_compiled(text: &str) -> bool {
    let text = text
        .strip_prefix('\u{feff}')
        .unwrap_or(text)
        .replace("\r\n", "\n");
    let Ok(map) = mapping_of(&text) else {
        return false;
    };
    match map.get("compiled") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn day() -> jiff::civil::Date {
        jiff::civil::date(2026, 4, 8)
    }

    fn to(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|s| s.to_string()).collect()
    }

    /// A stamp too large for readers is refused for what it is, not as
    /// the note's YAML; the size a review adds up is the stamp's own.
    #[test]
    fn a_stamp_over_the_frontmatter_bound_says_so() {
        let note = "---\ntitle: Alpha\n---\nNotes.\n";
        let paths: Vec<String> = (0..1500)
            .map(|i| format!("03_DOMAINS/A topic with a fairly long name {i:04}.md"))
            .collect();
        let e = stamp_compiled(note, day(), &paths).unwrap_err();
        assert!(e.reason.contains("would list 1500 files"), "{e}");
        assert!(!e.reason.contains("YAML"), "{e}");
        for n in [0, 1, 7, 1500] {
            let none: [&str; 0] = [];
            let added = stamped_base_bytes(note, day()).unwrap() - compiled_to_bytes(&none)
                + compiled_to_bytes(&paths[..n]);
            assert_eq!(
                added,
                stamped_parts(note, day(), &paths[..n]).unwrap().yaml_len
            );
        }
        assert!(stamp_compiled(note, day(), &paths[..10]).is_ok());
    }

    const STAMP: &str = "compiled: true\ncompiled_date: 2026-04-08\ncompiled_to:\n  - \"01_CLIENTS/Acme Corporation.md\"\n  - \"02_TERMINOLOGY/compliance → naleving.md\"\n";

    fn spec_paths() -> Vec<String> {
        to(&[
            "01_CLIENTS/Acme Corporation.md",
            "02_TERMINOLOGY/compliance → naleving.md",
        ])
    }

    #[test]
    fn appends_after_other_keys_keeping_them_byte_for_byte() {
        let src = "---\n# a comment\nsource:   'email'   # why\ntags: [a,  b]\nnotes: |\n  line one\n  line two\n---\nBody\n";
        let out = stamp_compiled(src, day(), &spec_paths()).unwrap();
        let expected = format!(
            "---\n# a comment\nsource:   'email'   # why\ntags: [a,  b]\nnotes: |\n  line one\n  line two\n{STAMP}---\nBody\n"
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn replaces_existing_keys_in_place_with_their_continuations() {
        let src = "---\ntitle: T\ncompiled: false\ncompiled_to:\n- old/a.md\n- old/b.md\n\n# keep me\nafter: 1\ncompiled_date: \"2020-01-01\"\n---\n";
        let out = stamp_compiled(src, day(), &to(&["01_CLIENTS/A.md"])).unwrap();
        assert_eq!(
            out,
            "---\ntitle: T\ncompiled: true\ncompiled_to:\n  - \"01_CLIENTS/A.md\"\n\n# keep me\nafter: 1\ncompiled_date: 2026-04-08\n---\n"
        );
    }

    #[test]
    fn adds_a_block_when_there_is_none() {
        let out = stamp_compiled("# Notes\ntext\n", day(), &to(&["01_CLIENTS/A.md"])).unwrap();
        assert_eq!(
            out,
            "---\ncompiled: true\ncompiled_date: 2026-04-08\ncompiled_to:\n  - \"01_CLIENTS/A.md\"\n---\n# Notes\ntext\n"
        );
        let out = stamp_compiled("", day(), &[]).unwrap();
        assert_eq!(
            out,
            "---\ncompiled: true\ncompiled_date: 2026-04-08\ncompiled_to: []\n---\n"
        );
    }

    #[test]
    fn empty_frontmatter_block() {
        let out = stamp_compiled("---\n---\nx\n", day(), &[]).unwrap();
        assert_eq!(
            out,
            "---\ncompiled: true\ncompiled_date: 2026-04-08\ncompiled_to: []\n---\nx\n"
        );
    }

    #[test]
    fn only_the_frontmatter_changes_its_line_endings() {
        let src = "---\nsource: email\n---\n# Second\nMore notes\r\nLast\r\n";
        let out = stamp_compiled(src, day(), &["01_CLIENTS/A.md".into()]).unwrap();
        assert!(
            out.starts_with("---\nsource: email\ncompiled: true\n"),
            "{out:?}"
        );
        assert!(
            out.ends_with("---\n# Second\nMore notes\r\nLast\r\n"),
            "{out:?}"
        );
        // A CRLF file with one LF line in its body keeps that line as it is.
        let src = "---\r\nsource: mail\r\n---\r\nBody\nEnd\r\n";
        let out = stamp_compiled(src, day(), &[]).unwrap();
        assert!(
            out.starts_with("---\r\nsource: mail\r\ncompiled: true\r\n"),
            "{out:?}"
        );
        assert!(out.ends_with("---\r\nBody\nEnd\r\n"), "{out:?}");
        // No frontmatter: one is added before the body, which is kept.
        let src = "Body\r\nmore\n";
        let out = stamp_compiled(src, day(), &[]).unwrap();
        assert!(out.starts_with("---\r\n"), "{out:?}");
        assert!(out.ends_with("---\r\nBody\r\nmore\n"), "{out:?}");
    }

    #[test]
    fn crlf_stays_crlf_and_bom_goes() {
        let src = "\u{feff}---\r\nsource: mail\r\n---\r\nBody\r\n";
        let out = stamp_compiled(src, day(), &to(&["01_CLIENTS/A.md"])).unwrap();
        assert!(!out.starts_with('\u{feff}'));
        assert!(!out.replace("\r\n", "").contains('\n'), "{out:?}");
        assert!(out.starts_with("---\r\nsource: mail\r\ncompiled: true\r\n"));
        assert!(is_compiled(&out));
    }

    #[test]
    fn fenced_files_are_stamped_inside_their_fence() {
        let src = "```markdown\n---\nsource: \"x\"\n---\n# Body\n```\n";
        let out = stamp_compiled(src, day(), &to(&["01_CLIENTS/A.md"])).unwrap();
        assert_eq!(
            out,
            "```markdown\n---\nsource: \"x\"\ncompiled: true\ncompiled_date: 2026-04-08\ncompiled_to:\n  - \"01_CLIENTS/A.md\"\n---\n# Body\n```\n"
        );
        assert!(is_compiled(&out));
        // A note that is only a code block has no wrapped frontmatter
        // (§4.3 needs frontmatter after the fence): the stamp goes on top
        // and the code block stays whole.
        let out = stamp_compiled("\n```\nplain\n```\n", day(), &[]).unwrap();
        assert_eq!(
            out,
            "---\ncompiled: true\ncompiled_date: 2026-04-08\ncompiled_to: []\n---\n\n```\nplain\n```\n"
        );
        assert!(is_compiled(&out));
    }

    #[test]
    fn awkward_paths_are_quoted_into_valid_yaml() {
        let paths = to(&[
            "02_TERMINOLOGY/compliance → naleving.md",
            "02_TERMINOLOGY/a: b # c.md",
            "02_TERMINOLOGY/\"quoted\" 'single'.md",
            "02_TERMINOLOGY/back\\slash.md",
            "02_TERMINOLOGY/- [x] {y} & *z* !t %p @q `r`.md",
        ]);
        let out = stamp_compiled("---\na: 1\n---\n", day(), &paths).unwrap();
        let map = mapping_of(&out).unwrap();
        assert_eq!(frontmatter::strings(&map, "compiled_to"), paths);
    }

    #[test]
    fn broken_frontmatter_is_refused_not_mangled() {
        assert!(stamp_compiled("---\na: [1\n---\n", day(), &[]).is_err());
        assert!(stamp_compiled("---\na: 1\nno close\n", day(), &[]).is_err());
    }

    #[test]
    fn quoted_keys_are_replaced_too() {
        let out = stamp_compiled("---\n\"compiled\": false\n---\n", day(), &[]).unwrap();
        assert_eq!(
            out,
            "---\ncompiled: true\ncompiled_date: 2026-04-08\ncompiled_to: []\n---\n"
        );
    }

    #[test]
    fn restamping_is_idempotent() {
        let once = stamp_compiled("---\na: 1\n---\nb\n", day(), &spec_paths()).unwrap();
        let twice = stamp_compiled(&once, day(), &spec_paths()).unwrap();
        assert_eq!(once, twice);
    }

    #[test]
    fn is_compiled_reads_the_flag() {
        assert!(is_compiled("---\ncompiled: true\n---\n"));
        assert!(is_compiled("```\n---\ncompiled: true\n---\n```\n"));
        assert!(!is_compiled("---\ncompiled: false\n---\n"));
        assert!(!is_compiled("no frontmatter"));
        assert!(!is_compiled("---\ncompiled: [\n---\n"));
    }

    /// An inbox note as a person or a tool saves it: maybe a BOM,
    /// frontmatter lines (some already stamped, some broken), body lines
    /// with any script, bidirectional and control characters, LF or CRLF.
    fn inbox_note() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            proptest::sample::select(vec![
                "---",
                "compiled: false",
                "compiled: true",
                "compiled_to: []",
                "compiled_to:",
                "  - \"01_CLIENTS/A.md\"",
                "compiled_date: 2026-01-01",
                "title: \"Call → notes\"",
                "tags: [a, b",
                "key: |",
                "  folded",
                "# Heading",
                "```",
                "~~~",
                "",
                "\t- item",
                "client: \"Acme\u{202E}\"",
                "naam: Straße 漢字 한국어",
                "\u{200B}",
                "x:\u{0}y",
            ])
            .prop_map(str::to_owned),
            any::<String>().prop_map(|s| s.replace(['\n', '\r'], "")),
        ];
        (
            any::<bool>(),
            any::<bool>(),
            proptest::collection::vec(line, 0..14),
        )
            .prop_map(|(bom, crlf, lines)| {
                let end = if crlf { "\r\n" } else { "\n" };
                let mut text = if bom {
                    "\u{feff}".to_owned()
                } else {
                    String::new()
                };
                for l in lines {
                    text.push_str(&l);
                    text.push_str(end);
                }
                text
            })
    }

    proptest! {
        #[test]
        fn stamping_random_text_never_panics_and_always_verifies(s in inbox_note()) {
            if let Ok(out) = stamp_compiled(&s, day(), &to(&["01_CLIENTS/A.md"])) {
                prop_assert!(is_compiled(&out), "{:?} -> {:?}", s, out);
                prop_assert!(!out.starts_with('\u{feff}'), "{:?}", out);
                let all_crlf = |t: &str| t.contains('\n') && t.match_indices('\n').all(|(i, _)| t[..i].ends_with('\r'));
                if all_crlf(&s) {
                    prop_assert!(all_crlf(&out), "{:?} -> {:?}", s, out);
                }
                let again = stamp_compiled(&out, day(), &to(&["01_CLIENTS/A.md"]));
                prop_assert_eq!(again.as_ref(), Ok(&out), "{:?}", s);
            }
        }

        #[test]
        fn stamping_yaml_like_text(lines in proptest::collection::vec(prop_oneof![
            Just("---\n"), Just("compiled: x\n"), Just("compiled_to:\n"), Just("- a\n"),
            Just("  - b\n"), Just("k: v\n"), Just("# c\n"), Just("\n"), Just("```\n"),
            Just("\"compiled_date\": 1\n"), Just("x: |\n"), Just("  text\n"),
        ], 0..14)) {
            let src = lines.concat();
            if let Ok(out) = stamp_compiled(&src, day(), &to(&["01_CLIENTS/A.md"])) {
                prop_assert!(is_compiled(&out), "{:?} -> {:?}", src, out);
            }
        }
    }
}
