//! One Markdown file of the bank, decoded and parsed once at load time.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use jiff::civil::Date;
use yaml_serde::Mapping;

use crate::frontmatter::{self, Block, SimpleValue, YamlError};
use crate::intern;
use crate::layout::Folder;
use crate::load_options::LoadOptions;
use crate::text;
use crate::wikilink::{self, LinkKind, fold, normalize_value};

/// The state of an article's frontmatter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontmatterState {
    /// The file does not start with `---`.
    Missing,
    /// `---` opens a block that never closes.
    Unclosed,
    /// The block is not valid YAML or not a mapping (boxed: seldom, and
    /// every article holds room for the largest variant).
    Invalid(Box<YamlError>),
    /// Parsed; the range is the YAML text inside `Article::text` (32-bit:
    /// no file over the reader's per-file cap is read, and the block is
    /// part of one; see [`Article::yaml_range`]).
    Parsed(Range<u32>),
}

/// How the file looked on disk, for health checks and faithful rewriting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Encoding {
    pub had_bom: bool,
    /// Read from UTF-16 (the format asks for UTF-8).
    pub utf16: bool,
    pub crlf: bool,
    /// Wrapped in a code fence that §4.3 stripped.
    pub fenced: bool,
    pub fence_unclosed: bool,
    /// See [`Encoding::line_shift`]; 32-bit, as every line number of a
    /// file the reader accepts fits.
    line_shift: u32,
    /// See [`Encoding::fence_close_line`].
    fence_close_line: Option<u32>,
    /// Blank lines between the opening fence and the frontmatter (see
    /// [`Encoding::fence_open_line`]).
    fence_blanks: u32,
    /// The whole file is one code block without frontmatter (not a fenced
    /// article: nothing is stripped, and its code holds no links).
    pub only_code: bool,
    /// No frontmatter found because the lines end in a carriage return
    /// alone (old Mac files): to every tool the file is one line.
    pub cr_only: bool,
}

/// A frontmatter value that takes part in scoring, kept as written and folded.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyedValue {
    pub key: &'static str,
    /// As written in the file, e.g. `[[Acme Corporation]]`.
    pub raw: Arc<str>,
    /// Normalised (§7) and lower-cased, for comparison.
    pub folded: Arc<str>,
}

/// A language value and the codes it names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LanguageValue {
    pub key: &'static str,
    pub raw: Arc<str>,
    /// Each side of `→` / `->`, trimmed, as written.
    pub tags: Tags,
}

/// A language value's codes. Most values name one code, the value
/// itself: that is a second pointer to it, not a list of its own (an
/// allocation for each language value of every article).
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Tags {
    /// Exactly one code.
    One(Arc<str>),
    /// None, or two and more.
    Many(Box<[Arc<str>]>),
}

impl Tags {
    /// The codes `tags` names, each copied by `copy`, in order; a list
    /// made at its size (collected, it grew and was cut back).
    fn of<'a>(
        tags: impl Iterator<Item = &'a str> + Clone,
        copy: impl FnMut(&'a str) -> Arc<str>,
    ) -> Tags {
        let mut copied = tags.clone().map(copy);
        match tags.count() {
            1 => Tags::One(copied.next().unwrap_or_default()),
            n => {
                let mut many = Vec::with_capacity(n);
                many.extend(copied);
                Tags::Many(many.into_boxed_slice())
            }
        }
    }

    pub fn as_slice(&self) -> &[Arc<str>] {
        match self {
            Tags::One(one) => std::slice::from_ref(one),
            Tags::Many(many) => many,
        }
    }
}

impl std::ops::Deref for Tags {
    type Target = [Arc<str>];

    fn deref(&self) -> &[Arc<str>] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a Tags {
    type Item = &'a Arc<str>;
    type IntoIter = std::slice::Iter<'a, Arc<str>>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// As the list it stands for.
impl std::fmt::Debug for Tags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// The frontmatter facts membank uses, extracted once.
///
/// A bank holds one of these per article, so what articles of a kind
/// have in common is one shared [`SharedFacts`] (read through `Deref`, as
/// `meta.keys`), the lists are shared copies (equal lists are one copy:
/// many articles name the same client or domain), and the rest hold no
/// spare room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// One pointer where the lists and values it holds took 96 bytes in
    /// every article.
    shared: Arc<SharedFacts>,
    pub clients: Arc<[KeyedValue]>,
    pub domains: Arc<[KeyedValue]>,
    pub last_updated: Option<Arc<str>>,
    pub last_updated_date: Option<Date>,
    pub compiled: bool,
    /// `term_source` then `term_target`, one string: most articles of a
    /// terminology have both, and two strings were two allocations.
    terms: Box<str>,
    /// Where `term_target` starts in `terms`; the top two bits say which
    /// of the two is set (a value may be set and empty).
    term_split: u32,
    /// What few articles set, out of line: every article held room for
    /// it (32 bytes) in the record itself.
    rare: Option<Box<RareMeta>>,
}

/// `term_split`'s bits for a set `term_source` and `term_target`.
const HAS_TERM_SOURCE: u32 = 1 << 31;
const HAS_TERM_TARGET: u32 = 1 << 30;

/// The facts of [`Meta`] that repeat across the articles of a kind (their
/// keys, languages and status; not their clients and domains, which
/// differ from article to article in most banks): equal ones are one copy
/// (see `intern::shared_facts`), each part itself a shared copy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SharedFacts {
    /// Key names in document order.
    pub keys: Arc<[Arc<str>]>,
    /// Keys present with no value (`~`, blank text, `[]`), so checks can tell
    /// "missing" from "set".
    pub empty_keys: Arc<[Arc<str>]>,
    pub languages: Arc<[LanguageValue]>,
    pub status: Option<Arc<str>>,
    pub source_lang: Option<Arc<str>>,
    pub target_lang: Option<Arc<str>>,
}

impl Default for Meta {
    fn default() -> Meta {
        Meta {
            shared: intern::no_facts(),
            clients: Arc::default(),
            domains: Arc::default(),
            last_updated: None,
            last_updated_date: None,
            compiled: false,
            terms: Box::default(),
            term_split: 0,
            rare: None,
        }
    }
}

impl std::ops::Deref for Meta {
    type Target = SharedFacts;

    fn deref(&self) -> &SharedFacts {
        &self.shared
    }
}

/// The facts of [`Meta`] that only compiled articles and blocks with a
/// mistake in them carry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct RareMeta {
    compiled_from: Option<Box<str>>,
    unquoted_links: Box<[(String, String)]>,
    unread_keys: Box<[(&'static str, &'static str)]>,
}

impl RareMeta {
    fn is_empty(&self) -> bool {
        *self == RareMeta::default()
    }
}

impl Meta {
    pub fn term_source(&self) -> Option<&str> {
        let split = (self.term_split & !(HAS_TERM_SOURCE | HAS_TERM_TARGET)) as usize;
        (self.term_split & HAS_TERM_SOURCE != 0).then(|| self.terms.get(..split).unwrap_or(""))
    }

    pub fn term_target(&self) -> Option<&str> {
        let split = (self.term_split & !(HAS_TERM_SOURCE | HAS_TERM_TARGET)) as usize;
        (self.term_split & HAS_TERM_TARGET != 0).then(|| self.terms.get(split..).unwrap_or(""))
    }

    /// Keeps both terms in one string. A source term past what the split
    /// reaches (a gigabyte) is cut there, at a character.
    fn set_terms(&mut self, source: Option<&str>, target: Option<&str>) {
        let source_text = cut_to_split(source.unwrap_or(""));
        let target_text = target.unwrap_or("");
        if source.is_none() && target.is_none() {
            return;
        }
        let mut terms = String::with_capacity(source_text.len() + target_text.len());
        terms.push_str(source_text);
        terms.push_str(target_text);
        self.terms = terms.into_boxed_str();
        self.term_split = source_text.len() as u32
            | if source.is_some() { HAS_TERM_SOURCE } else { 0 }
            | if target.is_some() { HAS_TERM_TARGET } else { 0 };
    }

    pub fn compiled_from(&self) -> Option<&str> {
        self.rare.as_ref()?.compiled_from.as_deref()
    }

    /// (key, link) for each key holding a `[[link]]` written without
    /// quotes, which YAML reads as a nested list; membank reads it as the
    /// link but reports it.
    pub fn unquoted_links(&self) -> &[(String, String)] {
        self.rare.as_ref().map_or(&[], |r| &r.unquoted_links)
    }

    /// Keeps `rare` only when it holds something, so that two readings
    /// of the same block compare equal.
    fn set_rare(&mut self, rare: RareMeta) {
        self.rare = (!rare.is_empty()).then(|| Box::new(rare));
    }

    pub fn has_key(&self, key: &str) -> bool {
        self.keys.iter().any(|k| **k == *key)
    }

    /// Is the key present with no value?
    pub fn is_empty_key(&self, key: &str) -> bool {
        self.empty_keys.iter().any(|k| **k == *key)
    }

    /// (key, shape) for each key scoring reads (client, domain and
    /// language keys) set to something none of whose values could be
    /// read: "a map" or "a list of lists or maps". The article earns no
    /// point from such a key, and nothing else says so.
    pub fn unread_scored_keys(&self) -> &[(&'static str, &'static str)] {
        self.rare.as_ref().map_or(&[], |r| &r.unread_keys)
    }
}

impl FrontmatterState {
    /// A parsed block at `range` of the article's text.
    fn parsed(range: &Range<usize>) -> FrontmatterState {
        FrontmatterState::Parsed(to_u32(range.start)..to_u32(range.end))
    }
}

impl Encoding {
    /// Lines before the article text starts in the file (the fence line).
    pub fn line_shift(&self) -> usize {
        self.line_shift as usize
    }

    /// 1-based file line of the stripped opening fence (0 when there is
    /// none); blank lines may separate it from the frontmatter.
    pub fn fence_open_line(&self) -> usize {
        self.line_shift().saturating_sub(self.fence_blanks as usize)
    }

    /// 1-based file line of the stripped closing fence.
    pub fn fence_close_line(&self) -> Option<usize> {
        self.fence_close_line.map(|l| l as usize)
    }

    /// The 1-based file line of 1-based `line` of the article's text: the
    /// lines the opening fence took come before it, and the closing fence's
    /// line too when it is a remark pasted after the wrapper.
    pub fn file_line(&self, line: usize) -> usize {
        file_line(line, self.line_shift(), self.fence_close_line())
    }
}

/// [`Encoding::file_line`] from the numbers a reading of the fence gave.
pub(crate) fn file_line(line: usize, shift: usize, close: Option<usize>) -> usize {
    let line = line + shift;
    match close {
        // The closing fence's line is not in the text: what follows it
        // is one line further down in the file.
        Some(close) if line >= close => line + 1,
        _ => line,
    }
}

/// `n` in 32 bits; what a file the reader accepts holds always fits, and
/// anything past it saturates rather than wraps.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

pub const CLIENT_KEYS: [&str; 2] = ["client", "clients"];
pub const DOMAIN_KEYS: [&str; 2] = ["domain", "domains"];
pub const LANGUAGE_KEYS: [&str; 4] = ["languages", "language_pair", "source_lang", "target_lang"];

/// A link found in the article: `[[wikilink]]`, `![[embed]]` or Markdown
/// `[text](Note.md)`, as [`Links`] hands it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link<'a> {
    raw: &'a str,
    target: &'a str,
    pub kind: LinkKind,
    pub in_frontmatter: bool,
    /// 1-based line in the file on disk.
    pub line: usize,
}

impl<'a> Link<'a> {
    /// As written (see `wikilink::WikiLink::raw`).
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// The file it names, still to be resolved against the bank.
    pub fn target(&self) -> &'a str {
        self.target
    }

    /// The link as it appears in the file, for messages.
    pub fn written(&self) -> String {
        wikilink::WikiLink::written(self.raw, self.kind)
    }
}

/// An article's links, in the order they were found (the frontmatter's,
/// then the body's).
///
/// A bank holds a few links per article: what was written and the names
/// they reach are one string for the whole article, and each link is a
/// 24-byte record of 32-bit offsets into it. A string and a 40-byte
/// record per link cost a third more, and an allocation each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Links {
    /// Each link's text, one after another: what was written, followed by
    /// the name when it is not part of it.
    text: Box<str>,
    records: Box<[LinkRecord]>,
}

/// Where one link's text is in [`Links::text`], and its facts. 32-bit: a
/// link is part of the file it is in, and no file over 4 GB is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LinkRecord {
    raw_at: u32,
    raw_len: u32,
    target_at: u32,
    target_len: u32,
    line: u32,
    kind: LinkKind,
    in_frontmatter: bool,
}

