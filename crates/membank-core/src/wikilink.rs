//! Links in an article: `[[wikilinks]]`, `![[embeds]]` and Markdown
//! `[text](Note.md)` links, found the way Obsidian finds them, and the value
//! normalisation that scoring shares with link resolution (spec §6, §7).

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

use serde::Serialize;

/// How a link is written.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    /// `[[Target]]`
    Wiki,
    /// `![[Target]]`: the target's content is shown in place (images,
    /// PDFs, other notes).
    Embed,
    /// `[text](Target.md)` or `![alt](image.png)`
    Markdown,
}

/// One link occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WikiLink {
    /// As written: between `[[ ]]`, or the destination between `( )`.
    pub raw: String,
    /// The file the link names: alias, heading and block parts removed,
    /// Markdown destinations percent-decoded, trimmed.
    pub target: String,
    /// Byte range of the whole link in the text it was found in.
    pub span: Range<usize>,
    pub kind: LinkKind,
}

impl WikiLink {
    /// The link as it appears in the file, for messages.
    pub fn written(raw: &str, kind: LinkKind) -> String {
        match kind {
            LinkKind::Wiki => format!("[[{raw}]]"),
            LinkKind::Embed => format!("![[{raw}]]"),
            LinkKind::Markdown => format!("[…]({raw})"),
        }
    }
}

/// What keeps a `[[wikilink]]` from naming the file called `name` (its
/// file name, extension included): a character that ends a name inside
/// such a link (Obsidian's own rule), or a leading space (a link's name is
/// read trimmed). `None` when a wikilink can name it.
pub fn unlinkable_name(name: &str) -> Option<String> {
    if let Some(c) = name.chars().find(|c| "[]|#^\\".contains(*c)) {
        return Some(format!("“{c}”"));
    }
    name.starts_with(char::is_whitespace)
        .then(|| "a leading space".to_owned())
}

/// A Markdown link to the file at `rel` (bank-relative) that opens it from
/// any note of the bank: its path from the bank's root, percent-encoded,
/// which both membank and Obsidian resolve wherever it is written. For the
/// files a `[[wikilink]]` cannot name ([`unlinkable_name`]).
pub fn markdown_link_to(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let stem = name.strip_suffix(".md").unwrap_or(name);
    let mut text = String::with_capacity(stem.len());
    for c in stem.chars() {
        // Brackets and backslashes in a link's text end or escape it.
        if matches!(c, '[' | ']' | '\\') {
            text.push('\\');
        }
        text.push(c);
    }
    format!("[{text}]({})", crate::rename::links::encode(rel))
}

/// The article name a link or frontmatter value points at: `[[ ]]` removed,
/// then everything after `|` or `#`, then surrounding whitespace. A `\`
/// before the `|` is the escape a table cell needs (`[[Legal\|legal]]`).
pub fn normalize_value(value: &str) -> &str {
    if let Some(name) = plain_name(value) {
        return name;
    }
    // A pass can leave a link behind (`[[Legal]]|x` gives `[[Legal]]`):
    // repeat until nothing changes, so every caller gets the same name
    // however often the value was normalised. Each pass only shortens it.
    let mut v = value;
    loop {
        let next = normalize_once(v);
        if next.len() == v.len() {
            return next;
        }
        v = next;
    }
}

/// [`normalize_value`] of what values and links nearly always are, a name
/// alone or in one `[[ ]]`, with no `[`, `|` or `#` in it and no space
/// around it: the name, found in one search rather than passes that each
/// look for `|` and `#` a character at a time. `None` for anything else.
fn plain_name(value: &str) -> Option<&str> {
    let name = value
        .strip_prefix("[[")
        .and_then(|v| v.strip_suffix("]]"))
        .unwrap_or(value);
    let plain = memchr::memchr3(b'[', b'|', b'#', name.as_bytes()).is_none()
        && crate::text::trim(name).len() == name.len();
    plain.then_some(name)
}

fn normalize_once(value: &str) -> &str {
    let mut v = crate::text::trim(value);
    if let Some(inner) = v.strip_prefix("[[").and_then(|s| s.strip_suffix("]]")) {
        v = inner;
    }
    // Both are ASCII: the first byte of either is the first character.
    if let Some(i) = memchr::memchr2(b'|', b'#', v.as_bytes()) {
        let name = &v[..i];
        v = if v.as_bytes()[i] == b'|' {
            name.strip_suffix('\\').unwrap_or(name)
        } else {
            name
        };
    }
    crate::text::trim(v)
}

/// The lookup key for case-insensitive comparison: `s.to_lowercase()`,
/// with the final sigma `ς` written `σ`.
///
/// Lowering alone keeps `ΟΔΟΣ` (lowered `οδος`) apart from `οδοσ`, though
/// they differ only in case; full case folding maps `ς` to `σ`, and so
/// does this key, so all three name the same client, domain or file.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    fold_into(s, &mut out);
    out
}

/// [`fold`] appended to `out`. Names mix ASCII with a few other characters
/// (a term's `→`): each ASCII run is copied and lowered in one piece, where
/// `str::to_lowercase` takes every character after the first non-ASCII one
/// through its tables on its own. `Σ` lowers by its neighbours (to `ς` at
/// a word's end), but as the key writes every sigma `σ` it needs none.
pub fn fold_into(s: &str, out: &mut String) {
    // `é` written as `e` and a combining accent (file names from macOS,
    // text pasted from some editors) is the same name as `é`: composed
    // first, so both fold alike. Nearly every name is ASCII or composed
    // already, and pays only for the check.
    if !s.is_ascii() && !unicode_normalization::is_nfc(s) {
        use unicode_normalization::UnicodeNormalization;
        let composed: String = s.nfc().collect();
        return fold_composed_into(&composed, out);
    }
    fold_composed_into(s, out)
}

