//! The Article pane: rendered Markdown, properties, the article's
//! outgoing links and backlinks, link following and history. A bank's
//! articles are laid out by `bank_view`; any other layout's documents (and
//! the entries of an everos daily log) by `panes/document.rs`.

use std::sync::Arc;

use membank_core::health::HealthReport;
use membank_core::memory::Memory;
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

mod bank_view;
mod findings;
mod search;

use super::document::EntryAt;
use super::{Component, Cx, hint_text, page};
use crate::tui::keys::{Action, KeyMap, Scope};
use crate::tui::messages::Effect;
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_lines;
use crate::tui::widgets::line_input;
use crate::tui::widgets::markdown::RenderedDoc;
use crate::tui::widgets::wrap::{leading_spaces, wrap_line};
use findings::findings_lines;
use search::ArticleSearch;

#[derive(Debug, Default)]
pub struct ArticlePane {
    /// Path (relative to the bank) of the file shown.
    pub rel: Option<String>,
    /// Header: the article's title and path, sanitised.
    pub header: String,
    pub doc: RenderedDoc,
    /// Where each link of `doc` leads (relative path), `None` when dead.
    pub dests: Vec<Option<String>>,
    pub selected_link: Option<usize>,
    pub scroll: usize,
    /// A note shown above the article (e.g. the finding that led here).
    pub banner: Option<String>,
    /// The entry shown on its own, inside a file that holds several.
    pub entry: Option<EntryAt>,
    /// For each link of `doc` that is a row of an entry list: its entry.
    pub entry_links: Vec<Option<EntryAt>>,
    pub back: Vec<Visit>,
    pub forward: Vec<Visit>,
    width: u16,
    /// Rows of the pane's inside at the last layout of the screen (0 until
    /// known): a new layout keeps the pane full rather than scrolled past
    /// the end of a shorter text.
    height: usize,
    /// Search in the article (`/`), while one is active.
    pub search: Option<ArticleSearch>,
    /// The file line a finding pointed at, highlighted.
    pub marked_line: Option<usize>,
    /// Rendered rows showing `marked_line`.
    marked_rows: Vec<usize>,
    /// The health findings of the last refresh, to list an article's own
    /// at its top.
    health: Arc<HealthReport>,
    /// The article's findings listed in full (`!`), not just counted.
    pub findings_open: bool,
    /// In a JSONL file: the record shown in full (the selected one).
    pub record: Option<usize>,
    /// Shown while no article is open (a bank with only examples says so).
    pub empty_note: Option<String>,
    /// The key that finds a document by name, as `[keys] find` binds it,
    /// for the line shown while none is open; `/` when unset.
    pub find_key: String,
    /// What the open layout calls a document ("record" in Deja Vu), for
    /// the line shown while none is open; "article" when unset.
    pub noun: &'static str,
    /// The pane's name while no document is open ("Record" in Deja Vu);
    /// "Article" when unset.
    pub name: &'static str,
    /// The file shown could not be read again as the bank read it (it
    /// changed or went): to be read again like a watched change.
    pub changed_on_disk: Option<String>,
}

/// A place left, to come back to as it was: scrolled and with the link
/// that was selected (the one followed, when leaving by a link).
#[derive(Debug, Clone)]
pub struct Visit {
    pub at: Location,
    pub scroll: usize,
    pub link: Option<usize>,
}

/// A place the pane can show: a file, or one entry inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub rel: String,
    pub entry: Option<EntryAt>,
}

impl ArticlePane {
    /// Show `rel`, remembering the current article for Back.
    pub fn open(&mut self, memory: &dyn Memory, rel: &str, theme: &Theme, width: u16) {
        self.open_at(memory, rel, None, theme, width);
    }

    /// Show `rel`, or the entry `entry` inside it, remembering the current
    /// place for Back.
    pub fn open_at(
        &mut self,
        memory: &dyn Memory,
        rel: &str,
        entry: Option<&EntryAt>,
        theme: &Theme,
        width: u16,
    ) {
        let to = Location {
            rel: rel.to_owned(),
            entry: entry.cloned(),
        };
        if let Some(cur) = self.location()
            && cur != to
        {
            self.back.push(self.visit(cur));
            self.forward.clear();
        }
        self.show(memory, to, 0, theme, width);
    }

    fn visit(&self, at: Location) -> Visit {
        Visit {
            at,
            scroll: self.scroll,
            link: self.selected_link,
        }
    }

