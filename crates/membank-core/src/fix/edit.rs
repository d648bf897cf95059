//! The small edits a fix makes to a file's text, each touching only the
//! bytes it must: one value inside its quotes, whole fence lines, the
//! encoding of the bytes.

/// Text decoded from UTF-16, with a byte-order mark or told without one
/// as the bank's reader tells it, line endings kept. `None`: not UTF-16;
/// `Some(Err)`: announced but broken.
pub(super) fn from_utf16(bytes: &[u8]) -> Option<Result<String, ()>> {
    let (little, start) = match bytes.get(..2)? {
        [0xFF, 0xFE] => (true, 2),
        [0xFE, 0xFF] => (false, 2),
        _ => (crate::text::utf16_without_bom(bytes)?, 0),
    };
    let body = &bytes[start..];
    if !body.len().is_multiple_of(2) {
        return Some(Err(()));
    }
    let units = body.chunks_exact(2).map(|p| match little {
        true => u16::from_le_bytes([p[0], p[1]]),
        false => u16::from_be_bytes([p[0], p[1]]),
    });
    Some(
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .map_err(|_| ()),
    )
}

// Windows-1252 is read where every module that decodes bytes can use it.
pub(super) use crate::text::{NotWindows1252, from_windows_1252};

/// The words of `text` with a letter outside ASCII, each once, in order:
/// what a reader checks after a change of encoding.
pub(super) fn accented_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if !word.is_ascii() && !words.iter().any(|w| w == word) {
            words.push(word.to_owned());
        }
    }
    words
}

/// The byte range of each line of `text`, its line ending excluded.
fn line_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            let end = if i > start && text.as_bytes()[i - 1] == b'\r' {
                i - 1
            } else {
                i
            };
            ranges.push(start..end);
            start = i + 1;
        }
    }
    if start < text.len() {
        ranges.push(start..text.len());
    }
    ranges
}

/// `text` without the given 1-based lines, line endings and all.
pub(super) fn remove_lines(text: &str, lines: &[usize]) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, piece) in text.split_inclusive('\n').enumerate() {
        if !lines.contains(&(i + 1)) {
            out.push_str(piece);
        }
    }
    out
}

/// The 1-based line `line` of `text`, line ending excluded.
pub(super) fn line_text(text: &str, line: usize) -> Option<&str> {
    let range = line_ranges(text).into_iter().nth(line.checked_sub(1)?)?;
    Some(&text[range])
}

/// A top-level `key: value` line: the key and the byte range of the value
/// inside its quotes (or, unquoted, without a trailing comment).
pub(super) struct KeyValue<'a> {
    pub key: &'a str,
    pub value: std::ops::Range<usize>,
}

pub(super) fn key_value(line: &str) -> Option<KeyValue<'_>> {
    if line.starts_with([' ', '\t', '-', '#']) {
        return None;
    }
    let colon = line.find(':')?;
    let key = line[..colon].trim().trim_matches(['"', '\'']);
    let value = value_after(line, colon + 1)?;
    Some(KeyValue { key, value })
}

/// The value of a block-list item line (`  - value  # comment`), as
/// [`key_value`] finds a key's; `None` for a line that is no list item.
pub(super) fn list_item(line: &str) -> Option<std::ops::Range<usize>> {
    let rest = line.trim_start().strip_prefix('-')?;
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    value_after(line, line.len() - rest.len())
}

/// The byte range of the value that starts past `after` in `line`: inside
/// its quotes or, unquoted, without a trailing comment.
fn value_after(line: &str, after: usize) -> Option<std::ops::Range<usize>> {
    let rest = &line[after..];
    let start = after + (rest.len() - rest.trim_start().len());
    let tail = &line[start..];
    let value = match tail.chars().next() {
        Some(q @ ('"' | '\'')) => {
            let close = tail[1..].find(q)? + 1;
            start + 1..start + close
        }
        // A comment alone (`client:   # TODO`): the value is empty, as
        // YAML reads it.
        Some('#') => start..start,
        _ => {
            // A comment starts at a `#` after a space.
            let end = tail.find(" #").unwrap_or(tail.len());
            start..start + tail[..end].trim_end().len()
        }
    };
    Some(value)
}

