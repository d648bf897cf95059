//! Finding and parsing the YAML frontmatter of an article (spec §4).

use std::ops::Range;

use yaml_serde::{Mapping, Value};

/// The result of locating the frontmatter in a decoded file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The article text after §4.3 fence stripping (the whole text if no fence).
    pub text: String,
    /// The file was wrapped in a code fence (§4.3) that was stripped.
    pub fenced: bool,
    /// The opening fence had no matching closing fence.
    pub fence_unclosed: bool,
    /// Lines removed before `text` starts, to map lines back to the file.
    pub line_shift: usize,
    pub block: Block,
    /// Byte offset in `text` where the body (after the frontmatter) starts.
    pub body_start: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// No `---` on the first line.
    Missing,
    /// An opening `---` that is never closed.
    Unclosed,
    /// The YAML between the delimiters, as a range of `text`.
    Present(Range<usize>),
}

fn fence_of(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start();
    // An indented line (4+ spaces) is code, not a fence.
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = t.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = t.chars().take_while(|&x| x == c).count();
    if n < 3 {
        return None;
    }
    Some((c, n, t[n..].trim()))
}

/// Split `text` (already BOM-stripped and LF-only) into frontmatter and body,
/// tolerating a wrapping code fence as §4.3 requires.
pub fn locate(text: &str) -> Located {
    let (text, fenced, fence_unclosed, line_shift) = strip_outer_fence(text);
    let (block, body_start) = find_block(&text);
    Located {
        text,
        fenced,
        fence_unclosed,
        line_shift,
        block,
        body_start,
    }
}

fn strip_outer_fence(text: &str) -> (String, bool, bool, usize) {
    let mut offset = 0;
    let mut lines_before = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        offset += line.len();
        lines_before += 1;
    }
    let rest = &text[offset..];
    let first = rest.split_inclusive('\n').next().unwrap_or("");
    let Some((ch, len, _info)) = fence_of(first.trim_end_matches('\n')) else {
        return (text.to_owned(), false, false, 0);
    };
    let inner = &rest[first.len()..];
    // Walk the inner lines pairing nested fences, so a code block inside the
    // wrapped article does not end the wrapper early.
    let mut nested: Option<(char, usize)> = None;
    let mut pos = 0;
    let mut close: Option<Range<usize>> = None;
    for line in inner.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        if let Some((c, n, info)) = fence_of(bare) {
            match nested {
                Some((nc, nn)) if c == nc && n >= nn && info.is_empty() => nested = None,
                Some(_) => {}
                None if info.is_empty() && c == ch && n >= len => {
                    close = Some(pos..pos + line.len());
                    break;
                }
                None => nested = Some((c, n)),
            }
        }
        pos += line.len();
    }
    let mut out = String::with_capacity(inner.len());
    match &close {
        Some(r) => {
            out.push_str(&inner[..r.start]);
            out.push_str(&inner[r.end..]);
        }
        None => out.push_str(inner),
    }
    (out, true, close.is_none(), lines_before + 1)
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end() == "---"
}

fn find_block(text: &str) -> (Block, usize) {
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else {
        return (Block::Missing, 0);
    };
    if !is_delimiter(first.trim_end_matches('\n')) {
        return (Block::Missing, 0);
    }
    let start = first.len();
    let mut pos = start;
    for line in lines {
        if is_delimiter(line.trim_end_matches('\n')) {
            return (Block::Present(start..pos), pos + line.len());
        }
        pos += line.len();
    }
    (Block::Unclosed, 0)
}

/// A YAML error with the line it happened on (1-based, in the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub message: String,
    pub line: Option<usize>,
}

/// Parse frontmatter YAML with a real YAML 1.2 parser (`no` stays a string).
/// `first_line` is the file line the YAML starts on, to report errors there.
pub fn parse_yaml(yaml: &str, first_line: usize) -> Result<Mapping, YamlError> {
    if yaml.trim().is_empty() {
        return Ok(Mapping::new());
    }
    match yaml_serde::from_str::<Value>(yaml) {
        Ok(Value::Mapping(m)) => Ok(m),
        Ok(Value::Null) => Ok(Mapping::new()),
        Ok(other) => Err(YamlError {
            message: format!(
                "frontmatter is a YAML {}, not a mapping of keys to values",
                kind_name(&other)
            ),
            line: Some(first_line),
        }),
        Err(e) => {
            let line = e.location().map(|l| l.line() + first_line - 1);
            let mut message = e.to_string();
            // The parser's own position refers to the YAML block, not the file.
            if let Some(i) = message.find(" at line ") {
                message.truncate(i);
            }
            Err(YamlError { message, line })
        }
    }
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Sequence(_) => "list",
        Value::Mapping(_) => "mapping",
        Value::Tagged(_) => "tagged value",
    }
}

/// A scalar as text: strings as written, numbers and booleans printed.
pub fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Tagged(t) => scalar_text(&t.value),
        _ => None,
    }
}

