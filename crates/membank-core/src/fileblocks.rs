//! Splitting an LLM reply into `### FILE:` blocks (spec §9).
//!
//! The marker regex is the spec's, unchanged. Around it the parser applies
//! only the fence rules §9 asks for, and reports every removal as a warning
//! so nothing disappears silently:
//! - a body that opens with a code fence loses exactly that fence and its
//!   matching closing fence; text after the closing fence is dropped;
//! - a reply wrapped as a whole in one fence loses the stray closing fence
//!   that would otherwise end the last file; likewise a fence opened before
//!   any marker (each block wrapped with its marker, one after another)
//!   loses its closing fence at the end of that block, and a fence opened
//!   at the end of a block to wrap the next marker is not part of the file.
//!
//! Line endings are folded to LF and blank lines before the body are dropped
//! (frontmatter must start on the first line, §4); a block ends with exactly
//! one newline. Nothing else is changed.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

/// The §9 marker, exactly as the spec writes it (multi-line mode).
const MARKER: &str = r"(?m)^\s*#{2,4}\s*FILE\s*:\s*(?P<path>.+?)\s*$";

static MARKER_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(MARKER).expect("the spec marker regex compiles"));

/// One file block found in a reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileBlock {
    /// The path as the marker wrote it (trimmed, not yet validated).
    pub path_raw: String,
    /// 1-based line of the reply the marker's `#` characters are on.
    pub marker_line: usize,
    /// The file content to write.
    pub content: String,
    /// What was removed from or looked odd in this block.
    pub warnings: Vec<String>,
}

/// A reply split into blocks.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct ParsedReply {
    /// Text before the first marker (the model's explanation).
    pub preamble: String,
    pub blocks: Vec<FileBlock>,
    /// Warnings about the reply as a whole.
    pub warnings: Vec<String>,
}

/// A fence line: its character, run length and whether it has an info string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fence {
    ch: char,
    len: usize,
    bare: bool,
}

fn fence_of(line: &str) -> Option<Fence> {
    let line = line.trim_end_matches(['\n', '\r']);
    let t = line.trim_start_matches(' ');
    // Four or more spaces of indentation make an indented code line, not a fence.
    if line.len() - t.len() > 3 {
        return None;
    }
    let ch = t.chars().next()?;
    if ch != '`' && ch != '~' {
        return None;
    }
    let len = t.chars().take_while(|&c| c == ch).count();
    if len < 3 {
        return None;
    }
    let info = t[len * ch.len_utf8()..].trim();
    // A backtick fence's info string cannot contain backticks (CommonMark).
    if ch == '`' && info.contains('`') {
        return None;
    }
    Some(Fence {
        ch,
        len,
        bare: info.is_empty(),
    })
}

/// Parse a reply into its preamble and file blocks. Never fails: odd input
/// yields warnings, not errors.
pub fn parse_reply(reply: &str) -> ParsedReply {
    let text = reply.replace("\r\n", "\n");
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);

    // Each marker covers whole lines: from the line holding its first `#`
    // to the line holding the end of the path (`\s` may span newlines).
    let mut markers: Vec<(usize, usize, usize, String)> = Vec::new();
    for caps in MARKER_RE.captures_iter(text) {
        let whole = caps.get(0).expect("group 0 always exists");
        let path = caps.name("path").expect("the path group is not optional");
        let hash = whole.start() + text[whole.start()..].find('#').unwrap_or(0);
        let line_start = text[..hash].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[path.end()..]
            .find('\n')
            .map_or(text.len(), |i| path.end() + i + 1);
        markers.push((line_start, line_end, hash, path.as_str().to_owned()));
    }

    let mut parsed = ParsedReply {
        preamble: text[..markers.first().map_or(text.len(), |m| m.0)].to_owned(),
        ..ParsedReply::default()
    };
    // A fence left open before a marker wraps the marker with its block:
    // the whole reply, or each block in turn (```markdown, marker, body,
    // ```, then the next ```markdown). Its closing fence is not the file's.
    let mut wrapper_open = ends_inside_fence(&parsed.preamble);
    let mut whole_reply_wrapped = wrapper_open;

    let lines = crate::text::LineIndex::new(text);
    for (i, (_, body_start, hash, path_raw)) in markers.iter().enumerate() {
        let body_end = markers.get(i + 1).map_or(text.len(), |m| m.0);
        let is_last = i + 1 == markers.len();
        let marker_line = lines.line_of(*hash);
        let mut block = FileBlock {
            path_raw: path_raw.clone(),
            marker_line,
            content: String::new(),
            warnings: Vec::new(),
        };
        let body = &text[*body_start..body_end.max(*body_start)];
        let (body, opens_next) = match is_last {
            true => (body, false),
            false => without_trailing_opening_fence(body, wrapper_open, &block),
        };
        let (content, wrapper_stripped) = block_content(body, wrapper_open, &mut block);
        block.content = content;
        if wrapper_stripped {
            parsed.warnings.push(if is_last && whole_reply_wrapped {
                format!(
                    "the whole reply was wrapped in a code fence; its closing fence after the last block ({}, line {}) was removed",
                    block.path_raw, block.marker_line
                )
            } else {
                format!(
                    "{} (line {}): the code fence opened before its marker closes after it; that closing fence was removed",
                    block.path_raw, block.marker_line
                )
            });
        }
        whole_reply_wrapped &= !wrapper_stripped && !opens_next;
        wrapper_open = opens_next || (wrapper_open && !wrapper_stripped);
        parsed.blocks.push(block);
    }
    parsed
}

