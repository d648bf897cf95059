//! Markdown records: kind by place, frontmatter read the way the reference
//! lint reads it, relative links with their lines.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;

use super::js::{is_js_space, js_trim};
use super::paths;

/// What a Markdown file under `memory/` is, by where it sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordKind {
    Summary,
    Index,
    Decision,
    OpenLoop,
    Context,
    Event,
    Other,
}

impl RecordKind {
    pub fn of(path: &str) -> RecordKind {
        match path {
            super::SUMMARY_PATH => RecordKind::Summary,
            super::INDEX_PATH => RecordKind::Index,
            p if p.starts_with("memory/decisions/") => RecordKind::Decision,
            p if p.starts_with("memory/open-loops/") => RecordKind::OpenLoop,
            p if p.starts_with("memory/context/") => RecordKind::Context,
            p if p.starts_with("memory/events/") => RecordKind::Event,
            _ => RecordKind::Other,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            RecordKind::Summary => "summary",
            RecordKind::Index => "index",
            RecordKind::Decision => "decisions",
            RecordKind::OpenLoop => "open loops",
            RecordKind::Context => "context",
            RecordKind::Event => "events",
            RecordKind::Other => "other",
        }
    }

    /// Records that carry durable memory and should be reachable by recall.
    pub fn is_durable(self) -> bool {
        matches!(
            self,
            RecordKind::Decision | RecordKind::OpenLoop | RecordKind::Context
        )
    }
}

/// Frontmatter keys and values in file order (a repeated key keeps its
/// first place and last value).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Frontmatter {
    pub fields: Vec<(String, String)>,
    /// Byte range of the lines between the fences.
    #[serde(skip)]
    pub body_start: usize,
    #[serde(skip)]
    pub raw: Range<usize>,
}

impl Frontmatter {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A key's value when it is present and not empty.
    pub fn non_empty(&self, key: &str) -> Option<&str> {
        self.get(key).filter(|v| !v.is_empty())
    }
}

/// Read frontmatter as the reference lint does: the file must start with
/// `---` and a newline, and the block ends at the first newline-`---`-newline
/// anywhere; each `key: value` line counts, the value trimmed and one quote
/// taken off each end. `None` when there is no such block.
pub fn parse_frontmatter(text: &str) -> Option<Frontmatter> {
    if !text.starts_with("---\n") && !text.starts_with("---\r\n") {
        return None;
    }
    let (close_at, close_len) = find_closing_fence(text)?;
    let start = text.find('\n').map_or(0, |i| i + 1);
    let raw = if close_at >= start {
        start..close_at
    } else {
        start..start
    };
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in text[raw.clone()].split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let Some((key, value)) = field_line(line) else {
            continue;
        };
        // Assigning a string to `__proto__` does nothing in JavaScript.
        if key == "__proto__" {
            continue;
        }
        match fields.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => fields.push((key.to_owned(), value)),
        }
    }
    Some(Frontmatter {
        fields,
        body_start: close_at + close_len,
        raw,
    })
}

/// A YAML block list under an empty `key:` line (`key:` followed by
/// `  - value` lines). The reference lint reads `key: value` lines only,
/// so such a list is not among [`Frontmatter::fields`]; what names
/// records through it is read here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockList {
    /// The items, trimmed, one quote taken off each end.
    pub items: Vec<String>,
    /// Where the last item's text ends (before its line ending).
    pub end: usize,
    /// What precedes the `-` of the last item.
    pub indent: String,
}

/// The block list of `key` (the last `key:` line, when its value is
/// empty), if it has at least one item.
pub fn block_list(text: &str, fm: &Frontmatter, key: &str) -> Option<BlockList> {
    let raw = text.get(fm.raw.clone())?;
    let mut list: Option<BlockList> = None;
    let mut in_list = false;
    let mut offset = fm.raw.start;
    for line in raw.split('\n') {
        let bare = line.strip_suffix('\r').unwrap_or(line);
        let item = bare
            .trim_start_matches([' ', '\t'])
            .strip_prefix('-')
            .filter(|rest| rest.is_empty() || rest.starts_with([' ', '\t']));
        match (field_line(bare), item) {
            (Some((k, v)), _) if k == key => {
                in_list = v.is_empty();
                list = None;
            }
            (None, Some(rest)) if in_list => {
                let v = rest.trim();
                let v = v.strip_prefix(['"', '\'']).unwrap_or(v);
                let v = v.strip_suffix(['"', '\'']).unwrap_or(v);
                let l = list.get_or_insert_with(|| BlockList {
                    items: Vec::new(),
                    end: 0,
                    indent: String::new(),
                });
                if !v.is_empty() {
                    l.items.push(v.to_owned());
                }
                l.end = offset + bare.len();
                l.indent = bare[..bare.len() - bare.trim_start_matches([' ', '\t']).len()].into();
            }
            _ => in_list = false,
        }
        offset += line.len() + 1;
    }
    list.filter(|l| !l.items.is_empty())
}