/// The text values of a key: one for a scalar, one per scalar item of a list.
pub fn strings(map: &Mapping, key: &str) -> Vec<String> {
    match map.get(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Sequence(items)) => items.iter().filter_map(scalar_text).collect(),
        Some(Value::Tagged(t)) => match &t.value {
            Value::Sequence(items) => items.iter().filter_map(scalar_text).collect(),
            v => scalar_text(v).into_iter().collect(),
        },
        Some(v) => scalar_text(v).into_iter().collect(),
    }
}

/// Every string anywhere in a YAML value, depth first, in document order.
pub fn all_strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Sequence(items) => items.iter().for_each(|i| all_strings(i, out)),
        Value::Mapping(m) => m.values().for_each(|i| all_strings(i, out)),
        Value::Tagged(t) => all_strings(&t.value, out),
        _ => {}
    }
}

/// Key names as text, in document order.
pub fn key_names(map: &Mapping) -> Vec<String> {
    map.keys().filter_map(scalar_text).collect()
}

/// Strictly `YYYY-MM-DD` and a real calendar day.
pub fn parse_iso_date(s: &str) -> Option<jiff::civil::Date> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digits = |r: Range<usize>| -> Option<i32> {
        let part = &s[r];
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (y, m, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    jiff::civil::Date::new(y as i16, m as i8, d as i8).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml_of(l: &Located) -> &str {
        match &l.block {
            Block::Present(r) => &l.text[r.clone()],
            other => panic!("no block: {other:?}"),
        }
    }

    #[test]
    fn plain_frontmatter() {
        let l = locate("---\nclient: Acme\n---\n# Acme\n");
        assert!(!l.fenced);
        assert_eq!(yaml_of(&l), "client: Acme\n");
        assert_eq!(&l.text[l.body_start..], "# Acme\n");
    }

    #[test]
    fn fenced_frontmatter_is_unwrapped() {
        let l = locate("```markdown\n---\nclient: \"Acme\"\n---\n# Acme\n```\n");
        assert!(l.fenced);
        assert!(!l.fence_unclosed);
        assert_eq!(l.line_shift, 1);
        assert_eq!(yaml_of(&l), "client: \"Acme\"\n");
        assert_eq!(&l.text[l.body_start..], "# Acme\n");
    }

    #[test]
    fn tilde_fence_and_leading_blank_lines() {
        let l = locate("\n\n~~~md\n---\na: 1\n---\nbody\n~~~\n");
        assert!(l.fenced);
        assert_eq!(l.line_shift, 3);
        assert_eq!(yaml_of(&l), "a: 1\n");
    }

    #[test]
    fn nested_code_block_does_not_close_the_wrapper() {
        let l = locate("```markdown\n---\na: 1\n---\n```python\nx = 1\n```\nafter\n```\n");
        assert!(l.fenced);
        assert_eq!(&l.text[l.body_start..], "```python\nx = 1\n```\nafter\n");
    }

    #[test]
    fn unclosed_fence_still_reads() {
        let l = locate("```\n---\na: 1\n---\nbody\n");
        assert!(l.fenced && l.fence_unclosed);
        assert_eq!(yaml_of(&l), "a: 1\n");
    }

    #[test]
    fn missing_and_unclosed_blocks() {
        assert_eq!(locate("# Title\n").block, Block::Missing);
        assert_eq!(locate("").block, Block::Missing);
        assert_eq!(locate("---\na: 1\n").block, Block::Unclosed);
    }

    #[test]
    fn yaml_12_keeps_norwegian() {
        let m = parse_yaml("target_lang: no\nsource_lang: en\n", 2).unwrap();
        assert_eq!(strings(&m, "target_lang"), vec!["no"]);
    }

    #[test]
    fn lists_and_scalars_become_strings() {
        let m = parse_yaml("clients: [\"[[A]]\", B]\nclient: 42\nx: ~\n", 2).unwrap();
        assert_eq!(strings(&m, "clients"), vec!["[[A]]", "B"]);
        assert_eq!(strings(&m, "client"), vec!["42"]);
        assert!(strings(&m, "x").is_empty());
        assert!(strings(&m, "absent").is_empty());
    }

    #[test]
    fn yaml_errors_point_at_the_file_line() {
        let e = parse_yaml("a: 1\nb: [unclosed\n", 2).unwrap_err();
        assert!(e.line.unwrap() >= 3, "{e:?}");
        let e = parse_yaml("- just\n- a list\n", 2).unwrap_err();
        assert!(e.message.contains("list"));
    }

    #[test]
    fn dates_are_strict() {
        assert!(parse_iso_date("2026-04-08").is_some());
        assert!(parse_iso_date("2026-02-30").is_none());
        assert!(parse_iso_date("2026-4-8").is_none());
        assert!(parse_iso_date("08-04-2026").is_none());
        assert!(parse_iso_date("2026-04-08T10:00").is_none());
    }
}
