//! The links of one line edited at their own bytes, each on its own: a
//! `[[Legal]]` in a code span or a `%% comment %%` is text, not a link,
//! and is never what an edit of the link after it changes; a link that
//! cannot be fixed leaves the others of its line to be fixed.

use std::ops::Range;

use crate::article::Link;
use crate::health::Finding;

/// The links of one line fixed: the edited text and its note when any
/// was, and each link left with why (as written, since each finding is
/// about one link).
pub(super) struct LineLinks {
    pub edited: Option<(String, String)>,
    pub left: Vec<(String, String)>,
}

impl LineLinks {
    /// Why the link `f` is about was left, if it was: the link is the one
    /// its message starts with. A finding naming none of the line's links
    /// shares the line's first reason when nothing on it was fixed.
    pub fn left_for(&self, f: &Finding) -> Option<&str> {
        let message = f.message();
        match self
            .left
            .iter()
            .find(|(written, _)| message.starts_with(written.as_str()))
        {
            Some((_, why)) => Some(why),
            None if self.edited.is_none() => self.left.first().map(|(_, why)| why.as_str()),
            None => None,
        }
    }
}

/// One link's edit: the bytes of its line it replaces, and with what.
pub(super) struct Replacement {
    pub range: Range<usize>,
    pub new: String,
}

/// `line` with each replacement made (ranges of the line as it was, not
/// overlapping).
pub(super) fn replaced(line: &str, mut edits: Vec<Replacement>) -> String {
    crate::shared_sort::sort_by_key(&mut edits, |e| std::cmp::Reverse(e.range.start));
    let mut out = line.to_owned();
    for e in edits {
        out.replace_range(e.range, &e.new);
    }
    out
}

/// Where each body link of `links` (those of the article on 1-based file
/// `line`, in the order the article lists them) is written in that line
/// of `text`: the byte range of [`Link::written`], as the Markdown reading
/// finds it. `None` for a frontmatter value's link, and for a link no
/// longer where the article was read to have it (the file changed).
pub(super) fn body_ranges(
    text: &str,
    line: usize,
    links: &[Link<'_>],
) -> Vec<Option<Range<usize>>> {
    let located = crate::frontmatter::locate(text);
    let body_start = located.body_start;
    let read = &located.text;
    let mut starts = crate::text::LineCounter::new(read);
    let mut found = Vec::new();
    for l in crate::wikilink::body_links(&read[body_start..]) {
        let at = body_start + l.span.start;
        let read_line = starts.line_of(at);
        let file_line =
            crate::article::file_line(read_line, located.line_shift, located.fence_close_line);
        if file_line != line {
            continue;
        }
        let line_start = read[..at].rfind('\n').map_or(0, |i| i + 1);
        // An embed's span starts after its `!`.
        let start = at - line_start;
        let start = match l.kind {
            crate::wikilink::LinkKind::Embed => start.saturating_sub(1),
            _ => start,
        };
        found.push(start..body_start + l.span.end - line_start);
    }
    let line_text = super::edit::line_text(text, line).unwrap_or_default();
    let mut body = found.into_iter();
    links
        .iter()
        .map(|link| {
            if link.in_frontmatter {
                return None;
            }
            let range = body.next()?;
            (line_text.get(range.clone()) == Some(link.written().as_str())).then_some(range)
        })
        .collect()
}

/// The text a reader sees of `[[name#heading]]`, as Obsidian shows it
/// (`name > heading`), for a link given a path and so needing shown text.
pub(super) fn shown_name(name: &str, heading: &str) -> String {
    let mut shown = name.trim().to_owned();
    for part in heading.split('#').filter(|p| !p.trim().is_empty()) {
        shown.push_str(" > ");
        shown.push_str(part.trim());
    }
    shown
}