/// [`fold_into`] for text already in composed form.
fn fold_composed_into(s: &str, out: &mut String) {
    let mut rest = s;
    loop {
        let ascii = ascii_len(rest.as_bytes());
        let start = out.len();
        out.push_str(&rest[..ascii]);
        out[start..].make_ascii_lowercase();
        let mut chars = rest[ascii..].chars();
        match chars.next() {
            None => return,
            Some('Σ' | 'ς') => out.push('σ'),
            // A term's arrow, in most of a large bank's names: it has no
            // case, and the tables were most of folding such a name.
            Some('→') => out.push('→'),
            Some(c) => out.extend(c.to_lowercase()),
        }
        rest = chars.as_str();
    }
}

/// How many bytes `bytes` starts with that are ASCII, looked at eight at a
/// time: every link target and path of a bank is folded, most of them
/// ASCII for tens of bytes.
fn ascii_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        let high = u64::from_le_bytes(eight) & 0x8080_8080_8080_8080;
        if high != 0 {
            return at + (high.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .position(|b| !b.is_ascii())
        .unwrap_or(bytes.len() - at)
}

/// Feed `fold(s)` to a hasher without building it (nearly every name is
/// ASCII): strings with equal folds feed equal bytes. Callers compare the
/// folds themselves where two hashes are equal.
pub fn hash_folded(s: &str, hasher: &mut impl std::hash::Hasher) {
    if s.is_ascii() {
        for b in s.bytes() {
            hasher.write_u8(b.to_ascii_lowercase());
        }
    } else {
        for b in fold(s).bytes() {
            hasher.write_u8(b);
        }
    }
}

/// Where `[[…]]` links are in `s`, each as the whole link and what is
/// between the brackets: at least one character and no `[`, `]` or line
/// break, the leftmost first, none overlapping (the regular expression
/// `\[\[([^\[\]\n]+?)\]\]`, found by hand: every article's body and
/// frontmatter is searched while loading).
pub(crate) fn bracketed(s: &str) -> impl Iterator<Item = (Range<usize>, Range<usize>)> + '_ {
    let bytes = s.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(start) = find_pair(bytes, at, b'[', b'[') {
            let inner = start + 2;
            // Bytes of other UTF-8 characters are never these three.
            let stop = memchr::memchr3(b'[', b']', b'\n', &bytes[inner..]).map(|k| inner + k);
            match stop {
                Some(end)
                    if end > inner && bytes[end] == b']' && bytes.get(end + 1) == Some(&b']') =>
                {
                    at = end + 2;
                    return Some((start..end + 2, inner..end));
                }
                _ => at = start + 1,
            }
        }
        None
    })
}

/// Where the two bytes `first` `second` next occur in `bytes`, from `from`
/// on. Both are ASCII, so the position is a character boundary. Searching
/// for the first byte alone uses the vector search, and in prose these
/// bytes are rare.
pub(crate) fn find_pair(bytes: &[u8], from: usize, first: u8, second: u8) -> Option<usize> {
    let mut at = from;
    loop {
        let found = at + memchr::memchr(first, bytes.get(at..)?)?;
        if bytes.get(found + 1) == Some(&second) {
            return Some(found);
        }
        at = found + 1;
    }
}

/// A link as found, borrowing from the text what it can: a `[[link]]`'s
/// text and name are parts of it, and a body's links are copied once,
/// into the article's [`crate::article::Links`], not first each into two
/// strings of their own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundLink<'a> {
    /// See [`WikiLink::raw`].
    pub raw: Cow<'a, str>,
    /// See [`WikiLink::target`].
    pub target: Cow<'a, str>,
    pub span: Range<usize>,
    pub kind: LinkKind,
}

impl FoundLink<'_> {
    fn into_owned(self) -> WikiLink {
        WikiLink {
            raw: self.raw.into_owned(),
            target: self.target.into_owned(),
            span: self.span,
            kind: self.kind,
        }
    }
}

/// Links in any string (a frontmatter value): no Markdown rules apply.
pub fn extract_plain(s: &str) -> Vec<WikiLink> {
    let mut links = Vec::new();
    plain_links(s, &mut links);
    owned(links)
}

/// `links`, each with strings of its own.
fn owned(links: Vec<FoundLink<'_>>) -> Vec<WikiLink> {
    links.into_iter().map(FoundLink::into_owned).collect()
}

/// [`extract_plain`], borrowing from `s`, added to `out`.
fn plain_links<'s>(s: &'s str, out: &mut Vec<FoundLink<'s>>) {
    out.extend(bracketed(s).filter_map(|(whole, inner)| {
        let raw = &s[inner];
        let target = normalize_value(raw);
        if target.is_empty() {
            return None;
        }
        let embed = whole.start > 0 && s.as_bytes()[whole.start - 1] == b'!';
        Some(FoundLink {
            raw: Cow::Borrowed(raw),
            target: Cow::Borrowed(target),
            span: whole,
            kind: if embed {
                LinkKind::Embed
            } else {
                LinkKind::Wiki
            },
        })
    }));
}

