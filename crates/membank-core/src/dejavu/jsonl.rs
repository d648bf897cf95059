//! `impressions.jsonl` and `recall-feedback.jsonl`, line by line.
//!
//! Lines are split and trimmed as the reference tools do (`split(/\r?\n/)`,
//! then `trim()`), so line numbers agree with theirs; a broken line keeps its
//! number and the error, and the other lines still load.

use std::ops::Range;

use rayon::prelude::*;

use super::js::{self, JsValue, ParseError};

/// One non-blank line of a JSONL file.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonlLine {
    /// 1-based, counting blank lines too.
    pub line: usize,
    /// Byte range of the line in the file text, without its line ending.
    pub span: Range<usize>,
    pub value: Result<JsValue, ParseError>,
}

impl JsonlLine {
    /// The parsed object, when the line holds one (`null`, numbers, strings
    /// and arrays are valid JSON but not records).
    pub fn object(&self) -> Option<&JsValue> {
        match &self.value {
            Ok(v @ JsValue::Object(_)) => Some(v),
            _ => None,
        }
    }

    /// A field of the record as a string, when it is one.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.object()?.get(key)?.as_str()
    }
}

/// A JSONL file as read: the path relative to the project and its lines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JsonlFile {
    pub path: String,
    pub text: String,
    pub lines: Vec<JsonlLine>,
}

impl JsonlFile {
    pub fn parse(path: &str, text: String) -> JsonlFile {
        let spans: Vec<(usize, Range<usize>)> = split_lines(&text)
            .filter(|(_, span)| !js::js_trim(&text[span.clone()]).is_empty())
            .collect();
        let parse_line = |(number, span): (usize, Range<usize>)| JsonlLine {
            line: number,
            value: js::parse(js::js_trim(&text[span.clone()])),
            span,
        };
        // Parsing is most of loading a project of tens of thousands of
        // impressions, and every line parses on its own.
        let lines = if crate::parallel::pays(spans.len()) {
            spans.into_par_iter().map(parse_line).collect()
        } else {
            spans.into_iter().map(parse_line).collect()
        };
        JsonlFile {
            path: path.to_owned(),
            text,
            lines,
        }
    }

    /// The line with this 1-based number, if it is not blank.
    pub fn line(&self, number: usize) -> Option<&JsonlLine> {
        self.lines.iter().find(|l| l.line == number)
    }
}

/// `text.split(/\r?\n/)` with 1-based numbers and byte spans.
pub fn split_lines(text: &str) -> impl Iterator<Item = (usize, Range<usize>)> + '_ {
    let mut start = 0;
    let mut number = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        number += 1;
        let (end, next) = match text[start..].find('\n') {
            Some(i) => (start + i, start + i + 1),
            None => {
                done = true;
                (text.len(), text.len())
            }
        };
        let end = if text[start..end].ends_with('\r') && !done {
            end - 1
        } else {
            end
        };
        let span = start..end;
        start = next;
        Some((number, span))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_numbers_and_broken_lines_do_not_stop_the_rest() {
        let f = JsonlFile::parse(
            "m.jsonl",
            "{\"a\":1}\r\n\n  {bad\n\u{feff}{\"b\":2}\n".into(),
        );
        let numbers: Vec<usize> = f.lines.iter().map(|l| l.line).collect();
        assert_eq!(numbers, vec![1, 3, 4]);
        assert!(f.lines[1].value.is_err());
        assert_eq!(
            f.lines[2].object().unwrap().get("b"),
            Some(&JsValue::Number(2.0))
        );
        assert_eq!(&f.text[f.lines[0].span.clone()], "{\"a\":1}");
    }

    #[test]
    fn a_lone_carriage_return_at_the_end_stays_in_the_line() {
        let spans: Vec<_> = split_lines("a\rb\r").map(|(_, s)| s).collect();
        assert_eq!(spans, vec![0..4]);
    }
}