    /// Show `rel` as a preview while moving in the tree: the article shown
    /// before is replaced, not kept for Back.
    pub fn preview(&mut self, memory: &dyn Memory, rel: &str, theme: &Theme, width: u16) {
        if self.rel.as_deref() == Some(rel) {
            return;
        }
        let to = Location {
            rel: rel.to_owned(),
            entry: None,
        };
        self.show(memory, to, 0, theme, width);
    }

    /// Where the pane is.
    pub fn location(&self) -> Option<Location> {
        self.rel.clone().map(|rel| Location {
            rel,
            entry: self.entry.clone(),
        })
    }

    pub fn go_back(&mut self, memory: &dyn Memory, theme: &Theme, width: u16) -> bool {
        // An entry reached directly (from a search hit) goes back to the
        // list of its file's entries.
        let up = self
            .rel
            .clone()
            .filter(|_| self.entry.is_some())
            .map(|rel| Location { rel, entry: None });
        let up = up.map(|at| Visit {
            at,
            scroll: 0,
            link: None,
        });
        let Some(to) = self.back.pop().or(up) else {
            return false;
        };
        if let Some(cur) = self.location() {
            self.forward.push(self.visit(cur));
        }
        self.show_visit(memory, to, theme, width);
        true
    }

    pub fn go_forward(&mut self, memory: &dyn Memory, theme: &Theme, width: u16) -> bool {
        let Some(to) = self.forward.pop() else {
            return false;
        };
        if let Some(cur) = self.location() {
            self.back.push(self.visit(cur));
        }
        self.show_visit(memory, to, theme, width);
        true
    }

    /// Show a place as it was left: its scroll and its selected link.
    fn show_visit(&mut self, memory: &dyn Memory, to: Visit, theme: &Theme, width: u16) {
        self.show(memory, to.at, to.scroll, theme, width);
        if let Some(i) = to.link.filter(|&i| i < self.doc.links.len()) {
            self.doc.set_link_selected(i, true, theme);
            self.selected_link = Some(i);
        }
    }

    fn show(
        &mut self,
        memory: &dyn Memory,
        to: Location,
        scroll: usize,
        theme: &Theme,
        width: u16,
    ) {
        self.rel = Some(to.rel);
        self.entry = to.entry;
        self.banner = None;
        self.findings_open = false;
        self.record = None;
        self.search = None;
        self.marked_line = None;
        self.lay_out(memory, theme, width);
        self.scroll = scroll.min(self.last_top());
        self.selected_link = None;
    }

    /// Turn the file into styled lines wrapped at `width`: on opening, and
    /// again when the file or the pane's width changes. Runs in update,
    /// never in draw.
    pub fn lay_out(&mut self, memory: &dyn Memory, theme: &Theme, width: u16) {
        self.width = width;
        let Some(rel) = self.rel.clone() else {
            self.doc = RenderedDoc::default();
            self.dests.clear();
            self.entry_links.clear();
            self.header.clear();
            return;
        };
        self.entry_links.clear();
        let Some(bank) = crate::layouts::bank(memory) else {
            let mut laid = super::document::lay_out(
                memory,
                &rel,
                self.entry.as_ref(),
                self.record,
                theme,
                width,
            );
            if self.entry.is_none() {
                let notes = findings_lines(&self.health, &rel, self.findings_open, theme, width);
                laid.doc.prepend_rows(notes);
            }
            self.header = laid.header;
            self.doc = laid.doc;
            self.dests = laid.dests;
            self.entry_links = laid.entries;
            self.keep_selected_link(theme);
            return;
        };
        self.lay_out_bank(bank, &rel, theme, width);
    }

    /// After a new layout: keep the selected link when it still exists.
    fn keep_selected_link(&mut self, theme: &Theme) {
        if let Some(i) = self.selected_link {
            if i < self.doc.links.len() {
                self.doc.set_link_selected(i, true, theme);
            } else {
                self.selected_link = None;
            }
        }
        self.scroll = self.scroll.min(self.last_top());
        self.mark_rows();
        if let Some(search) = &mut self.search {
            search.find(&self.doc.lines, self.scroll, theme);
        }
    }