/// Links in a Markdown body, skipping code spans, code blocks,
/// `%% comments %%` and maths (`$…$`, `$$…$$`), in document order.
pub fn extract_markdown(body: &str) -> Vec<WikiLink> {
    owned(body_links(body))
}

/// [`extract_markdown`], borrowing from `body`.
pub fn body_links(body: &str) -> Vec<FoundLink<'_>> {
    extract(body, true)
}

/// [`body_links`] into `links` (emptied first), for a reader that keeps
/// one list for every body it reads.
pub(crate) fn body_links_in<'b>(body: &'b str, links: &mut Vec<FoundLink<'b>>) {
    links.clear();
    extract_in(body, true, links);
}

/// [`body_links`]; without `shortcuts` every body with a link is parsed
/// as Markdown, which is what the shortcuts must agree with.
fn extract(body: &str, shortcuts: bool) -> Vec<FoundLink<'_>> {
    let mut links = Vec::new();
    extract_in(body, shortcuts, &mut links);
    links
}

/// [`extract`], adding to `links`, which is empty.
fn extract_in<'b>(body: &'b str, shortcuts: bool, links: &mut Vec<FoundLink<'b>>) {
    let bytes = body.as_bytes();
    // A Markdown link is written `[text](dest)`, or `[text][label]`,
    // `[label][]`, `[label]` with its definition `[label]: dest` elsewhere:
    // a body with neither `](` nor `]:` has none.
    let has_markdown =
        find_pair(bytes, 0, b']', b'(').is_some() || LINK_DEFINITION.find(bytes).is_some();
    plain_links(body, links);
    if links.is_empty() && !has_markdown {
        return;
    }
    // Only pay for a Markdown parse when code could hide a link or a
    // Markdown link may be present. Code starts at its opening backticks,
    // fence or indentation, so if no such marker comes before the last
    // link, no link can be inside code; and when the only code before it
    // is spans closed on their own line, they are found without a parse.
    let last_start = links.last().map_or(0, |l| l.span.start);
    let (backticks, blocks) = code_markers(&bytes[..last_start]);
    // Maths (`$…$`, `$$…$$`) hide the links in them, and open before them:
    // a body with a `$` before its last link is parsed, which tells maths
    // from prices and code.
    let dollar = memchr::memchr(b'$', &bytes[..last_start]).is_some();
    let quick = if !shortcuts || has_markdown || dollar {
        None
    } else if !backticks && !blocks {
        Some(Vec::new())
    } else if !blocks {
        let line_end =
            memchr::memchr(b'\n', &bytes[last_start..]).map_or(bytes.len(), |i| last_start + i);
        one_line_code_spans(&bytes[..line_end])
    } else {
        None
    };
    let (code, math) = match quick {
        Some(code) => (code, Vec::new()),
        None => {
            let parsed = parse(body, has_markdown);
            let math = outside_wikilinks(parsed.math, links);
            links.extend(parsed.markdown_links);
            links.sort_by_key(|l| l.span.start);
            (parsed.code, math)
        }
    };
    let comments = comment_ranges(body, &code);
    let mut hidden: Vec<Range<usize>> = code.into_iter().chain(comments).chain(math).collect();
    if !hidden.is_empty() {
        hidden.sort_by_key(|r| r.start);
        // Links and hidden ranges both come in document order, so one sweep
        // decides each link (a nested scan is quadratic on a note with many
        // links and many code spans).
        let mut next = 0;
        links.retain(|l| {
            while hidden.get(next).is_some_and(|r| r.end <= l.span.start) {
                next += 1;
            }
            // Ranges may nest (a code span inside a comment): look at every
            // range that starts before the link.
            !hidden[next..]
                .iter()
                .take_while(|r| r.start <= l.span.start)
                .any(|r| l.span.start < r.end)
        });
    }
}

/// Could a code span (backticks) or a code block (a `~~~` fence, an
/// indented line) start in `bytes`? A ```` ``` ```` fence is backticks too.
fn code_markers(bytes: &[u8]) -> (bool, bool) {
    let backticks = memchr::memchr(b'`', bytes).is_some();
    let blocks = memchr::memchr(b'\t', bytes).is_some()
        || TILDE_FENCE.find(bytes).is_some()
        || INDENT.find(bytes).is_some();
    (backticks, blocks)
}

// The searches built once: `memmem::find` builds its searcher on every
// call, which cost more than the search on a body of a few hundred bytes.
static TILDE_FENCE: Finder = LazyLock::new(|| memchr::memmem::Finder::new(b"~~~"));
static INDENT: Finder = LazyLock::new(|| memchr::memmem::Finder::new(b"    "));
static LINK_DEFINITION: Finder = LazyLock::new(|| memchr::memmem::Finder::new(b"]:"));
type Finder = LazyLock<memchr::memmem::Finder<'static>>;

