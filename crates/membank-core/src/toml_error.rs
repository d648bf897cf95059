//! A TOML error told without the file's text.
//!
//! The `toml` crate's own rendering of an error quotes the offending line,
//! and a config file's offending line may hold a key pasted in by mistake
//! (`openai_api_key = sk-proj-…`). So an error is told by its line, its
//! column and what is wrong, and any double-quoted value in that message
//! (serde quotes the value it could not use) is hidden.

/// `line L, column C: what is wrong`, without quoting the text: the line
/// and column are 1-based, the column counted in characters.
pub fn describe(text: &str, error: &toml::de::Error) -> String {
    let what = hide_quoted(error.message());
    match error.span() {
        Some(span) => format!("{}: {what}", position(text, span.start)),
        None => what,
    }
}

/// `line L, column C` of byte `offset` in `text`, both 1-based, the column
/// counted in characters: where a value is, told without quoting it.
pub fn position(text: &str, offset: usize) -> String {
    let at = floor_char_boundary(text, offset);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = crate::text::line_of(text, at);
    let column = text[line_start..at].chars().count() + 1;
    format!("line {line}, column {column}")
}

/// The message with every double-quoted value replaced by `"…"`, on one
/// line and safe for a terminal. A lone quote character shown as a token
/// (`` `"` `` in "expected `"`") is kept: it is grammar, not a value.
/// A number serde quotes in backticks (``invalid value: integer `-1` ``)
/// is a value too, and hidden the same way.
pub fn hide_quoted(message: &str) -> String {
    let message = hide_backticked_numbers(message);
    let message = message.as_str();
    let mut out = String::new();
    let mut in_quote = false;
    let chars: Vec<char> = message.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let token =
            c == '"' && i > 0 && chars[i - 1] == '`' && chars.get(i + 1) == Some(&'`') && !in_quote;
        if c == '"' && !token {
            if in_quote {
                out.push_str("\"…\"");
            }
            in_quote = !in_quote;
        } else if !in_quote {
            out.push(if c == '\n' { ';' } else { c });
            if c == '\n' {
                out.push(' ');
            }
        }
    }
    if in_quote {
        // An unclosed quote: everything after it is hidden too.
        out.push_str("\"…");
    }
    crate::text::sanitize_for_terminal(out.trim(), false)
}

/// `integer `-1`` → `integer `…``: serde's way of showing a number, a
/// boolean or a character it could not use.
fn hide_backticked_numbers(message: &str) -> String {
    let mut out = message.to_owned();
    for kind in ["integer `", "floating point `", "boolean `", "character `"] {
        let mut from = 0;
        while let Some(at) = out[from..].find(kind) {
            let start = from + at + kind.len();
            let Some(len) = out[start..].find('`') else {
                out.replace_range(start.., "…");
                break;
            };
            out.replace_range(start..start + len, "…");
            from = start + '…'.len_utf8() + 1;
        }
    }
    out
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(text: &str) -> String {
        let e = text.parse::<toml::Table>().unwrap_err();
        describe(text, &e)
    }

    #[test]
    fn syntax_error_names_line_and_column_never_the_text() {
        let text = "theme = \"mono\"\n[files]\nopenai_api_key = sk-proj-REALKEY\n";
        let said = error_of(text);
        assert!(said.starts_with("line 3, column 18: "), "{said}");
        assert!(!said.contains("REALKEY"), "{said}");
        assert!(!said.contains('\n'), "{said}");
    }

    #[test]
    fn quoted_values_are_hidden() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct T {
            n: u64,
        }
        let text = "n = \"sk-SECRET\"\n";
        let e = toml::from_str::<T>(text).unwrap_err();
        let said = describe(text, &e);
        assert!(!said.contains("SECRET"), "{said}");
        assert!(said.contains("line 1"), "{said}");
        assert_eq!(hide_quoted("expected `\"`, `'`"), "expected `\"`, `'`");
        assert_eq!(hide_quoted("bad \"x\" and \"y"), "bad \"…\" and \"…");
        assert_eq!(
            hide_quoted("invalid value: integer `-1`, expected u64"),
            "invalid value: integer `…`, expected u64"
        );
    }
}