    /// The health findings of the last refresh (listed at an article's top).
    pub fn set_health(&mut self, health: Arc<HealthReport>) {
        self.health = health;
        // A finding fixed (or moved) since the jump: its note would mislead.
        // Only the shown file's findings can match (the jump opened the
        // finding's file): formatting every finding of a large bank at each
        // swap took tens of milliseconds on the interface thread.
        let shown = self.rel.as_deref();
        if let Some(banner) = &self.banner
            && !self
                .health
                .findings
                .iter()
                .filter(|f| shown.is_none_or(|rel| *f.path == *rel))
                .any(|f| super::health::jump_banner(f) == *banner)
        {
            self.banner = None;
            self.marked_line = None;
            self.marked_rows.clear();
        }
    }

    /// Is a JSONL file shown, one record a line?
    fn shows_records(&self) -> bool {
        self.entry.is_none()
            && self
                .rel
                .as_deref()
                .is_some_and(crate::tui::widgets::jsonl::is_jsonl)
            && self
                .doc
                .links
                .iter()
                .all(|l| l.target.starts_with("record "))
    }

    /// Show the selected record in full under its line, keeping it in view.
    fn open_selected_record(&mut self, memory: &dyn Memory, theme: &Theme, width: u16, h: usize) {
        self.record = self.selected_link;
        self.lay_out(memory, theme, width);
        if let Some(i) = self.selected_link {
            let line = self.doc.links[i].line;
            self.show_row(line, h);
        }
    }

    /// List the article's findings in full at its top (as when `!` is
    /// pressed): a jump from a finding shows them all.
    pub fn open_findings(&mut self, memory: &dyn Memory, theme: &Theme, width: u16) {
        if !self.findings_open {
            self.findings_open = true;
            self.lay_out(memory, theme, width);
        }
    }

    /// Scroll so that file line `line` is near the top, and highlight it.
    pub fn scroll_to_source_line(&mut self, line: usize, height: usize) {
        self.marked_line = Some(line);
        self.mark_rows();
        if let Some(&i) = self.marked_rows.first() {
            // Near the top, the article's findings stay in view above it.
            self.scroll = if i + 2 < height {
                0
            } else {
                i.saturating_sub(2)
            };
            let max = self.doc.lines.len().saturating_sub(height.max(1));
            self.scroll = self.scroll.min(max);
        }
    }

    /// The rendered rows of the marked file line: those made from it, or
    /// those of the nearest drawn line above it (a frontmatter line is
    /// drawn inside the property block).
    fn mark_rows(&mut self) {
        self.marked_rows.clear();
        let Some(line) = self.marked_line else {
            return;
        };
        self.marked_rows = self.doc.rows_showing(line);
        if self.marked_rows.is_empty() {
            // The line is not drawn as such (a frontmatter line, shown in
            // the property block): the rows of the nearest line above it.
            let nearest = self
                .doc
                .source_lines
                .iter()
                .copied()
                .filter(|&l| l > 0 && l <= line)
                .max();
            if let Some(near) = nearest {
                self.marked_rows = self
                    .doc
                    .source_lines
                    .iter()
                    .enumerate()
                    .filter(|&(_, &l)| l == near)
                    .map(|(i, _)| i)
                    .collect();
            } else if let Some(i) = self.doc.line_for_source(line) {
                self.marked_rows.push(i);
            }
        }
    }

    /// Start searching: keys now type the query.
    pub fn start_search(&mut self) {
        let query = self.search.take().map(|s| s.query).unwrap_or_default();
        self.search = Some(ArticleSearch {
            query,
            typing: true,
            ..ArticleSearch::default()
        });
    }

    /// A key while the search query is typed.
    fn search_key(&mut self, key: KeyEvent, height: usize, theme: &Theme) {
        let Some(search) = &mut self.search else {
            return;
        };
        match key.code {
            KeyCode::Esc => {
                self.search = None;
                return;
            }
            KeyCode::Enter => {
                search.typing = false;
                if search.query.is_empty() {
                    self.search = None;
                }
                return;
            }
            _ if line_input::edit(&mut search.query, &key) => {}
            _ => return,
        }
        search.find(&self.doc.lines, self.scroll, theme);
        if let Some(row) = search.current_row() {
            self.show_row(row, height);
        }
    }

    /// The rendered rows drawn highlighted as the line a jump named.
    pub fn marked_rows(&self) -> &[usize] {
        &self.marked_rows
    }

    /// Rows left for the article's text in a pane `height` rows high: the
    /// banner takes the top row and an active search's prompt the last.
    fn text_height(&self, height: usize) -> usize {
        let taken = usize::from(self.banner.is_some()) + usize::from(self.search.is_some());
        height.saturating_sub(taken).max(1)
    }