/// `text` with the value on 1-based `line` replaced by what `fix` makes of
/// it; the key, quotes, comment and line ending stay as they are. Returns
/// the new text and the value before and after.
pub(super) fn replace_value(
    text: &str,
    line: usize,
    keys: &[&str],
    fix: impl Fn(&str) -> Result<String, String>,
) -> Result<(String, String, String), String> {
    let range = line_ranges(text)
        .into_iter()
        .nth(line.saturating_sub(1))
        .ok_or_else(|| format!("line {line} is not in the file"))?;
    let kv = key_value(&text[range.clone()])
        .filter(|kv| keys.contains(&kv.key))
        .ok_or_else(|| format!("line {line} is not a plain “key: value” line"))?;
    let at = range.start + kv.value.start..range.start + kv.value.end;
    let old = &text[at.clone()];
    let new = fix(old)?;
    let mut out = String::with_capacity(text.len() + new.len());
    out.push_str(&text[..at.start]);
    out.push_str(&new);
    out.push_str(&text[at.end..]);
    Ok((out, old.to_owned(), new))
}

/// `YYYY-M-D` with one-digit parts padded; a date in another order, or one
/// that is not in the calendar, is left to the author.
pub(crate) fn padded_date(value: &str) -> Result<String, String> {
    let v = value.trim();
    let parts: Vec<&str> = v.split('-').collect();
    let digits = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
    };
    match parts.as_slice() {
        [y, m, d] if digits(y, 4..=4) && digits(m, 1..=2) && digits(d, 1..=2) => {
            let (year, month, day) = (y.parse().ok(), m.parse().ok(), d.parse().ok());
            let valid = match (year, month, day) {
                (Some(y), Some(m), Some(d)) => jiff::civil::Date::new(y, m, d).is_ok(),
                _ => false,
            };
            if valid {
                Ok(format!("{y}-{m:0>2}-{d:0>2}"))
            } else {
                Err(format!("“{v}” is not a day of the calendar"))
            }
        }
        _ if v.contains('/') || v.contains('.') => Err(format!(
            "“{v}” could be day-month or month-day; membank does not guess which"
        )),
        _ => Err(format!(
            "“{v}” is not a date membank can read without guessing"
        )),
    }
}

/// A value that is exactly one `[[link]]`, in double quotes (single ones
/// when the link holds a double quote); `None` for anything else.
pub(super) fn quoted_link(value: &str) -> Option<String> {
    let inner = value.strip_prefix("[[")?.strip_suffix("]]")?;
    if inner.contains("[[") || inner.contains("]]") || inner.is_empty() {
        return None;
    }
    match (value.contains('"'), value.contains('\'')) {
        (false, _) if !value.contains('\\') => Some(format!("\"{value}\"")),
        (_, false) => Some(format!("'{value}'")),
        _ => None,
    }
}

/// `text` with `key` given `value`: an empty value filled in on the key's
/// line, or a new line before the frontmatter's closing `---` with the
/// file's line ending. Returns the text and the 1-based line written.
pub(super) fn set_key(text: &str, key: &str, value: &str) -> Result<(String, usize), String> {
    set_key_as(text, key, Some(value), &yaml_scalar(value))
}

/// [`set_key`] with the value already written as YAML (`plain`: the same
/// value as text, for a pair of empty quotes to hold; `None` when it
/// cannot go inside quotes).
pub(super) fn set_key_as(
    text: &str,
    key: &str,
    plain: Option<&str>,
    yaml: &str,
) -> Result<(String, usize), String> {
    let ranges = line_ranges(text);
    let open = ranges
        .iter()
        .position(|r| text[r.clone()].trim_end() == "---")
        .ok_or("the frontmatter's opening line was not found")?;
    let close = ranges[open + 1..]
        .iter()
        .position(|r| text[r.clone()].trim_end() == "---")
        .map(|i| open + 1 + i)
        .ok_or("the frontmatter's closing line was not found")?;
    for (i, r) in ranges.iter().enumerate().take(close).skip(open + 1) {
        let Some(kv) = key_value(&text[r.clone()]).filter(|kv| kv.key == key) else {
            continue;
        };
        let at = r.start + kv.value.start..r.start + kv.value.end;
        let quoted = at.start > 0
            && matches!(text.as_bytes()[at.start - 1], b'"' | b'\'')
            && at.end < text.len()
            && text.as_bytes()[at.end] == text.as_bytes()[at.start - 1];
        let empty = matches!(text[at.clone()].trim(), "" | "~" | "null" | "[]");
        if !empty {
            return Err(format!("{key} already has a value on line {}", i + 1));
        }
        let mut new = match (quoted, text[..at.start].ends_with([' ', '\t'])) {
            (true, _) => match plain {
                Some(value) if !value.contains(['"', '\'', '\\']) => value.to_owned(),
                _ => return Err(format!("{key}: the value would need other quotes")),
            },
            (false, true) => yaml.to_owned(),
            (false, false) => format!(" {yaml}"),
        };
        // A comment after the empty value stays, one space from the value.
        if !quoted && text[at.end..].starts_with('#') {
            new.push(' ');
        }
        let mut out = String::with_capacity(text.len() + new.len());
        out.push_str(&text[..at.start]);
        out.push_str(&new);
        out.push_str(&text[at.end..]);
        return Ok((out, i + 1));
    }
    let ending = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let at = ranges[close].start;
    let mut out = String::with_capacity(text.len() + key.len() + yaml.len() + 4);
    out.push_str(&text[..at]);
    out.push_str(&format!("{key}: {yaml}{ending}"));
    out.push_str(&text[at..]);
    Ok((out, close + 1))
}

