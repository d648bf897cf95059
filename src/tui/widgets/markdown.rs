//! Markdown → ratatui `Text`, wrapped to a width, with wikilinks located.
//!
//! Rendering happens when an article is opened or the pane is resized,
//! never while drawing. All text taken from the file passes through
//! `sanitize_for_terminal`, so escape sequences show as visible symbols.

use membank_core::frontmatter::{self, Block};
use membank_core::text::sanitize_for_terminal;
use membank_core::wikilink;
use pulldown_cmark::{
    Alignment, CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd,
};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
use yaml_serde::Value;

use crate::tui::theme::Theme;

/// One `[[wikilink]]` in the rendered text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkSpot {
    /// The link target (the part before any `|`), as written.
    pub target: String,
    pub live: bool,
    /// Rendered line the link starts on.
    pub line: usize,
    /// Every (line, span) the link's text occupies, to restyle it when the
    /// link is selected.
    pub spans: Vec<(usize, usize)>,
}

/// An article rendered for a given width.
#[derive(Debug, Clone, Default)]
pub struct RenderedDoc {
    pub lines: Vec<Line<'static>>,
    pub links: Vec<LinkSpot>,
    /// For each rendered line, the source line it came from (1-based, in
    /// the text given to the renderer plus `line_shift`); lines added
    /// after rendering have none.
    pub source_lines: Vec<usize>,
}

impl RenderedDoc {
    /// The first rendered line that shows source line `line` or a later one.
    pub fn line_for_source(&self, line: usize) -> Option<usize> {
        self.source_lines.iter().position(|&l| l >= line)
    }

    /// Give link `index` the selected style (or its normal style back).
    pub fn set_link_selected(&mut self, index: usize, selected: bool, theme: &Theme) {
        let Some(link) = self.links.get(index) else {
            return;
        };
        let style = if selected {
            theme.link_selected
        } else if link.live {
            theme.link
        } else {
            theme.dead_link
        };
        for &(l, s) in &link.spans {
            if let Some(span) = self.lines.get_mut(l).and_then(|line| line.spans.get_mut(s)) {
                span.style = style;
            }
        }
    }
}

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