impl Links {
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The link at `index`, in the order they were found.
    pub fn get(&self, index: usize) -> Option<Link<'_>> {
        self.records.get(index).map(|r| self.link(r))
    }

    pub fn iter(&self) -> LinksIter<'_> {
        LinksIter {
            links: self,
            records: self.records.iter(),
        }
    }

    /// Bytes held beyond the value itself.
    pub fn heap_bytes(&self) -> usize {
        self.text.len() + self.records.len() * std::mem::size_of::<LinkRecord>()
    }

    fn link<'a>(&'a self, r: &LinkRecord) -> Link<'a> {
        // The offsets were taken from this text at a character, so `get`
        // never misses; an empty text is the safe answer if it did.
        let at = |start: u32, len: u32| {
            let start = start as usize;
            self.text.get(start..start + len as usize).unwrap_or("")
        };
        Link {
            raw: at(r.raw_at, r.raw_len),
            target: at(r.target_at, r.target_len),
            kind: r.kind,
            in_frontmatter: r.in_frontmatter,
            line: r.line as usize,
        }
    }
}

impl<'a> IntoIterator for &'a Links {
    type Item = Link<'a>;
    type IntoIter = LinksIter<'a>;

    fn into_iter(self) -> LinksIter<'a> {
        self.iter()
    }
}

/// The links of [`Links`], in order.
#[derive(Debug, Clone)]
pub struct LinksIter<'a> {
    links: &'a Links,
    records: std::slice::Iter<'a, LinkRecord>,
}

impl<'a> Iterator for LinksIter<'a> {
    type Item = Link<'a>;

    fn next(&mut self) -> Option<Link<'a>> {
        self.records.next().map(|r| self.links.link(r))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}

impl DoubleEndedIterator for LinksIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.records.next_back().map(|r| self.links.link(r))
    }
}

impl ExactSizeIterator for LinksIter<'_> {}

thread_local! {
    /// [`LinksBuilder::take_scratch`]'s builder, on each reading thread.
    static LINKS_SCRATCH: std::cell::RefCell<LinksBuilder> =
        const { std::cell::RefCell::new(LinksBuilder { text: String::new(), records: Vec::new() }) };
}

/// The most room, in bytes of text, a thread's scratch builder keeps.
const SCRATCH_KEPT: usize = 64 << 10;

/// [`Links`] as an article's links are found.
#[derive(Debug, Default)]
pub struct LinksBuilder {
    text: String,
    records: Vec<LinkRecord>,
}

impl LinksBuilder {
    /// The reading thread's builder, empty, with the room earlier articles
    /// grew it to. An article's links were a list and a text grown from
    /// nothing, link by link, then grown again for the body's links: two
    /// to four allocations and copies where [`Self::copy_out_and_give_back`]
    /// makes one of each at the final size.
    fn take_scratch() -> LinksBuilder {
        let mut scratch = LINKS_SCRATCH.with_borrow_mut(std::mem::take);
        scratch.text.clear();
        scratch.records.clear();
        scratch
    }

    /// The links, copied at their size, and the builder given back to the
    /// thread for the next article (unless an unusually long list grew it:
    /// that room is not held for the rest of the load).
    fn copy_out_and_give_back(self) -> Links {
        let links = Links {
            text: Box::from(self.text.as_str()),
            records: Box::from(self.records.as_slice()),
        };
        let record_bytes = self.records.capacity() * std::mem::size_of::<LinkRecord>();
        if self.text.capacity() <= SCRATCH_KEPT && record_bytes <= SCRATCH_KEPT {
            LINKS_SCRATCH.with_borrow_mut(|s| *s = self);
        }
        links
    }

    /// Adds a link written as `raw` (see `wikilink::WikiLink::raw`) naming
    /// `target`. A link whose text would end past what 32 bits reach is
    /// left out: no file the reader accepts holds one.
    pub fn push(
        &mut self,
        raw: &str,
        target: &str,
        kind: LinkKind,
        line: usize,
        in_frontmatter: bool,
    ) {
        let raw_at = self.text.len();
        // The name nearly always starts what was written (`Name|alias`,
        // `Name#heading`): no search is built for it then.
        let within = if raw.starts_with(target) {
            Some(0)
        } else {
            raw.find(target)
        };
        let target_at = match within {
            Some(at) => raw_at + at,
            None => raw_at + raw.len(),
        };
        let end = raw_at + raw.len() + if within.is_some() { 0 } else { target.len() };
        if u32::try_from(end).is_err() {
            return;
        }
        self.text.push_str(raw);
        if within.is_none() {
            self.text.push_str(target);
        }
        self.records.push(LinkRecord {
            raw_at: raw_at as u32,
            raw_len: raw.len() as u32,
            target_at: target_at as u32,
            target_len: target.len() as u32,
            line: to_u32(line),
            kind,
            in_frontmatter,
        });
    }

    /// The links, holding no spare room: articles live as long as the bank.
    pub fn finish(self) -> Links {
        Links {
            text: self.text.into_boxed_str(),
            records: self.records.into_boxed_slice(),
        }
    }
}

impl Links {
    /// The links of `links`, each `(raw, target, kind, line,
    /// in_frontmatter)`, in order.
    pub fn of<'s>(
        links: impl IntoIterator<Item = (&'s str, &'s str, LinkKind, usize, bool)>,
    ) -> Links {
        let mut built = LinksBuilder::default();
        for (raw, target, kind, line, in_frontmatter) in links {
            built.push(raw, target, kind, line, in_frontmatter);
        }
        built.finish()
    }
}

/// `s` cut, at a character, to what [`Meta`]'s split of its terms reaches.
fn cut_to_split(s: &str) -> &str {
    let mut end = s.len().min((HAS_TERM_TARGET - 1) as usize);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[derive(Debug, Clone)]
pub struct Article {
    /// Relative to the bank root, `/`-separated.
    pub rel_path: String,
    pub folder: Folder,
    /// The first `# ` heading when it is not the stem, else empty; see
    /// [`Article::title`].
    title: Box<str>,
    /// The article text: BOM and §4.3 fence removed, LF line endings.
    pub text: String,
    /// See [`Article::body_start`]; this and `chars` are 32-bit, as no
    /// file over the reader's per-file cap is read.
    body_start: u32,
    pub frontmatter: FrontmatterState,
    pub meta: Meta,
    pub links: Links,
    pub encoding: Encoding,
    /// See [`Article::chars`].
    chars: u32,
    /// See [`Article::ends_with_newline`].
    ends_with_newline: bool,
    /// `00_INBOX/_archive/...`
    pub in_archive: bool,
    /// The parsed frontmatter block's text was not kept (see
    /// [`LoadOptions::frontmatter`]): `lines` says what the checks quote.
    frontmatter_dropped: bool,
    lines: KeptLines,
}

/// What the checks and the search read of a frontmatter block whose text
/// is not kept: the lines of the two keys findings point at in every kind
/// of bank (`last_updated` for `stale`, `term_target` for
/// `term-conflict`) and the body's first line. 16-bit, 0 for none: a
/// block whose lines reach further keeps its text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeptLines {
    last_updated: u16,
    term_target: u16,
    body: u16,
}

impl KeptLines {
    /// The lines of the block at `yaml` (starting at file line
    /// `first_line`) in `text`, whose body starts at `body_start`; `None`
    /// when one does not fit.
    fn of(
        text: &str,
        yaml: Range<usize>,
        first_line: usize,
        body_start: usize,
    ) -> Option<KeptLines> {
        let yaml = text.get(yaml)?;
        let [last_updated, term_target] =
            key_lines_in(yaml, first_line, ["last_updated", "term_target"]);
        let line = |found: Option<usize>| match found {
            Some(l) => u16::try_from(l).ok(),
            None => Some(0),
        };
        let body = 1 + text
            .get(..body_start)?
            .bytes()
            .filter(|&b| b == b'\n')
            .count();
        Some(KeptLines {
            last_updated: line(last_updated)?,
            term_target: line(term_target)?,
            body: u16::try_from(body).ok()?,
        })
    }

    /// The file line of `key`, for the two keys kept; `None` for others.
    pub fn key_line(&self, key: &str) -> Option<usize> {
        let line = match key {
            "last_updated" => self.last_updated,
            "term_target" => self.term_target,
            _ => 0,
        };
        (line != 0).then_some(line as usize)
    }
}

/// The file line of a top-level key of the YAML text `yaml`, whose first
/// line is file line `first_line`: the first line that starts with the
/// key (bare or quoted) followed by a colon.
///
/// Asked for each `stale` finding and each approved term (over 120,000
/// times at 100,000 articles): a line whose first byte cannot start the
/// key is passed over after one look, where taking the block apart into
/// lines and trying three prefixes on each cost more than the rest of
/// the article's checks.
pub(crate) fn key_line_in(yaml: &str, first_line: usize, key: &str) -> Option<usize> {
    let [line] = key_lines_in(yaml, first_line, [key]);
    line
}

/// [`key_line_in`] of each of `keys`, in one pass over the block's lines
/// (every article's block is asked for two).
pub(crate) fn key_lines_in<const N: usize>(
    yaml: &str,
    first_line: usize,
    keys: [&str; N],
) -> [Option<usize>; N] {
    let bytes = yaml.as_bytes();
    let mut found = [None; N];
    let mut left = N;
    let mut start = 0;
    let mut line = first_line;
    // `str::lines` gives no line after a last line break; a line that
    // ends in `\r` matches as it would without it (the colon test trims
    // white space, `\r` among it).
    while start < bytes.len() && left > 0 {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let b = bytes[start];
        for (key, found) in keys.iter().zip(found.iter_mut()) {
            let first = key.as_bytes().first().copied();
            if found.is_none()
                && (Some(b) == first || b == b'"' || b == b'\'' || first.is_none())
                && key_starts(&yaml[start..end], key)
            {
                *found = Some(line);
                left -= 1;
            }
        }
        start = end + 1;
        line += 1;
    }
    found
}

/// Does `line` start with `key`, bare or quoted, and then a colon?
fn key_starts(line: &str, key: &str) -> bool {
    let rest = line
        .strip_prefix(key)
        .or_else(|| line.strip_prefix('"')?.strip_prefix(key)?.strip_prefix('"'))
        .or_else(|| {
            line.strip_prefix('\'')?
                .strip_prefix(key)?
                .strip_prefix('\'')
        });
    rest.is_some_and(|r| r.trim_start().starts_with(':'))
}

/// Does a check read more of this frontmatter block than [`KeptLines`]
/// keeps? It quotes the line of a key that is empty, holds an unquoted
/// link, a bad status or language, or marks an inbox note compiled; it
/// reads `compiled_date` again from the block; it looks for credentials
/// in the block's text. Errs on keeping: these are few articles.
fn checks_read_block(folder: Folder, meta: &Meta, block: &str) -> bool {
    let bad_language = meta.languages.iter().any(|v| {
        v.tags.is_empty()
            || v.tags
                .iter()
                .any(|t| !crate::health::is_plausible_language_tag(t))
    });
    let bad_status = folder == Folder::Terminology
        && meta
            .status
            .as_deref()
            .is_some_and(|s| !matches!(s, "approved" | "proposed" | "rejected"));
    !meta.empty_keys.is_empty()
        || !meta.unquoted_links().is_empty()
        || !meta.unread_scored_keys().is_empty()
        || meta.compiled
        || meta.has_key("compiled_date")
        || bad_status
        || bad_language
        || !crate::secrets::find_likely(block).is_empty()
}

/// The text of the first line of `body` that starts with `# `, trimmed:
/// what `body.lines().find_map(|l| l.strip_prefix("# ")).map(str::trim)`
/// gives (a `\r` that `lines` takes off a line's end the trim takes off
/// too), from a search for the line break and `#` together instead of
/// splitting every line before the heading.
fn first_heading(body: &str) -> Option<&str> {
    let bytes = body.as_bytes();
    let start = if bytes.starts_with(b"# ") {
        2
    } else {
        let mut at = 0;
        loop {
            let i = crate::wikilink::find_pair(bytes, at, b'\n', b'#')?;
            if bytes.get(i + 2) == Some(&b' ') {
                break i + 3;
            }
            at = i + 1;
        }
    };
    let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
    Some(body[start..end].trim())
}

/// Sees each article as it is read: its path, its whole text, and where
/// the body starts in it. Called from the threads that read the files.
pub type VisitText<'a> = dyn Fn(&str, &str, usize) + Sync + 'a;