/// The first match of `/\r?\n---\r?\n/`: its start and length.
fn find_closing_fence(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find("\n---") {
        let nl = from + i;
        let after = nl + 4;
        let tail = if bytes.get(after) == Some(&b'\n') {
            Some(1)
        } else if bytes.get(after) == Some(&b'\r') && bytes.get(after + 1) == Some(&b'\n') {
            Some(2)
        } else {
            None
        };
        if let Some(tail) = tail {
            let start = if nl > 0 && bytes[nl - 1] == b'\r' {
                nl - 1
            } else {
                nl
            };
            return Some((start, after + tail - start));
        }
        from = nl + 1;
    }
    None
}

/// `^([A-Za-z0-9_-]+):\s*(.*)$` on one line, then the value cleanup.
fn field_line(line: &str) -> Option<(&str, String)> {
    let key_len = line
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
        .count();
    if key_len == 0 || line.as_bytes().get(key_len) != Some(&b':') {
        return None;
    }
    let rest = line[key_len + 1..].trim_start_matches(is_js_space);
    // `.` stops at line terminators, so the rest must hold none.
    if rest.contains(['\r', '\n', '\u{2028}', '\u{2029}']) {
        return None;
    }
    let v = js_trim(rest);
    let v = v.strip_prefix(['"', '\'']).unwrap_or(v);
    let v = v.strip_suffix(['"', '\'']).unwrap_or(v);
    Some((&line[..key_len], v.to_owned()))
}

/// A Markdown link in a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    pub line: usize,
    pub text: String,
    /// As written.
    pub target: String,
    /// Project-relative path it points at, for relative links that stay
    /// inside the project.
    pub resolved: Option<String>,
    /// A URL or an in-page anchor: not a memory link.
    pub external: bool,
    /// Byte range of the whole link in the file.
    #[serde(skip)]
    pub span: Range<usize>,
}

/// The relative links of a record at `path` (project-relative).
pub fn links(path: &str, text: &str) -> Vec<Link> {
    let mut out = Vec::new();
    let mut open: Option<(Range<usize>, String, String)> = None;
    let parser = Parser::new_ext(text, Options::empty()).into_offset_iter();
    for (event, range) in parser {
        match event {
            Event::Start(Tag::Link { dest_url, .. }) => {
                open = Some((range, dest_url.to_string(), String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, label)) = open.as_mut() {
                    label.push_str(&t);
                }
            }
            Event::End(TagEnd::Link) => {
                if let Some((start, target, label)) = open.take() {
                    out.push(make_link(path, start, text, target, label));
                }
            }
            _ => {}
        }
    }
    out
}

fn make_link(path: &str, span: Range<usize>, text: &str, target: String, label: String) -> Link {
    let line = text[..span.start].matches('\n').count() + 1;
    let external = target.starts_with('#') || has_scheme(&target);
    let resolved = if external {
        None
    } else {
        let bare = target.split(['#', '?']).next().unwrap_or_default();
        let decoded = paths::percent_decode(bare);
        paths::resolve_from(paths::parent(path), &decoded)
    };
    Link {
        line,
        text: label,
        target,
        resolved,
        external,
        span,
    }
}

fn has_scheme(target: &str) -> bool {
    match target.find(':') {
        Some(i) => {
            let scheme = &target[..i];
            !scheme.is_empty()
                && scheme
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_read_like_the_reference() {
        let fm = parse_frontmatter(
            "---\nid: a\ntitle: \"Quoted'\nstatus:   active  \nbad line\nx-y_1: 'v'\nid: b\n---\nbody",
        )
        .unwrap();
        assert_eq!(fm.get("id"), Some("b"));
        assert_eq!(fm.get("title"), Some("Quoted"));
        assert_eq!(fm.get("status"), Some("active"));
        assert_eq!(fm.get("x-y_1"), Some("v"));
        assert_eq!(fm.fields.len(), 4);
        assert_eq!(
            &"---\nid: a\n---\nbody"[parse_frontmatter("---\nid: a\n---\nbody")
                .unwrap()
                .body_start..],
            "body"
        );
        // No newline after the closing fence: no frontmatter at all.
        assert!(parse_frontmatter("---\nid: a\n---").is_none());
        assert!(parse_frontmatter("\u{feff}---\nid: a\n---\n").is_none());
        // A carriage return inside a value hides the key.
        let fm = parse_frontmatter("---\nid: a\rb\nk:\r\n---\n").unwrap();
        assert_eq!(fm.get("id"), None);
        assert_eq!(fm.get("k"), Some(""));
        // An empty block right after the opening fence.
        assert!(
            parse_frontmatter("---\n---\nid: x\n")
                .unwrap()
                .fields
                .is_empty()
        );
    }

    #[test]
    fn links_resolve_relative_to_the_record() {
        let l = links(
            "memory/decisions/a.md",
            "x\n- [Summary](../summary.md)\n- [web](https://e.org) [top](#t) [out](../../../etc/passwd) [b](b%20c.md#h)\n",
        );
        assert_eq!(l.len(), 5);
        assert_eq!(l[0].resolved.as_deref(), Some("memory/summary.md"));
        assert_eq!(l[0].line, 2);
        assert_eq!(l[0].text, "Summary");
        assert!(l[1].external && l[2].external);
        assert_eq!(l[3].resolved, None);
        assert_eq!(l[4].resolved.as_deref(), Some("memory/decisions/b c.md"));
    }
}
