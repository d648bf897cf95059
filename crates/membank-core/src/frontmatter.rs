//! Finding and parsing the YAML frontmatter of an article (spec §4).

use std::borrow::Cow;
use std::ops::Range;

use yaml_serde::{Mapping, Value};

/// The result of locating the frontmatter in a decoded file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<'a> {
    /// The article text after §4.3 fence stripping (the whole text if no
    /// fence); borrowed when the text given was and nothing was stripped.
    pub text: Cow<'a, str>,
    /// The file was wrapped in a code fence (§4.3) that was stripped.
    pub fenced: bool,
    /// The opening fence had no matching closing fence.
    pub fence_unclosed: bool,
    /// Lines removed before `text` starts, to map lines back to the file.
    pub line_shift: usize,
    /// Blank lines between the opening fence and the frontmatter, among
    /// `line_shift` (the fence's own line is `line_shift - fence_blanks`).
    pub fence_blanks: usize,
    /// 1-based file line of the stripped closing fence.
    pub fence_close_line: Option<usize>,
    /// The whole file is one code block with no frontmatter in it: a note
    /// of code, not a wrapped article, so nothing was stripped.
    pub only_code: bool,
    pub block: Block,
    /// Byte offset in `text` where the body (after the frontmatter) starts.
    pub body_start: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// No `---` on the first line.
    Missing,
    /// An opening `---` that is never closed.
    Unclosed,
    /// The YAML between the delimiters, as a range of `text`.
    Present(Range<usize>),
}

fn fence_of(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start();
    // An indented line (4+ spaces) is code, not a fence.
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = t.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = t.chars().take_while(|&x| x == c).count();
    if n < 3 {
        return None;
    }
    Some((c, n, t[n..].trim()))
}

/// Split `text` (already BOM-stripped and LF-only) into frontmatter and body,
/// tolerating a wrapping code fence as §4.3 requires.
pub fn locate(text: &str) -> Located<'_> {
    locate_cow(Cow::Borrowed(text))
}

/// [`locate`] for text the caller gives up or lends, so an unfenced article
/// (nearly all of them) is not copied.
pub fn locate_cow(text: Cow<'_, str>) -> Located<'_> {
    // §4.3 is about frontmatter: a fence is only a wrapper when frontmatter
    // follows it. Otherwise it is an ordinary code block and stays one.
    // The fence is looked for once: whether the file is only code is read
    // from the same look.
    let mut only_code = false;
    if let Some(fence) = strip_outer_fence(&text) {
        let (block, body_start) = find_block(&fence.inner);
        if block != Block::Missing {
            return Located {
                fenced: true,
                fence_unclosed: fence.close_line.is_none(),
                line_shift: fence.line_shift,
                fence_blanks: fence.blanks,
                fence_close_line: fence.close_line,
                only_code: false,
                block,
                body_start,
                text: Cow::Owned(fence.inner),
            };
        }
        // A Markdown block is an article that lost its frontmatter, not
        // a note of code.
        only_code = fence.ends_the_file && !fence.markdown;
    }
    let (block, body_start) = find_block(&text);
    Located {
        text,
        fenced: false,
        fence_unclosed: false,
        line_shift: 0,
        fence_blanks: 0,
        fence_close_line: None,
        only_code,
        block,
        body_start,
    }
}

/// The text inside a wrapping fence, whether the fence was left open, and
/// the lines removed before the text; `None` when there is no fence.
struct Fence {
    /// The text between the fences (and anything after the closing one).
    inner: String,
    /// Lines before `inner` starts in the file.
    line_shift: usize,
    /// 1-based file line of the closing fence, if there is one.
    close_line: Option<usize>,
    /// Only blank lines follow the closing fence.
    ends_the_file: bool,
    /// Blank lines taken off the start of `inner` (counted in
    /// `line_shift`): §4.3 looks for the frontmatter after the fence,
    /// past the blank lines an LLM reply often has there.
    blanks: usize,
    /// The fence says its code is Markdown (```` ```markdown ````, `md`).
    markdown: bool,
}

/// `fence` with the blank lines at the start of its text taken off and
/// counted, and whether its info string names Markdown.
fn without_leading_blanks(mut fence: Fence, info: &str) -> Fence {
    let mut cut = 0;
    for line in fence.inner.split_inclusive('\n') {
        if !line.trim().is_empty() || !line.ends_with('\n') {
            break;
        }
        cut += line.len();
        fence.blanks += 1;
    }
    fence.inner.drain(..cut);
    fence.line_shift += fence.blanks;
    let info = info.split_whitespace().next().unwrap_or("");
    fence.markdown = info.eq_ignore_ascii_case("markdown") || info.eq_ignore_ascii_case("md");
    fence
}

fn strip_outer_fence(text: &str) -> Option<Fence> {
    // Nearly every file starts with `---` or a heading: a first byte that
    // is printable and no fence character starts a line that is neither
    // blank nor a fence.
    if text
        .as_bytes()
        .first()
        .is_some_and(|&b| b.is_ascii_graphic() && b != b'`' && b != b'~')
    {
        return None;
    }
    let mut offset = 0;
    let mut lines_before = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        offset += line.len();
        lines_before += 1;
    }
    let rest = &text[offset..];
    let first = rest.split_inclusive('\n').next().unwrap_or("");
    let (ch, len, info) = fence_of(first.trim_end_matches('\n'))?;
    let inner = &rest[first.len()..];
    // Walk the inner lines pairing nested fences, so a code block inside the
    // wrapped article does not end the wrapper early.
    let mut nested: Option<(char, usize)> = None;
    let mut pos = 0;
    let mut line_no = lines_before + 1;
    let mut close: Option<(Range<usize>, usize)> = None;
    for line in inner.split_inclusive('\n') {
        line_no += 1;
        let bare = line.trim_end_matches('\n');
        if let Some((c, n, info)) = fence_of(bare) {
            match nested {
                Some((nc, nn)) if c == nc && n >= nn && info.is_empty() => nested = None,
                Some(_) => {}
                None if info.is_empty() && c == ch && n >= len => {
                    close = Some((pos..pos + line.len(), line_no));
                    break;
                }
                None => nested = Some((c, n)),
            }
        }
        pos += line.len();
    }
    let mut out = String::with_capacity(inner.len());
    let mut ends_the_file = true;
    match &close {
        Some((r, _)) => {
            out.push_str(&inner[..r.start]);
            out.push_str(&inner[r.end..]);
            ends_the_file = inner[r.end..].trim().is_empty();
        }
        None => out.push_str(inner),
    }
    let fence = Fence {
        inner: out,
        line_shift: lines_before + 1,
        close_line: close.map(|(_, line)| line),
        ends_the_file,
        blanks: 0,
        markdown: false,
    };
    Some(without_leading_blanks(fence, info))
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Lines that start with `---`, looked for in one search over the text
/// rather than line by line: only those can close the block.
static CLOSING_CANDIDATE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\n---"));

fn find_block(text: &str) -> (Block, usize) {
    if text.is_empty() {
        return (Block::Missing, 0);
    }
    let bytes = text.as_bytes();
    let first_end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    if !is_delimiter(text[..first_end].trim_end_matches('\n')) {
        return (Block::Missing, 0);
    }
    let start = first_end;
    // The first line's own newline is where a second line starting with
    // `---` would be found from.
    let mut from = start - 1;
    while let Some(i) = bytes
        .get(from..)
        .and_then(|rest| CLOSING_CANDIDATE.find(rest))
    {
        let pos = from + i + 1;
        let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |j| pos + j + 1);
        if is_delimiter(text[pos..end].trim_end_matches('\n')) {
            return (Block::Present(start..pos), end);
        }
        from = end - 1;
    }
    (Block::Unclosed, 0)
}

