//! Markdown → ratatui `Text`, wrapped to a width, with wikilinks located.
//!
//! Rendering happens when an article is opened or the pane is resized,
//! never while drawing. All text taken from the file passes through
//! `sanitize_for_terminal`, so escape sequences show as visible symbols.

use std::ops::Range;

use membank_core::frontmatter::{self, Block};
use membank_core::text::sanitize_for_terminal;
use membank_core::wikilink;
use pulldown_cmark::{
    Alignment, CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd,
};
use ratatui::style::Style;
use ratatui::text::Line;
use unicode_width::UnicodeWidthStr;

pub use self::doc::{LinkSpot, RenderedDoc};
use self::lines::{fit, frag_width, spaces, trim_prefix};
use crate::tui::theme::Theme;

/// Render a whole article file: frontmatter as a property block, then the
/// body. `resolve` says whether a wikilink target exists in the bank.
pub fn render_article(
    source: &str,
    width: u16,
    theme: &Theme,
    resolve: &dyn Fn(&str) -> bool,
) -> RenderedDoc {
    let located = frontmatter::locate(source);
    let mut r = Renderer::new(width, theme, resolve);
    match &located.block {
        Block::Present(range) => {
            let yaml = &located.text[range.clone()];
            // The YAML starts on the line after the opening `---`.
            let first_line = located.line_shift + 2;
            r.src_line = first_line;
            r.properties(yaml, first_line);
        }
        Block::Unclosed => r.notice("frontmatter: the opening --- is never closed"),
        Block::Missing => {}
    }
    if located.fenced {
        r.notice("note: the file is wrapped in a code fence (tolerated, spec §4.3)");
    }
    let body_line = located.text[..located.body_start].matches('\n').count() + 1;
    r.markdown(
        &located.text[located.body_start..],
        body_line + located.line_shift,
    );
    r.finish()
}

/// Render Markdown without frontmatter handling.
pub fn render_markdown(
    source: &str,
    width: u16,
    theme: &Theme,
    resolve: &dyn Fn(&str) -> bool,
) -> RenderedDoc {
    let mut r = Renderer::new(width, theme, resolve);
    r.markdown(source, 1);
    r.finish()
}

/// What an embed shows in place: an image, another file, or a note.
fn embed_kind(target: &str) -> &'static str {
    const IMAGES: &[&str] = &[
        "png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "avif", "tif", "tiff",
    ];
    let name = target.rsplit('/').next().unwrap_or(target);
    let ext = name.rsplit_once('.').map_or("", |(_, ext)| ext);
    if IMAGES.iter().any(|i| i.eq_ignore_ascii_case(ext)) {
        "image"
    } else if membank_core::health::is_attachment(target) {
        "file"
    } else {
        "note"
    }
}

/// Is `s` the size Obsidian reads after an image embed's `|`: a width
/// (`300`) or a width and height (`300x200`)?
fn is_image_size(s: &str) -> bool {
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let s = s.trim();
    match s.split_once('x') {
        Some((w, h)) => digits(w) && digits(h),
        None => digits(s),
    }
}

/// What an image shows in place: its caption without the size Obsidian
/// reads after the last `|` (`![[map.png|300]]`, `![[map.png|300x200]]`,
/// `![a map|300](map.png)`), or, when that leaves none, the file it embeds.
fn image_caption(alt: &str, target: &str) -> String {
    let caption = match alt.rsplit_once('|') {
        Some((caption, size)) if is_image_size(size) => caption,
        None if is_image_size(alt) => "",
        _ => alt,
    };
    match caption.trim() {
        "" => target.to_owned(),
        caption => caption.to_owned(),
    }
}

/// `body` without its `%% comments %%`, which Obsidian's reading view
/// hides; the line breaks inside a comment are kept, so every line after
/// it is still the line of the file it was. An inline comment between
/// two spaces takes one of them with it.
fn without_comments(body: &str, comments: &[std::ops::Range<usize>]) -> String {
    let mut out = String::with_capacity(body.len());
    let mut from = 0;
    for c in comments {
        out.push_str(&body[from..c.start]);
        out.extend(body[c.clone()].matches('\n'));
        from = c.end;
        if out.ends_with(' ') && body[from..].starts_with(' ') {
            from += 1;
        }
    }
    out.push_str(&body[from..]);
    out
}

