//! `impressions.jsonl` and `recall-feedback.jsonl`, line by line.
//!
//! Lines are split and trimmed as the reference tools do (`split(/\r?\n/)`,
//! then `trim()`), so line numbers agree with theirs; a broken line keeps its
//! number and the error, and the other lines still load.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use rayon::prelude::*;

use super::js::{self, JsValue, ParseError};

/// Lines handed to the pool per turn of [`JsonlFile::map_in_order`]: enough
/// to keep two cores busy, few enough that what is made of them stays small.
pub(crate) const CHUNK: usize = 2048;

/// One non-blank line of a JSONL file: where it is, parsed when asked.
///
/// Lines are not kept parsed: a file of tens of thousands of impressions
/// would take several times its own size as values. Each line shares the
/// file's text instead and parses again for whoever reads it.
#[derive(Debug, Clone)]
pub struct JsonlLine {
    /// 1-based, counting blank lines too.
    pub line: usize,
    /// Byte range of the line in the file text, without its line ending.
    pub span: Range<usize>,
    text: Arc<String>,
}

impl PartialEq for JsonlLine {
    fn eq(&self, other: &Self) -> bool {
        self.line == other.line && self.raw() == other.raw()
    }
}

impl JsonlLine {
    /// The line as the reference parses it: trimmed.
    pub fn raw(&self) -> &str {
        js::js_trim(&self.text[self.span.clone()])
    }

    /// The line's JSON value, or why it is not JSON.
    pub fn value(&self) -> Result<JsValue, ParseError> {
        js::parse(self.raw())
    }

    /// The parsed object, when the line holds one (`null`, numbers, strings
    /// and arrays are valid JSON but not records).
    pub fn object(&self) -> Option<JsValue> {
        match self.value() {
            Ok(v @ JsValue::Object(_)) => Some(v),
            _ => None,
        }
    }

    /// A field of the record as a string, when it is one.
    pub fn str_field(&self, key: &str) -> Option<Cow<'_, str>> {
        js::string_field(self.raw(), key)
    }
}

/// A JSONL file as read: the path relative to the project and its lines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JsonlFile {
    pub path: String,
    /// Shared with every line, and with the project's texts.
    pub text: Arc<String>,
    pub lines: Vec<JsonlLine>,
}

impl JsonlFile {
    pub fn parse(path: &str, text: String) -> JsonlFile {
        JsonlFile::of_shared(path, Arc::new(text))
    }

    /// The lines of a text that is kept elsewhere too, without a copy.
    pub fn of_shared(path: &str, text: Arc<String>) -> JsonlFile {
        let lines = split_lines(&text)
            .filter(|(_, span)| !js::js_trim(&text[span.clone()]).is_empty())
            .map(|(line, span)| JsonlLine {
                line,
                span,
                text: Arc::clone(&text),
            })
            .collect();
        JsonlFile {
            path: path.to_owned(),
            text,
            lines,
        }
    }

    /// `f` of every line, in file order. A large file's lines are handed
    /// to the pool a chunk at a time, so what `f` makes of a chunk is all
    /// that is held at once.
    pub fn map_in_order<'a, T: Send + 'a>(
        &'a self,
        f: impl Fn(&'a JsonlLine) -> T + Send + Sync + 'a,
    ) -> impl Iterator<Item = (&'a JsonlLine, T)> + 'a {
        let parallel = crate::parallel::pays(self.lines.len());
        self.lines.chunks(CHUNK).flat_map(move |chunk| {
            let done: Vec<T> = if parallel {
                chunk.par_iter().map(&f).collect()
            } else {
                chunk.iter().map(&f).collect()
            };
            chunk.iter().zip(done)
        })
    }

    /// The line with this 1-based number, if it is not blank.
    pub fn line(&self, number: usize) -> Option<&JsonlLine> {
        // Lines are in file order.
        let i = self.lines.binary_search_by_key(&number, |l| l.line).ok()?;
        self.lines.get(i)
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
        assert!(f.lines[1].value().is_err());
        assert_eq!(
            f.lines[2].object().unwrap().get("b"),
            Some(&JsValue::Number(2.0))
        );
        assert_eq!(f.line(4), Some(&f.lines[2]));
        assert_eq!(f.line(2), None);
        assert_eq!(&f.text[f.lines[0].span.clone()], "{\"a\":1}");
    }

    #[test]
    fn a_lone_carriage_return_at_the_end_stays_in_the_line() {
        let spans: Vec<_> = split_lines("a\rb\r").map(|(_, s)| s).collect();
        assert_eq!(spans, vec![0..4]);
    }
}
