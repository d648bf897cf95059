//! The links of one note rewritten so each opens, after the rename, the
//! file it opened before: only the name part of a link changes; alias,
//! heading, block, the `!` of an embed and the escape of a table pipe stay.

use std::ops::Range;

use super::{Files, Meaning, read, utf8};
use crate::article::Article;
use crate::bank::Bank;
use crate::wikilink::{self, LinkKind, fold};

/// A note's text with its links rewritten, what changed in words, and how
/// many links changed.
pub(super) struct Rewrite {
    pub text: String,
    pub notes: Vec<String>,
    pub count: usize,
}

/// Does the link `target`, written in the note at `old_src` and read after
/// the rename from `new_src`, still open what it opened (and no more
/// ambiguously)? A link that led nowhere is left alone.
pub(super) fn keeps_meaning(files: &Files, target: &str, old_src: &str, new_src: &str) -> bool {
    match files.before(target, old_src) {
        None => true,
        Some(before) => {
            files
                .after(target, new_src)
                .is_some_and(|after| kept(before, after))
                && respelled(files, before.file, target).is_none()
        }
    }
}

/// A link that still opens its file (names match whatever their case)
/// but spells it as it was before a rename that changed only the case:
/// the name in the new spelling, as Obsidian rewrites it, so the text
/// follows the rename. A link spelled otherwise is the author's and stays.
fn respelled(files: &Files, file: usize, written: &str) -> Option<String> {
    let (old, new) = (&files.old[file], &files.new[file]);
    if old == new {
        return None;
    }
    // A path's leading `/`, `./` and `../` steps are kept as written: the
    // link already opens this file, and what follows them names its last
    // folders and its name, which are what a case-only rename respells.
    // (A Markdown link is a path: on a file system that tells case apart,
    // the old spelling no longer opens the file.)
    let (steps, written) = leading_steps(written.trim());
    let keep_md = fold(written).ends_with(".md");
    let depth = written.split('/').count();
    let tail = |path: &str| {
        let shown = match path.strip_suffix(".md") {
            Some(stem) if !keep_md => stem,
            _ => path,
        };
        let parts: Vec<&str> = shown.split('/').collect();
        (depth <= parts.len()).then(|| parts[parts.len() - depth..].join("/"))
    };
    let (before, after) = (tail(old)?, tail(new)?);
    (written == before && after != before && fold(&after) == fold(&before))
        .then(|| format!("{steps}{after}"))
}

/// `written` split after its leading `/`, `./` and `../` steps.
fn leading_steps(written: &str) -> (&str, &str) {
    let mut rest = written;
    loop {
        let next = rest
            .strip_prefix('/')
            .or_else(|| rest.strip_prefix("./"))
            .or_else(|| rest.strip_prefix("../"));
        match next {
            Some(after) => rest = after,
            None => break,
        }
    }
    written.split_at(written.len() - rest.len())
}

fn kept(before: Meaning, after: Meaning) -> bool {
    after.file == before.file && (!after.ambiguous || before.ambiguous)
}

/// The note's text with the links that would change meaning rewritten;
/// `None` when none would.
pub(super) fn rewrite_article(
    bank: &Bank,
    article: &Article,
    new_src: &str,
    files: &Files,
) -> Result<Option<Rewrite>, String> {
    let old_src = &article.rel_path;
    if article
        .links
        .iter()
        .all(|l| keeps_meaning(files, l.target(), old_src, new_src))
    {
        return Ok(None);
    }
    let bytes = read(bank, old_src)?;
    let text = utf8(old_src, &bytes)?;
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut notes = Vec::new();
    for (link, whole) in occurrences_in_article(text, article) {
        let Some(before) = files.before(&link.target, old_src) else {
            continue;
        };
        let respelling = respelled(files, before.file, &link.target);
        if respelling.is_none()
            && files
                .after(&link.target, new_src)
                .is_some_and(|after| kept(before, after))
        {
            continue;
        }
        let line = crate::text::line_of(text, whole.start);
        let unwritable = || {
            let written = &text[whole.clone()];
            // A reference-style link's destination is in its definition,
            // which may serve other links too: it is named as written.
            let shown = if link.kind == LinkKind::Markdown && !is_inline(written) {
                format!("the reference-style link {written} (to {})", link.raw)
            } else {
                wikilink::WikiLink::written(&link.raw, link.kind)
            };
            format!(
                "{old_src}:{line}: {shown} cannot be rewritten to open {} still; nothing is moved",
                files.new[before.file]
            )
        };
        let name = name_range(text, &whole, link.kind).ok_or_else(unwritable)?;
        let markdown = link.kind == LinkKind::Markdown;
        // A destination the author wrote in `<…>` stays so, its spaces
        // and brackets as they are.
        let angled = markdown && text[..name.start].ends_with('<');
        let new_name = respelling
            .or_else(|| shortest_target(files, before.file, &link.target, new_src))
            .map(|t| match (markdown, angled) {
                (true, true) => encode_angled(&t),
                (true, false) => encode(&t),
                _ => t,
            })
            .ok_or_else(unwritable)?;
        let mut new_whole = text[whole.clone()].to_owned();
        new_whole.replace_range(name.start - whole.start..name.end - whole.start, &new_name);
        notes.push(format!("line {line}: {} becomes {new_whole}", &text[whole]));
        edits.push((name, new_name));
    }
    if edits.is_empty() {
        return Ok(None);
    }
    let count = edits.len();
    let mut out = text.to_owned();
    crate::shared_sort::sort_by_key(&mut edits, |(r, _)| std::cmp::Reverse(r.start));
    for (range, new) in edits {
        out.replace_range(range, &new);
    }
    Ok(Some(Rewrite {
        text: out,
        notes,
        count,
    }))
}