impl Article {
    /// Build an article from a decoded file, with everything.
    pub fn parse(rel_path: String, folder: Folder, decoded: text::Decoded) -> Article {
        let decoded = text::Decoded {
            text: std::borrow::Cow::Owned(decoded.text),
            had_bom: decoded.had_bom,
            crlf: decoded.crlf,
            utf16: decoded.utf16,
        };
        Article::parse_with(rel_path, folder, decoded, &LoadOptions::EVERYTHING)
    }

    /// Build an article, finding links and keeping the text only when
    /// `options` asks for them.
    pub fn parse_with(
        rel_path: String,
        folder: Folder,
        decoded: text::Decoded<std::borrow::Cow<'_, str>>,
        options: &LoadOptions,
    ) -> Article {
        Article::parse_visiting(rel_path, folder, decoded, options, None)
    }

    /// [`Article::parse_with`], first showing `visit` the article's path
    /// and its whole text with where the body starts, before `options`
    /// drop any of it: a pass over every body needs no bank of texts.
    pub fn parse_visiting(
        rel_path: String,
        folder: Folder,
        decoded: text::Decoded<std::borrow::Cow<'_, str>>,
        options: &LoadOptions,
        visit: Option<&VisitText<'_>>,
    ) -> Article {
        let wanted = if options.checked {
            Wanted::Checked(folder)
        } else {
            Wanted::All
        };
        Article::parse_read(
            rel_path,
            folder,
            decoded,
            options,
            visit,
            Frontmatter::AsWritten,
            wanted,
        )
    }

    /// [`Article::parse_visiting`], reading a frontmatter block of the
    /// common shape as `reading` says.
    fn parse_read(
        rel_path: String,
        folder: Folder,
        decoded: text::Decoded<std::borrow::Cow<'_, str>>,
        options: &LoadOptions,
        visit: Option<&VisitText<'_>>,
        reading: Frontmatter,
        wanted: Wanted,
    ) -> Article {
        let (had_bom, crlf, utf16) = (decoded.had_bom, decoded.crlf, decoded.utf16);
        let located = frontmatter::locate_cow(decoded.text);
        let mut encoding = Encoding {
            had_bom,
            utf16,
            crlf,
            fenced: located.fenced,
            fence_unclosed: located.fence_unclosed,
            line_shift: to_u32(located.line_shift),
            fence_blanks: to_u32(located.fence_blanks),
            fence_close_line: located.fence_close_line.map(to_u32),
            only_code: located.only_code,
            cr_only: false,
        };
        let text = located.text;
        if matches!(located.block, Block::Missing) {
            encoding.cr_only =
                text.starts_with("---\r") && memchr::memchr(b'\n', text.as_bytes()).is_none();
        }
        let mut meta = Meta::default();
        // The thread's lists, grown once and copied out at their size (see
        // `LinksBuilder::take_scratch`).
        let mut links = if options.links {
            LinksBuilder::take_scratch()
        } else {
            LinksBuilder::default()
        };
        let frontmatter = match located.block {
            Block::Missing => FrontmatterState::Missing,
            Block::Unclosed => FrontmatterState::Unclosed,
            Block::Present(range) if !options.facts => FrontmatterState::parsed(&range),
            Block::Present(range) => {
                // A block of the common shape gives its metadata and links
                // straight from the text: a mapping built only to be read
                // once and dropped cost more than the reading.
                let yaml = &text[range.clone()];
                // The thread's list of entries, with the room earlier
                // blocks grew it to: one allocation a block otherwise.
                // Over the size bound, the YAML reader refuses it below.
                let simple = (reading == Frontmatter::AsWritten
                    && !yaml.trim().is_empty()
                    && yaml.len() <= frontmatter::MAX_FRONTMATTER_BYTES)
                    .then(|| {
                        let room = recycled(SIMPLE_ENTRIES.with_borrow_mut(std::mem::take));
                        frontmatter::parse_simple_entries_in(yaml, room)
                    })
                    .flatten();
                let line_shift = encoding.line_shift();
                if let Some(mut entries) = simple {
                    meta = extract_simple_meta(&entries, options.share, wanted);
                    // Every link of such a block is written out in its
                    // text: with no `[[` there, no value is looked at.
                    if options.links
                        && wikilink::find_pair(yaml.as_bytes(), 0, b'[', b'[').is_some()
                    {
                        let strings = entries.iter().flat_map(|(_, v)| simple_strings(v));
                        frontmatter_links(strings, &text, range.clone(), line_shift, &mut links);
                    }
                    if entries.capacity() <= ENTRIES_KEPT {
                        entries.clear();
                        SIMPLE_ENTRIES.with_borrow_mut(|room| *room = recycled(entries));
                    }
                    FrontmatterState::parsed(&range)
                } else {
                    match frontmatter::parse_yaml(yaml, 2 + line_shift) {
                        Ok(map) => {
                            meta = extract_meta(&map, options.share, wanted);
                            if options.links {
                                let mut strings = Vec::new();
                                for v in map.values() {
                                    frontmatter::all_strings(v, &mut strings);
                                }
                                frontmatter_links(
                                    strings,
                                    &text,
                                    range.clone(),
                                    line_shift,
                                    &mut links,
                                );
                            }
                            FrontmatterState::parsed(&range)
                        }
                        Err(e) => FrontmatterState::Invalid(Box::new(e)),
                    }
                }
            }
        };
        let body_start = located.body_start;
        if options.links {
            let body = &text[body_start..];
            // The thread's list, with the room earlier bodies grew it to.
            let mut found = recycled(BODY_LINKS.with_borrow_mut(std::mem::take));
            wikilink::body_links_in(body, &mut found);
            // Body links come in document order.
            let mut lines = text::LineCounter::new(&text);
            for l in &found {
                let line = encoding.file_line(lines.line_of(body_start + l.span.start));
                links.push(&l.raw, &l.target, l.kind, line, false);
            }
            if found.capacity() <= ENTRIES_KEPT {
                BODY_LINKS.with_borrow_mut(|room| *room = recycled(found));
            }
        }
        let body = &text[body_start..];
        let title = match first_heading(body) {
            Some(t) if !t.is_empty() && t != stem_of(&rel_path) => Box::from(t),
            _ => Box::default(),
        };
        let links = if options.links {
            links.copy_out_and_give_back()
        } else {
            links.finish()
        };
        let in_archive = folder == Folder::Inbox
            && rel_path
                .split('/')
                .nth(1)
                .is_some_and(|s| s == crate::layout::ARCHIVE_DIR);
        let chars = if options.chars {
            text.chars().count()
        } else {
            0
        };
        let ends_with_newline = text.ends_with('\n');
        if let Some(visit) = visit {
            visit(&rel_path, &text, body_start);
        }
        // A body holding what looks like a credential keeps its text even
        // when bodies are dropped: the `secret` check must see it, and such
        // articles are few.
        let keep_body = options.body
            || (options.text && !crate::secrets::find_likely(&text[body_start..]).is_empty());
        let mut frontmatter_dropped = false;
        let mut lines = KeptLines::default();
        let (text, body_start, frontmatter) = if options.text && keep_body {
            (text.into_owned(), body_start, frontmatter)
        } else if let (true, false, FrontmatterState::Parsed(range)) =
            (options.text, options.frontmatter, &frontmatter)
            && let Some(kept) = KeptLines::of(
                &text,
                range.start as usize..range.end as usize,
                encoding.line_shift() + 2,
                body_start,
            )
            && !checks_read_block(folder, &meta, &text[..body_start])
        {
            // The lines the checks quote are in `lines`; anyone else reads
            // the file again.
            frontmatter_dropped = true;
            lines = kept;
            (String::new(), body_start, frontmatter)
        } else if options.text {
            // The frontmatter block stays (checks quote its lines); a copy
            // of just that part, so the body's bytes are freed.
            (text[..body_start].to_owned(), body_start, frontmatter)
        } else {
            // Ranges into the dropped text would point nowhere.
            let frontmatter = match frontmatter {
                FrontmatterState::Parsed(_) => FrontmatterState::Parsed(0..0),
                other => other,
            };
            (String::new(), 0, frontmatter)
        };
        Article {
            chars: to_u32(chars),
            ends_with_newline,
            rel_path,
            folder,
            title,
            text,
            body_start: to_u32(body_start),
            frontmatter,
            meta,
            links,
            encoding,
            in_archive,
            frontmatter_dropped,
            lines,
        }
    }

    /// The file name, from the path (not stored: on a large bank two more
    /// strings per article add up).
    pub fn file_name(&self) -> &str {
        file_name_of(&self.rel_path)
    }

    /// File name without `.md`: the name links resolve to.
    pub fn stem(&self) -> &str {
        stem_of(&self.rel_path)
    }

    /// The first `# ` heading, else the stem. Most headings are the
    /// stem, which the path already holds: only a different one is kept
    /// (a copy of the stem was an allocation per article).
    pub fn title(&self) -> &str {
        if self.title.is_empty() {
            self.stem()
        } else {
            &self.title
        }
    }

    /// The lines kept in place of the frontmatter block's text, when it
    /// was not kept (see [`LoadOptions::frontmatter`]).
    pub fn kept_lines(&self) -> Option<&KeptLines> {
        self.frontmatter_dropped.then_some(&self.lines)
    }

    /// The 1-based line of `text` where the body starts, counting the
    /// kept frontmatter's lines or from the kept lines.
    pub fn body_line(&self) -> usize {
        match self.kept_lines() {
            Some(lines) => lines.body as usize,
            None => {
                let start = self.body_start().min(self.text.len());
                1 + self.text.as_bytes()[..start]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
            }
        }
    }

    /// Where the body starts in `text` (in the file's text when the
    /// frontmatter was not kept).
    pub fn body_start(&self) -> usize {
        self.body_start as usize
    }

    /// Characters (Unicode scalar values) of the whole article text, even
    /// when only part of it is kept; 0 when the load did not count them
    /// (see [`LoadOptions::chars`]).
    pub fn chars(&self) -> usize {
        self.chars as usize
    }

    /// The whole article text ends with a line break (an empty one does
    /// not): the context adds one after a text that does not.
    pub fn ends_with_newline(&self) -> bool {
        self.ends_with_newline
    }

    /// Characters the article takes in the assembled context, its header
    /// included (see [`crate::budget::in_context_chars`]); counted only
    /// when [`Article::chars`] is.
    pub fn context_chars(&self) -> usize {
        crate::budget::in_context_chars(&self.rel_path, self.chars(), self.ends_with_newline)
    }

    /// The kept body; empty when the body, or the whole text, was not kept.
    pub fn body(&self) -> &str {
        self.text.get(self.body_start()..).unwrap_or("")
    }

    /// The YAML text of a parsed frontmatter block.
    pub fn yaml(&self) -> Option<&str> {
        match &self.frontmatter {
            FrontmatterState::Parsed(_) => self.text.get(self.yaml_range()?),
            _ => None,
        }
    }

    /// Where the YAML text of a parsed frontmatter block is in `text`.
    pub fn yaml_range(&self) -> Option<Range<usize>> {
        match &self.frontmatter {
            FrontmatterState::Parsed(r) => Some(r.start as usize..r.end as usize),
            _ => None,
        }
    }

    /// Re-parse the frontmatter mapping (kept out of memory between uses).
    pub fn mapping(&self) -> Option<Mapping> {
        self.yaml()
            .and_then(|y| frontmatter::parse_yaml(y, 2 + self.encoding.line_shift()).ok())
    }

    /// Is the frontmatter usable for scoring?
    pub fn is_parsed(&self) -> bool {
        matches!(self.frontmatter, FrontmatterState::Parsed(_))
    }

    /// 1-based file line of the frontmatter's first YAML line.
    pub fn yaml_first_line(&self) -> usize {
        2 + self.encoding.line_shift()
    }
}

/// A bank path's folder (empty at the root) and its file name, split at
/// its last `/`. A search for the last byte, not a reverse split by
/// character: this is asked for every article read and every path a check
/// or the link index looks at, and `/` is one byte in UTF-8, so both sides
/// are whole characters.
pub(crate) fn split_rel_path(rel_path: &str) -> (&str, &str) {
    match memchr::memrchr(b'/', rel_path.as_bytes()) {
        Some(i) => (&rel_path[..i], &rel_path[i + 1..]),
        None => ("", rel_path),
    }
}

pub(crate) fn file_name_of(rel_path: &str) -> &str {
    split_rel_path(rel_path).1
}

pub(crate) fn stem_of(rel_path: &str) -> &str {
    let name = file_name_of(rel_path);
    &name[..name.len().saturating_sub(3)]
}