/// `body` without a last line that opens a code fence left open to the
/// next marker, and whether there was one: that fence wraps the next block.
/// When a wrapper is open over this block, the line is an opener only if
/// the wrapper's own closing fence comes just before it.
fn without_trailing_opening_fence<'a>(
    body: &'a str,
    wrapper_open: bool,
    block: &FileBlock,
) -> (&'a str, bool) {
    let trimmed = body.trim_end();
    let start = trimmed.rfind('\n').map_or(0, |i| i + 1);
    if fence_of(&trimmed[start..]).is_none() {
        return (body, false);
    }
    let before = &body[..start];
    let opens = match wrapper_open {
        true => block_content(before, true, &mut block.clone()).1,
        false => ends_inside_fence(body) && !ends_inside_fence(before),
    };
    match opens {
        true => (before, true),
        false => (body, false),
    }
}

/// True when `text` leaves a code fence open at its end.
fn ends_inside_fence(text: &str) -> bool {
    let mut open: Option<Fence> = None;
    for line in text.split_inclusive('\n') {
        if let Some(f) = fence_of(line) {
            open = match open {
                None => Some(f),
                Some(o) if f.bare && f.ch == o.ch && f.len >= o.len => None,
                keep => keep,
            };
        }
    }
    open.is_some()
}

/// The content of one block body, and whether a reply-wrapping closing fence
/// was removed from it.
fn block_content(body: &str, strip_wrapper: bool, block: &mut FileBlock) -> (String, bool) {
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let Some(first) = first else {
        return (String::new(), false);
    };
    let lines = &lines[first..];

    let Some(outer) = fence_of(lines[0]) else {
        return unfenced_content(lines, strip_wrapper);
    };
    let inner = &lines[1..];
    // In a reply-wide wrapper, the last line may be the wrapper's own closing
    // fence; prefer that reading when it leaves a cleanly closed block.
    if strip_wrapper {
        let last = inner.iter().rposition(|l| !l.trim().is_empty());
        if let Some(last) = last.filter(|&i| fence_of(inner[i]).is_some_and(|f| f.bare)) {
            let before = &inner[..last];
            if let Some(close) = closing_fence(before, outer)
                && before[close + 1..].iter().all(|l| l.trim().is_empty())
            {
                return (finish(&before[..close].concat()), true);
            }
        }
    }
    let Some(close) = closing_fence(inner, outer) else {
        block.warnings.push(format!(
            "{} (line {}): the opening code fence is never closed; removed only the opening fence",
            block.path_raw, block.marker_line
        ));
        return (finish(&inner.concat()), false);
    };
    let content = finish(&inner[..close].concat());
    let trailing: Vec<&str> = inner[close + 1..]
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if trailing.is_empty() {
        return (content, false);
    }
    let dropped: String = trailing.concat();
    block.warnings.push(format!(
        "{} (line {}): discarded {} line(s) after the file's closing code fence: {}",
        block.path_raw,
        block.marker_line,
        trailing.len(),
        preview(&dropped)
    ));
    (content, false)
}