/// A piece of styled text before wrapping; `link` ties it to a `LinkSpot`.
#[derive(Debug, Clone)]
struct Frag {
    text: String,
    style: Style,
    link: Option<usize>,
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
    /// Whether the last thing emitted was a blank line (to avoid doubling).
    last_blank: bool,
    /// Source line of the Markdown event being rendered.
    src_line: usize,
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
            last_blank: true,
            src_line: 1,
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
        });
        self.flush();
    }

    fn blank(&mut self) {
        if !self.last_blank {
            let prefix = self.prefix_spans(false);
            self.doc.lines.push(Line::from(trim_prefix(prefix)));
            self.doc.source_lines.push(self.src_line);
            self.last_blank = true;
        }
    }

    /// Add text from the file at the current style.
    fn text(&mut self, raw: &str) {
        let text = sanitize_for_terminal(raw, false);
        let style = self.style();
        let link = self.open_link;
        if let Some(table) = &mut self.table {
            if let Some(cell) = table.rows.last_mut().and_then(|r| r.last_mut()) {
                cell.push(Frag { text, style, link });
            }
            return;
        }
        self.current.push(Frag { text, style, link });
    }

    fn prefix_spans(&self, first: bool) -> Vec<Frag> {
        let mut out: Vec<Frag> = self.prefixes.clone();
        if first && let Some(p) = &self.first_prefix {
            // The marker replaces the last indentation level.
            out.pop();
            out.extend(p.iter().cloned());
        }
        out
    }

    /// Wrap and emit the collected paragraph.
    fn flush(&mut self) {
        if self.current.is_empty() && self.first_prefix.is_none() {
            return;
        }
        let frags = std::mem::take(&mut self.current);
        let first = self.prefix_spans(true);
        let rest = self.prefix_spans(false);
        self.first_prefix = None;
        self.emit_wrapped(frags, first, rest);
        self.last_blank = false;
    }

    fn emit_wrapped(&mut self, frags: Vec<Frag>, first: Vec<Frag>, rest: Vec<Frag>) {
        let mut prefix = first;
        let mut line: Vec<Frag> = Vec::new();
        let mut used = 0usize;
        let mut budget = self.width.saturating_sub(frag_width(&prefix)).max(4);
        let rest_budget = self.width.saturating_sub(frag_width(&rest)).max(4);
        for frag in frags {
            for word in split_keep_spaces(&frag.text) {
                let w = word.width();
                let is_space = word.chars().all(|c| c == ' ');
                if used + w > budget && used > 0 {
                    if is_space {
                        continue;
                    }
                    self.push_line(std::mem::replace(&mut prefix, rest.clone()), &mut line);
                    used = 0;
                    budget = rest_budget;
                }
                if used == 0 && is_space && !line.is_empty() {
                    continue;
                }
                if w > budget {
                    // A word longer than the line: break it by characters.
                    let mut chunk = String::new();
                    for c in word.chars() {
                        let cw = c.width().unwrap_or(0);
                        if used + cw > budget {
                            line.push(Frag {
                                text: std::mem::take(&mut chunk),
                                ..frag.clone()
                            });
                            self.push_line(std::mem::replace(&mut prefix, rest.clone()), &mut line);
                            used = 0;
                            budget = rest_budget;
                        }
                        chunk.push(c);
                        used += cw;
                    }
                    if !chunk.is_empty() {
                        line.push(Frag {
                            text: chunk,
                            ..frag.clone()
                        });
                    }
                    continue;
                }
                line.push(Frag {
                    text: word.to_owned(),
                    ..frag.clone()
                });
                used += w;
            }
        }
        self.push_line(prefix, &mut line);
    }

    /// Emit one rendered line, merging neighbouring fragments of the same
    /// style and recording where links landed.
    fn push_line(&mut self, prefix: Vec<Frag>, body: &mut Vec<Frag>) {
        let line_no = self.doc.lines.len();
        let mut spans: Vec<Span<'static>> = Vec::new();
        let mut span_links: Vec<Option<usize>> = Vec::new();
        for frag in prefix.into_iter().chain(body.drain(..)) {
            if frag.text.is_empty() {
                continue;
            }
            if let (Some(last), Some(last_link)) = (spans.last_mut(), span_links.last())
                && last.style == frag.style
                && *last_link == frag.link
            {
                last.content.to_mut().push_str(&frag.text);
                continue;
            }
            spans.push(Span::styled(frag.text, frag.style));
            span_links.push(frag.link);
        }
        // Trailing spaces only cost bytes on the terminal.
        if let Some(last) = spans.last_mut() {
            let trimmed = last.content.trim_end().len();
            last.content.to_mut().truncate(trimmed);
        }
        for (i, link) in span_links.iter().enumerate() {
            if let Some(id) = link {
                let spot = &mut self.doc.links[*id];
                if spot.spans.is_empty() {
                    spot.line = line_no;
                }
                spot.spans.push((line_no, i));
            }
        }
        self.doc.lines.push(Line::from(spans));
        self.doc.source_lines.push(self.src_line);
    }

    fn raw_line(&mut self, frags: Vec<Frag>) {
        let mut body = frags;
        let prefix = self.prefix_spans(false);
        self.push_line(prefix, &mut body);
        self.last_blank = false;
    }

    fn properties(&mut self, yaml: &str, first_line: usize) {
        let theme = self.theme;
        let header = Frag {
            text: "┌ properties".into(),
            style: theme.muted,
            link: None,
        };
        self.raw_line(vec![header]);
        match frontmatter::parse_yaml(yaml, first_line) {
            Ok(map) => {
                let key_width = map
                    .keys()
                    .filter_map(frontmatter::scalar_text)
                    .map(|k| sanitize_for_terminal(&k, false).width())
                    .max()
                    .unwrap_or(0)
                    .min(20);
                for (k, v) in &map {
                    let key = frontmatter::scalar_text(k).unwrap_or_else(|| "?".into());
                    let key = sanitize_for_terminal(&key, false);
                    let pad = key_width.saturating_sub(key.width());
                    let mut frags = Vec::new();
                    self.value_frags(v, &mut frags);
                    let bar = Frag {
                        text: "│ ".into(),
                        style: theme.muted,
                        link: None,
                    };
                    let key_frag = Frag {
                        text: format!("{key}{}  ", " ".repeat(pad)),
                        style: theme.property_key,
                        link: None,
                    };
                    let indent = Frag {
                        text: " ".repeat(key_width + 2),
                        style: theme.text,
                        link: None,
                    };
                    self.emit_wrapped(frags, vec![bar.clone(), key_frag], vec![bar, indent]);
                }
            }
            Err(e) => {
                let at = e.line.map(|l| format!(" (line {l})")).unwrap_or_default();
                self.raw_line(vec![Frag {
                    text: format!(
                        "│ invalid YAML{at}: {}",
                        sanitize_for_terminal(&e.message, false)
                    ),
                    style: theme.error,
                    link: None,
                }]);
                for (i, l) in yaml.lines().enumerate() {
                    self.src_line = first_line + i;
                    self.raw_line(vec![Frag {
                        text: format!("│ {}", sanitize_for_terminal(l, false)),
                        style: theme.muted,
                        link: None,
                    }]);
                }
            }
        }
        self.raw_line(vec![Frag {
            text: "└".into(),
            style: theme.muted,
            link: None,
        }]);
        self.blank();
    }

    /// A frontmatter value as text, with `[[links]]` styled.
    fn value_frags(&mut self, v: &Value, out: &mut Vec<Frag>) {
        match v {
            Value::Sequence(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(Frag {
                            text: ", ".into(),
                            style: self.theme.muted,
                            link: None,
                        });
                    }
                    self.value_frags(item, out);
                }
            }
            Value::Mapping(m) => {
                for (i, (k, item)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(Frag {
                            text: "; ".into(),
                            style: self.theme.muted,
                            link: None,
                        });
                    }
                    let key = frontmatter::scalar_text(k).unwrap_or_default();
                    out.push(Frag {
                        text: format!("{}: ", sanitize_for_terminal(&key, false)),
                        style: self.theme.property_key,
                        link: None,
                    });
                    self.value_frags(item, out);
                }
            }
            Value::Null => out.push(Frag {
                text: "(empty)".into(),
                style: self.theme.muted,
                link: None,
            }),
            Value::Tagged(t) => self.value_frags(&t.value, out),
            scalar => {
                let text = frontmatter::scalar_text(scalar).unwrap_or_default();
                self.inline_with_links(&text, self.theme.property_value, out);
            }
        }
    }

    /// Plain text that may contain `[[target|alias]]`: links become
    /// separate, resolvable fragments. Extraction is the core's.
    fn inline_with_links(&mut self, text: &str, style: Style, out: &mut Vec<Frag>) {
        let mut pos = 0;
        for link in wikilink::extract_plain(text) {
            if link.span.start > pos {
                out.push(Frag {
                    text: sanitize_for_terminal(&text[pos..link.span.start], false),
                    style,
                    link: None,
                });
            }
            let id = self.new_link(&link.target);
            out.push(Frag {
                text: sanitize_for_terminal(&text[link.span.clone()], false),
                style: self.link_style(id),
                link: Some(id),
            });
            pos = link.span.end;
        }
        if pos < text.len() {
            out.push(Frag {
                text: sanitize_for_terminal(&text[pos..], false),
                style,
                link: None,
            });
        }
    }

    fn new_link(&mut self, target: &str) -> usize {
        let live = (self.resolve)(target);
        self.doc.links.push(LinkSpot {
            target: target.to_owned(),
            live,
            line: self.doc.lines.len(),
            spans: Vec::new(),
        });
        self.doc.links.len() - 1
    }

    fn link_style(&self, id: usize) -> Style {
        if self.doc.links[id].live {
            self.theme.link
        } else {
            self.theme.dead_link
        }
    }

    /// Render a body whose first line is line `first_line` of the file.
    fn markdown(&mut self, body: &str, first_line: usize) {
        let options = Options::ENABLE_TABLES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_TASKLISTS
            | Options::ENABLE_WIKILINKS;
        let newlines: Vec<usize> = body.match_indices('\n').map(|(i, _)| i).collect();
        for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
            // Lines flushed at an event's start belong to what came before.
            if !matches!(event, Event::End(_)) {
                self.src_line = first_line + newlines.partition_point(|&n| n < range.start);
            }
            self.event(event);
        }
    }

    fn event(&mut self, event: Event<'_>) {
        let theme = self.theme;
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
                });
                self.push_style(style);
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.prefixes.push(Frag {
                    text: "│ ".into(),
                    style: theme.quote,
                    link: None,
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
                });
                self.first_prefix = Some(vec![Frag {
                    text: marker,
                    style: theme.list_marker,
                    link: None,
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
                let id = self.new_link(wikilink::normalize_value(&dest_url));
                self.open_link = Some(id);
                let style = self.link_style(id);
                self.styles.push(style);
                self.text("[[");
            }
            Tag::Link { .. } => self.push_style(theme.link),
            Tag::Image { .. } => {
                self.push_style(theme.muted);
                self.text("[image: ");
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
                self.prefixes.pop();
                self.pop_style();
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
                    self.text("]");
                }
                self.pop_style();
            }
            TagEnd::Link => {
                if let Some(id) = self.open_link.take() {
                    let _ = id;
                    self.text("]]");
                }
                self.pop_style();
            }
            TagEnd::FootnoteDefinition => self.flush(),
            _ => {}
        }
    }

    fn code_text(&mut self, text: &str) {
        let theme = self.theme;
        for line in text.strip_suffix('\n').unwrap_or(text).split('\n') {
            let frag = Frag {
                text: format!("  {}", sanitize_for_terminal(line, false)),
                style: theme.code_block,
                link: None,
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
        // Shrink the widest columns until the table fits.
        let available = self
            .width
            .saturating_sub(frag_width(&self.prefixes))
            .saturating_sub(3 * columns + 1);
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
            });
            self.raw_line(frags);
            if r + 1 == table.header_rows && table.rows.len() > r + 1 {
                self.raw_line(vec![border("├", "┼", "┤")]);
            }
        }
        self.raw_line(vec![border("└", "┴", "┘")]);
    }
}