thread_local! {
    /// The reading thread's list of a block's entries (see
    /// [`Article::parse_read`]), kept empty between blocks.
    static SIMPLE_ENTRIES: std::cell::RefCell<Vec<(&'static str, SimpleValue<'static>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

thread_local! {
    /// The reading thread's list of a body's links (see
    /// [`Article::parse_read`]), kept empty between bodies: one allocation
    /// a body, and more as it grew, otherwise.
    static BODY_LINKS: std::cell::RefCell<Vec<wikilink::FoundLink<'static>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The most entries [`SIMPLE_ENTRIES`] and [`BODY_LINKS`] keep room for:
/// a block of thousands of keys, or a body of thousands of links, does not
/// hold its room for the rest of the load.
const ENTRIES_KEPT: usize = 256;

/// `list`'s room as an empty list of another type of the same layout
/// (here: the same type borrowing for another lifetime). Collecting an
/// emptied list in place keeps its allocation; no element is made.
fn recycled<T, U>(mut list: Vec<T>) -> Vec<U> {
    list.clear();
    list.into_iter().filter_map(|_| None).collect()
}

/// `values` of `key` with their folded forms, added to `out`; `folding`
/// is where a value is folded when it is not shared, reused for every
/// value rather than a string of its own for each.
fn keyed(
    share: bool,
    values: &[Cow<'_, str>],
    key: &'static str,
    out: &mut Vec<KeyedValue>,
    folding: &mut String,
) {
    for raw in values {
        let (raw, folded) = if share {
            intern::shared_and_folded(share, raw, |r| fold(normalize_value(r)))
        } else {
            folding.clear();
            wikilink::fold_into(normalize_value(raw), folding);
            (Arc::from(&**raw), Arc::from(folding.as_str()))
        };
        out.push(KeyedValue { key, raw, folded });
    }
}

thread_local! {
    /// [`fill_keyed`]'s list of values and folded value, on each reading
    /// thread: made for every article, both grew from nothing each time.
    static FILLING: std::cell::RefCell<(Vec<KeyedValue>, String)> =
        const { std::cell::RefCell::new((Vec::new(), String::new())) };
    /// [`fill_values`]' list of one key's values and its list of
    /// languages, on each reading thread, kept empty between articles.
    static FOUND: std::cell::RefCell<(Vec<Cow<'static, str>>, Vec<LanguageValue>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// `meta`'s clients and domains, from `strings` (see [`fill_values`]).
fn fill_keyed<'v>(
    share: bool,
    wanted: [bool; 2],
    meta: &mut Meta,
    strings: &impl Fn(&str, &mut Vec<Cow<'v, str>>),
    found: &mut Vec<Cow<'v, str>>,
    values: &mut Vec<KeyedValue>,
    folding: &mut String,
) {
    let lists = [
        (&CLIENT_KEYS, &mut meta.clients),
        (&DOMAIN_KEYS, &mut meta.domains),
    ];
    for ((keys, list), wanted) in lists.into_iter().zip(wanted) {
        if !wanted {
            continue;
        }
        values.clear();
        for &key in keys {
            found.clear();
            strings(key, found);
            keyed(share, found, key, values, folding);
        }
        // Not shared, the values are moved into the article's list, not
        // cloned and then dropped here.
        *list = if share || values.is_empty() {
            intern::shared_keyed(share, values)
        } else {
            values.drain(..).collect()
        };
    }
    values.clear();
}

/// The values scoring and the checks read, from either reading of the
/// frontmatter: `strings` adds a key's values to a list, `first` gives
/// its first one, and `compiled_is_true` whether `compiled` holds the
/// boolean true.
#[allow(clippy::too_many_arguments)]
fn fill_values<'v>(
    share: bool,
    wanted: Wanted,
    meta: &mut Meta,
    mut shared: SharedFacts,
    strings: impl Fn(&str, &mut Vec<Cow<'v, str>>),
    first: impl Fn(&str) -> Option<Cow<'v, str>>,
    compiled_is_true: bool,
    unquoted_links: Box<[(String, String)]>,
    unread_keys: Box<[(&'static str, &'static str)]>,
) {
    // One list for the values of every key in turn, rather than one
    // allocated for each key that is set; the lists of values and the
    // folding are the thread's own, kept from article to article.
    let (found, mut languages) = FOUND.with_borrow_mut(std::mem::take);
    let mut found = recycled(found);
    languages.clear();
    // What the streamed check reads of an article (see `Wanted::Checked`):
    // an approved term's terms and clients, a term's status; the rest is
    // never built there.
    let (term, status) = match wanted {
        Wanted::All => (true, true),
        Wanted::Checked(folder) => {
            let terminology = folder == crate::layout::Folder::Terminology;
            let approved = terminology && first("status").is_some_and(|s| s == "approved");
            (approved, terminology)
        }
    };
    let keyed = [term, wanted == Wanted::All];
    FILLING.with_borrow_mut(|(values, folding)| {
        fill_keyed(share, keyed, meta, &strings, &mut found, values, folding)
    });
    // The first `source_lang` and `target_lang`.
    let mut pair: [Option<Arc<str>>; 2] = [None, None];
    for key in LANGUAGE_KEYS {
        found.clear();
        strings(key, &mut found);
        let side = match key {
            "source_lang" => Some(0),
            "target_lang" => Some(1),
            _ => None,
        };
        for (i, raw) in found.iter().enumerate() {
            let side = side.filter(|_| i == 0);
            // The check reads a language value only to report one that
            // names no code or what is no code, and an approved term's
            // pair: the others' copies and list were freed unread.
            if wanted != Wanted::All && !is_reported_language(raw) {
                if let Some(side) = side.filter(|_| term) {
                    pair[side] = Some(intern::shared(raw));
                }
                continue;
            }
            let shared_raw = intern::copy(share, raw);
            if let Some(side) = side {
                pair[side] = Some(shared_raw.clone());
            }
            // A value naming one code is its own tag: the same shared copy.
            let tags = Tags::of(language_tag_strs(raw), |tag| {
                if tag.len() == raw.len() {
                    shared_raw.clone()
                } else {
                    intern::copy(share, tag)
                }
            });
            languages.push(LanguageValue {
                key,
                raw: shared_raw,
                tags,
            });
        }
    }
    // `source_lang` and `target_lang` are the first of their languages,
    // shared already.
    [shared.source_lang, shared.target_lang] = pair;
    // Not shared, the values are moved into a list of their size, not
    // copied (a copy of each value's tags was an allocation each).
    shared.languages = match (share, languages.is_empty()) {
        (true, _) => intern::shared_languages(share, &languages),
        (false, true) => Arc::default(),
        (false, false) => languages.drain(..).collect(),
    };
    languages.clear();
    if found.capacity() <= ENTRIES_KEPT && languages.capacity() <= ENTRIES_KEPT {
        FOUND.with_borrow_mut(|room| *room = (recycled(found), languages));
    }
    let first_owned = |key: &str| first(key).map(|v| Box::from(&*v));
    if term {
        meta.set_terms(
            first("term_source").as_deref(),
            first("term_target").as_deref(),
        );
    }
    let last_updated = first("last_updated");
    meta.last_updated_date = last_updated
        .as_deref()
        .and_then(frontmatter::parse_iso_date);
    // The check reads the text only of a date that is none.
    if wanted == Wanted::All || meta.last_updated_date.is_none() {
        meta.last_updated = last_updated.map(|v| intern::copy(share, &v));
    }
    if status {
        // The check's statuses are a few words: one copy per thread.
        shared.status = first("status").map(|v| match wanted {
            Wanted::All => intern::copy(share, &v),
            Wanted::Checked(_) => intern::shared(&v),
        });
    }
    // The check's facts whose every part is a shared copy (nearly every
    // article's: its keys, status and pair) are one record, found by where
    // those are: a bank has a few kinds of articles.
    let facts_shared =
        wanted != Wanted::All && shared.languages.is_empty() && shared.empty_keys.is_empty();
    meta.shared = intern::shared_facts(share || facts_shared, shared);
    meta.set_rare(RareMeta {
        compiled_from: first_owned("compiled_from"),
        unquoted_links,
        unread_keys,
    });
    meta.compiled =
        compiled_is_true || first("compiled").is_some_and(|v| v.eq_ignore_ascii_case("true"));
}

/// Does the check report this language value: does it name no code, or
/// something that is no code?
fn is_reported_language(raw: &str) -> bool {
    let mut tags = language_tag_strs(raw).peekable();
    tags.peek().is_none() || tags.any(|t| !crate::health::is_plausible_language_tag(t))
}

/// Split a language value on `→` or `->` into its codes.
pub fn language_tags(raw: &str) -> Vec<String> {
    language_tag_strs(raw).map(str::to_owned).collect()
}

fn language_tag_strs(raw: &str) -> impl Iterator<Item = &str> + Clone {
    // Most values name one code: with no `>` and no byte that starts `→`
    // they hold neither arrow and are one part, with no search built to
    // split them.
    let (whole, parts) = match memchr::memchr2(b'>', 0xE2, raw.as_bytes()) {
        None => (Some(raw), None),
        Some(_) => (None, Some(raw)),
    };
    let split = parts
        .into_iter()
        .flat_map(|raw| raw.split('→'))
        .flat_map(|part| part.split("->"));
    whole
        .into_iter()
        .chain(split)
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

/// The shared list of a mapping's key names; looked up by the names as
/// they are when every key is text (nearly always), else name by name.
fn key_names_of(map: &Mapping, share: bool) -> Arc<[Arc<str>]> {
    use yaml_serde::Value;
    if map.keys().all(|k| matches!(k, Value::String(_))) {
        return intern::shared_names(|| {
            map.keys().filter_map(|k| match k {
                Value::String(s) => Some(s.as_str()),
                _ => None,
            })
        });
    }
    intern::shared_list(
        share,
        &map.keys()
            .filter_map(frontmatter::scalar_str)
            .map(|k| intern::copy(share, &k))
            .collect::<Vec<_>>(),
    )
}

fn extract_meta(map: &Mapping, share: bool, wanted: Wanted) -> Meta {
    use yaml_serde::Value;
    // The value of a key, found by comparing the handful of keys as text:
    // `Mapping::get` hashes the key again with SipHash, for each of the
    // dozen keys read here from every article.
    let get = |key: &str| {
        map.iter()
            .find_map(|(k, v)| matches!(k, Value::String(s) if s == key).then_some(v))
    };
    let shared = SharedFacts {
        keys: key_names_of(map, share),
        empty_keys: intern::shared_list(
            share,
            &map.iter()
                .filter(|(_, v)| is_blank(v))
                .filter_map(|(k, _)| frontmatter::scalar_str(k))
                .map(|k| intern::copy(share, &k))
                .collect::<Vec<_>>(),
        ),
        ..SharedFacts::default()
    };
    let mut meta = Meta::default();
    let unquoted_links = map
        .iter()
        .filter_map(|(k, v)| {
            // The value first: few hold an unquoted link, and only
            // for those is the key's name copied.
            let link = frontmatter::first_unquoted_link(v)?;
            Some((frontmatter::scalar_text(k)?, link))
        })
        .collect();
    fill_values(
        share,
        wanted,
        &mut meta,
        shared,
        |key, out| out.extend(frontmatter::value_strings(get(key))),
        |key| frontmatter::first_value_string(get(key)),
        matches!(get("compiled"), Some(Value::Bool(true))),
        unquoted_links,
        unread_scored_keys(&get),
    );
    meta
}

/// (key, shape) for each key scoring reads whose value is set but holds
/// nothing [`frontmatter::value_strings`] reads: a map, or a list of maps
/// or lists (an unquoted `[[link]]` is read).
fn unread_scored_keys<'m>(
    get: &impl Fn(&str) -> Option<&'m yaml_serde::Value>,
) -> Box<[(&'static str, &'static str)]> {
    use yaml_serde::Value;
    CLIENT_KEYS
        .iter()
        .chain(&DOMAIN_KEYS)
        .chain(&LANGUAGE_KEYS)
        .filter_map(|&key| {
            let value = get(key)?;
            let value = match value {
                Value::Tagged(t) => &t.value,
                v => v,
            };
            let shape = match value {
                Value::Mapping(m) if !m.is_empty() => "a map",
                Value::Sequence(items) if !items.is_empty() => "a list of lists or maps",
                _ => return None,
            };
            frontmatter::value_strings(Some(value))
                .is_empty()
                .then_some((key, shape))
        })
        .collect()
}

/// [`extract_meta`] of the mapping the entries make, read from the
/// entries themselves (a test compares the two).
fn extract_simple_meta(entries: &[(&str, SimpleValue<'_>)], share: bool, wanted: Wanted) -> Meta {
    // One walk over the entries finds every key read here, rather than a
    // walk for each key (a dozen, most of them absent from any one block).
    // The entries hold each key once.
    let mut read: [Option<&SimpleValue<'_>>; READ_KEYS] = [None; READ_KEYS];
    for (k, v) in entries {
        if let Some(slot) = read_key_slot(k) {
            read[slot] = Some(v);
        }
    }
    let get = |key: &str| read_key_slot(key).and_then(|slot| read[slot]);
    // As `frontmatter::value_strings`: no simple value is an unquoted link.
    fn strings<'a>(v: Option<&SimpleValue<'a>>, out: &mut Vec<Cow<'a, str>>) {
        match v {
            None => {}
            Some(SimpleValue::List(items)) => {
                out.extend(items.iter().filter_map(SimpleValue::scalar_str))
            }
            Some(v) => out.extend(v.scalar_str()),
        }
    }
    fn first_of<'a>(v: Option<&SimpleValue<'a>>) -> Option<Cow<'a, str>> {
        match v {
            None => None,
            Some(SimpleValue::List(items)) => items.iter().find_map(SimpleValue::scalar_str),
            Some(v) => v.scalar_str(),
        }
    }
    let blank = |v: &SimpleValue<'_>| match v {
        SimpleValue::Str(s) => crate::text::trim(s).is_empty(),
        SimpleValue::List(items) => items.is_empty(),
        SimpleValue::Bool(_) | SimpleValue::Number(_) => false,
    };
    let shared = SharedFacts {
        keys: intern::shared_names(|| entries.iter().map(|(k, _)| *k)),
        empty_keys: intern::shared_list(
            share,
            &entries
                .iter()
                .filter(|(_, v)| blank(v))
                .map(|(k, _)| intern::copy(share, k))
                .collect::<Vec<_>>(),
        ),
        ..SharedFacts::default()
    };
    let mut meta = Meta::default();
    fill_values(
        share,
        wanted,
        &mut meta,
        shared,
        |key, out| strings(get(key), out),
        |key| first_of(get(key)),
        matches!(get("compiled"), Some(SimpleValue::Bool(true))),
        Box::default(),
        // A block of the simple shape holds no map and no nested list.
        Box::default(),
    );
    meta
}

/// How many keys [`read_key_slot`] knows.
const READ_KEYS: usize = 14;

/// Where [`extract_simple_meta`] keeps the value of a key [`fill_values`]
/// reads; `None` for any other key.
fn read_key_slot(key: &str) -> Option<usize> {
    Some(match key {
        "client" => 0,
        "clients" => 1,
        "domain" => 2,
        "domains" => 3,
        "languages" => 4,
        "language_pair" => 5,
        "source_lang" => 6,
        "target_lang" => 7,
        "term_source" => 8,
        "term_target" => 9,
        "last_updated" => 10,
        "status" => 11,
        "compiled_from" => 12,
        "compiled" => 13,
        _ => return None,
    })
}

fn is_blank(v: &yaml_serde::Value) -> bool {
    use yaml_serde::Value;
    match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Sequence(items) => items.is_empty(),
        Value::Mapping(m) => m.is_empty(),
        Value::Tagged(t) => is_blank(&t.value),
        _ => false,
    }
}

/// Which of the frontmatter's values a reading builds into `meta`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wanted {
    /// Every one.
    All,
    /// What the streamed check ([`LoadOptions::checked`]) reads of an
    /// article in this folder, which it checks and drops: its own checks
    /// and its kept term. No domains; the clients and the terms of an
    /// approved term only; the status of a term only, and a shared copy;
    /// `last_updated`'s text only when it is no date; a language value
    /// only when it is reported (and an approved term's pair). Each of
    /// those was an allocation (two for a client or domain) freed unread.
    Checked(Folder),
}

/// How a frontmatter block of the common shape is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frontmatter {
    /// From its text ([`frontmatter::parse_simple_entries`]).
    AsWritten,
    /// Through the YAML mapping, as any other block (what the tests
    /// compare the first reading with).
    #[cfg_attr(not(test), allow(dead_code))]
    ThroughMapping,
}

/// The strings of a value of the common shape, as
/// [`frontmatter::all_strings`] gives them from the value the YAML parser
/// reads (its list items are never lists, nor unquoted links).
fn simple_strings<'v, 'a>(v: &'v SimpleValue<'a>) -> impl Iterator<Item = &'a str> + 'v {
    let (one, items) = match v {
        SimpleValue::Str(s) => (Some(*s), &[][..]),
        SimpleValue::List(items) => (None, items.as_slice()),
        SimpleValue::Bool(_) | SimpleValue::Number(_) => (None, &[][..]),
    };
    one.into_iter().chain(items.iter().filter_map(|i| match i {
        SimpleValue::Str(s) => Some(*s),
        _ => None,
    }))
}

/// The links of the frontmatter's `strings` (every string of every value,
/// in document order).
fn frontmatter_links<S: AsRef<str>>(
    strings: impl IntoIterator<Item = S>,
    text: &str,
    yaml: Range<usize>,
    line_shift: usize,
    out: &mut LinksBuilder,
) {
    let yaml_text = &text[yaml.clone()];
    // Lines counted forward from the last link found, nothing allocated:
    // values nearly always come in the order of the text. Only a link
    // found before the last one (a value the YAML parser gave in another
    // shape than written) builds the index of every line.
    let before_yaml = &text[..yaml.end];
    let mut forward = text::LineCounter::new(before_yaml);
    let mut last = 0;
    let lines = std::cell::OnceCell::new();
    let mut search_from = 0;
    for s in strings {
        let s = s.as_ref();
        // What `wikilink::extract_plain` gives, borrowed from the value
        // rather than copied into strings of its own.
        for (whole, inner) in wikilink::bracketed(s) {
            let raw = &s[inner];
            let target = normalize_value(raw);
            if target.is_empty() {
                continue;
            }
            let embed = whole.start > 0 && s.as_bytes()[whole.start - 1] == b'!';
            let kind = if embed {
                LinkKind::Embed
            } else {
                LinkKind::Wiki
            };
            let find = |written: &str| {
                find_wikilink(yaml_text, search_from, written)
                    .or_else(|| find_wikilink(yaml_text, 0, written))
                    .map(|i| (i, written.len()))
            };
            // A value is found as written; in a quoted scalar a quote or
            // a backslash is written escaped (`"[[The \"Big\" Firm]]"`,
            // as `membank terms import` writes it, or `'[[O''Brien]]'`),
            // so the value's text alone would find nothing, and the link
            // would be put on the frontmatter's first line.
            let at = find(raw).or_else(|| {
                if !raw.contains(['"', '\\', '\'']) {
                    return None;
                }
                let double = raw.replace('\\', "\\\\").replace('"', "\\\"");
                find(&double).or_else(|| find(&raw.replace('\'', "''")))
            });
            let line = match at {
                Some((i, len)) => {
                    search_from = i + len + 4;
                    let offset = yaml.start + i;
                    let line = if offset >= last {
                        last = offset;
                        forward.line_of(offset)
                    } else {
                        lines
                            .get_or_init(|| text::LineIndex::new(before_yaml))
                            .line_of(offset)
                    };
                    line + line_shift
                }
                None => 2 + line_shift,
            };
            out.push(raw, target, kind, line, true);
        }
    }
}

/// Where `[[raw]]` starts in `text`, at `from` or after, found without
/// building it: each `[[` from there on is looked at in turn, with one
/// search made once for all of them (a search built for each link's name
/// cost more than the looking).
fn find_wikilink(text: &str, from: usize, raw: &str) -> Option<usize> {
    static OPENING: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"[["));
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(i) = OPENING.find(bytes.get(at..)?) {
        let start = at + i;
        let inner = &bytes[start + 2..];
        if inner.starts_with(raw.as_bytes()) && inner[raw.len()..].starts_with(b"]]") {
            return Some(start);
        }
        // `[[[` opens twice, one byte apart.
        at = start + 1;
    }
    None
}