/// A YAML error with the line it happened on (1-based, in the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub message: String,
    pub line: Option<usize>,
}

/// Frontmatter is a handful of keys; anything larger is refused before the
/// YAML parser sees it, whose time grows faster than the input on some
/// crafted shapes.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// Deepest `[`/`{` nesting accepted; real frontmatter uses one or two.
pub const MAX_FLOW_DEPTH: usize = 32;

/// The deepest flow-collection nesting, outside quoted strings and
/// comments.
fn flow_depth(yaml: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    let mut in_comment = false;
    for c in yaml.chars() {
        if in_comment {
            in_comment = c != '\n';
        } else if let Some(q) = quote {
            if c == q && !(q == '"' && prev == '\\') {
                quote = None;
            }
        } else {
            match c {
                '"' | '\'' => quote = Some(c),
                '#' if prev.is_whitespace() => in_comment = true,
                '[' | '{' => {
                    depth += 1;
                    max = max.max(depth);
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        prev = c;
    }
    max
}

/// Refuse frontmatter whose size or nesting could make parsing slow.
/// The size bound holds whatever the block's shape: a block the quick
/// reader would take was read whole at any size, while the same size in
/// another shape was refused.
fn check_size(yaml: &str, first_line: usize) -> Result<(), YamlError> {
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(YamlError {
            message: format!(
                "frontmatter is {} KB; more than {} KB is not parsed",
                yaml.len() / 1024,
                MAX_FRONTMATTER_BYTES / 1024
            ),
            line: Some(first_line),
        });
    }
    Ok(())
}

fn check_bounds(yaml: &str, first_line: usize) -> Result<(), YamlError> {
    check_size(yaml, first_line)?;
    if flow_depth(yaml) > MAX_FLOW_DEPTH {
        return Err(YamlError {
            message: format!(
                "frontmatter nests [ ] or {{ }} more than {MAX_FLOW_DEPTH} levels deep; it is \
                 not parsed"
            ),
            line: Some(first_line),
        });
    }
    Ok(())
}

/// Parse frontmatter YAML with a real YAML 1.2 parser (`no` stays a string).
/// `first_line` is the file line the YAML starts on, to report errors there.
pub fn parse_yaml(yaml: &str, first_line: usize) -> Result<Mapping, YamlError> {
    parse_yaml_with(yaml, first_line, |yaml| yaml_serde::from_str::<Value>(yaml))
}

/// [`parse_yaml`] with the full parse done by `full` (another reading of
/// duplicate keys, for a layout whose own tool reads them differently).
pub(crate) fn parse_yaml_with(
    yaml: &str,
    first_line: usize,
    full: impl FnOnce(&str) -> Result<Value, yaml_serde::Error>,
) -> Result<Mapping, YamlError> {
    if yaml.trim().is_empty() {
        return Ok(Mapping::new());
    }
    check_size(yaml, first_line)?;
    if let Some(m) = parse_simple(yaml) {
        return Ok(m);
    }
    check_bounds(yaml, first_line)?;
    match full(yaml) {
        Ok(Value::Mapping(m)) => Ok(m),
        Ok(Value::Null) => Ok(Mapping::new()),
        Ok(other) => Err(YamlError {
            message: format!(
                "frontmatter is a YAML {}, not a mapping of keys to values",
                kind_name(&other)
            ),
            line: Some(first_line),
        }),
        Err(e) => {
            let mut message = e.to_string();
            // A character the reader refuses is placed by its byte offset
            // in the block; its location says line 1 whatever the line.
            let line = match byte_position(&message) {
                Some(at) => Some(
                    first_line
                        + yaml.as_bytes()[..at.min(yaml.len())]
                            .iter()
                            .filter(|&&b| b == b'\n')
                            .count(),
                ),
                None => e.location().map(|l| l.line() + first_line - 1),
            };
            // The parser's own position refers to the YAML block, not the file.
            if let Some(i) = message.find(" at line ") {
                message.truncate(i);
            }
            Err(YamlError { message, line })
        }
    }
}

/// The byte offset a YAML reader's message gives (`… at position 88`).
fn byte_position(message: &str) -> Option<usize> {
    let (_, after) = message.rsplit_once(" at position ")?;
    let digits: &str = &after[..after
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(after.len())];
    digits.parse().ok()
}

/// The common shape of frontmatter, read without the full YAML machinery:
/// one `key: value` per line, where each value is a plain word-like scalar,
/// a quoted string without escapes, or a one-line `[...]` list of those.
///
/// Returns `None` for anything else (nested blocks, comments, numbers,
/// escapes, anchors, duplicate keys...), and the caller then uses the YAML
/// parser. Whatever this accepts, the YAML parser reads to the same mapping;
/// the tests check that. Loading a large bank is dominated by YAML parsing
/// otherwise.
pub(crate) fn parse_simple(yaml: &str) -> Option<Mapping> {
    let entries = parse_simple_entries(yaml)?;
    // Sized once for one key per line: a memory root keeps these maps, and
    // growing by doubling would leave most of them a third empty.
    let mut map = Mapping::with_capacity(yaml.lines().count());
    for (key, value) in entries {
        map.insert(Value::String(key.to_owned()), value.to_value());
    }
    Some(map)
}

/// A value of the common shape ([`parse_simple`]), borrowed from the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SimpleValue<'a> {
    /// Quoted or plain text, as the YAML parser reads it.
    Str(&'a str),
    Bool(bool),
    Number(u64),
    /// A one-line list; its items are never lists.
    List(Vec<SimpleValue<'a>>),
}

impl<'a> SimpleValue<'a> {
    /// The value the YAML parser gives for it.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            SimpleValue::Str(s) => Value::String((*s).to_owned()),
            SimpleValue::Bool(b) => Value::Bool(*b),
            SimpleValue::Number(n) => Value::Number((*n).into()),
            SimpleValue::List(items) => {
                Value::Sequence(items.iter().map(SimpleValue::to_value).collect())
            }
        }
    }

    /// What [`scalar_str`] reads from the value the YAML parser gives.
    pub(crate) fn scalar_str(&self) -> Option<Cow<'a, str>> {
        match self {
            SimpleValue::Str(s) => Some(Cow::Borrowed(s)),
            SimpleValue::List(_) => None,
            other => scalar_str(&other.to_value()).map(|s| Cow::Owned(s.into_owned())),
        }
    }
}