fn spaces(n: usize, style: Style) -> Frag {
    Frag {
        text: " ".repeat(n),
        style,
        link: None,
    }
}

fn frag_width(frags: &[Frag]) -> usize {
    frags.iter().map(|f| f.text.width()).sum()
}

/// Cut fragments to `width` columns, ending with `…` when cut.
fn fit(frags: Vec<Frag>, width: usize) -> Vec<Frag> {
    if frag_width(&frags) <= width {
        return frags;
    }
    let mut out = Vec::new();
    let mut used = 0;
    for frag in frags {
        let mut text = String::new();
        for c in frag.text.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw + 1 > width {
                break;
            }
            text.push(c);
            used += cw;
        }
        let cut = text.len() < frag.text.len();
        out.push(Frag { text, ..frag });
        if cut {
            break;
        }
    }
    out.push(Frag {
        text: "…".into(),
        style: Style::new(),
        link: None,
    });
    out
}

fn trim_prefix(prefix: Vec<Frag>) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = prefix
        .into_iter()
        .map(|f| Span::styled(f.text, f.style))
        .collect();
    if let Some(last) = spans.last_mut() {
        let t = last.content.trim_end().len();
        last.content.to_mut().truncate(t);
    }
    spans.retain(|s| !s.content.is_empty());
    spans
}