pub(crate) mod ranked;

#[cfg(test)]
mod tests {
    use super::*;

    /// The key's line as it was found before: the block taken apart by
    /// `str::lines`, every line tried (the prefixes' test is shared).
    fn key_line_in_before(yaml: &str, first_line: usize, key: &str) -> Option<usize> {
        yaml.lines()
            .position(|line| key_starts(line, key))
            .map(|i| i + first_line)
    }

    /// An article is the same whatever the thread's reused lists (links,
    /// entries, values, languages) held before: read one after another on
    /// one thread (after articles with many links, keys and values, a
    /// long one, none) and each on a thread of its own, the articles are
    /// equal.
    #[test]
    fn articles_read_with_the_threads_lists_are_the_same_on_a_fresh_thread() {
        let many_keys: String = (0..300).map(|i| format!("k{i}: v{i}\n")).collect();
        let many_clients: String = (0..300).map(|i| format!("\"[[C {i}]]\", ")).collect();
        let many: String = (0..300)
            .map(|i| format!("[[Name {i}|alias {i}]] "))
            .collect();
        let long_name = format!("---\nclient: \"[[{}]]\"\n---\n[[x]]", "n".repeat(70_000));
        let texts = [
            format!("---\nclients: [\"[[A]]\", \"[[B]]\"]\ndomain: \"[[Legal]]\"\n---\n{many}"),
            "---\nclient: \"[[Acme]]\"\nlast_updated: 2026-01-01\n---\n# T\nsee [[Beta]] and [x](y.md)\n".into(),
            "no links at all".into(),
            "\u{feff}---\r\nstatus: approved\r\n---\r\nbody [[x|y]]".into(),
            "---\nclient: [[Unquoted]]\n---\n`[[code]]` [[end]]".into(),
            long_name,
            "```markdown\n---\ndomain: \"[[Legal]]\"\n---\nbody [[a#h]]\n```\n".into(),
            "---\nclient: [unclosed\n---\n[[after]]".into(),
            "[[last]]".into(),
            String::new(),
            format!("---\n{many_keys}client: Acme\n---\nbody"),
            format!("---\nclients: [{many_clients}\"[[Last]]\"]\nsource_lang: de-DE\n---\n"),
            "---\nterm_source: \"a\"\nterm_target: \"b\"\nsource_lang: en-US\ntarget_lang: nl-BE\nlanguages: [\"en → nl\", \"de->fr\", \"\"]\nclients: []\nstatus: approved\n---\n# a\n".into(),
            "---\nclients:\n  - \"[[Block]]\"\n  - Other\nlanguage_pair: en -> de\n---\n[[x]]".into(),
            "---\nclient: 'it''s'\ndomain: \"a\\\"b\"\ncompiled: true\n---\n".into(),
            "---\r\nclient: Acme\r\ndomains: [\"[[D1]]\", D2]\r\n---\r\n[[crlf]]".into(),
        ];
        let read = |text: &str, options: &LoadOptions| {
            let decoded = text::decode_borrowed(text.as_bytes()).unwrap();
            Article::parse_with("03_DOMAINS/d.md".into(), Folder::Domains, decoded, options)
        };
        let streamed = LoadOptions {
            share: false,
            chars: false,
            ..LoadOptions::CHECK
        };
        let options_each = [
            streamed,
            LoadOptions::CHECK,
            LoadOptions::EVERYTHING,
            LoadOptions::INTERFACE,
            LoadOptions::CONTEXT,
        ];
        for options in options_each {
            let mut in_turn = Vec::new();
            for _ in 0..2 {
                for text in &texts {
                    in_turn.push(format!("{:?}", read(text, &options)));
                }
            }
            let fresh: Vec<String> = texts
                .iter()
                .map(|text| {
                    std::thread::scope(|s| {
                        s.spawn(|| format!("{:?}", read(text, &options)))
                            .join()
                            .unwrap()
                    })
                })
                .collect();
            for (i, got) in in_turn.iter().enumerate() {
                assert_eq!(got, &fresh[i % texts.len()], "{:?}", texts[i % texts.len()]);
            }
            let a = read(&texts[0], &options);
            if options.links {
                assert_eq!(a.links.len(), 303);
                assert!(a.links.iter().any(|l| l.target() == "Name 299"));
            }
            assert_eq!(a.meta.clients.len(), 2);
            assert_eq!(read(&texts[11], &options).meta.clients.len(), 301);
            let term = read(&texts[12], &options);
            assert_eq!(term.meta.languages.len(), 5, "{:?}", term.meta.languages);
            assert_eq!(term.meta.source_lang.as_deref(), Some("en-US"));
        }
        // The long name's room is not kept for the rest of the load.
        read(&texts[5], &LoadOptions::CHECK);
        LINKS_SCRATCH.with_borrow(|s| assert!(s.text.capacity() <= SCRATCH_KEPT));
        // Nor the room of a body of 300 links, and the list is left empty.
        read(&texts[0], &LoadOptions::CHECK);
        BODY_LINKS.with_borrow(|l| assert!(l.is_empty() && l.capacity() <= ENTRIES_KEPT));
        read(&texts[1], &LoadOptions::CHECK);
        BODY_LINKS.with_borrow(|l| assert!(l.is_empty() && l.capacity() > 0));
    }

