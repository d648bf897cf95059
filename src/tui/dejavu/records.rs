//! The Records tab: the project's files grouped by kind with status badges
//! on the left, the selected one on the right with its links and
//! backlinks; links are followed with Enter and `b` goes back.

use std::sync::Arc;

use membank_core::dejavu::Project;
use membank_core::memory::{DocId, Memory, Resolution};
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::super::theme::Theme;

enum Row {
    Group(String),
    Doc(DocId),
}

/// One outgoing link of the shown document.
struct ShownLink {
    line: usize,
    target: String,
    to: Option<DocId>,
}

pub struct RecordsView {
    project: Arc<Project>,
    rows: Vec<Row>,
    /// Index into `rows` (always a document row).
    selected: usize,
    /// The selected document, laid out once per selection.
    text: Vec<String>,
    links: Vec<ShownLink>,
    backlinks: Vec<String>,
    link: usize,
    pub scroll: usize,
    history: Vec<DocId>,
}

fn safe(s: &str) -> String {
    sanitize_for_terminal(s, false)
}

impl RecordsView {
    pub fn new(project: Arc<Project>) -> RecordsView {
        let mut rows = Vec::new();
        let mut group: Option<String> = None;
        for id in 0..project.len() {
            let d = project.document(id);
            let g = match d.groups.first() {
                Some(g) => g.to_string(),
                None if d.path.starts_with("memory/") => "memory".to_owned(),
                None => "project".to_owned(),
            };
            if group.as_ref() != Some(&g) {
                rows.push(Row::Group(g.clone()));
                group = Some(g);
            }
            rows.push(Row::Doc(id));
        }
        let mut v = RecordsView {
            project,
            rows,
            selected: 0,
            text: Vec::new(),
            links: Vec::new(),
            backlinks: Vec::new(),
            link: 0,
            scroll: 0,
            history: Vec::new(),
        };
        v.move_by(0);
        v
    }

    fn doc(&self) -> Option<DocId> {
        match self.rows.get(self.selected) {
            Some(Row::Doc(id)) => Some(*id),
            _ => None,
        }
    }

    /// Move the selection by `delta` document rows (0: to the first one).
    fn move_by(&mut self, delta: isize) {
        let docs: Vec<usize> = (0..self.rows.len())
            .filter(|&i| matches!(self.rows[i], Row::Doc(_)))
            .collect();
        let Some(at) = docs.iter().position(|&i| i >= self.selected) else {
            return;
        };
        let next = (at as isize + delta).clamp(0, docs.len() as isize - 1) as usize;
        self.selected = docs[next];
        self.lay_out();
    }

    /// Show a document by id (a followed link, a finding).
    pub fn show(&mut self, id: DocId) {
        if let Some(i) = self
            .rows
            .iter()
            .position(|r| matches!(r, Row::Doc(d) if *d == id))
        {
            self.selected = i;
            self.lay_out();
        }
    }

    pub fn show_path(&mut self, path: &str) {
        if let Some(id) = self.project.find(path) {
            self.show(id);
        }
    }

    fn lay_out(&mut self) {
        let Some(id) = self.doc() else { return };
        let d = self.project.document(id);
        self.text = d.text.lines().map(safe).collect();
        self.links = self
            .project
            .links(id)
            .into_iter()
            .map(|l| ShownLink {
                line: l.line,
                target: safe(l.target),
                to: match l.resolution {
                    Resolution::One(to) => Some(to),
                    _ => None,
                },
            })
            .collect();
        self.backlinks = self
            .project
            .backlinks(id)
            .iter()
            .map(|&b| safe(self.project.document(b).path))
            .collect();
        self.link = 0;
        self.scroll = 0;
    }

    pub fn on_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Down | KeyCode::Char('j') => self.move_by(1),
            KeyCode::Up | KeyCode::Char('k') => self.move_by(-1),
            KeyCode::PageDown => self.scroll = (self.scroll + 10).min(self.text.len()),
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(10),
            KeyCode::Char('l') if !self.links.is_empty() => {
                self.link = (self.link + 1) % self.links.len();
            }
            KeyCode::Enter => {
                if let (Some(from), Some(to)) =
                    (self.doc(), self.links.get(self.link).and_then(|l| l.to))
                {
                    self.history.push(from);
                    self.show(to);
                }
            }
            KeyCode::Char('b') | KeyCode::Backspace => {
                if let Some(back) = self.history.pop() {
                    self.show(back);
                }
            }
            _ => {}
        }
    }

    pub fn hints(&self) -> &'static str {
        "↑/↓ select · PgUp/PgDn scroll · l next link · Enter follow · b back"
    }
}

pub fn draw(frame: &mut Frame, area: Rect, v: &RecordsView, theme: &Theme) {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(38), Constraint::Percentage(62)]).areas(area);
    let mut list = Vec::new();
    for (i, row) in v.rows.iter().enumerate() {
        list.push(match row {
            Row::Group(g) => Line::from(Span::styled(safe(g), theme.folder)),
            Row::Doc(id) => {
                let d = v.project.document(*id);
                // Badges first, so a narrow list still shows them.
                let mut spans = vec![Span::raw("  ")];
                if let Some(status) = d.status.as_deref().filter(|s| *s != "active") {
                    spans.push(Span::styled(format!("[{}] ", safe(status)), theme.warning));
                }
                if d.private {
                    spans.push(Span::styled("[private] ", theme.error));
                }
                spans.push(Span::raw(safe(&d.title)));
                let line = Line::from(spans);
                if i == v.selected {
                    line.style(theme.selection)
                } else {
                    line
                }
            }
        });
    }
    let skip = v
        .selected
        .saturating_sub(usize::from(left.height.saturating_sub(3)));
    frame.render_widget(
        Paragraph::new(list.into_iter().skip(skip).collect::<Vec<_>>()).block(
            Block::default()
                .borders(Borders::RIGHT)
                .border_style(theme.border),
        ),
        left,
    );
    let Some(id) = v.doc() else { return };
    let d = v.project.document(id);
    let mut lines = vec![Line::from(Span::styled(safe(d.path), theme.title))];
    for (i, l) in v.links.iter().enumerate() {
        let style = match (i == v.link, l.to.is_some()) {
            (true, _) => theme.link_selected,
            (false, true) => theme.link,
            (false, false) => theme.dead_link,
        };
        lines.push(Line::from(vec![
            Span::styled(format!("→ L{} ", l.line), theme.muted),
            Span::styled(l.target.clone(), style),
        ]));
    }
    for b in &v.backlinks {
        lines.push(Line::from(vec![
            Span::styled("← ", theme.muted),
            Span::styled(b.clone(), theme.link),
        ]));
    }
    lines.push(Line::raw(""));
    lines.extend(v.text.iter().skip(v.scroll).map(|t| Line::raw(t.clone())));
    let inner = Rect {
        x: right.x + 1,
        width: right.width.saturating_sub(1),
        ..right
    };
    frame.render_widget(Paragraph::new(lines), inner);
}