/// Keys in one block past which duplicates are found by hashing rather
/// than by comparing each key with those before it.
const KEYS_COMPARED_IN_TURN: usize = 32;

/// [`parse_simple`]'s keys and values in document order, borrowed from
/// `yaml`, for a reader that needs no mapping of its own.
pub(crate) fn parse_simple_entries(yaml: &str) -> Option<Vec<(&str, SimpleValue<'_>)>> {
    // Room for the keys of nearly every block from the start: growing from
    // nothing took three allocations a block.
    parse_simple_entries_in(yaml, Vec::with_capacity(ENTRIES_AT_ONCE))
}

/// [`parse_simple_entries`] into `entries` (emptied first), a list with
/// room already: a reader of many blocks reuses one.
pub(crate) fn parse_simple_entries_in<'a>(
    yaml: &'a str,
    mut entries: Vec<(&'a str, SimpleValue<'a>)>,
) -> Option<Vec<(&'a str, SimpleValue<'a>)>> {
    entries.clear();
    let mut seen: Option<std::collections::HashSet<&str>> = None;
    // The line ends, found in one search over the block rather than one
    // search a line; the last line may have none.
    let bytes = yaml.as_bytes();
    let ends = memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len()));
    let mut start = 0;
    for end in ends {
        let line = &yaml[start..end];
        start = end + 1;
        if line.is_empty() {
            continue;
        }
        let (key, rest) = simple_key(line)?;
        let value = rest.strip_prefix(' ')?.trim_start_matches(' ');
        let value = if let Some(list) = value.strip_prefix('[') {
            let inner = list.trim_end_matches(' ').strip_suffix(']')?;
            let mut items = Vec::new();
            if !inner.trim_matches(' ').is_empty() {
                // One allocation for all the items.
                items.reserve_exact(1 + inner.bytes().filter(|&b| b == b',').count());
                for item in inner.split(',') {
                    items.push(simple_scalar(item.trim_matches(' '), true)?);
                }
            }
            SimpleValue::List(items)
        } else {
            simple_scalar(value.trim_end_matches(' '), false)?
        };
        // A duplicate key is left to the YAML parser, which refuses it.
        let duplicate = match &mut seen {
            Some(seen) => !seen.insert(key),
            None if entries.len() < KEYS_COMPARED_IN_TURN => entries.iter().any(|(k, _)| *k == key),
            None => {
                let mut all: std::collections::HashSet<&str> =
                    entries.iter().map(|(k, _)| *k).collect();
                let duplicate = !all.insert(key);
                seen = Some(all);
                duplicate
            }
        };
        if duplicate {
            return None;
        }
        entries.push((key, value));
    }
    Some(entries)
}

/// Keys a block's entries have room for before they grow: an article has
/// half a dozen to a dozen.
const ENTRIES_AT_ONCE: usize = 16;

/// A line's key and what follows its colon: what `split_once(':')` gives
/// when the part before the colon is a simple key, read in one look at
/// the key's bytes.
fn simple_key(line: &str) -> Option<(&str, &str)> {
    let b = line.as_bytes();
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let len = b[1..]
        .iter()
        .position(|&c| !is_key_byte(c))
        .map_or(b.len(), |i| i + 1);
    if b.get(len) != Some(&b':') {
        return None;
    }
    let key = &line[..len];
    resolves_to_string(key).then(|| (key, &line[len + 1..]))
}

fn is_key_byte(b: u8) -> bool {
    BYTE_CLASS[usize::from(b)] & KEY_BYTE != 0
}

/// What each byte may be in a key or a value of the common shape, a bit
/// for each test: one look-up where each byte of every key and value was
/// a chain of comparisons. Bytes past ASCII have none.
static BYTE_CLASS: [u8; 256] = byte_classes();
const KEY_BYTE: u8 = 1;
const PLAIN_BYTE: u8 = 2;
const DOUBLE_QUOTED_BYTE: u8 = 4;
const SINGLE_QUOTED_BYTE: u8 = 8;

const fn byte_classes() -> [u8; 256] {
    let mut classes = [0; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let printable = b >= b' ' && b < 0x7f;
        let word = b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
        let mut class = 0;
        if word {
            class |= KEY_BYTE;
        }
        if word || matches!(b, b' ' | b'.' | b'/' | b'(' | b')' | b'>') {
            class |= PLAIN_BYTE;
        }
        if printable && b != b'"' && b != b'\\' {
            class |= DOUBLE_QUOTED_BYTE;
        }
        if printable && b != b'\'' {
            class |= SINGLE_QUOTED_BYTE;
        }
        classes[i] = class;
        i += 1;
    }
    classes
}

/// A plain scalar starting with a letter is a string unless it is one of
/// the YAML null or boolean words.
fn resolves_to_string(plain: &str) -> bool {
    !matches!(
        plain,
        "null" | "Null" | "NULL" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
    )
}

/// Characters YAML prints as themselves inside quotes.
fn quotable(c: char) -> bool {
    !c.is_control() && !matches!(c, '\u{feff}' | '\u{fffe}' | '\u{ffff}')
}