    /// A language value's codes read as the list they were: one code is
    /// the value's own copy, none or several a list at its size; each
    /// looks, compares and hashes as that list would.
    #[test]
    fn a_values_codes_are_the_list_of_its_parts() {
        use std::hash::BuildHasher;
        let hasher = std::hash::RandomState::new();
        for raw in [
            "en",
            " nl-BE ",
            "en → nl",
            "en->fr->de",
            "",
            " → ",
            "a→",
            "→ b ->",
        ] {
            let want: Vec<Arc<str>> = language_tag_strs(raw).map(Arc::from).collect();
            let tags = Tags::of(language_tag_strs(raw), Arc::from);
            assert_eq!(tags.as_slice(), want.as_slice(), "{raw:?}");
            assert_eq!(format!("{tags:?}"), format!("{want:?}"));
            assert_eq!(matches!(tags, Tags::One(_)), want.len() == 1, "{raw:?}");
            if let Tags::Many(many) = &tags {
                assert_eq!(many.len(), want.len());
            }
            let again = Tags::of(language_tag_strs(raw), Arc::from);
            assert_eq!(tags, again);
            assert_eq!(hasher.hash_one(&tags), hasher.hash_one(&again));
            assert_eq!((&tags).into_iter().count(), want.len());
        }
        let one = Tags::of(language_tag_strs("en"), Arc::from);
        assert_ne!(one, Tags::of(language_tag_strs("nl"), Arc::from));
        assert_ne!(one, Tags::of(language_tag_strs("en → nl"), Arc::from));
    }

    /// Not counting characters changes nothing else an article holds.
    #[test]
    fn an_article_read_without_its_count_is_the_same_otherwise() {
        let texts = [
            "---\nclient: Acme\nlast_updated: 2026-01-01\n---\n# T é → [[Beta]]\n",
            "\u{feff}---\r\nstatus: approved\r\n---\r\nbody [[x|y]]",
            "```markdown\n---\ndomain: Legal\n---\nbody\n```\n",
            "no frontmatter 日本 [[end]]",
            "---\nclient: [unclosed\n---\n",
            "",
        ];
        for text in texts {
            let read = |chars: bool| {
                let decoded = text::decode_borrowed(text.as_bytes()).unwrap();
                let options = LoadOptions {
                    share: false,
                    chars,
                    ..LoadOptions::CHECK
                };
                Article::parse_with(
                    "02_TERMINOLOGY/t.md".into(),
                    Folder::Terminology,
                    decoded,
                    &options,
                )
            };
            let (counted, mut uncounted) = (read(true), read(false));
            assert_eq!(uncounted.chars(), 0);
            assert_eq!(counted.chars() == 0, text.is_empty(), "{text:?}");
            uncounted.chars = counted.chars;
            assert_eq!(format!("{uncounted:?}"), format!("{counted:?}"), "{text:?}");
        }
    }

    /// A key's line is the one the line-by-line reading found: quoted
    /// keys, keys that start another, white space (`\r`, tabs, a
    /// no-break space) before the colon, CRLF and lone `\r`, empty lines,
    /// a last line with and without its break, the empty key.
    #[test]
    fn a_keys_line_is_found_as_it_was_before() {
        let pieces = [
            "last_updated",
            "last_updated_x",
            "\"last_updated\"",
            "'last_updated'",
            "status",
            "\"",
            "'",
            ":",
            " ",
            "\t",
            "\u{a0}",
            "\n",
            "\r\n",
            "\r",
            "é",
            "x",
            "2024-01-01",
        ];
        let keys = ["last_updated", "status", "", "\"", "é", "x"];
        let texts = crate::random_text::joined(&pieces, 12, 0x2C1B_3C6D_A2F9_7E15).take(40_000);
        for yaml in texts {
            for key in keys {
                assert_eq!(
                    key_line_in(&yaml, 2, key),
                    key_line_in_before(&yaml, 2, key),
                    "{yaml:?} {key:?}"
                );
            }
            // Two keys in one pass, as each alone; the same key twice.
            for pair in [
                ["last_updated", "status"],
                ["status", "last_updated"],
                ["x", "x"],
                ["", "é"],
                ["\"", "last_updated"],
            ] {
                let want = pair.map(|key| key_line_in_before(&yaml, 2, key));
                assert_eq!(key_lines_in(&yaml, 2, pair), want, "{yaml:?} {pair:?}");
            }
        }
    }

    /// An article's title is the first `# ` line's text, trimmed, as
    /// splitting the body into lines found it: at the start or later, a
    /// `#` with no space or two, CRLF and a lone `\r`, tabs and a no-break
    /// space around it, an empty heading, the last line with and without
    /// its break, non-ASCII text.
    #[test]
    fn the_first_heading_is_found_as_by_lines() {
        let pieces = [
            "# ", "#", "## ", " ", "\t", "\u{a0}", "\n", "\r\n", "\r", "T", "é → x", "[[a]]",
            "\u{2028}",
        ];
        fn before(body: &str) -> Option<&str> {
            body.lines()
                .find_map(|l| l.strip_prefix("# "))
                .map(str::trim)
        }
        let texts = crate::random_text::joined(&pieces, 10, 0x005E_ED0F_4EAD_1E55).take(40_000);
        for body in texts {
            assert_eq!(first_heading(&body), before(&body), "{body:?}");
        }
        for body in ["", "# ", "#", "# \r", "x\n# a \r\n# b", "\n\n# t\n"] {
            assert_eq!(first_heading(body), before(body), "{body:?}");
        }
    }

    #[test]
    fn a_wikilink_is_found_where_it_is_written_from_a_position_on() {
        let text = "a: x [[b]] [[b]]\nc: [[bb]] [b] [[b]]";
        assert_eq!(find_wikilink(text, 0, "b"), Some(5));
        assert_eq!(find_wikilink(text, 6, "b"), Some(11));
        assert_eq!(find_wikilink(text, 12, "b"), Some(31));
        assert_eq!(find_wikilink(text, 32, "b"), None);
        assert_eq!(find_wikilink(text, 0, "bb"), Some(20));
        assert_eq!(find_wikilink(text, 0, "c"), None);
        assert_eq!(find_wikilink(text, 99, "b"), None);
    }

    /// [`find_wikilink`] as it was, with a search built for each name.
    fn find_wikilink_before(text: &str, from: usize, raw: &str) -> Option<usize> {
        let bytes = text.as_bytes();
        let finder = memchr::memmem::Finder::new(raw.as_bytes());
        let mut at = from + 2;
        while let Some(i) = finder.find(bytes.get(at..)?) {
            let start = at + i;
            if bytes[start - 2..start] == *b"[[" && bytes[start + raw.len()..].starts_with(b"]]") {
                return Some(start - 2);
            }
            at = start + 1;
        }
        None
    }

    proptest::proptest! {
        #[test]
        fn a_wikilink_is_found_where_it_was_found_before(
            text in "[ab\\[\\]|\n]{0,24}",
            raw in "[ab\\[\\]|]{0,3}",
            from in 0usize..28,
        ) {
            proptest::prop_assert_eq!(
                find_wikilink(&text, from, &raw),
                find_wikilink_before(&text, from, &raw),
                "{:?} {} {:?}", text, from, raw
            );
        }
    }

    #[test]
    fn a_wikilink_opened_by_three_brackets_is_found() {
        assert_eq!(find_wikilink("[[[x]]", 0, "x"), Some(1));
        assert_eq!(find_wikilink("[[[[x]]", 1, "x"), Some(2));
        assert_eq!(find_wikilink("[[]]", 0, ""), Some(0));
        assert_eq!(find_wikilink("a [[x]", 0, "x"), None);
    }

    fn parse(rel: &str, folder: Folder, s: &str) -> Article {
        Article::parse(rel.into(), folder, text::decode(s.as_bytes()).unwrap())
    }

    #[test]
    fn term_article_meta() {
        let a = parse(
            "02_TERMINOLOGY/compliance → naleving.md",
            Folder::Terminology,
            "---\nterm_source: \"compliance\"\nsource_lang: en-US\ntarget_lang: no\ndomain: \"[[Legal]]\"\nclients: [\"[[Acme Corporation|Acme]]\"]\nstatus: approved\nlast_updated: 2026-04-04\n---\n# compliance → naleving\nSee [[Legal]].\n",
        );
        assert!(a.is_parsed());
        assert_eq!(a.stem(), "compliance → naleving");
        assert_eq!(a.title(), "compliance → naleving");
        assert_eq!(&*a.meta.clients[0].folded, "acme corporation");
        assert_eq!(&*a.meta.clients[0].raw, "[[Acme Corporation|Acme]]");
        assert_eq!(a.meta.domains[0].key, "domain");
        assert_eq!(a.meta.target_lang.as_deref(), Some("no"));
        assert!(a.meta.last_updated_date.is_some());
        let lines: Vec<(usize, bool)> =
            a.links.iter().map(|l| (l.line, l.in_frontmatter)).collect();
        assert_eq!(lines, vec![(5, true), (6, true), (11, false)]);
    }

    /// A link in a quoted value holding a quote or a backslash is written
    /// escaped: it is still put on its key's line, not the frontmatter's
    /// first, so a finding about it points where it is.
    #[test]
    fn a_link_written_with_escapes_is_on_its_own_line() {
        let a = parse(
            "02_TERMINOLOGY/invoice → factuur.md",
            Folder::Terminology,
            "---\nterm_source: \"invoice\"\nterm_target: \"factuur\"\nsource_lang: \"en-US\"\n\
             target_lang: \"nl-BE\"\nstatus: \"approved\"\ndomain: \"[[Contract \\\"law\\\"]]\"\n\
             clients: [\"[[The \\\"Big\\\" Firm]]\", \"[[Plain Client]]\", '[[O''Brien]]', \
             \"[[A\\\\B]]\"]\nlast_updated: 2026-03-02\n---\n# invoice → factuur\n",
        );
        assert!(a.is_parsed());
        let lines: Vec<(&str, usize)> = a.links.iter().map(|l| (l.target(), l.line)).collect();
        assert_eq!(
            lines,
            vec![
                ("Contract \"law\"", 7),
                ("The \"Big\" Firm", 8),
                ("Plain Client", 8),
                ("O'Brien", 8),
                ("A\\B", 8)
            ]
        );
    }

    #[test]
    fn links_keep_what_was_written_and_the_name_they_reach() {
        // Each kind of link: an alias and a heading (the name a part of
        // what was written), a Markdown link whose name is decoded (not a
        // part of it), an embed and a value in the frontmatter; a heading
        // of the note itself is no link.
        let a = parse(
            "03_DOMAINS/Legal.md",
            Folder::Domains,
            "---\ndomain: \"[[Legal Affairs|legal]]\"\n---\n# Legal\n\
             See [[Acme Corporation#Scope|the scope]] and [the note](My%20Note.md).\n\
             ![[diagram.png]] [[#Heading only]]\n",
        );
        let links: Vec<(&str, &str, String, LinkKind, usize, bool)> = a
            .links
            .iter()
            .map(|l| {
                (
                    l.raw(),
                    l.target(),
                    l.written(),
                    l.kind,
                    l.line,
                    l.in_frontmatter,
                )
            })
            .collect();
        assert_eq!(
            links,
            vec![
                (
                    "Legal Affairs|legal",
                    "Legal Affairs",
                    "[[Legal Affairs|legal]]".into(),
                    LinkKind::Wiki,
                    2,
                    true
                ),
                (
                    "Acme Corporation#Scope|the scope",
                    "Acme Corporation",
                    "[[Acme Corporation#Scope|the scope]]".into(),
                    LinkKind::Wiki,
                    5,
                    false
                ),
                (
                    "My%20Note.md",
                    "My Note.md",
                    "[…](My%20Note.md)".into(),
                    LinkKind::Markdown,
                    5,
                    false
                ),
                (
                    "diagram.png",
                    "diagram.png",
                    "![[diagram.png]]".into(),
                    LinkKind::Embed,
                    6,
                    false
                ),
            ]
        );
    }