    /// Scroll so `row` is in view, a third down when it was not.
    fn show_row(&mut self, row: usize, height: usize) {
        let height = self.text_height(height);
        if row < self.scroll || row >= self.scroll + height {
            self.scroll = row.saturating_sub(height / 3);
        }
    }

    pub fn width(&self) -> u16 {
        self.width
    }

    /// The pane's inside is `height` rows high now.
    pub fn set_height(&mut self, height: usize) {
        self.height = height;
        self.scroll = self.scroll.min(self.last_top());
    }

    /// The furthest the text scrolls while the pane stays full.
    fn last_top(&self) -> usize {
        let rows = match self.height {
            0 => 1,
            h => self.text_height(h),
        };
        self.doc.lines.len().saturating_sub(rows)
    }

    pub fn scroll_by(&mut self, delta: isize, height: usize) {
        let max = self
            .doc
            .lines
            .len()
            .saturating_sub(self.text_height(height));
        self.scroll = (self.scroll as isize + delta).clamp(0, max as isize) as usize;
    }

    pub fn scroll_to_end(&mut self, height: usize) {
        self.scroll = self
            .doc
            .lines
            .len()
            .saturating_sub(self.text_height(height));
    }

    /// Select the next (`+1`) or previous (`-1`) link and scroll to it.
    pub fn cycle_link(&mut self, step: isize, height: usize, theme: &Theme) -> bool {
        let n = self.doc.links.len();
        if n == 0 {
            return false;
        }
        let next = match self.selected_link {
            None if step >= 0 => self.first_link_from(self.scroll).unwrap_or(0),
            None => n - 1,
            Some(i) => (i as isize + step).rem_euclid(n as isize) as usize,
        };
        if let Some(old) = self.selected_link {
            self.doc.set_link_selected(old, false, theme);
        }
        self.doc.set_link_selected(next, true, theme);
        self.selected_link = Some(next);
        self.show_row(self.doc.links[next].line, height);
        true
    }

    fn first_link_from(&self, line: usize) -> Option<usize> {
        self.doc.links.iter().position(|l| l.line >= line)
    }

    /// The entry the selected link opens, or the entry shown.
    pub fn selected_entry(&self) -> Option<&str> {
        self.selected_link
            .and_then(|i| self.entry_links.get(i))
            .and_then(Option::as_ref)
            .or(self.entry.as_ref())
            .map(|e| e.id.as_str())
    }

    /// The file the selected record's `record_path` names, `Err` saying
    /// why there is none to open; `None` when no record is selected.
    fn selected_record_path(&self, memory: &dyn Memory) -> Option<Result<String, String>> {
        let i = self.selected_link?;
        let row = self.doc.links.get(i)?.line;
        let line = *self.doc.source_lines.get(row)?;
        let id = memory.find(self.rel.as_deref()?)?;
        let text = memory.document(id).text;
        let raw = text.lines().nth(line.checked_sub(1)?)?;
        let n = i + 1;
        let Ok(value) = serde_json::from_str::<serde_json::Value>(raw) else {
            return Some(Err(format!(
                "record {n} is not valid JSON: nothing to open"
            )));
        };
        Some(
            match value.get("record_path").and_then(serde_json::Value::as_str) {
                Some(path) if memory.find(path).is_some() => Ok(path.to_owned()),
                Some(path) => Err(format!(
                    "record {n}: its record_path {} is not a file of this project",
                    sanitize_for_terminal(path, false)
                )),
                None => Err(format!("record {n} has no record_path to open")),
            },
        )
    }

    /// Where the selected link leads: `Ok(rel)` or `Err(target)` if dead.
    pub fn selected_destination(&self) -> Option<Result<String, String>> {
        let i = self.selected_link?;
        Some(match &self.dests[i] {
            Some(rel) => Ok(rel.clone()),
            None => Err(self.doc.links[i].target.clone()),
        })
    }

    /// The selected link reaches a file that is not an article (an
    /// attachment): there is nothing to open, but it is not dead either.
    fn selected_is_file(&self) -> bool {
        self.selected_link
            .is_some_and(|i| self.dests[i].is_none() && self.doc.links[i].live)
    }
}