fn simple_scalar(s: &str, in_list: bool) -> Option<SimpleValue<'_>> {
    if let Some(inner) = s.strip_prefix('"') {
        let inner = inner.strip_suffix('"')?;
        let ok = all_chars(inner, in_double_quotes_ascii, in_double_quotes);
        return ok.then_some(SimpleValue::Str(inner));
    }
    if let Some(inner) = s.strip_prefix('\'') {
        let inner = inner.strip_suffix('\'')?;
        let ok = all_chars(inner, in_single_quotes_ascii, in_single_quotes);
        return ok.then_some(SimpleValue::Str(inner));
    }
    match s {
        "true" | "True" | "TRUE" => return Some(SimpleValue::Bool(true)),
        "false" | "False" | "FALSE" => return Some(SimpleValue::Bool(false)),
        _ => {}
    }
    // A plain decimal without sign or leading zero (`schema_version: 1`,
    // `entry_count: 12`) is the same integer in every YAML version.
    let b = s.as_bytes();
    if !b.is_empty()
        && b.len() <= 18
        && b.iter().all(u8::is_ascii_digit)
        && (b[0] != b'0' || b.len() == 1)
    {
        return s.parse::<u64>().ok().map(SimpleValue::Number);
    }
    let is_date = parse_iso_date_shape(s);
    let starts_with_letter = s.chars().next().is_some_and(char::is_alphabetic);
    let ok = (is_date || (starts_with_letter && resolves_to_string(s)))
        && all_chars(s, plain_ascii, plain_char)
        && !(in_list && s.is_empty());
    ok.then_some(SimpleValue::Str(s))
}

/// Characters a plain value of the common shape may hold.
fn plain_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | '/' | '(' | ')' | '→' | '>')
}

/// [`plain_char`] of an ASCII character, from its byte.
fn plain_ascii(b: u8) -> bool {
    BYTE_CLASS[usize::from(b)] & PLAIN_BYTE != 0
}

fn in_double_quotes(c: char) -> bool {
    quotable(c) && c != '"' && c != '\\'
}

/// [`in_double_quotes`] of an ASCII character: not a control character.
fn in_double_quotes_ascii(b: u8) -> bool {
    BYTE_CLASS[usize::from(b)] & DOUBLE_QUOTED_BYTE != 0
}

fn in_single_quotes(c: char) -> bool {
    quotable(c) && c != '\''
}

fn in_single_quotes_ascii(b: u8) -> bool {
    BYTE_CLASS[usize::from(b)] & SINGLE_QUOTED_BYTE != 0
}

/// Whether every character of `s` is one `char_ok` accepts, with `ascii`
/// giving the same answer for an ASCII character from its byte: values
/// are nearly all ASCII, and decoding each character cost more than the
/// test.
fn all_chars(s: &str, ascii: fn(u8) -> bool, char_ok: fn(char) -> bool) -> bool {
    // `ascii` is false for every byte past ASCII (see `BYTE_CLASS`).
    match s.bytes().position(|b| !ascii(b)) {
        None => true,
        Some(i) if s.as_bytes()[i].is_ascii() => false,
        // A byte past ASCII starts a character: the rest is read by character.
        Some(i) => s[i..].chars().all(char_ok),
    }
}

/// `NNNN-NN-NN`: never a number in YAML, so it stays a string.
fn parse_iso_date_shape(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Sequence(_) => "list",
        Value::Mapping(_) => "mapping",
        Value::Tagged(_) => "tagged value",
    }
}

/// A scalar as text: strings as written, numbers and booleans printed.
pub fn scalar_text(v: &Value) -> Option<String> {
    scalar_str(v).map(Cow::into_owned)
}

/// [`scalar_text`], borrowing a string rather than copying it.
pub fn scalar_str(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Number(n) => Some(Cow::Owned(n.to_string())),
        Value::Bool(b) => Some(Cow::Owned(b.to_string())),
        Value::Tagged(t) => scalar_str(&t.value),
        _ => None,
    }
}

/// The text values of a key: one for a scalar, one per scalar item of a
/// list. An unquoted `[[Legal]]` counts as the link its author meant.
pub fn strings(map: &Mapping, key: &str) -> Vec<String> {
    value_strings(map.get(key))
        .into_iter()
        .map(Cow::into_owned)
        .collect()
}

/// [`strings`] of a key's value, found by the caller, borrowing what it can.
pub fn value_strings(value: Option<&Value>) -> Vec<Cow<'_, str>> {
    let item = |v| scalar_str(v).or_else(|| unquoted_link(v).map(Cow::Owned));
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(v) if unquoted_link(v).is_some() => {
            unquoted_link(v).map(Cow::Owned).into_iter().collect()
        }
        Some(Value::Sequence(items)) => items.iter().filter_map(item).collect(),
        Some(Value::Tagged(t)) => match &t.value {
            Value::Sequence(items) => items.iter().filter_map(item).collect(),
            v => scalar_str(v).into_iter().collect(),
        },
        Some(v) => scalar_str(v).into_iter().collect(),
    }
}

/// The first of [`value_strings`], without gathering the rest.
pub fn first_value_string(value: Option<&Value>) -> Option<Cow<'_, str>> {
    let item = |v| scalar_str(v).or_else(|| unquoted_link(v).map(Cow::Owned));
    match value {
        None | Some(Value::Null) => None,
        Some(v) if unquoted_link(v).is_some() => unquoted_link(v).map(Cow::Owned),
        Some(Value::Sequence(items)) => items.iter().find_map(item),
        Some(Value::Tagged(t)) => match &t.value {
            Value::Sequence(items) => items.iter().find_map(item),
            v => scalar_str(v),
        },
        Some(v) => scalar_str(v),
    }
}

/// `[[Legal]]` written without quotes: YAML reads it as a list holding a
/// list holding `Legal`. Returns the link as its author wrote it.
pub fn unquoted_link(v: &Value) -> Option<String> {
    fn single(v: &Value) -> Option<&Value> {
        match v {
            Value::Sequence(items) if items.len() == 1 => Some(&items[0]),
            _ => None,
        }
    }
    let inner = single(single(v)?)?;
    scalar_text(inner).map(|s| format!("[[{s}]]"))
}

/// The first unquoted `[[link]]` anywhere in this value, as written.
pub fn first_unquoted_link(v: &Value) -> Option<String> {
    unquoted_link(v).or_else(|| match v {
        Value::Sequence(items) => items.iter().find_map(first_unquoted_link),
        Value::Mapping(m) => m.values().find_map(first_unquoted_link),
        Value::Tagged(t) => first_unquoted_link(&t.value),
        _ => None,
    })
}