/// Where the frontmatter's YAML is in a note as it is on disk (`---`
/// lines, either line ending), and where its body starts.
pub(crate) fn frontmatter(text: &str) -> (Option<Range<usize>>, usize) {
    let first = text.split_inclusive('\n').next().unwrap_or("");
    if first.trim_end_matches(['\n', '\r']) != "---" || !first.ends_with('\n') {
        return (None, 0);
    }
    let mut at = first.len();
    for line in text[first.len()..].split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" || bare == "..." {
            return (Some(first.len()..at), at + line.len());
        }
        at += line.len();
    }
    (None, 0)
}

/// [`occurrences`] of the article's own text: inside the code fence a
/// note wrapped in one (§4.3) has, which the bank reads through, so its
/// links are not read as code.
fn occurrences_in_article(
    text: &str,
    article: &Article,
) -> Vec<(wikilink::WikiLink, Range<usize>)> {
    let line_start = |line: usize| -> usize {
        // Byte offset where 1-based `line` starts (the end when past it).
        text.split_inclusive('\n')
            .take(line.saturating_sub(1))
            .map(str::len)
            .sum()
    };
    let shift = article.encoding.line_shift();
    if shift == 0 {
        return occurrences(text);
    }
    let start = line_start(shift + 1);
    let end = article
        .encoding
        .fence_close_line()
        .map_or(text.len(), line_start)
        .max(start);
    occurrences(&text[start..end])
        .into_iter()
        .map(|(link, whole)| (link, whole.start + start..whole.end + start))
        .collect()
}

/// Every link of the note with the byte range of the whole link: those in
/// the frontmatter's values, then those of the body.
fn occurrences(text: &str) -> Vec<(wikilink::WikiLink, Range<usize>)> {
    let (yaml, body_start) = frontmatter(text);
    let mut found = Vec::new();
    if let Some(yaml) = yaml {
        for l in wikilink::extract_plain(&text[yaml.clone()]) {
            let whole = yaml.start + l.span.start..yaml.start + l.span.end;
            found.push((l, whole));
        }
    }
    for l in wikilink::extract_markdown(&text[body_start..]) {
        let whole = body_start + l.span.start..body_start + l.span.end;
        found.push((l, whole));
    }
    found
}

/// The bytes of the file name inside a link: between `[[` and the first
/// `#`, `|` or `\|` for a wikilink, trimmed; the destination's path for a
/// Markdown link (`<…>` and `#`/`?` parts left out).
pub(crate) fn name_range(text: &str, whole: &Range<usize>, kind: LinkKind) -> Option<Range<usize>> {
    let s = &text[whole.clone()];
    let (start, end) = match kind {
        LinkKind::Wiki | LinkKind::Embed => {
            let open = s.find("[[")? + 2;
            let inner_end = s.len().checked_sub(2)?;
            let inner = &s[open..inner_end];
            let mut cut = inner.find(['#', '|']).unwrap_or(inner.len());
            if inner[cut..].starts_with('|') && inner[..cut].ends_with('\\') {
                cut -= 1;
            }
            let name = &inner[..cut];
            let lead = name.len() - name.trim_start().len();
            (open + lead, open + name.trim_end().len())
        }
        LinkKind::Markdown => {
            // A reference-style link (`[text][label]`) holds no destination;
            // an image in its text (`[![i](a.png)][label]`) has one that is
            // not the link's.
            if !is_inline(s) {
                return None;
            }
            let open = s.rfind("](")? + 2;
            let rest = &s[open..];
            let lead = rest.len() - rest.trim_start().len();
            let (dest_start, dest) = match rest[lead..].strip_prefix('<') {
                Some(inner) => (open + lead + 1, &inner[..inner.find('>')?]),
                None => {
                    let d = &rest[lead..];
                    let end = d
                        .find(char::is_whitespace)
                        .unwrap_or(d.strip_suffix(')')?.len());
                    (open + lead, &d[..end])
                }
            };
            let path_end = dest.find(['#', '?']).unwrap_or(dest.len());
            (dest_start, dest_start + path_end)
        }
    };
    (start < end).then(|| whole.start + start..whole.start + end)
}