    #[test]
    fn the_title_is_the_first_heading_else_the_stem() {
        // (text, title): a heading other than the stem, the stem itself,
        // none, an empty first heading (the stem, not a later heading), a
        // heading with spaces around it, and a `##` heading (not a title).
        let cases = [
            ("# Acme Corporation\n", "Acme Corporation"),
            ("# Acme\n", "Acme"),
            ("no heading\n", "Acme"),
            ("#   \n# Later\n", "Acme"),
            ("#  Acme  \n", "Acme"),
            ("#  ACME \n", "ACME"),
            ("## Sub\n# Über\n", "Über"),
            ("---\nclient: x\n---\n# Acme Corp\n", "Acme Corp"),
        ];
        for (text, title) in cases {
            let a = parse("01_CLIENTS/Acme.md", Folder::Clients, text);
            assert_eq!(a.title(), title, "{text:?}");
            // A title that is the stem keeps no copy of it.
            assert_eq!(a.title.is_empty(), title == "Acme", "{text:?}");
        }
    }

    #[test]
    fn links_packed_in_one_string_read_back_as_pushed() {
        // Names that are part of what was written (at its start, inside
        // it, empty), names that are not (appended), repeated and empty
        // texts and multi-byte characters, each read back as given, in
        // order and from either end.
        let given: Vec<(&str, &str, LinkKind, usize, bool)> = vec![
            ("Acme|the client", "Acme", LinkKind::Wiki, 3, true),
            ("a%C3%A9", "aé", LinkKind::Markdown, 7, false),
            ("#Heading", "", LinkKind::Wiki, 8, false),
            (
                "./notes/Ünïcode.md",
                "notes/Ünïcode.md",
                LinkKind::Markdown,
                9,
                false,
            ),
            ("", "", LinkKind::Embed, 10, false),
            (
                "a%C3%A9",
                "a",
                LinkKind::Markdown,
                usize::from(u16::MAX) + 1,
                false,
            ),
            ("diagram.png", "diagram.png", LinkKind::Embed, 12, true),
        ];
        let links = Links::of(given.iter().copied());
        let read: Vec<_> = links
            .iter()
            .map(|l| (l.raw(), l.target(), l.kind, l.line, l.in_frontmatter))
            .collect();
        assert_eq!(read, given);
        let backwards: Vec<_> = links.iter().rev().map(|l| l.raw()).collect();
        let mut expected: Vec<_> = given.iter().map(|g| g.0).collect();
        expected.reverse();
        assert_eq!(backwards, expected);
        assert_eq!((links.len(), links.iter().len()), (7, 7));
        assert_eq!(
            links.get(1).map(|l| l.written()).as_deref(),
            Some("[…](a%C3%A9)")
        );
        assert_eq!(links.get(7), None);
        assert_eq!((&links).into_iter().count(), 7);
        // Only the names not found in what was written add to the text.
        let written: usize = given.iter().map(|g| g.0.len()).sum();
        assert_eq!(links.text.len(), written + "aé".len());
        assert!(Links::default().is_empty());
        assert_eq!(Links::default().iter().next(), None);
    }

    #[test]
    fn articles_naming_the_same_values_share_one_list_of_them() {
        let term = |name: &str, client: &str| {
            parse(
                &format!("02_TERMINOLOGY/{name}.md"),
                Folder::Terminology,
                &format!(
                    "---\nterm_source: {name}\nsource_lang: en-US\ntarget_lang: nl-BE\n\
                     clients: [\"{client}\"]\ndomain: Legal\n---\n# {name}\n"
                ),
            )
        };
        let (a, b, c) = (term("a", "Acme"), term("b", "Acme"), term("c", "Beta"));
        assert!(Arc::ptr_eq(&a.meta.clients, &b.meta.clients));
        assert!(Arc::ptr_eq(&a.meta.domains, &c.meta.domains));
        assert!(Arc::ptr_eq(&a.meta.languages, &c.meta.languages));
        assert!(!Arc::ptr_eq(&a.meta.clients, &c.meta.clients));
        assert_eq!(&*c.meta.clients[0].raw, "Beta");
        assert_eq!(&*a.meta.clients[0].raw, "Acme");
        let tags: Vec<&str> = a
            .meta
            .languages
            .iter()
            .flat_map(|l| l.tags.iter().map(|t| &**t))
            .collect();
        assert_eq!(tags, ["en-US", "nl-BE"]);
        assert_eq!(a.meta.term_source(), Some("a"));
        assert_eq!(b.meta.term_source(), Some("b"));
        // Equal keys, languages and status are one record (the clients
        // are the article's own); facts that differ there are not.
        assert!(Arc::ptr_eq(&a.meta.shared, &b.meta.shared));
        assert!(Arc::ptr_eq(&a.meta.shared, &c.meta.shared));
        let approved = parse(
            "02_TERMINOLOGY/d.md",
            Folder::Terminology,
            "---\nterm_source: d\nsource_lang: en-US\ntarget_lang: nl-BE\n\
             clients: [\"Acme\"]\ndomain: Legal\nstatus: approved\n---\n# d\n",
        );
        assert!(!Arc::ptr_eq(&a.meta.shared, &approved.meta.shared));
        assert_eq!(approved.meta.status.as_deref(), Some("approved"));
        assert_eq!(a.meta.status, None);
        assert_eq!(a.meta.keys, approved.meta.keys[..5].into());
        let none = parse("01_CLIENTS/n.md", Folder::Clients, "no block\n");
        assert_eq!(*none.meta, SharedFacts::default());
    }

    #[test]
    fn fenced_article_lines_map_back_to_the_file() {
        let a = parse(
            "01_CLIENTS/Acme.md",
            Folder::Clients,
            "```markdown\n---\nclient: Acme\n---\n# Acme\n[[Legal]]\n```\n",
        );
        assert!(a.encoding.fenced);
        assert!(a.is_parsed());
        assert_eq!(a.links.get(0).map(|l| l.line), Some(6));
        assert_eq!(a.text, "---\nclient: Acme\n---\n# Acme\n[[Legal]]\n");
    }

    #[test]
    fn a_link_in_a_remark_after_the_wrapper_has_its_line_in_the_file() {
        // The closing fence's line is not in the text read; the remark
        // after it is still on its own line of the file.
        let a = parse(
            "01_CLIENTS/Acme.md",
            Folder::Clients,
            "```markdown\n---\nclient: Acme\n---\n# Acme\n```\nThanks! See [[Nope]].\n",
        );
        assert_eq!(a.encoding.fence_close_line(), Some(6));
        assert_eq!(a.links.get(0).map(|l| l.line), Some(7));
    }

    /// The record keeps some facts out of line and in 32 bits: each must
    /// read back as what the file says, and the facts an article does not
    /// have must read as absent.
    #[test]
    fn facts_kept_packed_read_back_as_written() {
        let term = parse(
            "02_TERMINOLOGY/t.md",
            Folder::Terminology,
            "```markdown\n---\nterm_source: \"Ab\"\nterm_target: cd\ncompiled_from: \"00_INBOX/n.md\"\n---\n# T\nbody é\n```\n",
        );
        assert_eq!(term.meta.term_source(), Some("Ab"));
        assert_eq!(term.meta.term_target(), Some("cd"));
        assert_eq!(term.meta.compiled_from(), Some("00_INBOX/n.md"));
        assert!(term.meta.unquoted_links().is_empty());
        assert_eq!(term.encoding.line_shift(), 1);
        assert_eq!(term.encoding.fence_close_line(), Some(9));
        assert_eq!(term.yaml_first_line(), 3);
        assert_eq!(term.yaml_range(), Some(4..69));
        assert_eq!(
            term.yaml(),
            Some("term_source: \"Ab\"\nterm_target: cd\ncompiled_from: \"00_INBOX/n.md\"\n")
        );
        assert_eq!(term.body_start(), 73);
        assert_eq!(term.body(), "# T\nbody é\n");
        assert_eq!(term.chars(), term.text.chars().count());
        assert_eq!(term.chars(), 84);

        let unquoted = parse(
            "01_CLIENTS/U.md",
            Folder::Clients,
            "---\nclient: [[Acme]]\n---\n",
        );
        assert_eq!(
            unquoted.meta.unquoted_links(),
            &[("client".to_owned(), "[[Acme]]".to_owned())]
        );
        assert_eq!(unquoted.meta.term_source(), None);
        assert_eq!(unquoted.meta.compiled_from(), None);
        assert_eq!(unquoted.encoding.line_shift(), 0);
        assert_eq!(unquoted.encoding.fence_close_line(), None);

        let plain = parse("01_CLIENTS/P.md", Folder::Clients, "no block\n");
        assert_eq!(plain.yaml_range(), None);
        assert_eq!(plain.body_start(), 0);
        assert_eq!(plain.meta.term_target(), None);
        assert!(plain.meta.unquoted_links().is_empty());

        // One of the two terms, or both with one empty: each reads back
        // as set or not, as written.
        let only_target = parse(
            "02_TERMINOLOGY/o.md",
            Folder::Terminology,
            "---\nterm_target: \"é x\"\n---\n",
        );
        assert_eq!(only_target.meta.term_source(), None);
        assert_eq!(only_target.meta.term_target(), Some("é x"));
        let mut meta = Meta::default();
        meta.set_terms(Some("ab"), Some(""));
        assert_eq!(
            (meta.term_source(), meta.term_target()),
            (Some("ab"), Some(""))
        );
        meta.set_terms(Some(""), None);
        assert_eq!((meta.term_source(), meta.term_target()), (Some(""), None));
    }

    #[test]
    fn invalid_yaml_is_kept_with_its_error() {
        let a = parse(
            "01_CLIENTS/X.md",
            Folder::Clients,
            "---\nclient: [oops\n---\nbody\n",
        );
        assert!(matches!(a.frontmatter, FrontmatterState::Invalid(_)));
        assert!(a.meta.clients.is_empty());
    }

    #[test]
    fn language_values_split_on_both_arrows() {
        assert_eq!(language_tags("en-US → nl-BE"), vec!["en-US", "nl-BE"]);
        assert_eq!(language_tags("en->fr"), vec!["en", "fr"]);
        assert_eq!(language_tags("de"), vec!["de"]);
    }

    #[test]
    fn compiled_flag() {
        let a = parse(
            "00_INBOX/_archive/n.md",
            Folder::Inbox,
            "---\ncompiled: true\n---\n",
        );
        assert!(a.meta.compiled);
        assert!(a.in_archive);
    }

    #[test]
    fn a_hundred_thousand_links_on_one_line_get_their_lines() {
        // Line numbers were found by counting from the start for every
        // link: quadratic, seconds for this article (see the hostile bench).
        let mut text = String::from("---\nlast_updated: 2026-01-01\n---\n");
        for i in 0..100_000 {
            text.push_str(&format!("[[t{i}]] "));
        }
        text.push_str("\n[[last]]\n");
        let a = Article::parse(
            "03_DOMAINS/x.md".into(),
            Folder::Domains,
            crate::text::decode(text.as_bytes()).unwrap(),
        );
        assert_eq!(a.links.len(), 100_001);
        assert!(a.links.iter().take(100_000).all(|l| l.line == 4));
        assert_eq!(a.links.get(100_000).map(|l| l.line), Some(5));
        assert_eq!(a.links.get(100_001), None);
    }

    /// What an article gets from its frontmatter (metadata, state, links)
    /// when a block of the common shape is read from its text, and when it
    /// is read through the YAML mapping; with links and without.
    fn meta_both_ways(text: &str) -> Option<(Meta, Meta)> {
        let decoded = text::decode(text.as_bytes()).ok()?;
        let read = |options: &LoadOptions, reading: Frontmatter| {
            let decoded = text::Decoded {
                text: Cow::Borrowed(decoded.text.as_str()),
                had_bom: decoded.had_bom,
                crlf: decoded.crlf,
                utf16: decoded.utf16,
            };
            let a = Article::parse_read(
                "02_TERMINOLOGY/a.md".into(),
                Folder::Terminology,
                decoded,
                options,
                None,
                reading,
                Wanted::All,
            );
            (a.meta, a.frontmatter, a.links)
        };
        let (quick, quick_state, _) = read(&LoadOptions::CONTEXT, Frontmatter::AsWritten);
        let (quick_linked, linked_state, quick_links) =
            read(&LoadOptions::EVERYTHING, Frontmatter::AsWritten);
        let (full, full_state, full_links) =
            read(&LoadOptions::EVERYTHING, Frontmatter::ThroughMapping);
        for state in [&quick_state, &linked_state] {
            assert_eq!(
                std::mem::discriminant(state),
                std::mem::discriminant(&full_state),
                "{text}"
            );
        }
        assert_eq!(quick_links, full_links, "{text}");
        let before = frontmatter_links_before(&decoded.text);
        let found: Vec<_> = quick_links
            .iter()
            .filter(|l| l.in_frontmatter)
            .map(|l| (l.raw().to_owned(), l.target().to_owned(), l.kind, l.line))
            .collect();
        assert_eq!(found, before, "{text}");
        assert_eq!(quick_linked, full, "{text}");
        // Read without shared copies, both ways: the same values.
        let own = |options: LoadOptions| LoadOptions {
            share: false,
            ..options
        };
        let (quick_own, own_state, _) = read(&own(LoadOptions::CONTEXT), Frontmatter::AsWritten);
        let (full_own, ..) = read(&own(LoadOptions::EVERYTHING), Frontmatter::ThroughMapping);
        assert_eq!(own_state, quick_state, "{text}");
        assert_eq!(quick_own, quick, "{text}");
        assert_eq!(full_own, full, "{text}");
        Some((quick, full))
    }