/// Every string anywhere in a YAML value, depth first, in document order;
/// an unquoted `[[link]]` is given back as written.
pub fn all_strings<'a>(v: &'a Value, out: &mut Vec<std::borrow::Cow<'a, str>>) {
    if let Some(link) = unquoted_link(v) {
        out.push(link.into());
        return;
    }
    match v {
        Value::String(s) => out.push(s.as_str().into()),
        Value::Sequence(items) => items.iter().for_each(|i| all_strings(i, out)),
        Value::Mapping(m) => m.values().for_each(|i| all_strings(i, out)),
        Value::Tagged(t) => all_strings(&t.value, out),
        _ => {}
    }
}

/// Key names as text, in document order.
pub fn key_names(map: &Mapping) -> Vec<String> {
    map.keys().filter_map(scalar_text).collect()
}

/// Strictly `YYYY-MM-DD` and a real calendar day.
pub fn parse_iso_date(s: &str) -> Option<jiff::civil::Date> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digits = |r: Range<usize>| -> Option<i32> {
        let part = &s[r];
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (y, m, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    jiff::civil::Date::new(y as i16, m as i8, d as i8).ok()
}

/// The readings of the block as they were before they were made cheaper,
/// kept for the tests to compare the current ones with on any input.
#[cfg(test)]
pub(crate) mod reference {
    use super::*;

    pub fn locate_cow(text: Cow<'_, str>) -> Located<'_> {
        // §4.3 is about frontmatter: a fence is only a wrapper when frontmatter
        // follows it. Otherwise it is an ordinary code block and stays one.
        let stripped = strip_outer_fence(&text)
            .map(|fence| (find_block(&fence.inner), fence))
            .filter(|((block, _), _)| *block != Block::Missing);
        match stripped {
            Some(((block, body_start), fence)) => Located {
                text: Cow::Owned(fence.inner),
                fenced: true,
                fence_unclosed: fence.close_line.is_none(),
                line_shift: fence.line_shift,
                fence_blanks: fence.blanks,
                fence_close_line: fence.close_line,
                only_code: false,
                block,
                body_start,
            },
            None => {
                let only_code = is_one_code_block(&text);
                let (block, body_start) = find_block(&text);
                Located {
                    text,
                    fenced: false,
                    fence_unclosed: false,
                    line_shift: 0,
                    fence_blanks: 0,
                    fence_close_line: None,
                    only_code,
                    block,
                    body_start,
                }
            }
        }
    }

    fn strip_outer_fence(text: &str) -> Option<Fence> {
        let mut offset = 0;
        let mut lines_before = 0;
        for line in text.split_inclusive('\n') {
            if !line.trim().is_empty() {
                break;
            }
            offset += line.len();
            lines_before += 1;
        }
        let rest = &text[offset..];
        let first = rest.split_inclusive('\n').next().unwrap_or("");
        let (ch, len, info) = fence_of(first.trim_end_matches('\n'))?;
        let inner = &rest[first.len()..];
        // Walk the inner lines pairing nested fences, so a code block inside the
        // wrapped article does not end the wrapper early.
        let mut nested: Option<(char, usize)> = None;
        let mut pos = 0;
        let mut line_no = lines_before + 1;
        let mut close: Option<(Range<usize>, usize)> = None;
        for line in inner.split_inclusive('\n') {
            line_no += 1;
            let bare = line.trim_end_matches('\n');
            if let Some((c, n, info)) = fence_of(bare) {
                match nested {
                    Some((nc, nn)) if c == nc && n >= nn && info.is_empty() => nested = None,
                    Some(_) => {}
                    None if info.is_empty() && c == ch && n >= len => {
                        close = Some((pos..pos + line.len(), line_no));
                        break;
                    }
                    None => nested = Some((c, n)),
                }
            }
            pos += line.len();
        }
        let mut out = String::with_capacity(inner.len());
        let mut ends_the_file = true;
        match &close {
            Some((r, _)) => {
                out.push_str(&inner[..r.start]);
                out.push_str(&inner[r.end..]);
                ends_the_file = inner[r.end..].trim().is_empty();
            }
            None => out.push_str(inner),
        }
        let fence = Fence {
            inner: out,
            line_shift: lines_before + 1,
            close_line: close.map(|(_, line)| line),
            ends_the_file,
            blanks: 0,
            markdown: false,
        };
        Some(without_leading_blanks(fence, info))
    }

    /// The file is one fenced code block (closed at the end, or never closed)
    /// and nothing else.
    fn is_one_code_block(text: &str) -> bool {
        strip_outer_fence(text).is_some_and(|f| f.ends_the_file && !f.markdown)
    }

    fn is_delimiter(line: &str) -> bool {
        line.trim_end() == "---"
    }

    fn find_block(text: &str) -> (Block, usize) {
        let mut lines = text.split_inclusive('\n');
        let Some(first) = lines.next() else {
            return (Block::Missing, 0);
        };
        if !is_delimiter(first.trim_end_matches('\n')) {
            return (Block::Missing, 0);
        }
        let start = first.len();
        let mut pos = start;
        for line in lines {
            if is_delimiter(line.trim_end_matches('\n')) {
                return (Block::Present(start..pos), pos + line.len());
            }
            pos += line.len();
        }
        (Block::Unclosed, 0)
    }

    pub(crate) fn parse_simple_entries(yaml: &str) -> Option<Vec<(&str, SimpleValue<'_>)>> {
        let mut entries: Vec<(&str, SimpleValue<'_>)> = Vec::new();
        let mut seen: Option<std::collections::HashSet<&str>> = None;
        for line in yaml.split('\n') {
            if line.is_empty() {
                continue;
            }
            let (key, rest) = line.split_once(':')?;
            if !is_simple_key(key) {
                return None;
            }
            let value = rest.strip_prefix(' ')?.trim_start_matches(' ');
            let value = if let Some(list) = value.strip_prefix('[') {
                let inner = list.trim_end_matches(' ').strip_suffix(']')?;
                let mut items = Vec::new();
                if !inner.trim_matches(' ').is_empty() {
                    for item in inner.split(',') {
                        items.push(simple_scalar(item.trim_matches(' '), true)?);
                    }
                }
                SimpleValue::List(items)
            } else {
                simple_scalar(value.trim_end_matches(' '), false)?
            };
            // A duplicate key is left to the YAML parser, which refuses it.
            let duplicate = match &mut seen {
                Some(seen) => !seen.insert(key),
                None if entries.len() < KEYS_COMPARED_IN_TURN => {
                    entries.iter().any(|(k, _)| *k == key)
                }
                None => {
                    let mut all: std::collections::HashSet<&str> =
                        entries.iter().map(|(k, _)| *k).collect();
                    let duplicate = !all.insert(key);
                    seen = Some(all);
                    duplicate
                }
            };
            if duplicate {
                return None;
            }
            entries.push((key, value));
        }
        Some(entries)
    }

    fn is_simple_key(key: &str) -> bool {
        let mut bytes = key.bytes();
        bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
            && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            && resolves_to_string(key)
    }

    fn simple_scalar(s: &str, in_list: bool) -> Option<SimpleValue<'_>> {
        if let Some(inner) = s.strip_prefix('"') {
            let inner = inner.strip_suffix('"')?;
            let ok = inner.chars().all(|c| quotable(c) && c != '"' && c != '\\');
            return ok.then_some(SimpleValue::Str(inner));
        }
        if let Some(inner) = s.strip_prefix('\'') {
            let inner = inner.strip_suffix('\'')?;
            let ok = inner.chars().all(|c| quotable(c) && c != '\'');
            return ok.then_some(SimpleValue::Str(inner));
        }
        match s {
            "true" | "True" | "TRUE" => return Some(SimpleValue::Bool(true)),
            "false" | "False" | "FALSE" => return Some(SimpleValue::Bool(false)),
            _ => {}
        }
        // A plain decimal without sign or leading zero (`schema_version: 1`,
        // `entry_count: 12`) is the same integer in every YAML version.
        let b = s.as_bytes();
        if !b.is_empty()
            && b.len() <= 18
            && b.iter().all(u8::is_ascii_digit)
            && (b[0] != b'0' || b.len() == 1)
        {
            return s.parse::<u64>().ok().map(SimpleValue::Number);
        }
        let plain_char = |c: char| {
            c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | '/' | '(' | ')' | '→' | '>')
        };
        let is_date = parse_iso_date_shape(s);
        let starts_with_letter = s.chars().next().is_some_and(char::is_alphabetic);
        let ok = (is_date || (starts_with_letter && resolves_to_string(s)))
            && s.chars().all(plain_char)
            && !(in_list && s.is_empty());
        ok.then_some(SimpleValue::Str(s))
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_first_value_string_is_the_first_of_all_of_them() {
        let yaml = "a: x\nb: [y, z]\nc: [[Legal]]\nd: []\ne: 12\nf: true\ng:\nh: !tag [p, q]\ni: !tag r\nj: [[1, 2]]\nk: {m: n}\n";
        let map = parse_yaml(yaml, 2).unwrap();
        for key in [
            "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "missing",
        ] {
            assert_eq!(
                first_value_string(map.get(key)),
                value_strings(map.get(key)).into_iter().next(),
                "{key}"
            );
        }
        assert_eq!(
            first_value_string(map.get("c")).as_deref(),
            Some("[[Legal]]")
        );
    }
    use super::*;
    use proptest::prelude::*;

    fn yaml_of<'a>(l: &'a Located<'_>) -> &'a str {
        match &l.block {
            Block::Present(r) => &l.text[r.clone()],
            other => panic!("no block: {other:?}"),
        }
    }

    #[test]
    fn plain_frontmatter() {
        let l = locate("---\nclient: Acme\n---\n# Acme\n");
        assert!(!l.fenced);
        assert_eq!(yaml_of(&l), "client: Acme\n");
        assert_eq!(&l.text[l.body_start..], "# Acme\n");
    }

    #[test]
    fn fenced_frontmatter_is_unwrapped() {
        let l = locate("```markdown\n---\nclient: \"Acme\"\n---\n# Acme\n```\n");
        assert!(l.fenced);
        assert!(!l.fence_unclosed);
        assert_eq!(l.line_shift, 1);
        assert_eq!(yaml_of(&l), "client: \"Acme\"\n");
        assert_eq!(&l.text[l.body_start..], "# Acme\n");
    }

    #[test]
    fn tilde_fence_and_leading_blank_lines() {
        let l = locate("\n\n~~~md\n---\na: 1\n---\nbody\n~~~\n");
        assert!(l.fenced);
        assert_eq!(l.line_shift, 3);
        assert_eq!(yaml_of(&l), "a: 1\n");
    }

    #[test]
    fn nested_code_block_does_not_close_the_wrapper() {
        let l = locate("```markdown\n---\na: 1\n---\n```python\nx = 1\n```\nafter\n```\n");
        assert!(l.fenced);
        assert_eq!(&l.text[l.body_start..], "```python\nx = 1\n```\nafter\n");
    }

    #[test]
    fn unclosed_fence_still_reads() {
        let l = locate("```\n---\na: 1\n---\nbody\n");
        assert!(l.fenced && l.fence_unclosed);
        assert_eq!(yaml_of(&l), "a: 1\n");
    }

    #[test]
    fn missing_and_unclosed_blocks() {
        assert_eq!(locate("# Title\n").block, Block::Missing);
        assert_eq!(locate("").block, Block::Missing);
        assert_eq!(locate("---\na: 1\n").block, Block::Unclosed);
    }

    #[test]
    fn yaml_12_keeps_norwegian() {
        let m = parse_yaml("target_lang: no\nsource_lang: en\n", 2).unwrap();
        assert_eq!(strings(&m, "target_lang"), vec!["no"]);
    }

    #[test]
    fn lists_and_scalars_become_strings() {
        let m = parse_yaml("clients: [\"[[A]]\", B]\nclient: 42\nx: ~\n", 2).unwrap();
        assert_eq!(strings(&m, "clients"), vec!["[[A]]", "B"]);
        assert_eq!(strings(&m, "client"), vec!["42"]);
        assert!(strings(&m, "x").is_empty());
        assert!(strings(&m, "absent").is_empty());
    }

    #[test]
    fn yaml_errors_point_at_the_file_line() {
        let e = parse_yaml("a: 1\nb: [unclosed\n", 2).unwrap_err();
        assert!(e.line.unwrap() >= 3, "{e:?}");
        let e = parse_yaml("- just\n- a list\n", 2).unwrap_err();
        assert!(e.message.contains("list"));
        // A control character is placed by its offset: on its own line.
        for (yaml, line) in [
            ("scope: général\na: 1\nb: 2\nnote: \"x\u{1}\"\n", 5),
            ("note: \"\u{1}x\"\na: 1\n", 2),
            ("a: 1\nb: \"é\u{7f}\"\n", 3),
        ] {
            let e = parse_yaml(yaml, 2).unwrap_err();
            assert_eq!(e.line, Some(line), "{yaml:?}: {e:?}");
        }
    }

    fn full_parse(yaml: &str) -> Option<Mapping> {
        match yaml_serde::from_str::<Value>(yaml) {
            Ok(Value::Mapping(m)) => Some(m),
            _ => None,
        }
    }

    #[test]
    fn common_frontmatter_takes_the_quick_path_with_the_same_result() {
        for yaml in [
            "client: \"Acme Corporation\"\nlanguages: [\"en-US → nl-BE\", \"en-US → fr-FR\"]\ndomains: [\"[[Legal]]\", \"[[Marketing]]\"]\nlast_updated: 2026-04-04\ncompiled_from: \"00_INBOX/acme.md\"\n",
            "term_source: \"compliance\"\nterm_target: naleving\nsource_lang: en-US\ntarget_lang: no\ndomain: \"[[Legal]]\"\nclients: ['[[Acme|A]]', Beta NV]\nstatus: approved\nlast_updated: 2026-13-45\n",
            "scope: general\nlanguages: [en-US -> nl-BE]\nrelated_domains: []\ncompiled: true\n\nx: False\n",
            "id: x\nschema_version: 1\nentry_count: 120\nzero: 0\n",
        ] {
            let quick = parse_simple(yaml).unwrap_or_else(|| panic!("not quick: {yaml}"));
            assert_eq!(Some(quick), full_parse(yaml), "{yaml}");
        }
    }

    #[test]
    fn anything_unusual_goes_to_the_yaml_parser() {
        for yaml in [
            "clients:\n  - Acme\n",
            "a: 01\n",
            "a: -1\n",
            "a: 1.5\n",
            "a: 2026-04-04T10:00\n",
            "a: b # comment\n",
            "a: \"tab\\there\"\n",
            "a: x\na: y\n",
            "null: x\n",
            "a: null\n",
            "a: ~\n",
            "a: &anchor x\n",
            "a: [\"x, y\"]\n",
            "a: [x, ]\n",
            "a: 'it''s'\n",
            "  a: x\n",
            "a: x: y\n",
            "a:\n",
            "\"a\": x\n",
        ] {
            assert_eq!(parse_simple(yaml), None, "{yaml}");
        }
    }

    #[test]
    fn a_duplicate_key_among_many_goes_to_the_yaml_parser() {
        let many: String = (0..40).map(|i| format!("k{i}: v\n")).collect();
        let entries = parse_simple_entries(&many).unwrap();
        assert_eq!(entries.len(), 40);
        assert_eq!(parse_simple(&many).unwrap().len(), 40);
        for again in ["k0", "k35", "k39"] {
            let yaml = format!("{many}{again}: w\n");
            assert_eq!(parse_simple_entries(&yaml), None, "{again}");
        }
    }

    fn yamlish_value() -> impl Strategy<Value = String> {
        let scalar = prop_oneof![
            "[a-zA-Z0-9 →>#:,._/()'\\[\\]\\-]{0,10}",
            "\"[a-zA-Z0-9 →#:,'\\[\\]|\\\\\\-]{0,10}\"",
            "'[a-zA-Z0-9 →#:,\"\\[\\]|\\-]{0,10}'",
            Just("2026-04-04".to_owned()),
            Just("true".to_owned()),
            Just("no".to_owned()),
            Just("nan".to_owned()),
            any::<char>().prop_map(|c| c.to_string()),
        ];
        prop_oneof![
            scalar.clone(),
            prop::collection::vec(scalar, 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        #[test]
        fn the_quick_path_agrees_with_the_yaml_parser(
            lines in prop::collection::vec(
                ("[a-zA-Z_][a-zA-Z0-9_-]{0,5}|true|null|inf", ":[ ]{0,2}", yamlish_value()),
                1..6,
            )
        ) {
            let yaml: String = lines.iter().map(|(k, sep, v)| format!("{k}{sep}{v}\n")).collect();
            if let Some(quick) = parse_simple(&yaml) {
                prop_assert_eq!(Some(quick), full_parse(&yaml), "{}", yaml);
            }
        }
    }

    #[test]
    fn the_byte_tests_agree_with_the_character_tests_on_ascii() {
        for b in 0..0x80u8 {
            let c = char::from(b);
            assert_eq!(plain_ascii(b), plain_char(c), "{b:#x}");
            assert_eq!(in_double_quotes_ascii(b), in_double_quotes(c), "{b:#x}");
            assert_eq!(in_single_quotes_ascii(b), in_single_quotes(c), "{b:#x}");
        }
        // The table gives every byte what the comparisons gave it.
        for b in 0..=0xffu8 {
            let key = b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
            assert_eq!(is_key_byte(b), key, "{b:#x}");
            let plain = b.is_ascii_alphanumeric()
                || matches!(b, b' ' | b'-' | b'_' | b'.' | b'/' | b'(' | b')' | b'>');
            assert_eq!(plain_ascii(b), plain, "{b:#x}");
            let double = (b' '..0x7f).contains(&b) && b != b'"' && b != b'\\';
            assert_eq!(in_double_quotes_ascii(b), double, "{b:#x}");
            let single = (b' '..0x7f).contains(&b) && b != b'\'';
            assert_eq!(in_single_quotes_ascii(b), single, "{b:#x}");
        }
        // Past ASCII the characters decide, from the first one on.
        assert!(all_chars("ab→cd", plain_ascii, plain_char));
        assert!(!all_chars("ab→c#", plain_ascii, plain_char));
        assert!(!all_chars("a#→c", plain_ascii, plain_char));
        assert!(!all_chars(
            "é\u{85}",
            in_double_quotes_ascii,
            in_double_quotes
        ));
        assert!(all_chars("", plain_ascii, plain_char));
    }

    /// Lines that make the block and its fence hard to find, and lines of
    /// frontmatter of every kind the quick reading meets.
    fn tricky_line() -> impl Strategy<Value = String> {
        let fixed = prop::sample::select(vec![
            "---",
            "--- ",
            "---\t",
            "---\r",
            "----",
            " ---",
            "---x",
            "--",
            "```",
            "```markdown",
            "```python",
            "~~~",
            "~~~md",
            "    ```",
            "   ```",
            "\t```",
            "````",
            "",
            " ",
            "\t",
            "\u{a0}",
            "---\u{a0}",
            "\u{feff}---",
            "# Title",
            "a: 1",
            "client: Acme",
            "clients: [\"[[A]]\", B]",
            "languages: [en-US → nl-BE, en -> fr]",
            "a: x",
            "a: y",
            "key:value",
            "key:  \"q\"",
            "key: 'it''s'",
            "k: [a,b, c ]",
            "k: []",
            "k: [ ]",
            "k: [a,]",
            "k: \"tab\there\"",
            "k: \"\u{85}\"",
            "k: \u{fffd}",
            "k: \"\u{fffe}\"",
            "k: no",
            "k: 2026-04-04",
            "k: 007",
            "k: 12",
            "null: x",
            "true: y",
            "k-1_b: v",
            "é: x",
            "k: x\r",
            "k: a # c",
            "k: 'x'",
            "k: \"\"",
            "  k: v",
            "k:",
            "k: True",
        ])
        .prop_map(str::to_owned);
        prop_oneof![
            4 => fixed,
            1 => "[a-z_ :\\[\\]\"',#→>\\-]{0,12}",
            1 => any::<String>(),
            // Invalid UTF-8 as a reader that replaced it would see it.
            1 => prop::collection::vec(any::<u8>(), 0..12)
                .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 4000, ..Default::default() })]

        #[test]
        fn the_block_is_found_where_it_was_found_before(
            lines in prop::collection::vec(tricky_line(), 0..10),
            newline_at_end in any::<bool>(),
        ) {
            let mut text = lines.join("\n");
            if newline_at_end {
                text.push('\n');
            }
            prop_assert_eq!(
                locate_cow(Cow::Borrowed(&text)),
                reference::locate_cow(Cow::Borrowed(&text)),
                "{:?}", text
            );
            // Every block starts with its delimiter.
            let framed = format!("---\n{text}");
            prop_assert_eq!(locate(&framed), reference::locate_cow(Cow::Borrowed(&framed)));
        }

        #[test]
        fn the_entries_are_read_as_they_were_before(
            lines in prop::collection::vec(tricky_line(), 0..10),
            newline_at_end in any::<bool>(),
        ) {
            let mut yaml = lines.join("\n");
            if newline_at_end {
                yaml.push('\n');
            }
            prop_assert_eq!(
                parse_simple_entries(&yaml),
                reference::parse_simple_entries(&yaml),
                "{:?}", yaml
            );
        }

        #[test]
        fn generated_entries_are_read_as_they_were_before(
            lines in prop::collection::vec(
                ("[a-zA-Z_é][a-zA-Z0-9_é-]{0,5}|true|null|inf", ":[ \t]{0,2}", yamlish_value()),
                1..20,
            )
        ) {
            let yaml: String = lines.iter().map(|(k, sep, v)| format!("{k}{sep}{v}\n")).collect();
            prop_assert_eq!(
                parse_simple_entries(&yaml),
                reference::parse_simple_entries(&yaml),
                "{}", yaml
            );
        }
    }

    #[test]
    fn the_block_is_found_after_lines_that_only_start_like_its_end() {
        let l = locate("---\na: 1\n----\n--- x\n---  \nbody\n");
        assert_eq!(yaml_of(&l), "a: 1\n----\n--- x\n");
        assert_eq!(&l.text[l.body_start..], "body\n");
        let l = locate("---\n---");
        assert_eq!(l.block, Block::Present(4..4));
        assert_eq!(l.body_start, 7);
        assert_eq!(locate("---").block, Block::Unclosed);
        assert_eq!(locate("---\na\n----").block, Block::Unclosed);
        assert_eq!(locate(" ---\na\n---\n").block, Block::Missing);
    }

    #[test]
    fn a_fence_around_no_frontmatter_is_only_code_and_stays() {
        let l = locate("```python\nx = 1\n```\n");
        assert!(l.only_code && !l.fenced);
        assert_eq!(l.block, Block::Missing);
        assert_eq!(l.text, "```python\nx = 1\n```\n");
        let l = locate("```python\nx = 1\n```\nmore\n");
        assert!(!l.only_code && !l.fenced);
        // A Markdown block is an article that lost its frontmatter.
        for text in ["```markdown\nno block\n```\n", "```MD\nno block\n```\n"] {
            let l = locate(text);
            assert!(!l.only_code && !l.fenced, "{text:?}");
        }
    }

    /// Blank lines between the fence and the block are passed over, and
    /// counted apart, so the fence's own line is still known.
    #[test]
    fn blank_lines_after_a_fence_come_before_the_block() {
        let l = locate("```markdown\n\n \n---\na: 1\n---\nbody\n```\n");
        assert!(l.fenced);
        assert_eq!(l.block, Block::Present(4..9));
        assert_eq!((l.line_shift, l.fence_blanks), (3, 2));
        assert_eq!(l.text, "---\na: 1\n---\nbody\n");
    }

    #[test]
    fn dates_are_strict() {
        assert!(parse_iso_date("2026-04-08").is_some());
        assert!(parse_iso_date("2026-02-30").is_none());
        assert!(parse_iso_date("2026-4-8").is_none());
        assert!(parse_iso_date("08-04-2026").is_none());
        assert!(parse_iso_date("2026-04-08T10:00").is_none());
    }

    /// The bound holds for a block the quick reader would take as well.
    #[test]
    fn a_huge_block_of_the_common_shape_is_refused_too() {
        let yaml = format!("client: \"Huge\"\nnote: \"{}\"\n", "x".repeat(300_000));
        assert!(parse_simple(&yaml).is_some(), "the quick reader's shape");
        let e = parse_yaml(&yaml, 2).unwrap_err();
        assert!(e.message.contains("more than 64 KB"), "{}", e.message);
    }

    #[test]
    fn crafted_nesting_and_huge_frontmatter_are_refused_before_parsing() {
        // Unclosed flow nesting made the parser superlinear (seconds for
        // a few hundred KB); it is refused by its depth now.
        let deep = "a: ".to_owned() + &"{a: ".repeat(60_000);
        let e = parse_yaml(&deep, 2).unwrap_err();
        assert!(e.message.contains("more than 64 KB"), "{}", e.message);
        let nested = "a: ".to_owned() + &"[".repeat(40) + &"]".repeat(40);
        let e = parse_yaml(&nested, 2).unwrap_err();
        assert!(e.message.contains("levels deep"), "{}", e.message);
        assert_eq!(e.line, Some(2));
        // Brackets inside quotes and comments do not count.
        let quoted = format!(
            "a: \"{}\" # {}\nb: [1, [2]]\n",
            "[".repeat(50),
            "{".repeat(50)
        );
        assert!(parse_yaml(&quoted, 2).is_ok());
    }
}
