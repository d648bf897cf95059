//! The frontmatter block of an everos file, split the way everos splits it.
//!
//! everos is stricter than the memory-bank format: the file must start with
//! exactly `---` and a newline, the block ends at the first line that is
//! exactly `---`, there is no code-fence tolerance, and YAML that is not a
//! mapping means "no frontmatter" (the whole text is then the body).

use std::ops::Range;

use yaml_serde::{Mapping, Value};

use super::yaml::LastKeyWins;
use crate::frontmatter::{YamlError, parse_yaml_with};

#[derive(Debug, Clone)]
pub enum Head {
    /// No block: the file does not start with `---` and a newline, or the
    /// block is never closed. The body is the whole text.
    Missing { unclosed: bool },
    /// A block was found; `yaml` is its text range.
    Block {
        yaml: Range<usize>,
        parsed: Result<Mapping, YamlError>,
    },
}

#[derive(Debug, Clone)]
pub struct Split {
    pub head: Head,
    /// Where everos's body starts in the text.
    pub body_start: usize,
}

impl Split {
    pub fn mapping(&self) -> Option<&Mapping> {
        match &self.head {
            Head::Block { parsed: Ok(m), .. } => Some(m),
            _ => None,
        }
    }

    /// The error of a block whose YAML does not parse at all (not one that
    /// parses to a list or a scalar, which everos reads as no frontmatter).
    pub fn unparsable(&self) -> Option<&YamlError> {
        match &self.head {
            Head::Block { parsed: Err(e), .. } if !e.message.contains("not a mapping") => Some(e),
            _ => None,
        }
    }
}

/// Split `text` (LF line endings) into everos's frontmatter and body.
pub fn split(text: &str) -> Split {
    let missing = |unclosed| Split {
        head: Head::Missing { unclosed },
        body_start: 0,
    };
    let Some(rest) = text.strip_prefix("---\n") else {
        return missing(false);
    };
    let start = 4;
    let mut pos = 0;
    let mut close = None;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches('\n').trim_end_matches('\r') == "---" {
            close = Some((pos, line.len()));
            break;
        }
        pos += line.len();
    }
    let Some((close_at, close_len)) = close else {
        return missing(true);
    };
    let yaml = start..start + close_at;
    let body_start = start + close_at + close_len;
    // everos reads with PyYAML's `safe_load`, where the last of duplicate
    // keys wins; a file everos reads is not unparsable here.
    let parsed = parse_yaml_with(&text[yaml.clone()], 2, |yaml| {
        yaml_serde::from_str::<LastKeyWins>(yaml).map(|v| v.0)
    });
    // everos treats a block that is YAML but not a mapping as no frontmatter
    // at all, and its body as the whole text.
    let not_mapping = matches!(&parsed, Err(e) if e.message.contains("not a mapping"));
    Split {
        head: Head::Block { yaml, parsed },
        body_start: if not_mapping { 0 } else { body_start },
    }
}

/// The 1-based file line of a top-level `key:` in the block, if written
/// there plainly (the last time, whose value everos reads); `fallback`
/// otherwise.
pub fn key_line(text: &str, yaml: &Range<usize>, key: &str, fallback: usize) -> usize {
    let mut found = fallback;
    for (line_no, line) in (2..).zip(text[yaml.clone()].split('\n')) {
        if let Some(rest) = line.strip_prefix(key)
            && rest.trim_start().starts_with(':')
        {
            found = line_no;
        }
    }
    found
}

/// A field as text: strings as written, numbers and booleans printed.
pub fn text_of(map: &Mapping, key: &str) -> Option<String> {
    map.get(key).and_then(crate::frontmatter::scalar_text)
}

pub fn get<'a>(map: &'a Mapping, key: &str) -> Option<&'a Value> {
    map.get(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_and_aliases_resolve() {
        let text = "---\nid: s\ncreated_at: &id001 2026-06-02 12:00:00+00:00\nupdated_at: *id001\n---\nbody\n";
        let s = split(text);
        let m = s.mapping().expect("mapping");
        assert_eq!(text_of(m, "updated_at"), text_of(m, "created_at"));
        assert_eq!(&text[s.body_start..], "body\n");
    }

    #[test]
    fn only_an_exact_opening_line_starts_a_block() {
        assert!(matches!(
            split("--- \na: 1\n---\n").head,
            Head::Missing { .. }
        ));
        assert!(matches!(
            split("\n---\na: 1\n---\n").head,
            Head::Missing { .. }
        ));
        assert!(matches!(
            split("---\na: 1\n").head,
            Head::Missing { unclosed: true }
        ));
        // `----` does not close it; the next exact `---` does.
        let s = split("---\na: |\n  ----\n---\nb");
        assert_eq!(s.body_start, "---\na: |\n  ----\n---\n".len());
    }

    #[test]
    fn a_list_is_no_frontmatter_and_the_body_is_everything() {
        let s = split("---\n- a\n- b\n---\nbody");
        assert_eq!(s.body_start, 0);
        assert!(s.mapping().is_none());
    }

    #[test]
    fn broken_yaml_reports_a_file_line() {
        let s = split("---\nid: a\nbad: [unclosed\n---\n");
        match s.head {
            Head::Block { parsed: Err(e), .. } => assert!(e.line.is_some_and(|l| l >= 3), "{e:?}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn duplicate_keys_are_read_as_everos_reads_them() {
        let s = split("---\nid: a\ndate: '2026-06-01'\ndate: '2026-06-02'\n---\nbody");
        let m = s.mapping().expect("a mapping, not an error");
        assert_eq!(text_of(m, "date").as_deref(), Some("2026-06-02"));
        assert_eq!(m.len(), 2);
        let Head::Block { yaml, .. } = &s.head else {
            panic!()
        };
        let text = "---\nid: a\ndate: '2026-06-01'\ndate: '2026-06-02'\n---\nbody";
        assert_eq!(key_line(text, yaml, "date", 1), 4);
    }

    #[test]
    fn key_lines_are_found() {
        let text = "---\nid: a\ndate: '2026-06-01'\n---\n";
        let Head::Block { yaml, .. } = split(text).head else {
            panic!()
        };
        assert_eq!(key_line(text, &yaml, "date", 1), 3);
        assert_eq!(key_line(text, &yaml, "nope", 1), 1);
    }
}