/// `value` as a YAML scalar: plain when that reads back as the same text,
/// else in double quotes.
pub(super) fn yaml_scalar(value: &str) -> String {
    let plain = value.chars().next().is_some_and(char::is_alphanumeric)
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || " -_.,()&→".contains(c))
        && !value.ends_with(' ')
        && !matches!(
            value.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null"
        )
        && value.parse::<f64>().is_err();
    if plain {
        value.to_owned()
    } else {
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        format!("\"{escaped}\"")
    }
}

/// One of the three status words, in lower case.
pub(super) fn status_word(value: &str) -> Result<String, String> {
    let lower = value.trim().to_lowercase();
    match lower.as_str() {
        "approved" | "proposed" | "rejected" => Ok(lower),
        _ => Err(format!(
            "“{}” is none of approved, proposed or rejected in another case; choose one",
            value.trim()
        )),
    }
}

/// Each language name or underscored code in `value` replaced by its code;
/// separators, quotes and brackets stay as written. `Err`: the words with
/// no one code, every one of them (the value is then left whole: half a
/// name made a code would say something else).
pub(super) fn language_codes(
    value: &str,
    fixed: impl Fn(&str) -> Option<String>,
    plausible: impl Fn(&str) -> bool,
) -> Result<String, Vec<String>> {
    let mut out = String::with_capacity(value.len());
    let mut word = String::new();
    let mut unknown = Vec::new();
    let mut flush = |word: &mut String, out: &mut String| {
        if word.chars().any(char::is_alphanumeric) && !plausible(word) {
            match fixed(word) {
                Some(code) => out.push_str(&code),
                None => unknown.push(word.clone()),
            }
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in value.chars() {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    match unknown.is_empty() {
        true => Ok(out),
        false => Err(unknown),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_found_inside_its_quotes_and_before_a_comment() {
        let kv = key_value("status: \"Approved\" # set by hand").unwrap();
        assert_eq!(kv.key, "status");
        assert_eq!(kv.value, 9..17);
        let kv = key_value("last_updated: 2026-4-8   # old").unwrap();
        assert_eq!(&"last_updated: 2026-4-8   # old"[kv.value], "2026-4-8");
        assert!(key_value("  nested: x").is_none());
    }

    #[test]
    fn an_empty_value_with_a_comment_is_filled_and_the_comment_kept() {
        assert_eq!(key_value("client:   # TODO").unwrap().value, 10..10);
        let text = "---\nclient:   # TODO\nlanguages: [en]\n---\n";
        assert_eq!(
            set_key(text, "client", "Acme").unwrap(),
            (
                "---\nclient:   Acme # TODO\nlanguages: [en]\n---\n".to_owned(),
                2
            )
        );
    }

    #[test]
    fn dates_are_padded_and_never_guessed() {
        assert_eq!(padded_date("2026-4-8").unwrap(), "2026-04-08");
        assert!(
            padded_date("08/04/2026")
                .unwrap_err()
                .contains("does not guess")
        );
        assert!(padded_date("2026-2-30").unwrap_err().contains("calendar"));
    }

    #[test]
    fn windows_1252_is_read_only_when_no_utf8_letter_is_mixed_in() {
        assert_eq!(from_windows_1252(b"caf\xe9 \x93x\x94").unwrap(), "café “x”");
        assert_eq!(
            from_windows_1252(
                "é".as_bytes()
                    .iter()
                    .chain(b"\xe9")
                    .copied()
                    .collect::<Vec<_>>()
                    .as_slice()
            ),
            Err(NotWindows1252::Mixed)
        );
        assert_eq!(
            from_windows_1252(b"a\x81"),
            Err(NotWindows1252::Undefined(0x81))
        );
    }
}