    /// The frontmatter's links of `text` (raw, target, kind, line) as they
    /// were found before the links were read borrowed from their values
    /// and their lines counted forward: from the YAML mapping, each link
    /// copied out, every line of the block indexed.
    fn frontmatter_links_before(text: &str) -> Vec<(String, String, LinkKind, usize)> {
        let located = frontmatter::locate(text);
        let Block::Present(yaml) = located.block else {
            return Vec::new();
        };
        let text = &located.text;
        let line_shift = located.line_shift;
        let Ok(map) = frontmatter::parse_yaml(&text[yaml.clone()], 2 + line_shift) else {
            return Vec::new();
        };
        let mut strings = Vec::new();
        for v in map.values() {
            frontmatter::all_strings(v, &mut strings);
        }
        let yaml_text = &text[yaml.clone()];
        let lines = text::LineIndex::new(&text[..yaml.end]);
        let mut search_from = 0;
        let mut out = Vec::new();
        for s in strings {
            for l in wikilink::extract_plain(&s) {
                let at = find_wikilink(yaml_text, search_from, &l.raw)
                    .or_else(|| find_wikilink(yaml_text, 0, &l.raw));
                let line = match at {
                    Some(i) => {
                        search_from = i + l.raw.len() + 4;
                        lines.line_of(yaml.start + i) + line_shift
                    }
                    None => 2 + line_shift,
                };
                out.push((l.raw, l.target, l.kind, line));
            }
        }
        out
    }

    #[test]
    fn frontmatter_links_are_found_as_they_were_before() {
        for (yaml, lines) in [
            // Common shape: twice the same link, an embed, an alias, `[[[`,
            // an empty name, one value of many links.
            (
                "domain: \"[[Legal]]\"\nclients: ['[[A|x]] and [[A|x]]', \"![[B#h]]\"]\nnote: \"[[[C]]] [[ ]] [[D]]\"\n",
                &[2, 3, 3, 3, 4, 4][..],
            ),
            // Through the YAML parser: the third link is written with
            // escapes, so its text is not in the block and it counts from
            // the start, back to the first `[[A]]`; the fourth is not
            // written at all.
            (
                "x: \"[[A]]\"\ny: \"[[B]]\"\nz: \"\\x5b\\x5bA]]\"\nw: \"\\x5b\\x5bE]]\"\n# c\n",
                &[2, 3, 2, 2][..],
            ),
            // A block scalar: its lines are the text's.
            ("a: |\n  [[P]]\n  [[Q]]\nb: \"[[P]]\"\n", &[3, 4, 5][..]),
            ("a: x\nb: [y, z]\n", &[][..]),
        ] {
            let text = format!("---\n{yaml}---\n# T\n");
            let before = frontmatter_links_before(&text);
            let got: Vec<usize> = before.iter().map(|l| l.3).collect();
            assert_eq!(got, lines, "{yaml}");
            meta_both_ways(&text).unwrap();
            // Wrapped in a fence, every line moves down by one.
            let fenced = format!("```\n{text}```\n");
            let shifted: Vec<usize> = frontmatter_links_before(&fenced)
                .iter()
                .map(|l| l.3)
                .collect();
            assert_eq!(
                shifted,
                lines.iter().map(|l| l + 1).collect::<Vec<_>>(),
                "{yaml}"
            );
            meta_both_ways(&fenced).unwrap();
        }
    }

    #[test]
    fn every_key_the_values_are_read_from_has_its_own_slot() {
        let keys: Vec<&str> = CLIENT_KEYS
            .into_iter()
            .chain(DOMAIN_KEYS)
            .chain(LANGUAGE_KEYS)
            .chain([
                "term_source",
                "term_target",
                "last_updated",
                "status",
                "compiled_from",
                "compiled",
            ])
            .collect();
        let mut slots: Vec<usize> = keys.iter().filter_map(|k| read_key_slot(k)).collect();
        assert_eq!(slots.len(), keys.len());
        slots.sort_unstable();
        slots.dedup();
        assert_eq!(slots, (0..READ_KEYS).collect::<Vec<_>>());
        for other in [
            "",
            "Client",
            "clientx",
            "compile",
            "status ",
            "last_updated_2",
        ] {
            assert_eq!(read_key_slot(other), None, "{other}");
        }
    }

    /// How a language value was split before values of one part were
    /// told apart.
    fn language_tags_before(raw: &str) -> Vec<&str> {
        raw.split('→')
            .flat_map(|part| part.split("->"))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect()
    }

    #[test]
    fn language_values_split_as_they_did_before() {
        for raw in [
            "",
            " ",
            "de-DE",
            " de-DE ",
            "en-US → nl-BE",
            "en->fr",
            "a-",
            "-> ",
            ">",
            "a>b",
            "€ x",
            "→",
            "en → ",
            "↔ x",
            "a→b->c",
            "\u{2192}\u{2192}",
        ] {
            let tags: Vec<&str> = language_tag_strs(raw).collect();
            assert_eq!(tags, language_tags_before(raw), "{raw:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn generated_language_values_split_as_they_did_before(raw in "[a-z→>€\\- ]{0,12}|\\PC{0,6}") {
            let tags: Vec<&str> = language_tag_strs(&raw).collect();
            proptest::prop_assert_eq!(tags, language_tags_before(&raw));
        }
    }

    #[test]
    fn metadata_read_without_shared_copies_is_the_same_and_shares_nothing() {
        let long = "L".repeat(super::intern::LONGEST_SHARED + 1);
        let many: Vec<String> = (0..40).map(|i| format!("\"[[C{i}]]\"")).collect();
        let keys: String = (0..300).map(|i| format!("key_{i}_{long}: x\n")).collect();
        for yaml in [
            format!("client: \"{long}\"\nclients: [{}]\ndomains: [\"[[{long}]]\", \"\"]\n", many.join(", ")),
            format!("languages: [\"en-US → nl-BE\", \"en-US -> {long}\", \" → \", \"->\", fr-FR]\nsource_lang: en-US\ntarget_lang: \"nl-BE → fr\"\n"),
            "status: ~\nlast_updated:\nrelated_domains: []\nclient: \"\"\ndomain: \"  \"\n\"\": empty key\n".to_string(),
            format!("{keys}status: approved\nlast_updated: 2026-04-04\n"),
            format!("term_source: \"{long}\"\nterm_target: x\nstatus: \"{long}\"\nlast_updated: \"{long}\"\nclient: ACME\nClient: acme\n"),
        ] {
            let text = format!("---\n{yaml}---\n# T\n");
            let (quick, full) = meta_both_ways(&text).unwrap();
            assert_eq!(quick, full, "{yaml}");
        }
        // Two articles read without sharing hold copies of their own.
        let yaml = "client: Acme\ndomains: [Legal]\nlanguages: [en-US → nl-BE]\nstatus: approved\n";
        let read = || {
            let text = format!("---\n{yaml}---\n# T\n");
            let options = LoadOptions {
                share: false,
                ..LoadOptions::CONTEXT
            };
            let decoded = text::Decoded {
                text: Cow::Owned(text),
                had_bom: false,
                crlf: false,
                utf16: false,
            };
            Article::parse_with("01_CLIENTS/a.md".into(), Folder::Clients, decoded, &options).meta
        };
        let (a, b) = (read(), read());
        assert_eq!(a, b);
        assert_eq!(a.clients.len(), 1);
        assert!(!Arc::ptr_eq(&a.clients, &b.clients));
        assert!(!Arc::ptr_eq(&a.languages, &b.languages));
        assert!(!Arc::ptr_eq(
            a.status.as_ref().unwrap(),
            b.status.as_ref().unwrap()
        ));
    }

    #[test]
    fn metadata_read_from_the_text_is_the_metadata_read_from_the_mapping() {
        for yaml in [
            "client: \"Acme Corporation\"\nlanguages: [\"en-US → nl-BE\", \"en-US → fr-FR\"]\ndomains: [\"[[Legal]]\", \"[[Marketing]]\"]\nlast_updated: 2026-04-04\ncompiled_from: \"00_INBOX/acme.md\"\n",
            "term_source: \"compliance\"\nterm_target: naleving\nsource_lang: en-US\ntarget_lang: no\ndomain: \"[[Legal]]\"\nclients: ['[[Acme|A]]', Beta NV]\nstatus: approved\nlast_updated: 2026-13-45\n",
            "scope: general\nlanguages: [en-US -> nl-BE]\nrelated_domains: []\ncompiled: true\n\nx: False\n",
            "client: 12\ndomains: [true, 7, \"\"]\nstatus: \"  \"\ncompiled: TRUE\nsource_lang: [False]\nlanguage_pair: ''\n",
            "compiled: \"True\"\nclients: []\nlast_updated: [2026-01-02, x]\n",
        ] {
            let text = format!("---\n{yaml}---\n# T\n");
            assert!(frontmatter::parse_simple_entries(yaml).is_some(), "{yaml}");
            let (quick, full) = meta_both_ways(&text).unwrap();
            assert_eq!(quick, full, "{yaml}");
        }
    }

    #[test]
    fn metadata_read_both_ways_agrees_on_every_fixture_and_demo_file() {
        let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut roots = vec![
            workspace.join("tests/fixtures"),
            workspace.join("demo-bank"),
            workspace.join("crates/membank-core"),
        ];
        // More folders to compare over (a large generated bank), named by
        // the one running the test; none by default.
        if let Some(extra) = std::env::var_os("MEMBANK_META_AGREE_DIRS") {
            eprintln!("also comparing the files under {extra:?}");
            roots.extend(std::env::split_paths(&extra));
        }
        let mut compared = 0;
        for root in roots {
            for entry in walkdir::WalkDir::new(root).into_iter().flatten() {
                let is_md = entry.path().extension().is_some_and(|e| e == "md");
                if !is_md || !entry.file_type().is_file() {
                    continue;
                }
                let Ok(bytes) = std::fs::read(entry.path()) else {
                    continue;
                };
                let Ok(text) = String::from_utf8(bytes) else {
                    continue;
                };
                if let Some((quick, full)) = meta_both_ways(&text) {
                    assert_eq!(quick, full, "{}", entry.path().display());
                    compared += 1;
                }
            }
        }
        assert!(compared > 100, "only {compared} files compared");
    }

    fn frontmatter_value() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let scalar = prop_oneof![
            "[a-zA-Z0-9 →>#:,._/()'\\[\\]\\-]{0,10}",
            "\"[a-zA-Z0-9 →#:,'\\[\\]|\\\\\\-]{0,10}\"",
            "'[a-zA-Z0-9 →#:,\"\\[\\]|\\-]{0,10}'",
            Just("2026-04-04".to_owned()),
            Just("2026-02-30".to_owned()),
            Just("true".to_owned()),
            Just("False".to_owned()),
            Just("12".to_owned()),
            Just("0".to_owned()),
            Just("\"\"".to_owned()),
            Just("\"[[Acme|A]]\"".to_owned()),
            Just("\"[[Acme|A]] and [[Acme|A]]\"".to_owned()),
            Just("'![[Legal#x]] [[[B]]'".to_owned()),
            Just("\"[[ ]][[C]]\"".to_owned()),
            Just("en-US → nl-BE".to_owned()),
            any::<char>().prop_map(|c| c.to_string()),
        ];
        prop_oneof![
            scalar.clone(),
            prop::collection::vec(scalar, 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 3000, ..Default::default() })]

        #[test]
        fn generated_frontmatter_gives_the_same_metadata_both_ways(
            lines in proptest::collection::vec(
                (
                    "client|clients|domain|domains|languages|language_pair|source_lang|target_lang|last_updated|status|term_source|term_target|compiled|compiled_from|[a-z_]{1,4}",
                    ":[ ]{0,2}",
                    frontmatter_value(),
                ),
                1..8,
            )
        ) {
            let yaml: String = lines.iter().map(|(k, sep, v)| format!("{k}{sep}{v}\n")).collect();
            if let Some((quick, full)) = meta_both_ways(&format!("---\n{yaml}---\nbody\n")) {
                proptest::prop_assert_eq!(quick, full, "{}", yaml);
            }
        }
    }
}