/// The code spans of `text`, as a Markdown parse finds them, when each is
/// opened and closed on one line and every backtick run of every line is
/// one of their ends; `None` when a parse is needed to tell. Backtick runs
/// pair the same way on one line as across a paragraph's lines when no
/// run is left open (a line that opens a fence holds no other backticks),
/// and with no escape and no HTML or autolink (which take precedence over
/// spans), nothing else decides what is code. (A link definition, whose
/// title may hold backticks, is in a body that is parsed: see
/// [`extract_in`].)
fn one_line_code_spans(text: &[u8]) -> Option<Vec<Range<usize>>> {
    if memchr::memchr2(b'\\', b'<', text).is_some() {
        return None;
    }
    let mut spans = Vec::new();
    let mut line_start = 0;
    while line_start < text.len() {
        let line_end =
            memchr::memchr(b'\n', &text[line_start..]).map_or(text.len(), |i| line_start + i);
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut at = line_start;
        while let Some(i) = memchr::memchr(b'`', &text[at..line_end]) {
            let start = at + i;
            let len = text[start..line_end]
                .iter()
                .take_while(|&&b| b == b'`')
                .count();
            if len >= 3 {
                return None;
            }
            runs.push((start, len));
            at = start + len;
        }
        let mut i = 0;
        while i < runs.len() {
            let (start, len) = runs[i];
            let close = (i + 1..runs.len()).find(|&j| runs[j].1 == len)?;
            spans.push(start..runs[close].0 + len);
            i = close + 1;
        }
        line_start = line_end + 1;
    }
    Some(spans)
}

struct Parsed<'a> {
    code: Vec<Range<usize>>,
    markdown_links: Vec<FoundLink<'a>>,
    /// Maths, `$` to `$` included, in document order; none overlaps code.
    math: Vec<Range<usize>>,
}

fn parse(body: &str, want_links: bool) -> Parsed<'_> {
    let with_math = memchr::memchr(b'$', body.as_bytes()).is_some();
    let mut parsed = parse_with(body, want_links, with_math);
    if with_math && want_links {
        // The parser takes `$…$` as maths before the digit rule below can
        // turn it down, and a Markdown link it took in is lost: in
        // `[$5 plan](a.md) and [$10 plan](a.md)` the first link. The links
        // come from a reading without maths, less those inside the maths
        // that stands.
        let math = &parsed.math;
        parsed.markdown_links = parse_with(body, true, false)
            .markdown_links
            .into_iter()
            .filter(|l| {
                let i = math.partition_point(|m| m.end <= l.span.start);
                math.get(i).is_none_or(|m| m.start > l.span.start)
            })
            .collect();
    }
    parsed
}

fn parse_with(body: &str, want_links: bool, with_math: bool) -> Parsed<'_> {
    let mut code = Vec::new();
    let mut markdown_links = Vec::new();
    let mut math = Vec::new();
    let mut block_start: Option<usize> = None;
    // Footnotes as Obsidian reads them: `[^1]` and its `[^1]: text` are a
    // note's footnote, not a reference-style link to a file named `text`.
    let mut options = Options::ENABLE_FOOTNOTES;
    if with_math {
        options |= Options::ENABLE_MATH;
    }
    for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
        match event {
            Event::Code(_) => code.push(range),
            Event::DisplayMath(_) => math.push(range),
            // The parser's rule for `$…$` (the opening `$` followed by
            // other than a space, the next `$` closing it when preceded by
            // other than a space, both in one paragraph and outside code)
            // lacks Pandoc's last part, which keeps price ranges out: a
            // closing `$` followed by a digit (`$5-$10`) closes nothing.
            Event::InlineMath(_)
                if !body
                    .as_bytes()
                    .get(range.end)
                    .is_some_and(u8::is_ascii_digit) =>
            {
                math.push(range)
            }
            Event::Start(Tag::CodeBlock(_)) => block_start = Some(range.start),
            Event::End(TagEnd::CodeBlock) => {
                if let Some(s) = block_start.take() {
                    code.push(s..range.end);
                }
            }
            // `<name@example.com>` is an e-mail address, not a file.
            Event::Start(Tag::Link {
                link_type: LinkType::Email,
                ..
            }) => {}
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. })
                if want_links =>
            {
                if let Some(target) = markdown_target(&dest_url) {
                    let raw = match dest_url {
                        pulldown_cmark::CowStr::Borrowed(s) => Cow::Borrowed(s),
                        other => Cow::Owned(other.into_string()),
                    };
                    markdown_links.push(FoundLink {
                        raw,
                        target: Cow::Owned(target),
                        span: range,
                        kind: LinkKind::Markdown,
                    });
                }
            }
            _ => {}
        }
    }
    Parsed {
        code,
        markdown_links,
        math,
    }
}