/// Content of a body that does not open with a fence. Only a stray closing
/// fence of a reply-wide wrapper is removed.
fn unfenced_content(lines: &[&str], strip_wrapper: bool) -> (String, bool) {
    if strip_wrapper {
        let last = lines.iter().rposition(|l| !l.trim().is_empty());
        if let Some(last) = last {
            let is_bare = fence_of(lines[last]).is_some_and(|f| f.bare);
            if is_bare && !ends_inside_fence(&lines[..last].concat()) {
                return (finish(&lines[..last].concat()), true);
            }
        }
    }
    (finish(&lines.concat()), false)
}

/// Index (in `inner`) of the fence that closes `outer`.
///
/// Fences with an info string open nested code blocks. Bare fences that
/// could close the outer one are ambiguous: with an odd count the inner ones
/// pair up as code blocks and the last closes; with an even count the first
/// closes (what a CommonMark reader would see) and the rest is trailing text.
fn closing_fence(inner: &[&str], outer: Fence) -> Option<usize> {
    let mut nested: Option<Fence> = None;
    let mut candidates = Vec::new();
    for (i, line) in inner.iter().enumerate() {
        let Some(f) = fence_of(line) else { continue };
        match nested {
            Some(n) => {
                if f.bare && f.ch == n.ch && f.len >= n.len {
                    nested = None;
                }
            }
            None if f.bare && f.ch == outer.ch && f.len >= outer.len => candidates.push(i),
            None => nested = Some(f),
        }
    }
    match candidates.len() {
        0 => None,
        n if n % 2 == 1 => candidates.last().copied(),
        _ => candidates.first().copied(),
    }
}