/// Where the `==highlight==` marks of a body's text are: for each, the
/// index of the text event holding it and its byte there, paired in each
/// paragraph, heading, cell or list item as Obsidian pairs them (an
/// opening mark not followed by a space, a closing one not after one); a
/// mark left without a partner, `===` and marks in code are plain text.
fn highlight_marks(events: &[(Event<'_>, std::ops::Range<usize>)]) -> Vec<(usize, usize)> {
    let mut marks = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    let mut in_code = false;
    for (i, (event, _)) in events.iter().enumerate() {
        let text = match event {
            Event::Text(t) if !in_code => t,
            Event::Start(Tag::CodeBlock(_)) => {
                in_code = true;
                continue;
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code = false;
                continue;
            }
            Event::Start(_) | Event::End(_) => {
                // Inline tags (emphasis, a link) sit inside a highlight;
                // a block's start or end closes none left open.
                if !matches!(
                    event,
                    Event::Start(
                        Tag::Emphasis
                            | Tag::Strong
                            | Tag::Strikethrough
                            | Tag::Link { .. }
                            | Tag::Image { .. }
                    ) | Event::End(
                        TagEnd::Emphasis
                            | TagEnd::Strong
                            | TagEnd::Strikethrough
                            | TagEnd::Link
                            | TagEnd::Image
                    )
                ) {
                    open = None;
                }
                continue;
            }
            _ => continue,
        };
        let bytes = text.as_bytes();
        let mut at = 0;
        while let Some(j) = text[at..].find("==").map(|j| at + j) {
            let end = j + bytes[j..].iter().take_while(|&&b| b == b'=').count();
            at = end;
            if end - j != 2 {
                continue;
            }
            let before = text[..j].chars().next_back();
            let after = text[end..].chars().next();
            match open {
                Some(start) if !before.is_some_and(char::is_whitespace) => {
                    marks.push(start);
                    marks.push((i, j));
                    open = None;
                }
                _ if !after.is_some_and(char::is_whitespace) => open = Some((i, j)),
                _ => {}
            }
        }
    }
    marks.sort_unstable();
    marks
}

/// A piece of styled text before wrapping; `link` ties it to a `LinkSpot`.
#[derive(Debug, Clone)]
struct Frag {
    text: String,
    style: Style,
    link: Option<usize>,
    /// The source line the text came from; 0 for what the renderer adds
    /// (markers, borders), which places no row.
    line: usize,
}

struct ListState {
    next_number: Option<u64>,
}

struct TableState {
    alignments: Vec<Alignment>,
    rows: Vec<Vec<Vec<Frag>>>,
    header_rows: usize,
    in_head: bool,
}

struct Renderer<'a> {
    width: usize,
    theme: &'a Theme,
    resolve: &'a dyn Fn(&str) -> bool,
    doc: RenderedDoc,
    /// The paragraph being collected.
    current: Vec<Frag>,
    /// Prefix for the first wrapped line of `current` (list markers).
    first_prefix: Option<Vec<Frag>>,
    /// Prefixes of enclosing blocks (quote bars, list indentation).
    prefixes: Vec<Frag>,
    styles: Vec<Style>,
    lists: Vec<ListState>,
    table: Option<TableState>,
    in_code_block: bool,
    /// Index of the link whose text is being collected.
    open_link: Option<usize>,
    /// Whether that link is an embed (`![[…]]`), which ends with the image
    /// tag rather than a link tag.
    open_embed: bool,
    /// Whether the last thing emitted was a blank line (to avoid doubling).
    last_blank: bool,
    /// Source line of the Markdown event being rendered.
    src_line: usize,
    /// The paragraph being collected is a block of `key: value` lines
    /// (an everos entry's metadata): each keeps its own line.
    field_lines: bool,
    /// The Obsidian callout (kind, title) of the block quote about to start.
    pending_callout: Option<(String, String)>,
    /// For each open block quote: is it a callout (drawn as a box)?
    quotes: Vec<bool>,
    /// The events of a callout's `[!kind] Title` line, already drawn as
    /// the box's top, are skipped.
    skipping_callout_line: bool,
    /// Inside an `==highlight==`.
    highlight: bool,
    /// An image's caption being collected, and the file it embeds: shown
    /// at its end, without the size a `|300` gives.
    image: Option<(String, String)>,
}

impl<'a> Renderer<'a> {
    fn new(width: u16, theme: &'a Theme, resolve: &'a dyn Fn(&str) -> bool) -> Self {
        Renderer {
            width: usize::from(width.max(10)),
            theme,
            resolve,
            doc: RenderedDoc::default(),
            current: Vec::new(),
            first_prefix: None,
            prefixes: Vec::new(),
            styles: vec![theme.text],
            lists: Vec::new(),
            table: None,
            in_code_block: false,
            open_link: None,
            open_embed: false,
            last_blank: true,
            src_line: 1,
            field_lines: false,
            pending_callout: None,
            quotes: Vec::new(),
            skipping_callout_line: false,
            highlight: false,
            image: None,
        }
    }

    fn finish(mut self) -> RenderedDoc {
        self.flush();
        while self
            .doc
            .lines
            .last()
            .is_some_and(|l| l.spans.iter().all(|s| s.content.trim().is_empty()))
        {
            self.doc.lines.pop();
        }
        self.doc.source_lines.truncate(self.doc.lines.len());
        self.doc.source_ends.truncate(self.doc.lines.len());
        self.doc
    }

    fn style(&self) -> Style {
        *self.styles.last().unwrap_or(&self.theme.text)
    }

    fn push_style(&mut self, extra: Style) {
        let s = self.style().patch(extra);
        self.styles.push(s);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn notice(&mut self, text: &str) {
        self.current.push(Frag {
            text: text.to_owned(),
            style: self.theme.warning,
            link: None,
            line: 0,
        });
        self.flush();
    }

    fn blank(&mut self) {
        if !self.last_blank {
            let prefix = self.prefix_spans(false);
            self.doc.lines.push(Line::from(trim_prefix(prefix)));
            self.doc.source_lines.push(self.src_line);
            self.doc.source_ends.push(0);
            self.last_blank = true;
        }
    }

    /// Add text from the file at the current style.
    fn text(&mut self, raw: &str) {
        if let Some((caption, _)) = &mut self.image {
            caption.push_str(raw);
            return;
        }
        let text = sanitize_for_terminal(raw, false);
        let mut style = self.style();
        if self.highlight {
            style = style.patch(self.theme.highlight);
        }
        let link = self.open_link;
        let line = self.src_line;
        if let Some(table) = &mut self.table {
            if let Some(cell) = table.rows.last_mut().and_then(|r| r.last_mut()) {
                cell.push(Frag {
                    text,
                    style,
                    link,
                    line,
                });
            }
            return;
        }
        self.current.push(Frag {
            text,
            style,
            link,
            line,
        });
    }

    /// Render a body whose first line is line `first_line` of the file.
    fn markdown(&mut self, body: &str, first_line: usize) {
        // Footnotes as Obsidian shows them (and as the bank reads them):
        // `[^1]: text` is the footnote, not a hidden link definition.
        let options = Options::ENABLE_TABLES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_TASKLISTS
            | Options::ENABLE_WIKILINKS
            | Options::ENABLE_FOOTNOTES;
        // Comments are hidden, as the links in them are not links (the
        // same `%%` pairs the health checks skip).
        let comments = wikilink::comments(body);
        let shown;
        let body = if comments.is_empty() {
            body
        } else {
            shown = without_comments(body, &comments);
            shown.as_str()
        };
        let newlines: Vec<usize> = body.match_indices('\n').map(|(i, _)| i).collect();
        // A link in maths is part of the formula, as the bank reads it: it
        // is shown as written, and is not a link to select or follow.
        let math = wikilink::math_spans(body);
        let in_math = |at: usize| {
            let i = math.partition_point(|r| r.end <= at);
            math.get(i).is_some_and(|r| r.start <= at)
        };
        let mut as_written: Option<Range<usize>> = None;
        let events: Vec<_> = Parser::new_ext(body, options).into_offset_iter().collect();
        // Markdown has no highlight: its marks are found in the text.
        let marks = highlight_marks(&events);
        let mut next_mark = 0;
        for (i, (event, range)) in events.into_iter().enumerate() {
            if let Some(link) = &as_written {
                if link.contains(&range.start) {
                    continue;
                }
                as_written = None;
            }
            // Lines flushed at an event's start belong to what came before.
            if !matches!(event, Event::End(_)) {
                self.src_line = first_line + newlines.partition_point(|&n| n < range.start);
            }
            if matches!(event, Event::Start(Tag::Link { .. } | Tag::Image { .. }))
                && !self.skipping_callout_line
                && in_math(range.start)
            {
                self.text(&body[range.clone()].replace('\n', " "));
                as_written = Some(range);
                continue;
            }
            match event {
                Event::Start(Tag::Paragraph) => {
                    self.field_lines = body.get(range.clone()).is_some_and(is_field_block);
                }
                Event::End(TagEnd::Paragraph) => self.field_lines = false,
                Event::Start(Tag::BlockQuote(_)) => {
                    self.pending_callout = body.get(range.clone()).and_then(callout);
                }
                _ => {}
            }
            if let Event::Text(text) = &event
                && marks.get(next_mark).is_some_and(|&(at, _)| at == i)
            {
                let mut from = 0;
                while let Some(&(_, j)) = marks.get(next_mark).filter(|&&(at, _)| at == i) {
                    if j > from {
                        self.event(Event::Text(text[from..j].into()));
                    }
                    self.highlight = !self.highlight;
                    from = j + 2;
                    next_mark += 1;
                }
                if from < text.len() {
                    self.event(Event::Text(text[from..].into()));
                }
                continue;
            }
            self.event(event);
        }
    }

    fn event(&mut self, event: Event<'_>) {
        let theme = self.theme;
        if self.skipping_callout_line {
            match event {
                Event::SoftBreak | Event::HardBreak => {
                    self.skipping_callout_line = false;
                    return;
                }
                Event::End(TagEnd::Paragraph) | Event::End(TagEnd::BlockQuote(_)) => {
                    self.skipping_callout_line = false;
                }
                Event::Start(Tag::Paragraph) => {}
                // Inline tags open and close on the title line: skipped in pairs.
                _ => return,
            }
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                if self.in_code_block {
                    self.code_text(&t);
                } else {
                    self.text(&t);
                }
            }
            Event::Code(t) => {
                self.push_style(theme.code);
                self.text(&t);
                self.pop_style();
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t),
            Event::Html(t) | Event::InlineHtml(t) => {
                self.push_style(theme.muted);
                for (i, part) in t.split('\n').enumerate() {
                    if i > 0 && self.table.is_none() {
                        self.flush();
                    }
                    if !part.is_empty() {
                        self.text(part);
                    }
                }
                self.pop_style();
            }
            Event::FootnoteReference(t) => self.text(&format!("[^{t}]")),
            Event::SoftBreak if self.field_lines && self.table.is_none() => self.flush(),
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => {
                if self.table.is_none() {
                    self.flush();
                }
            }
            Event::Rule => {
                self.flush();
                let prefix_width = frag_width(&self.prefixes);
                let rule = Frag {
                    text: "─".repeat(self.width.saturating_sub(prefix_width)),
                    style: theme.rule,
                    link: None,
                    line: 0,
                };
                self.raw_line(vec![rule]);
                self.blank();
            }
            Event::TaskListMarker(done) => {
                self.text(if done { "[x] " } else { "[ ] " });
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        let theme = self.theme;
        match tag {
            Tag::Paragraph => {}
            Tag::Heading { level, .. } => {
                self.flush();
                let (style, marks) = match level {
                    HeadingLevel::H1 => (theme.heading1, "# "),
                    HeadingLevel::H2 => (theme.heading2, "## "),
                    HeadingLevel::H3 => (theme.heading3, "### "),
                    HeadingLevel::H4 => (theme.heading3, "#### "),
                    HeadingLevel::H5 => (theme.heading3, "##### "),
                    HeadingLevel::H6 => (theme.heading3, "###### "),
                };
                self.current.push(Frag {
                    text: marks.into(),
                    style: theme.muted,
                    link: None,
                    line: 0,
                });
                self.push_style(style);
            }
            Tag::BlockQuote(_) => {
                self.flush();
                if let Some((kind, title)) = self.pending_callout.take() {
                    self.callout_top(&kind, &title);
                    self.quotes.push(true);
                    self.skipping_callout_line = true;
                    self.prefixes.push(Frag {
                        text: "│ ".into(),
                        style: callout_style(&kind, theme),
                        link: None,
                        line: 0,
                    });
                    self.push_style(theme.text);
                    return;
                }
                self.quotes.push(false);
                self.prefixes.push(Frag {
                    text: "│ ".into(),
                    style: theme.quote,
                    link: None,
                    line: 0,
                });
                self.push_style(theme.quote);
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                if let CodeBlockKind::Fenced(info) = &kind
                    && !info.is_empty()
                {
                    let label = Frag {
                        text: format!("  {}", sanitize_for_terminal(info, false)),
                        style: theme.muted,
                        link: None,
                        line: 0,
                    };
                    self.raw_line(vec![label]);
                }
                self.in_code_block = true;
            }
            Tag::List(start) => {
                self.flush();
                self.lists.push(ListState { next_number: start });
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(ListState {
                        next_number: Some(n),
                    }) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_owned(),
                };
                let indent = " ".repeat(marker.width());
                self.prefixes.push(Frag {
                    text: indent,
                    style: theme.text,
                    link: None,
                    line: 0,
                });
                self.first_prefix = Some(vec![Frag {
                    text: marker,
                    style: theme.list_marker,
                    link: None,
                    line: 0,
                }]);
            }
            Tag::Table(alignments) => {
                self.flush();
                self.table = Some(TableState {
                    alignments,
                    rows: Vec::new(),
                    header_rows: 0,
                    in_head: false,
                });
            }
            Tag::TableHead => {
                if let Some(t) = &mut self.table {
                    t.in_head = true;
                    t.rows.push(Vec::new());
                }
                self.push_style(theme.strong);
            }
            Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                if let Some(t) = &mut self.table
                    && let Some(row) = t.rows.last_mut()
                {
                    row.push(Vec::new());
                }
            }
            Tag::Emphasis => self.push_style(theme.emphasis),
            Tag::Strong => self.push_style(theme.strong),
            Tag::Strikethrough => self.push_style(theme.strikethrough),
            Tag::Link {
                link_type: LinkType::WikiLink { .. },
                dest_url,
                ..
            } => {
                // In a table the alias's pipe is escaped (`[[Legal\|law]]`,
                // as Obsidian writes it): the escape is not part of the
                // name, which never holds a backslash.
                let id = self.new_link(wikilink::normalize_value(dest_url.trim_end_matches('\\')));
                self.open_link = Some(id);
                let style = self.link_style(id);
                self.styles.push(style);
                self.text("[[");
            }
            Tag::Link { .. } => self.push_style(theme.link),
            // `![[…]]`: a note or a file shown in place in Obsidian. Here it
            // says which, and is a link like any other: live or dead by the
            // same rule, selected with n, followed with Enter.
            Tag::Image {
                link_type: LinkType::WikiLink { .. },
                dest_url,
                ..
            } => {
                let target = wikilink::normalize_value(dest_url.trim_end_matches('\\'));
                let what = embed_kind(target);
                let id = self.new_link(target);
                self.open_link = Some(id);
                self.open_embed = true;
                let style = self.link_style(id);
                self.styles.push(style);
                self.text(&format!("[{what}: "));
                if what == "image" {
                    self.image = Some((String::new(), target.to_owned()));
                }
            }
            Tag::Image { dest_url, .. } => {
                self.push_style(theme.muted);
                self.text("[image: ");
                let name = dest_url.rsplit('/').next().unwrap_or(&dest_url);
                self.image = Some((String::new(), name.to_owned()));
            }
            Tag::FootnoteDefinition(label) => {
                self.flush();
                self.text(&format!("[^{label}]: "));
            }
            Tag::HtmlBlock
            | Tag::MetadataBlock(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Superscript
            | Tag::Subscript => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph if self.table.is_none() => {
                self.flush();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Heading(_) => {
                self.pop_style();
                self.flush();
                self.blank();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                // A blank line inside the box is drawn as the box's side.
                let border = self.prefixes.pop();
                self.pop_style();
                if self.quotes.pop() == Some(true) {
                    while self
                        .doc
                        .lines
                        .last()
                        .is_some_and(|l| l.to_string().trim() == "│")
                    {
                        self.doc.lines.pop();
                        self.doc.source_lines.pop();
                    }
                    let style = border.map_or(self.theme.quote, |b| b.style);
                    let room = self.width.saturating_sub(frag_width(&self.prefixes) + 1);
                    self.raw_line(vec![Frag {
                        text: format!("└{}", "─".repeat(room)),
                        style,
                        link: None,
                        line: 0,
                    }]);
                }
                self.blank();
            }
            TagEnd::CodeBlock => {
                self.in_code_block = false;
                self.blank();
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Item => {
                self.flush();
                self.prefixes.pop();
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.emit_table(t);
                }
                self.blank();
            }
            TagEnd::TableHead => {
                if let Some(t) = &mut self.table {
                    t.in_head = false;
                    t.header_rows = t.rows.len();
                }
                self.pop_style();
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Image => {
                if matches!(tag, TagEnd::Image) {
                    if let Some((caption, target)) = self.image.take() {
                        self.text(&image_caption(&caption, &target));
                    }
                    self.text("]");
                    if self.open_embed {
                        self.open_link = None;
                        self.open_embed = false;
                    }
                }
                self.pop_style();
            }
            TagEnd::Link => {
                if self.open_link.is_some() {
                    // Still part of the link, so selecting it lights `]]` too.
                    self.text("]]");
                    self.open_link = None;
                }
                self.pop_style();
            }
            TagEnd::FootnoteDefinition => self.flush(),
            _ => {}
        }
    }

    /// The top of a callout's box: its kind and title on the border.
    fn callout_top(&mut self, kind: &str, title: &str) {
        let style = callout_style(kind, self.theme);
        let mut label = kind.to_owned();
        if let Some(first) = label.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        let room = self.width.saturating_sub(frag_width(&self.prefixes));
        let mut frags = vec![
            Frag {
                text: "┌ ".into(),
                style,
                link: None,
                line: 0,
            },
            Frag {
                text: sanitize_for_terminal(&label, false),
                style: style.patch(self.theme.strong),
                link: None,
                line: 0,
            },
        ];
        if !title.is_empty() {
            frags.push(Frag {
                text: format!(" · {}", sanitize_for_terminal(title, false)),
                style: self.theme.strong,
                link: None,
                line: 0,
            });
        }
        let mut frags = fit(frags, room.saturating_sub(2));
        let used = frag_width(&frags);
        frags.push(Frag {
            text: format!(" {}", "─".repeat(room.saturating_sub(used + 1))),
            style,
            link: None,
            line: 0,
        });
        self.raw_line(frags);
    }

    fn code_text(&mut self, text: &str) {
        let theme = self.theme;
        let first_line = self.src_line;
        for (i, line) in text
            .strip_suffix('\n')
            .unwrap_or(text)
            .split('\n')
            .enumerate()
        {
            let frag = Frag {
                text: format!("  {}", sanitize_for_terminal(line, false)),
                style: theme.code_block,
                link: None,
                // A code block arrives whole; each row is its own line.
                line: first_line + i,
            };
            // Code keeps its line structure; long lines are cut by the pane.
            self.raw_line(vec![frag]);
        }
    }

    fn emit_table(&mut self, table: TableState) {
        let theme = self.theme;
        let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        if columns == 0 {
            return;
        }
        let mut widths = vec![1usize; columns];
        for row in &table.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(frag_width(cell));
            }
        }
        let available = self
            .width
            .saturating_sub(frag_width(&self.prefixes))
            .saturating_sub(3 * columns + 1);
        // Cut to fit, its cells could not be read in full: each row is
        // shown as its own list of `header: value` lines instead.
        if widths.iter().sum::<usize>() > available {
            self.emit_table_as_records(table);
            return;
        }
        while widths.iter().sum::<usize>() > available {
            let (widest, &w) = widths
                .iter()
                .enumerate()
                .max_by_key(|&(_, w)| *w)
                .expect("at least one column");
            if w <= 3 {
                break;
            }
            widths[widest] = w - 1;
        }
        let border = |left: &str, mid: &str, right: &str| {
            let mut s = left.to_owned();
            for (i, w) in widths.iter().enumerate() {
                s.push_str(&"─".repeat(w + 2));
                s.push_str(if i + 1 == columns { right } else { mid });
            }
            Frag {
                text: s,
                style: theme.table_border,
                link: None,
                line: 0,
            }
        };
        self.raw_line(vec![border("┌", "┬", "┐")]);
        for (r, row) in table.rows.iter().enumerate() {
            let mut frags = Vec::new();
            for (i, width) in widths.iter().enumerate() {
                frags.push(Frag {
                    text: "│ ".into(),
                    style: theme.table_border,
                    link: None,
                    line: 0,
                });
                let cell = row.get(i).cloned().unwrap_or_default();
                let content = fit(cell, *width);
                let pad = width.saturating_sub(frag_width(&content));
                let (left, right) = match table.alignments.get(i) {
                    Some(Alignment::Right) => (pad, 0),
                    Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                    _ => (0, pad),
                };
                frags.push(spaces(left, theme.text));
                frags.extend(content);
                frags.push(spaces(right + 1, theme.text));
            }
            frags.push(Frag {
                text: "│".into(),
                style: theme.table_border,
                link: None,
                line: 0,
            });
            self.raw_line(frags);
            if r + 1 == table.header_rows && table.rows.len() > r + 1 {
                self.raw_line(vec![border("├", "┼", "┤")]);
            }
        }
        self.raw_line(vec![border("└", "┴", "┘")]);
    }

    /// A table too wide for the pane: every body row as a block of
    /// `header: value` lines, wrapped, so no cell is cut.
    fn emit_table_as_records(&mut self, table: TableState) {
        let theme = self.theme;
        let header: Vec<Vec<Frag>> = match table.header_rows {
            0 => Vec::new(),
            n => table.rows[n - 1].clone(),
        };
        let body = &table.rows[table.header_rows..];
        let rest: Vec<Frag> = self
            .prefixes
            .iter()
            .cloned()
            .chain([spaces(4, theme.text)])
            .collect();
        for (r, row) in body.iter().enumerate() {
            if r > 0 {
                self.raw_line(Vec::new());
            }
            for (i, cell) in row.iter().enumerate() {
                let mut name: Vec<Frag> = match header.get(i) {
                    Some(h) if frag_width(h) > 0 => h.clone(),
                    _ => vec![Frag {
                        text: format!("column {}", i + 1),
                        style: theme.muted,
                        link: None,
                        line: 0,
                    }],
                };
                for f in &mut name {
                    f.style = f.style.patch(theme.strong);
                    // The header's own link and line are the header row's,
                    // not every row's.
                    f.link = None;
                    f.line = 0;
                }
                let mut frags = name;
                frags.push(Frag {
                    text: ": ".into(),
                    style: theme.muted,
                    link: None,
                    line: 0,
                });
                frags.extend(cell.iter().cloned());
                let lead = if i == 0 { "▪ " } else { "  " };
                let first: Vec<Frag> = self
                    .prefixes
                    .iter()
                    .cloned()
                    .chain([Frag {
                        text: lead.into(),
                        style: theme.table_border,
                        link: None,
                        line: 0,
                    }])
                    .collect();
                self.emit_wrapped(frags, first, rest.clone());
            }
        }
        self.last_blank = false;
    }
}

mod doc;
mod lines;
mod properties;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod wrapping_tests;

/// The kind and title of an Obsidian callout, from a block quote's source
/// whose first line is `> [!kind] Title` (`+`/`-` after the kind fold it
/// in Obsidian; here it is always open).
fn callout(quote: &str) -> Option<(String, String)> {
    let first = quote.lines().next()?.trim_start();
    let rest = first.strip_prefix('>')?.trim_start().strip_prefix("[!")?;
    let (kind, title) = rest.split_once(']')?;
    if kind.is_empty()
        || kind.len() > 24
        || !kind
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return None;
    }
    // The title is shown plain: emphasis marks would show as written.
    let title = title
        .trim_start_matches(['+', '-'])
        .trim()
        .replace(['*', '`'], "");
    Some((kind.to_lowercase(), title))
}

/// Warnings look like warnings; every other kind like a note.
fn callout_style(kind: &str, theme: &Theme) -> Style {
    match kind {
        "warning" | "caution" | "attention" | "danger" | "error" | "bug" | "failure" | "fail"
        | "missing" => theme.warning,
        _ => theme.info,
    }
}

/// Two or more lines, each a `key: value` field (`**key**: value` too):
/// metadata that reads as a list, not as one run-on sentence.
fn is_field_block(paragraph: &str) -> bool {
    let lines: Vec<&str> = paragraph.trim_end().lines().collect();
    lines.len() >= 2 && lines.iter().all(|l| is_field_line(l))
}

fn is_field_line(line: &str) -> bool {
    let line = line.trim();
    let Some((key, value)) = line.split_once(':') else {
        return false;
    };
    // `**key:** value` closes its emphasis after the colon.
    let value = value.trim_start_matches(['*', '_']);
    // A URL's scheme or a time of day is no key.
    if !(value.is_empty() || value.starts_with(' ')) {
        return false;
    }
    let key = key.trim_matches(|c| c == '*' || c == '_');
    !key.is_empty()
        && key.chars().count() <= 40
        && key.chars().next().is_some_and(char::is_alphanumeric)
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '))
}