/// Split into words and runs of spaces, keeping both, so wrapping can drop
/// spaces at line breaks and keep them elsewhere.
fn split_keep_spaces(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space: Option<bool> = None;
    for (i, c) in s.char_indices() {
        let space = c == ' ';
        if in_space.is_some_and(|prev| prev != space) {
            out.push(&s[start..i]);
            start = i;
        }
        in_space = Some(space);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(doc: &RenderedDoc) -> Vec<String> {
        doc.lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn rendered_lines_know_their_source_lines() {
        let theme = Theme::default_theme();
        let src = "---\na: 1\n---\n# Title\n\nfirst para\n\n- item\n\nlast line\n";
        let doc = render_article(src, 60, &theme, &exists);
        assert_eq!(doc.source_lines.len(), doc.lines.len());
        let text = plain(&doc);
        let at = |needle: &str| {
            let i = text.iter().position(|l| l.contains(needle)).unwrap();
            doc.source_lines[i]
        };
        assert_eq!(at("a  1"), 2);
        assert_eq!(at("# Title"), 4);
        assert_eq!(at("first para"), 6);
        assert_eq!(at("• item"), 8);
        assert_eq!(at("last line"), 10);
        assert_eq!(
            doc.line_for_source(7),
            Some(text.iter().position(|l| l == "• item").unwrap())
        );
    }

    fn exists(t: &str) -> bool {
        t.eq_ignore_ascii_case("Legal")
    }

    #[test]
    fn frontmatter_becomes_a_property_block_with_links() {
        let src = "---\nclient: \"Acme\"\ndomains: [\"[[Legal]]\", \"[[Nowhere]]\"]\n---\n# Acme\n\nBody.\n";
        let theme = Theme::default_theme();
        let doc = render_article(src, 60, &theme, &exists);
        let text = plain(&doc);
        assert_eq!(text[0], "┌ properties");
        assert!(text[1].starts_with("│ client "), "{text:?}");
        assert!(text[2].contains("[[Legal]], [[Nowhere]]"), "{text:?}");
        assert!(text.iter().any(|l| l == "# Acme"));
        assert_eq!(doc.links.len(), 2);
        assert!(doc.links[0].live);
        assert!(!doc.links[1].live);
        let (l, s) = doc.links[1].spans[0];
        assert_eq!(doc.lines[l].spans[s].style, theme.dead_link);
        let (l, s) = doc.links[0].spans[0];
        assert_eq!(doc.lines[l].spans[s].style, theme.link);
    }

    #[test]
    fn body_wikilinks_resolve_on_the_part_before_the_pipe() {
        let theme = Theme::default_theme();
        let doc = render_markdown("See [[legal|the law]] and [[Gone]].", 80, &theme, &exists);
        assert_eq!(doc.links.len(), 2);
        assert_eq!(doc.links[0].target, "legal");
        assert!(doc.links[0].live);
        assert!(!doc.links[1].live);
        assert_eq!(plain(&doc)[0], "See [[the law]] and [[Gone]].");
    }

    #[test]
    fn escapes_in_files_are_made_visible() {
        let theme = Theme::default_theme();
        let src = "---\nclient: \"x\x1b[2Jy\"\n---\n# Head\x1b]52;c;AAAA\x07\n\ntext \x1b[31mred\n\n```\ncode\x1b[H\n```\n";
        let doc = render_article(src, 80, &theme, &exists);
        for line in &doc.lines {
            for span in &line.spans {
                assert!(
                    !span.content.chars().any(|c| c.is_control()),
                    "{:?}",
                    span.content
                );
            }
        }
        assert!(plain(&doc).iter().any(|l| l.contains("␛[2J")));
    }

    #[test]
    fn long_paragraphs_wrap_within_the_width() {
        let theme = Theme::default_theme();
        let src = "word ".repeat(50);
        let doc = render_markdown(&src, 20, &theme, &exists);
        assert!(doc.lines.len() >= 10);
        assert!(doc.lines.iter().all(|l| l.width() <= 20));
    }

    #[test]
    fn lists_quotes_tables_and_code_render_readably() {
        let theme = Theme::default_theme();
        let src = "- one\n- two\n  1. nested\n\n> quoted text\n\n| a | bb |\n|---|---:|\n| 1 | 2 |\n\n```rust\nlet x = 1;\n```\n";
        let doc = render_markdown(src, 40, &theme, &exists);
        let text = plain(&doc);
        assert!(text.contains(&"• one".to_owned()), "{text:?}");
        assert!(
            text.iter().any(|l| l.trim_start() == "1. nested"),
            "{text:?}"
        );
        assert!(text.contains(&"│ quoted text".to_owned()), "{text:?}");
        assert!(text.contains(&"│ a │ bb │".to_owned()), "{text:?}");
        assert!(text.contains(&"│ 1 │  2 │".to_owned()), "{text:?}");
        assert!(text.contains(&"  let x = 1;".to_owned()), "{text:?}");
    }

    #[test]
    fn invalid_yaml_is_shown_not_hidden() {
        let theme = Theme::default_theme();
        let doc = render_article("---\na: [\n---\nbody\n", 60, &theme, &exists);
        let text = plain(&doc);
        assert!(text.iter().any(|l| l.contains("invalid YAML")), "{text:?}");
        assert!(text.iter().any(|l| l == "body"));
    }

    #[test]
    fn selecting_a_link_restyles_only_that_link() {
        let theme = Theme::default_theme();
        let mut doc = render_markdown("[[Legal]] [[Legal]]", 80, &theme, &exists);
        doc.set_link_selected(1, true, &theme);
        let (l, s) = doc.links[1].spans[0];
        assert_eq!(doc.lines[l].spans[s].style, theme.link_selected);
        let (l, s) = doc.links[0].spans[0];
        assert_eq!(doc.lines[l].spans[s].style, theme.link);
    }
}