/// Trailing blank lines become exactly one final newline.
fn finish(s: &str) -> String {
    let lines: Vec<&str> = s.split_inclusive('\n').collect();
    let Some(last) = lines.iter().rposition(|l| !l.trim().is_empty()) else {
        return String::new();
    };
    let mut out = lines[..=last].concat();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

fn preview(s: &str) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = one_line.chars().take(60).collect();
    if one_line.chars().count() > 60 {
        out.push('…');
    }
    format!("\"{out}\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn one(reply: &str) -> FileBlock {
        let p = parse_reply(reply);
        assert_eq!(p.blocks.len(), 1, "{p:#?}");
        p.blocks.into_iter().next().unwrap()
    }

    #[test]
    fn spec_example_gives_two_blocks_and_a_preamble() {
        let reply = "Here's my analysis...\n### FILE: 01_CLIENTS/Acme Corporation.md\n---\nclient: \"Acme Corporation\"\n---\n# Acme Corporation\n...\n### FILE: 02_TERMINOLOGY/compliance → naleving.md\n---\nterm_source: \"compliance\"\n---\n# compliance → naleving\n";
        let p = parse_reply(reply);
        assert_eq!(p.preamble, "Here's my analysis...\n");
        assert_eq!(p.blocks.len(), 2);
        assert_eq!(p.blocks[0].path_raw, "01_CLIENTS/Acme Corporation.md");
        assert_eq!(p.blocks[0].marker_line, 2);
        assert_eq!(
            p.blocks[0].content,
            "---\nclient: \"Acme Corporation\"\n---\n# Acme Corporation\n...\n"
        );
        assert_eq!(
            p.blocks[1].path_raw,
            "02_TERMINOLOGY/compliance → naleving.md"
        );
        assert_eq!(p.blocks[1].marker_line, 8);
        assert!(p.warnings.is_empty());
        assert!(p.blocks.iter().all(|b| b.warnings.is_empty()));
    }

    #[test]
    fn marker_variants_follow_the_spec_regex() {
        for m in [
            "## FILE: a.md",
            "#### FILE: a.md",
            "  ###FILE:a.md  ",
            "### FILE :  a.md",
        ] {
            let b = one(&format!("{m}\nbody\n"));
            assert_eq!(b.path_raw, "a.md", "{m}");
            assert_eq!(b.content, "body\n");
        }
        for not in [
            "# FILE: a.md",
            "##### FILE: a.md",
            "### File: a.md",
            "### file: a.md",
            "text ### FILE: a.md",
        ] {
            assert!(
                parse_reply(&format!("{not}\nbody\n")).blocks.is_empty(),
                "{not}"
            );
        }
    }

    #[test]
    fn marker_line_counts_from_the_hashes_not_from_blank_lines() {
        let p = parse_reply("intro\n\n\n### FILE: a.md\nx\n");
        assert_eq!(p.blocks[0].marker_line, 4);
        assert_eq!(p.preamble, "intro\n\n\n");
    }

    #[test]
    fn crlf_replies_are_folded() {
        let b = one("### FILE: a.md\r\n---\r\nk: v\r\n---\r\nbody\r\n");
        assert_eq!(b.path_raw, "a.md");
        assert_eq!(b.content, "---\nk: v\n---\nbody\n");
    }

    #[test]
    fn leading_blank_lines_and_trailing_blank_lines_are_normalised() {
        let p = parse_reply("### FILE: a.md\n\n\n---\nk: v\n---\n\n\n### FILE: b.md\nb\n");
        assert_eq!(p.blocks[0].content, "---\nk: v\n---\n");
        assert_eq!(p.blocks[1].content, "b\n");
    }

    #[test]
    fn one_outer_fence_is_stripped_keeping_inner_code_blocks() {
        let b = one(
            "### FILE: a.md\n```markdown\n---\nk: v\n---\n# T\n```python\nx = 1\n```\nend\n```\n",
        );
        assert_eq!(
            b.content,
            "---\nk: v\n---\n# T\n```python\nx = 1\n```\nend\n"
        );
        assert!(b.warnings.is_empty());
    }

    #[test]
    fn tilde_fences_and_info_strings_are_stripped() {
        let b = one("### FILE: a.md\n\n~~~~ md title=\"x\"\nbody\n~~~~\n");
        assert_eq!(b.content, "body\n");
    }

    #[test]
    fn only_one_fence_level_is_stripped() {
        let b = one("### FILE: a.md\n````\n```\nbody\n```\n````\n");
        assert_eq!(b.content, "```\nbody\n```\n");
    }

    #[test]
    fn bare_inner_code_blocks_pair_up() {
        let b = one("### FILE: a.md\n```markdown\n# T\n```\ncode\n```\nafter\n```\n");
        assert_eq!(b.content, "# T\n```\ncode\n```\nafter\n");
    }

    #[test]
    fn text_after_the_closing_fence_is_dropped_with_a_warning() {
        let p = parse_reply(
            "### FILE: 01_CLIENTS/a.md\n```md\nbody\n```\nI hope this helps!\n### FILE: b.md\nb\n",
        );
        assert_eq!(p.blocks[0].content, "body\n");
        assert_eq!(p.blocks[0].warnings.len(), 1);
        assert!(p.blocks[0].warnings[0].contains("01_CLIENTS/a.md"));
        assert!(p.blocks[0].warnings[0].contains("I hope this helps!"));
        assert_eq!(p.blocks[1].content, "b\n");
    }

    #[test]
    fn unclosed_fence_keeps_the_rest_with_a_warning() {
        let b = one("### FILE: a.md\n```markdown\nbody\nmore\n");
        assert_eq!(b.content, "body\nmore\n");
        assert_eq!(b.warnings.len(), 1);
    }

    #[test]
    fn unfenced_body_keeps_fences_inside() {
        let b = one("### FILE: a.md\n# T\n```\ncode\n```\n");
        assert_eq!(b.content, "# T\n```\ncode\n```\n");
        assert!(b.warnings.is_empty());
    }

    #[test]
    fn unfenced_body_keeps_a_stray_fence_when_the_reply_was_not_wrapped() {
        let b = one("### FILE: a.md\n# T\n```\n");
        assert_eq!(b.content, "# T\n```\n");
    }

    #[test]
    fn reply_wrapped_in_one_fence_loses_its_closing_fence() {
        let p = parse_reply(
            "```markdown\n### FILE: a.md\na\n### FILE: b.md\n# B\n```\ncode\n```\nend\n```\n",
        );
        assert_eq!(p.blocks[0].content, "a\n");
        assert_eq!(p.blocks[1].content, "# B\n```\ncode\n```\nend\n");
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(p.warnings[0].contains("b.md"));
    }

    #[test]
    fn wrapped_reply_with_fenced_blocks() {
        let p = parse_reply(
            "````\n### FILE: a.md\n```md\na\n```\n### FILE: b.md\n```md\nb\n```\n````\n",
        );
        assert_eq!(p.blocks[0].content, "a\n");
        assert_eq!(p.blocks[1].content, "b\n");
        assert!(p.blocks.iter().all(|b| b.warnings.is_empty()), "{p:#?}");
        assert_eq!(p.warnings.len(), 1);
    }

    #[test]
    fn wrapped_reply_whose_last_block_has_bare_code_blocks() {
        let p = parse_reply("```\n### FILE: a.md\n```markdown\n# A\n```\ncode\n```\n```\n```\n");
        assert_eq!(p.blocks[0].content, "# A\n```\ncode\n```\n");
        assert!(p.blocks[0].warnings.is_empty(), "{p:#?}");
        assert_eq!(p.warnings.len(), 1);
    }

    #[test]
    fn a_fence_opened_before_the_first_marker_and_closed_in_its_block_is_removed() {
        let reply = "Here you go.\n```markdown\n### FILE: 02_TERMINOLOGY/a.md\n---\nk: v\n---\n# a\n```\n\
                     ### FILE: 01_CLIENTS/B.md\n```markdown\n---\nclient: B\n---\n# B\n```\n";
        let parsed = parse_reply(reply);
        let contents: Vec<&str> = parsed.blocks.iter().map(|b| b.content.as_str()).collect();
        assert_eq!(
            contents,
            ["---\nk: v\n---\n# a\n", "---\nclient: B\n---\n# B\n"]
        );
        assert!(
            parsed.warnings[0].contains("02_TERMINOLOGY/a.md (line 3)"),
            "{:?}",
            parsed.warnings
        );
    }

    #[test]
    fn each_block_wrapped_in_its_own_fence_around_the_marker_loses_only_that_fence() {
        let reply = "```markdown\n### FILE: 01_CLIENTS/A.md\n# A\n\n```ts\nlet a = 1;\n```\n```\n\n\
                     ```markdown\n### FILE: 01_CLIENTS/B.md\n# B\n```\n";
        let parsed = parse_reply(reply);
        let contents: Vec<&str> = parsed.blocks.iter().map(|b| b.content.as_str()).collect();
        assert_eq!(contents, ["# A\n\n```ts\nlet a = 1;\n```\n", "# B\n"]);
        assert_eq!(parsed.warnings.len(), 2, "{:?}", parsed.warnings);
    }

    #[test]
    fn path_may_follow_on_the_next_line_as_the_spec_regex_allows() {
        let b = one("### FILE:\n01_CLIENTS/a.md\nbody\n");
        assert_eq!(b.path_raw, "01_CLIENTS/a.md");
        assert_eq!(b.marker_line, 1);
        assert_eq!(b.content, "body\n");
    }

    #[test]
    fn empty_and_marker_only_replies() {
        assert_eq!(parse_reply("").blocks.len(), 0);
        assert_eq!(parse_reply("just prose").preamble, "just prose");
        let b = one("### FILE: a.md");
        assert_eq!(b.content, "");
    }

    proptest! {
        #[test]
        fn hostile_replies_never_panic(parts in proptest::collection::vec(
            prop_oneof![
                proptest::sample::select(vec![
                    "### FILE: 01_CLIENTS/a.md\n", "### FILE: 01_CLIENTS/a.md\r\n", "### FILE:", "FILE: ",
                    "```markdown\n", "```", "~~~", "\n", "\r\n", "\r", "\u{202E}", "\u{2066}",
                    "\u{200B}", "\u{FEFF}", "\u{0}", "\u{1b}[2J", "\u{85}", "\u{2028}", "漢字",
                    "한", "e\u{301}", "🙂", " ", "\t", "#",
                ])
                .prop_map(str::to_owned),
                any::<String>(),
            ],
            0..24,
        )) {
            let reply = parts.concat();
            let p = parse_reply(&reply);
            for b in &p.blocks {
                prop_assert!(!b.path_raw.contains('\n'), "{:?}", b.path_raw);
                prop_assert!(b.content.is_empty() || b.content.ends_with('\n'), "{:?}", b.content);
            }
        }

        #[test]
        fn marker_like_text_never_panics(parts in proptest::collection::vec(
            prop_oneof![
                Just("### FILE: a.md\n".to_owned()),
                Just("##FILE:\n".to_owned()),
                Just("```\n".to_owned()),
                Just("~~~md\n".to_owned()),
                Just("```python\n".to_owned()),
                Just("\n".to_owned()),
                Just("\r\n".to_owned()),
                Just(" \t".to_owned()),
                Just("é→".to_owned()),
                "[a-z#`~ :\n]{0,12}",
            ], 0..20))
        {
            let reply = parts.concat();
            let p = parse_reply(&reply);
            for b in &p.blocks {
                prop_assert!(!b.path_raw.contains('\n'));
                prop_assert!(b.content.is_empty() || b.content.ends_with('\n'));
            }
        }
    }
}