/// `math` without the spans a `$` of which is inside a `[[…]]` link of
/// `wikilinks` (in document order): the link's brackets bind first, as a
/// Markdown link's do (`[[Price $5]] and [[Tax$]]` is two links).
fn outside_wikilinks(
    mut math: Vec<Range<usize>>,
    wikilinks: &[FoundLink<'_>],
) -> Vec<Range<usize>> {
    if math.is_empty() || wikilinks.is_empty() {
        return math;
    }
    let inside = |at: usize| {
        let i = wikilinks.partition_point(|l| l.span.end <= at);
        wikilinks
            .get(i)
            .is_some_and(|l| l.span.start < at && at < l.span.end)
    };
    math.retain(|r| !inside(r.start) && !inside(r.end - 1));
    math
}

/// Where maths are in a Markdown body, `$` to `$` included, as links are
/// found: what is inside them is a formula, not links (for a view that
/// reads a body's links with a parser of its own). Empty without a `$`.
pub fn math_spans(body: &str) -> Vec<Range<usize>> {
    if memchr::memchr(b'$', body.as_bytes()).is_none() {
        return Vec::new();
    }
    let mut wikilinks = Vec::new();
    plain_links(body, &mut wikilinks);
    outside_wikilinks(parse(body, false).math, &wikilinks)
}

/// The file a Markdown link destination names inside the vault, or `None`
/// for web addresses, e-mail and other schemes, and `#heading` links within
/// the same note.
pub fn markdown_target(dest: &str) -> Option<String> {
    let dest = dest.trim();
    let scheme = dest.split_once(':').is_some_and(|(s, _)| {
        s.len() > 1
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if scheme || dest.starts_with("//") {
        return None;
    }
    let path = dest.split(['#', '?']).next().unwrap_or("");
    let decoded: Cow<str> = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    let target = decoded.trim();
    (!target.is_empty()).then(|| target.to_owned())
}

/// The `%% comments %%` of a Markdown body, `%%` included, in document
/// order: what Obsidian's reading view hides, and what the link checks
/// skip. Those in code are text, not comments.
pub fn comments(body: &str) -> Vec<Range<usize>> {
    if find_pair(body.as_bytes(), 0, b'%', b'%').is_none() {
        return Vec::new();
    }
    comment_ranges(body, &parse(body, false).code)
}

/// Obsidian comments: text between a pair of `%%` outside code. An unpaired
/// `%%` hides the rest of the note, as in Obsidian.
fn comment_ranges(body: &str, code: &[Range<usize>]) -> Vec<Range<usize>> {
    if find_pair(body.as_bytes(), 0, b'%', b'%').is_none() {
        return Vec::new();
    }
    // Code ranges are in document order and never overlap.
    let in_code = |at: usize| {
        let i = code.partition_point(|r| r.end <= at);
        code.get(i).is_some_and(|r| r.start <= at)
    };
    let mut ranges = Vec::new();
    let mut open: Option<usize> = None;
    let mut from = 0;
    while let Some(i) = body[from..].find("%%") {
        let at = from + i;
        from = at + 2;
        if in_code(at) {
            continue;
        }
        match open.take() {
            None => open = Some(at),
            Some(start) => ranges.push(start..at + 2),
        }
    }
    if let Some(start) = open {
        ranges.push(start..body.len());
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fold lowers ASCII runs itself; it must still be exactly
    /// `to_lowercase` with `ς` as `σ`: characters that lower to two (`İ`),
    /// that grow or shrink in bytes (`Ⱥ`, `ẞ`, the Kelvin sign), `Σ` at a
    /// word's end and inside it, and text before `out`'s end left as it is.
    #[test]
    fn the_fold_is_to_lowercase_with_one_sigma() {
        let pieces = [
            "A",
            "z",
            "Q7",
            " ",
            "/",
            ".md",
            "→",
            "É",
            "é",
            "İ",
            "Σ",
            "σ",
            "ς",
            "Ⱥ",
            "ẞ",
            "\u{212a}",
            "Ω",
            "日本",
            "\u{0}",
            "ǅ",
            "Ａ",
            "𐐀",
            "A Name Longer Than Two Words",
            "e\u{301}",
            "\u{301}",
            "Ge\u{301}ne\u{301}rale",
        ];
        use unicode_normalization::UnicodeNormalization;
        for text in crate::random_text::joined(&pieces, 6, 0x2545_F491_4F6C_DD1D).take(20_000) {
            let expected = text
                .nfc()
                .collect::<String>()
                .to_lowercase()
                .replace('ς', "σ");
            assert_eq!(fold(&text), expected, "{text:?}");
            let mut out = String::from("Kept É ");
            fold_into(&text, &mut out);
            assert_eq!(out, format!("Kept É {expected}"), "{text:?}");
        }
    }

    #[test]
    fn a_name_written_with_combining_accents_folds_as_the_composed_one() {
        assert_eq!(
            fold("Socie\u{301}te\u{301} Ge\u{301}ne\u{301}rale"),
            fold("Société Générale")
        );
        assert_eq!(fold("Société Générale"), "société générale");
    }

    #[test]
    fn shortcuts_find_what_a_markdown_parse_finds() {
        let pieces = [
            "[[a]]", "[[b|c]]", "`", "``", "```", "~~~", "    ", "\t", "\n", "\n\n", " ", "x",
            "%%", "\\", "<", ">", "- ", "# ", "]:", "[d]", "(e)", "<!--", "-->", "é", "[d]: ",
            "\"", "/u ", "$", "$$", "5", "[^1]",
        ];
        for body in crate::random_text::joined(&pieces, 23, 0x9E37_79B9_7F4A_7C15).take(30_000) {
            let spans = |links: Vec<FoundLink>| -> Vec<Range<usize>> {
                links.into_iter().map(|l| l.span).collect()
            };
            assert_eq!(
                spans(extract(&body, true)),
                spans(extract(&body, false)),
                "{body:?}"
            );
        }
    }

    /// The links a body gives borrow what they can and are, field for
    /// field, what the whole parse finds and what the regular expression
    /// and `normalize_value` give for `[[ ]]` links, on the inputs where
    /// links hide or are cut short.
    #[test]
    fn borrowed_links_are_the_links_found() {
        let pattern = regex::Regex::new(r"\[\[([^\[\]\n]+?)\]\]").unwrap();
        for body in [
            "See [[A]] and `[[B]]`.\n\n```\n[[C]]\n```\n\n    [[D]]\n[[E|alias]] [[F#H]]",
            "\\[[A]] \\[\\[B\\]\\] [[C\\|c]] ![[img.png|20]] ![[N#^block]]\r\n[[G]]\r\n",
            "~~~\n[[A]]\n~~~\n%% [[B]] %%[[C]]%%\n[[D]]",
            "[a](Note%20One.md) [b](<With Space.md>) [c](x\\_y.md) [[Z]]",
            "[[a\nb]] [[]] [[ | x]] [[ok]]",
            "text then a link at the very end [[End]]",
            "| t | [[Legal\\|legal]] |\n|---|---|\n",
            "\u{fffd}[[é → ü]]\u{fffd}",
        ] {
            let found = body_links(body);
            assert_eq!(found, extract(body, false), "{body:?}");
            let mut wiki = pattern
                .captures_iter(body)
                .map(|c| (c.get(0).unwrap().range(), c.get(1).unwrap().as_str()));
            for l in &found {
                if l.kind == LinkKind::Markdown {
                    continue;
                }
                assert!(matches!(l.raw, Cow::Borrowed(_)), "{body:?}");
                assert!(matches!(l.target, Cow::Borrowed(_)), "{body:?}");
                let (span, raw) = wiki.find(|(span, _)| *span == l.span).expect("a match");
                assert_eq!((&*l.raw, &*l.target), (raw, normalize_value(raw)));
                assert_eq!(l.kind == LinkKind::Embed, body[..span.start].ends_with('!'));
            }
            let owned: Vec<WikiLink> = found.into_iter().map(FoundLink::into_owned).collect();
            assert_eq!(extract_markdown(body), owned, "{body:?}");
        }
    }

    #[test]
    fn spans_are_left_to_the_parse_where_other_markdown_decides() {
        // A link definition's title, an autolink, an escaped backtick and a
        // span over two lines: backticks here are not (only) code spans.
        for body in [
            "[d]: /u \"`[[a]]`\"\n",
            "<http://x`y>[[a]]`\n",
            "\\`[[a]]`\n",
            "a `b\n[[a]]` c\n",
            "```\n[[a]]\n```\n",
        ] {
            let spans = |links: Vec<FoundLink>| -> Vec<Range<usize>> {
                links.into_iter().map(|l| l.span).collect()
            };
            assert_eq!(
                spans(extract(body, true)),
                spans(extract(body, false)),
                "{body:?}"
            );
        }
    }

    #[test]
    fn links_are_found_as_the_regular_expression_finds_them() {
        let pattern = regex::Regex::new(r"\[\[([^\[\]\n]+?)\]\]").unwrap();
        let pieces = ["[", "]", "[[", "]]", "a", "é", "\n", "|", "!", " ", "[[x]]"];
        for s in crate::random_text::joined(&pieces, 11, 0x2545_F491_4F6C_DD1D).take(20_000) {
            let expected: Vec<_> = pattern
                .captures_iter(&s)
                .map(|c| (c.get(0).unwrap().range(), c.get(1).unwrap().range()))
                .collect();
            assert_eq!(bracketed(&s).collect::<Vec<_>>(), expected, "{s:?}");
        }
    }

    #[test]
    fn names_with_the_same_fold_hash_alike() {
        let hash = |s: &str| {
            let mut h = rustc_hash::FxHasher::default();
            hash_folded(s, &mut h);
            std::hash::Hasher::finish(&h)
        };
        // ASCII, accented, and a sign that folds to an ASCII letter.
        for (a, b) in [
            ("Glossary", "gLOSSARY"),
            ("ÄRGER", "ärger"),
            ("\u{212A}elvin", "kelvin"),
            ("ΟΔΟΣ", "οδος"),
            // Only case tells a final sigma apart (full case folding).
            ("ΟΔΟΣ", "οδοσ"),
            ("οδος", "οδοσ"),
        ] {
            assert_eq!(fold(a), fold(b), "{a} / {b}");
            assert_eq!(hash(a), hash(b), "{a} / {b}");
        }
        assert_ne!(hash("glossary"), hash("glossaries"));
    }

    fn targets(v: Vec<WikiLink>) -> Vec<String> {
        v.into_iter().map(|l| l.target).collect()
    }

    /// The normalisation as it was, character by character, for the
    /// quick paths to agree with.
    fn normalize_by_chars(value: &str) -> &str {
        let mut v = value;
        loop {
            let mut next = v.trim();
            if let Some(inner) = next.strip_prefix("[[").and_then(|s| s.strip_suffix("]]")) {
                next = inner;
            }
            if let Some(i) = next.find(['|', '#']) {
                let name = &next[..i];
                next = if next.as_bytes()[i] == b'|' {
                    name.strip_suffix('\\').unwrap_or(name)
                } else {
                    name
                };
            }
            let next = next.trim();
            if next.len() == v.len() {
                return next;
            }
            v = next;
        }
    }

    #[test]
    fn quick_normalisation_is_the_normalisation() {
        let pieces = [
            "a", "Legal", " ", "\t", "\u{b}", "\u{c}", "\r", "\n", "\u{85}", "\u{a0}", "\u{3000}",
            "[[", "]]", "[", "]", "|", "#", "\\", "é", "→", "^",
        ];
        for value in crate::random_text::joined(&pieces, 7, 0x2545_F491_4F6C_DD1D).take(40_000) {
            assert_eq!(
                normalize_value(&value),
                normalize_by_chars(&value),
                "{value:?}"
            );
        }
        assert_eq!(plain_name("Legal"), Some("Legal"));
        assert_eq!(plain_name("[[a b]]"), Some("a b"));
        assert!(plain_name(" a").is_none() && plain_name("a\u{b}").is_none());
    }

    #[test]
    fn normalisation_strips_brackets_alias_and_heading() {
        assert_eq!(normalize_value("[[Acme Corporation]]"), "Acme Corporation");
        assert_eq!(normalize_value("[[Acme|the client]]"), "Acme");
        assert_eq!(normalize_value("[[Legal#Contracts]]"), "Legal");
        assert_eq!(normalize_value("  Legal  "), "Legal");
        assert_eq!(normalize_value("Legal|x"), "Legal");
        // What is left after one pass can itself be a link: it is
        // normalised too, so normalising twice changes nothing.
        assert_eq!(normalize_value("[[[[Legal]]]]"), "Legal");
        assert_eq!(normalize_value("[[Legal]]|x"), "Legal");
        assert_eq!(normalize_value("[[Legal]]#Scope"), "Legal");
    }

    #[test]
    fn plain_names_are_normalised_as_by_the_passes() {
        for value in [
            "",
            "[[]]",
            "[[]]]",
            "[[a]]]]",
            "Legal",
            "[[Legal]]",
            " Legal",
            "[[ Legal]]",
            "[[Legal]] ",
            "[[[[Legal]]]]",
            "[[Legal",
            "Legal]]",
            "a|b",
            "[[a#b]]",
            "x\\|y",
            "[[IT Ranfy]]",
            "anceancedem → eenaansprage",
            "\u{a0}x",
            "[[x\u{2028}]]",
            "]]",
            "[[",
        ] {
            assert_eq!(
                normalize_value(value),
                normalize_by_chars(value),
                "{value:?}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn generated_values_are_normalised_as_by_the_passes(
            value in "\\[\\[[a|#\\]\\[ \u{a0}]{0,5}\\]\\]|[a\\[\\]|#\\\\ \u{a0}→]{0,10}"
        ) {
            proptest::prop_assert_eq!(normalize_value(&value), normalize_by_chars(&value));
        }
    }

    #[test]
    fn body_links_skip_code() {
        let body =
            "See [[A]] and `[[B]]`.\n\n```\n[[C]]\n```\n\n    [[D]]\n\nand [[E|alias]] [[F#H]]\n";
        assert_eq!(targets(extract_markdown(body)), vec!["A", "E", "F"]);
    }

    #[test]
    fn code_after_the_last_link_hides_nothing_but_code_before_it_does() {
        assert_eq!(targets(extract_markdown("[[A]] then `x`\n")), vec!["A"]);
        assert_eq!(targets(extract_markdown("`[[A]]` [[B]]\n")), vec!["B"]);
        assert_eq!(
            targets(extract_markdown("[[A]]\n\n    [[B]]\n\n[[C]]\n")),
            vec!["A", "C"]
        );
        assert_eq!(
            targets(extract_markdown("[[A]]\n\n> ```\n> [[B]]\n> ```\n")),
            vec!["A"]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        /// Skipping the Markdown parse never changes which links are found.
        #[test]
        fn skipping_the_parse_finds_the_same_links(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("[[A]]"),
                    proptest::strategy::Just("[[B|b]]"),
                    proptest::strategy::Just("`"),
                    proptest::strategy::Just("```\n"),
                    proptest::strategy::Just("~~~\n"),
                    proptest::strategy::Just("    "),
                    proptest::strategy::Just("\t"),
                    proptest::strategy::Just("> "),
                    proptest::strategy::Just("- "),
                    proptest::strategy::Just("\n"),
                    proptest::strategy::Just("\n\n"),
                    proptest::strategy::Just("text "),
                ],
                0..30,
            )
        ) {
            let body = parts.concat();
            let code = parse(&body, false).code;
            let mut expected = extract_plain(&body);
            expected.retain(|l| !code.iter().any(|r| r.start <= l.span.start && l.span.start < r.end));
            proptest::prop_assert_eq!(extract_markdown(&body), expected, "{:?}", body);
        }
    }

    #[test]
    fn escaped_pipe_in_a_table_cell_is_an_alias() {
        let l = extract_markdown("| a | [[Legal\\|the legal domain]] |\n");
        assert_eq!(targets(l), vec!["Legal"]);
        assert_eq!(normalize_value("[[Legal#Scope\\|x]]"), "Legal");
    }

    #[test]
    fn embeds_are_links_to_any_file() {
        let l = extract_markdown("![[diagram.png]] ![[icon.svg#icon]] [[report.pdf]]\n");
        let got: Vec<(String, LinkKind)> = l.into_iter().map(|l| (l.target, l.kind)).collect();
        assert_eq!(
            got,
            vec![
                ("diagram.png".into(), LinkKind::Embed),
                ("icon.svg".into(), LinkKind::Embed),
                ("report.pdf".into(), LinkKind::Wiki),
            ]
        );
    }

    #[test]
    fn markdown_links_to_notes_count_but_web_and_mail_do_not() {
        let body = "[a](Note.md) [b](../x/Note%20Name.md#Part) ![c](img/d.png)\n\
                    [w](https://example.com/x.md) [m](mailto:a@b.c) <a@b.c> [h](#Local)\n";
        let got: Vec<(String, LinkKind)> = extract_markdown(body)
            .into_iter()
            .map(|l| (l.target, l.kind))
            .collect();
        assert_eq!(
            got,
            vec![
                ("Note.md".into(), LinkKind::Markdown),
                ("../x/Note Name.md".into(), LinkKind::Markdown),
                ("img/d.png".into(), LinkKind::Markdown),
            ]
        );
    }

    /// `[^1]` and `[^1]: text` are a footnote, read alike whether or not
    /// the note has other Markdown links: never a link to a file `text`.
    #[test]
    fn footnotes_are_never_links() {
        for body in [
            "Vault ID[^1] is here.\n\n[^1]: Glossary\n",
            "See [site](https://example.com).\n\nVault ID[^1] is here.\n\n[^1]: Glossary\n",
            "A[^note] b.\n\n[^note]: 保管庫IDは[x]と[y]\n",
        ] {
            assert_eq!(extract_markdown(body), vec![], "{body:?}");
            assert_eq!(extract(body, true), extract(body, false), "{body:?}");
        }
        // What a footnote says holds links like any other text.
        let body = "x[^a]\n\n[^a]: See [[Legal]] and [t](Tax.md).\n";
        assert_eq!(targets(extract_markdown(body)), vec!["Legal", "Tax.md"]);
    }

    /// A reference-style link is a link whatever else the note holds:
    /// its definition is enough to look for it.
    #[test]
    fn reference_links_are_found_without_an_inline_link_too() {
        for (body, expected) in [
            (
                "See the [glossary][g] for terms.\n\n[g]: Glossary.md\n",
                vec!["Glossary.md"],
            ),
            (
                "See the [glossary][g] and [site](https://example.com).\n\n[g]: Glossary.md\n",
                vec!["Glossary.md"],
            ),
            (
                "[[A]] then [g][] and [g].\n\n[g]: <Tax Law.md>\n",
                vec!["A", "Tax Law.md", "Tax Law.md"],
            ),
        ] {
            assert_eq!(targets(extract_markdown(body)), expected, "{body:?}");
        }
        let found = extract_markdown("See the [glossary][g].\n\n[g]: Glossary.md\n");
        assert_eq!(found[0].span, 8.."See the [glossary][g]".len());
        assert_eq!(found[0].kind, LinkKind::Markdown);
    }

    /// Maths are formulas, not Markdown: nothing in them is a link. The
    /// rule keeps prices out (`$` then a space or a digit after the one
    /// that would close), leaves escaped `\$` and code alone, and ends at
    /// a paragraph's end.
    #[test]
    fn maths_hide_links_but_prices_do_not() {
        for (body, expected) in [
            (
                "We compute $[(TS)R](u) = (TS)R(u)$ and $$[[u]]$$.\n",
                vec![],
            ),
            ("$$\nx [[A]] [b](B.md)\ny\n$$\n[[C]]\n", vec!["C"]),
            ("A $x_{[[A]]}$ and $y$ then [[B]]\n", vec!["B"]),
            ("It costs $5 and [[A]] $10.\n", vec!["A"]),
            ("From $[[A]]-$5 up.\n", vec!["A"]),
            ("A \\$x [[A]]$ is no formula.\n", vec!["A"]),
            ("`$x` [[A]] $y$, `a $b` [[B]] c$\n", vec!["A", "B"]),
            ("$$\nx [[A]]\n\ny\n$$\n", vec!["A"]),
            ("- $x\n- [[A]] y$\n", vec!["A"]),
            ("    $x [[A]] y$\n\n$[[B]]$\n", vec![]),
            (
                "[[Price $5]] and [[Tax$]] and [[c$d]]\n",
                vec!["Price $5", "Tax$", "c$d"],
            ),
            ("[a](x$y.md) and [b](z$w.md)\n", vec!["x$y.md", "z$w.md"]),
            ("%% $x %% [[A]]\n", vec!["A"]),
            (
                "Compare the [$5 plan](Plans.md) with the [$10 plan](Plans.md).\n",
                vec!["Plans.md", "Plans.md"],
            ),
            ("$[a](N.md)$2 and [b](M.md)\n", vec!["N.md", "M.md"]),
            ("$[a](N.md)$ and [b](M.md)\n", vec!["M.md"]),
        ] {
            assert_eq!(targets(extract_markdown(body)), expected, "{body:?}");
            assert_eq!(extract(body, true), extract(body, false), "{body:?}");
        }
        assert_eq!(math_spans("a $x$ b $$[[u]]$$ $5"), vec![2..5, 8..17]);
        assert!(math_spans("[[Price $5]] and [[Tax$]]").is_empty());
        assert!(math_spans("no maths").is_empty());
    }

    #[test]
    fn comments_and_code_hide_every_kind_of_link() {
        let body = "[[A]] %% [[B]] [b](B.md) %% [[C]]\n\n%%\n[[D]]\n%%\n`[e](E.md)`\n\n\
                    ```\n[f](F.md) %%\n```\n[[G]]\n";
        assert_eq!(targets(extract_markdown(body)), vec!["A", "C", "G"]);
        assert_eq!(
            targets(extract_markdown("[[A]] %% open [[B]]\n")),
            vec!["A"]
        );
    }

    #[test]
    fn unicode_targets_and_arrows() {
        let l = extract_markdown("[[compliance → naleving]]");
        assert_eq!(l[0].target, "compliance → naleving");
        assert_eq!(l[0].span, 0.."[[compliance → naleving]]".len());
    }

    #[test]
    fn empty_and_broken_links_are_ignored() {
        assert!(extract_plain("[[]] [[ | x]] [[a").is_empty());
        assert!(extract_markdown("[[a\nb]]").is_empty());
    }

    #[test]
    fn plain_extraction_for_frontmatter() {
        assert_eq!(
            targets(extract_plain("[[Legal]], [[Marketing]]")),
            vec!["Legal", "Marketing"]
        );
    }
}