/// Is the Markdown link written `whole` an inline one, `[text](dest)`,
/// its destination in its last `( )`, rather than a reference-style one?
fn is_inline(whole: &str) -> bool {
    whole.ends_with(')')
}

/// The shortest way to write a link from `new_src` that opens `file` and
/// no other, in the style of `written`: a `./` or `../` link stays
/// relative, a path keeps at least as many folders as it had, `.md` stays
/// when it was written.
fn shortest_target(files: &Files, file: usize, written: &str, new_src: &str) -> Option<String> {
    let path = &files.new[file];
    let written = written.trim();
    // The extension as the author wrote it (`.MD` stays `.MD`), or none.
    let ext_at = |p: &str| {
        let at = p.len().checked_sub(3)?;
        (p.is_char_boundary(at) && p[at..].eq_ignore_ascii_case(".md")).then_some(at)
    };
    let stem = ext_at(path).map_or(path.as_str(), |at| &path[..at]);
    let shown = match ext_at(written) {
        Some(at) => format!("{stem}{}", &written[at..]),
        None => stem.to_owned(),
    };
    let shown = shown.as_str();
    let opens_only = |candidate: &str| {
        files
            .after(candidate, new_src)
            .is_some_and(|m| m.file == file && !m.ambiguous)
    };
    if written.starts_with("./") || written.starts_with("../") {
        let relative = relative_to(new_src, shown);
        return opens_only(&relative).then_some(relative);
    }
    // From the bank's root it stays so: without its `/`, a Markdown
    // viewer reads it from the note's own folder.
    if written.starts_with('/') {
        let rooted = format!("/{shown}");
        return opens_only(&rooted).then_some(rooted);
    }
    let segments: Vec<&str> = shown.split('/').collect();
    let depth = written.trim_start_matches('/').split('/').count();
    // A link that spelled the whole path from the bank's root spells the
    // whole new one: its folders are kept, not cut to the fewest needed.
    let depth = if depth >= files.old[file].split('/').count() {
        segments.len()
    } else {
        depth
    };
    (depth.min(segments.len())..=segments.len())
        .map(|d| segments[segments.len() - d..].join("/"))
        .find(|candidate| opens_only(candidate))
}

/// `target` as a relative path from the folder of the note `from`.
fn relative_to(from: &str, target: &str) -> String {
    let mut from_dir: Vec<&str> = from.split('/').collect();
    from_dir.pop();
    let to: Vec<&str> = target.split('/').collect();
    let common = from_dir
        .iter()
        .zip(&to)
        .take_while(|(a, b)| a == b)
        .count()
        .min(to.len().saturating_sub(1));
    let ups = from_dir.len() - common;
    let rest = to[common..].join("/");
    if ups == 0 {
        format!("./{rest}")
    } else {
        format!("{}{rest}", "../".repeat(ups))
    }
}

/// A Markdown destination: inside `<…>` as it is, otherwise with the
/// characters that would end or break it percent-encoded.
pub(crate) fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            // A heading or query starts at these, and a backslash escapes
            // the character after it: left as they are, the link would
            // name a shorter path or another one.
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            '\\' => out.push_str("%5C"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            c if c.is_control() => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A destination inside `<…>`: spaces and brackets may stand as they are;
/// what would end it, start a heading or be read as an escape is encoded
/// (the destination is percent-decoded, so `%` is too).
fn encode_angled(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            ' ' | '(' | ')' => out.push(c),
            c => out.push_str(&encode(c.encode_utf8(&mut [0u8; 4]))),
        }
    }
    out
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn relative_paths_climb_as_far_as_needed() {
        assert_eq!(
            relative_to("03_DOMAINS/a/N.md", "03_DOMAINS/a/Law"),
            "./Law"
        );
        assert_eq!(relative_to("03_DOMAINS/a/N.md", "03_DOMAINS/Law"), "../Law");
        assert_eq!(
            relative_to("01_CLIENTS/N.md", "03_DOMAINS/x/Law"),
            "../03_DOMAINS/x/Law"
        );
    }

    #[test]
    fn markdown_destinations_encode_what_would_end_them() {
        assert_eq!(encode("03_DOMAINS/Tax (EU)"), "03_DOMAINS/Tax%20%28EU%29");
        assert_eq!(
            encode("03_DOMAINS/C# a?b\\c"),
            "03_DOMAINS/C%23%20a%3Fb%5Cc"
        );
    }
}