/// Why a file cannot be shown, wrapped to the pane so none of it is cut.
fn message_doc(msg: &str, width: u16, theme: &Theme) -> RenderedDoc {
    let shown = sanitize_for_terminal(msg, false);
    RenderedDoc {
        lines: crate::tui::widgets::wrap::wrap(&shown, usize::from(width))
            .into_iter()
            .map(|row| Line::styled(row, theme.error))
            .collect(),
        ..RenderedDoc::default()
    }
}

pub fn draw(frame: &mut Frame, area: Rect, pane: &ArticlePane, theme: &Theme) {
    if pane.rel.is_none() {
        let noun = if pane.noun.is_empty() {
            "article"
        } else {
            pane.noun
        };
        let a = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        let mut lines = vec![
            Line::default(),
            Line::styled(
                format!("  Select {a} {noun} in the tree and press Enter,"),
                theme.muted,
            ),
            Line::styled(
                format!(
                    "  or press {} to find one by name.",
                    if pane.find_key.is_empty() {
                        "/"
                    } else {
                        &pane.find_key
                    }
                ),
                theme.muted,
            ),
        ];
        if let Some(note) = &pane.empty_note {
            lines.push(Line::default());
            lines.push(Line::styled(format!("  {note}"), theme.warning));
        }
        let lines: Vec<Line> = lines
            .iter()
            .flat_map(|l| wrap_line(l, usize::from(area.width), leading_spaces(l)))
            .collect();
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    let mut lines: Vec<Line> = Vec::with_capacity(usize::from(area.height));
    if let Some(b) = &pane.banner {
        lines.push(Line::styled(b.clone(), theme.warning));
    }
    // The search line takes the last row while a search is active.
    let search_row = usize::from(pane.search.is_some());
    let room = usize::from(area.height).saturating_sub(lines.len() + search_row);
    for (i, line) in pane
        .doc
        .lines
        .iter()
        .enumerate()
        .skip(pane.scroll)
        .take(room)
    {
        let found = pane.search.as_ref().and_then(|s| s.lines.get(&i));
        lines.push(match found {
            Some(l) => l.clone(),
            None if pane.marked_rows.contains(&i) => {
                super::highlight_row(line.clone(), area.width, theme.selection)
            }
            None => line.clone(),
        });
    }
    if let Some(search) = &pane.search {
        while lines.len() + 1 < usize::from(area.height) {
            lines.push(Line::default());
        }
        let cursor = if search.typing { "▏" } else { "" };
        lines.push(Line::from(vec![
            Span::styled("/", theme.hint_key),
            Span::styled(format!("{}{cursor}", search.query), theme.input),
            Span::styled(format!("  {}", search.position()), theme.muted),
        ]));
    }
    frame.render_widget(Paragraph::new(cut_lines(lines, area.width)), area);
}

fn attachment(cx: &mut Cx, target: &str) {
    cx.info(format!(
        "[[{}]] is a file, not an article: membank shows articles only",
        sanitize_for_terminal(target, false)
    ));
}

fn dead_link(cx: &mut Cx, target: &str) {
    cx.warn(format!(
        "[[{}]] does not resolve to an article",
        sanitize_for_terminal(target, false)
    ));
}

impl Component for ArticlePane {
    fn scope(&self) -> Scope {
        Scope::Article
    }

    fn title(&self) -> String {
        if self.header.is_empty() {
            match self.name {
                "" => "Article".to_owned(),
                name => name.to_owned(),
            }
        } else {
            self.header.clone()
        }
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let h = cx.height;
        let width = cx.article_width;
        match action {
            Action::Up => self.scroll_by(-1, h),
            Action::Down => self.scroll_by(1, h),
            Action::PageUp => self.scroll_by(-page(h), h),
            Action::PageDown => self.scroll_by(page(h), h),
            Action::Top => self.scroll = 0,
            Action::Bottom => self.scroll_to_end(h),
            Action::SearchArticle => self.start_search(),
            Action::ShowFindings => {
                if !self
                    .health
                    .findings
                    .iter()
                    .any(|f| self.rel.as_deref() == Some(&*f.path))
                {
                    cx.info("no findings in this file");
                    return true;
                }
                self.findings_open = !self.findings_open;
                self.lay_out(cx.memory, cx.theme, width);
                if self.findings_open {
                    self.scroll = 0;
                }
            }
            Action::ToBank if self.search.is_some() => self.search = None,
            Action::NextLink | Action::PrevLink
                if self.search.as_ref().is_some_and(|s| !s.hits.is_empty()) =>
            {
                let forward = action == Action::NextLink;
                let search = self.search.as_mut().expect("checked above");
                if let Some(row) = search.step(forward, &self.doc.lines, cx.theme) {
                    let at = search.position();
                    self.show_row(row, h);
                    cx.effects.push(Effect::SearchNote(format!("match {at}")));
                }
            }
            Action::NextLink | Action::PrevLink => {
                let step = if action == Action::NextLink { 1 } else { -1 };
                if !self.cycle_link(step, h, cx.theme) {
                    cx.info("no links in this article");
                    return true;
                }
                if self.shows_records() {
                    self.open_selected_record(cx.memory, cx.theme, width, h);
                    return true;
                }
                // Say where Enter would go before it is pressed.
                match self.selected_destination() {
                    Some(Ok(rel)) => cx.effects.push(Effect::LinkNote(format!(
                        "→ {}",
                        sanitize_for_terminal(&rel, false)
                    ))),
                    Some(Err(target)) if self.selected_is_file() => attachment(cx, &target),
                    Some(Err(target)) => dead_link(cx, &target),
                    None => {}
                }
            }
            // A record is shown in full as soon as it is selected.
            // Enter follows the selected record's record_path, as it does
            // in the Recall pane.
            Action::Open if self.shows_records() => match self.selected_record_path(cx.memory) {
                Some(Ok(rel)) => cx.effects.push(Effect::open(rel)),
                Some(Err(why)) => cx.info(why),
                None => {
                    cx.info("n / N step through the records; the selected one is shown in full")
                }
            },
            Action::Open => match self.selected_destination() {
                Some(Ok(rel)) => match self.selected_link.and_then(|i| self.entry_links.get(i)) {
                    Some(Some(entry)) => {
                        let entry = entry.clone();
                        self.open_at(cx.memory, &rel, Some(&entry), cx.theme, width);
                    }
                    _ => cx.effects.push(Effect::open(rel)),
                },
                Some(Err(target)) if self.selected_is_file() => attachment(cx, &target),
                Some(Err(target)) => dead_link(cx, &target),
                None => cx.info("select a link first (n / N)"),
            },
            Action::Back | Action::Forward => {
                let back = action == Action::Back;
                let moved = if back {
                    self.go_back(cx.memory, cx.theme, width)
                } else {
                    self.go_forward(cx.memory, cx.theme, width)
                };
                if !moved {
                    cx.info(if back {
                        "no earlier article"
                    } else {
                        "no later article"
                    });
                } else if let Some(rel) = self.rel.clone() {
                    // Replaces the "→ link" note, which named where we came from.
                    let word = if back { "back to" } else { "forward to" };
                    cx.info(format!("{word} {}", sanitize_for_terminal(&rel, false)));
                    cx.effects.push(Effect::RevealInBank(rel));
                }
            }
            Action::Edit => return cx.edit(self.rel.clone(), None),
            Action::CopyPath => match self.selected_entry() {
                // Entry ids are what everos's own tools take.
                Some(id) => cx.copy_short(id.to_owned(), "id", ""),
                None => return cx.copy_path(self.rel.clone()),
            },
            Action::CopyLink => return cx.copy_link(self.rel.clone()),
            _ => return false,
        }
        true
    }

    fn hints(&self, keymap: &KeyMap) -> String {
        match &self.search {
            Some(s) if s.typing => "type to search · Enter done · Esc clear".to_owned(),
            Some(_) => hint_text(
                keymap,
                &[
                    (Action::NextLink, "next match"),
                    (Action::PrevLink, "previous"),
                    (Action::ToBank, "clear"),
                ],
            ),
            None => hint_text(
                keymap,
                &[
                    // A daily log's list: its rows are entries.
                    (
                        Action::NextLink,
                        if self.shows_records() {
                            "record"
                        } else if self.entry_links.is_empty() {
                            "link"
                        } else {
                            "entry"
                        },
                    ),
                    (Action::Open, "follow"),
                    (Action::SearchArticle, "search"),
                    (Action::Back, "back"),
                ],
            ),
        }
    }

    fn is_typing(&self) -> bool {
        self.search.as_ref().is_some_and(|s| s.typing)
    }

    fn on_typing_key(&mut self, key: KeyEvent, cx: &mut Cx) -> bool {
        self.search_key(key, cx.height, cx.theme);
        true
    }

    fn draw(&self, frame: &mut Frame, area: Rect, _focused: bool, theme: &Theme) {
        draw(frame, area, self, theme);
    }
}
