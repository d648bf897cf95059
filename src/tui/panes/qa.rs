//! The terminology check of a translated file, shown in the Health pane:
//! the file's path typed in a one-line input, then the findings grouped by
//! source term with the untranslated segments apart, and a finding opened
//! as the segment beside the term's article. The check itself runs off the
//! interface's thread (`tui::qa_job`); this holds and draws what it found.

use std::path::PathBuf;

use membank_core::terms::qa::QaFinding;
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui_textarea::TextArea;

use super::cursor::Cursor;
use super::{hint_text, page};
use crate::tui::keys::{Action, KeyMap};
use crate::tui::qa_job::QaOutput;
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_lines;

/// Untranslated segment ids listed on one row.
const IDS_PER_ROW: usize = 8;
/// The most lines of a term's article shown beside a segment.
const ARTICLE_LINES: usize = 200;

/// One row of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QaRow {
    /// A source term and how many findings it has.
    Term(String, usize),
    /// Index into the report's findings.
    Finding(usize),
    /// The heading of the untranslated segments.
    Untranslated(usize),
    /// Some of their ids.
    Ids(String),
}

/// A finding opened: its segment beside the term's article.
#[derive(Debug, Clone)]
pub struct Opened {
    pub finding: usize,
    /// The article's lines, read when it was opened (terminal-safe).
    pub article: Vec<String>,
}

/// What the view shows.
#[derive(Debug)]
pub enum State {
    /// The file's path is being typed.
    Asking(Box<TextArea<'static>>),
    /// The check runs (or waits for the memory to be read).
    Running,
    Done(Box<QaOutput>),
    Failed(String),
}

#[derive(Debug)]
pub struct QaView {
    /// The file checked, as given.
    pub file: PathBuf,
    pub state: State,
    pub rows: Vec<QaRow>,
    pub cursor: Cursor,
    pub opened: Option<Opened>,
    /// Tells the latest check's result from an earlier one's.
    pub generation: u64,
    /// The memory was not read yet when the check was asked for.
    pub waiting: bool,
}

/// What the empty input asks for.
const PLACEHOLDER: &str = "path of an XLIFF, sdlxliff, mqxliff, TMX or text file";

/// What a key asks of the Health pane.
#[derive(Debug, PartialEq, Eq)]
pub enum QaOutcome {
    Stay,
    Close,
    /// Check this file.
    Run(PathBuf),
    /// Open the finding's term article (the pane has the memory to read it).
    OpenFinding(usize),
}

impl QaView {
    /// The input for a file's path.
    pub fn asking(generation: u64) -> QaView {
        let mut input = TextArea::default();
        input.set_placeholder_text(PLACEHOLDER);
        QaView {
            file: PathBuf::new(),
            state: State::Asking(Box::new(input)),
            rows: Vec::new(),
            cursor: Cursor::default(),
            opened: None,
            generation,
            waiting: false,
        }
    }

    /// A check of `file` under way.
    pub fn running(file: PathBuf, generation: u64) -> QaView {
        QaView {
            file,
            state: State::Running,
            ..QaView::asking(generation)
        }
    }

    /// The check's result arrived.
    pub fn finished(&mut self, result: Result<QaOutput, String>, height: usize) {
        self.waiting = false;
        self.opened = None;
        self.cursor = Cursor::default();
        match result {
            Ok(out) => {
                // What was typed may end with the pair: the title names
                // the file.
                self.file.clone_from(&out.file);
                self.rows = rows_of(&out);
                self.state = State::Done(Box::new(out));
                // Start on the first finding, not on its term's heading.
                let first = self
                    .rows
                    .iter()
                    .position(|r| matches!(r, QaRow::Finding(_)));
                self.cursor
                    .select(first.unwrap_or(0), self.rows.len(), height);
            }
            Err(e) => {
                self.rows.clear();
                self.state = State::Failed(e);
            }
        }
    }

    pub fn report(&self) -> Option<&QaOutput> {
        match &self.state {
            State::Done(out) => Some(out),
            _ => None,
        }
    }

    /// The finding on the selected row; on a term's heading, its first.
    pub fn selected_finding(&self) -> Option<usize> {
        match self.rows.get(self.cursor.selected)? {
            QaRow::Finding(i) => Some(*i),
            QaRow::Term(..) => match self.rows.get(self.cursor.selected + 1)? {
                QaRow::Finding(i) => Some(*i),
                _ => None,
            },
            _ => None,
        }
    }

    /// The pane title's words after "Health — ".
    pub fn title(&self) -> String {
        let file = file_name(&self.file);
        match &self.state {
            State::Asking(_) => "terms of a translated file".to_owned(),
            State::Running => format!("checking the terms of {file}…"),
            State::Failed(_) => format!("terms of {file}: not checked"),
            State::Done(out) => format!(
                "terms of {file}: {} · {} untranslated",
                crate::plural::count(out.report.findings.len(), "finding"),
                out.report.untranslated.len()
            ),
        }
    }

    /// Whether the file's path is being typed (every key goes to it).
    pub fn is_asking(&self) -> bool {
        matches!(self.state, State::Asking(_))
    }

    pub fn hints(&self, keymap: &KeyMap) -> String {
        match (&self.state, &self.opened) {
            (State::Asking(_), _) => {
                "type the file's path · Enter checks it · Esc cancels".to_owned()
            }
            (_, Some(_)) => hint_text(keymap, &[(Action::CloseView, "back to the findings")]),
            (State::Done(_), None) => hint_text(
                keymap,
                &[
                    (Action::Open, "side by side"),
                    (Action::CloseView, "close"),
                    (Action::CheckTerms, "another file"),
                ],
            ),
            _ => hint_text(
                keymap,
                &[
                    (Action::CheckTerms, "another file"),
                    (Action::CloseView, "close"),
                ],
            ),
        }
    }

    /// A key while the file's path is typed.
    pub fn type_key(&mut self, key: KeyEvent) -> QaOutcome {
        let State::Asking(input) = &mut self.state else {
            return QaOutcome::Stay;
        };
        match key.code {
            KeyCode::Esc => QaOutcome::Close,
            KeyCode::Enter => {
                let typed = input.lines().join("").trim().to_owned();
                if typed.is_empty() {
                    QaOutcome::Stay
                } else {
                    QaOutcome::Run(PathBuf::from(typed))
                }
            }
            _ => {
                input.input(key);
                QaOutcome::Stay
            }
        }
    }

    /// An action from the key map while the findings are shown; `height`
    /// is the list's rows. `None`: not an action of this view.
    pub fn on_action(&mut self, action: Action, height: usize) -> Option<QaOutcome> {
        if self.opened.is_some() {
            // The segment beside its article: anything that leaves goes
            // back to the list.
            return match action {
                Action::CloseView | Action::Open | Action::Back => {
                    self.opened = None;
                    Some(QaOutcome::Stay)
                }
                _ => None,
            };
        }
        let len = self.rows.len();
        let c = &mut self.cursor;
        match action {
            Action::CloseView => return Some(QaOutcome::Close),
            Action::CheckTerms => *self = QaView::asking(self.generation),
            Action::Up => c.move_by(-1, len, height),
            Action::Down => c.move_by(1, len, height),
            Action::PageUp => c.move_by(-page(height), len, height),
            Action::PageDown => c.move_by(page(height), len, height),
            Action::Top => c.to_top(),
            Action::Bottom => c.to_bottom(len, height),
            Action::Open => {
                return Some(match self.selected_finding() {
                    Some(i) => QaOutcome::OpenFinding(i),
                    None => QaOutcome::Stay,
                });
            }
            _ => return None,
        }
        Some(QaOutcome::Stay)
    }

    /// Show finding `i` beside its term's article text (`None`: the
    /// article is no longer in the memory).
    pub fn open(&mut self, finding: usize, article_text: Option<&str>) {
        let article = match article_text {
            Some(text) => text
                .lines()
                .take(ARTICLE_LINES)
                .map(|l| sanitize_for_terminal(l, false))
                .collect(),
            None => vec!["(the article is no longer in the memory)".to_owned()],
        };
        self.opened = Some(Opened { finding, article });
    }
}

/// The findings grouped by term, then the untranslated segments.
fn rows_of(out: &QaOutput) -> Vec<QaRow> {
    let report = &out.report;
    let mut rows = Vec::new();
    for (term, findings) in report.by_term_indexes() {
        rows.push(QaRow::Term(term.to_owned(), findings.len()));
        rows.extend(findings.into_iter().map(QaRow::Finding));
    }
    if !report.untranslated.is_empty() {
        rows.push(QaRow::Untranslated(report.untranslated.len()));
        for ids in report.untranslated.chunks(IDS_PER_ROW) {
            rows.push(QaRow::Ids(ids.join(", ")));
        }
    }
    rows
}

fn file_name(path: &std::path::Path) -> String {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    sanitize_for_terminal(&name, false)
}

fn code_style(code: &str, theme: &Theme) -> ratatui::style::Style {
    match code {
        "term-rejected" => theme.error,
        _ => theme.warning,
    }
}

/// Text with the terms marked `«…»` shown with the marks as a style.
fn marked(text: &str, theme: &Theme) -> Line<'static> {
    let text = sanitize_for_terminal(text, false);
    let mut spans = Vec::new();
    let mut inside = false;
    for (i, part) in text.split(['«', '»']).enumerate() {
        if i > 0 {
            inside = !inside;
        }
        if part.is_empty() {
            continue;
        }
        let style = if inside { theme.link } else { theme.text };
        spans.push(Span::styled(part.to_owned(), style));
    }
    Line::from(spans)
}

pub fn draw(frame: &mut Frame, area: Rect, view: &QaView, focused: bool, theme: &Theme) {
    match (&view.state, &view.opened, view.report()) {
        (State::Asking(input), _, _) => draw_input(frame, area, input, theme),
        (_, Some(opened), Some(out)) => draw_opened(frame, area, out, opened, theme),
        (State::Done(out), _, _) => draw_list(frame, area, view, out, focused, theme),
        (State::Failed(e), _, _) => {
            let lines = vec![
                Line::styled("The file could not be checked:", theme.error),
                Line::styled(sanitize_for_terminal(e, false), theme.text),
            ];
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
        }
        _ => {
            let what = if view.waiting {
                "Waiting for the memory to be read…"
            } else {
                "Checking the terms…"
            };
            frame.render_widget(Paragraph::new(Line::styled(what, theme.muted)), area);
        }
    }
}

fn draw_input(frame: &mut Frame, area: Rect, input: &TextArea<'static>, theme: &Theme) {
    let [about, field, _, pair_hint] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(area);
    frame.render_widget(
        Paragraph::new(Line::styled(
            "An XLIFF that names no target language: type its pair after the name \
             (job.xlf en-US:nl-BE).",
            theme.muted,
        ))
        .wrap(Wrap { trim: false }),
        pair_hint,
    );
    let words = vec![
        Line::styled(
            "Check a translated file against the bank's terms:",
            theme.text,
        ),
        Line::styled(
            "missing, rejected and inconsistent terms, segment by segment.",
            theme.muted,
        ),
    ];
    frame.render_widget(Paragraph::new(words).wrap(Wrap { trim: false }), about);
    let [label, typed] =
        Layout::horizontal([Constraint::Length(6), Constraint::Min(1)]).areas(field);
    frame.render_widget(
        Paragraph::new(Span::styled("file: ", theme.hint_key)),
        label,
    );
    frame.render_widget(input, typed);
    // The input clips its placeholder at the pane's edge: drawn again over
    // it, after the cursor, ending in "…" where it is cut.
    if input.is_empty() && typed.width > 1 {
        let room = Rect {
            x: typed.x + 1,
            width: typed.width - 1,
            ..typed
        };
        let style = input.placeholder_style().unwrap_or(theme.muted);
        let shown = cut_lines([Line::styled(PLACEHOLDER, style)], room.width);
        frame.render_widget(Paragraph::new(shown), room);
    }
}

fn draw_list(
    frame: &mut Frame,
    area: Rect,
    view: &QaView,
    out: &QaOutput,
    focused: bool,
    theme: &Theme,
) {
    let report = &out.report;
    let [head, area] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(area);
    let pair = match (&report.source_lang, &report.target_lang) {
        (Some(s), Some(t)) => format!("{s} → {t}"),
        _ => "no language pair".to_owned(),
    };
    let client = out
        .client
        .as_deref()
        .map(|c| format!(" · client {c}"))
        .unwrap_or_default();
    let heading = format!(
        "{} · {pair} · {} · {} checked · {}{client}",
        file_name(&view.file),
        crate::plural::count(report.segments, "segment"),
        report.checked,
        crate::plural::count(report.terms, "term")
    );
    frame.render_widget(
        Paragraph::new(cut_lines(
            [Line::styled(
                sanitize_for_terminal(&heading, false),
                theme.muted,
            )],
            head.width,
        )),
        head,
    );
    let mut lines = Vec::new();
    if view.rows.is_empty() {
        let said = if report.terms == 0 {
            "The bank has no term for this language pair: nothing was checked."
        } else {
            "No finding: every term is translated as the bank says."
        };
        lines.push(Line::styled(said, theme.muted));
    }
    let selection = if focused {
        theme.selection
    } else {
        theme.selection_unfocused
    };
    let height = usize::from(area.height);
    for (i, row) in view
        .rows
        .iter()
        .enumerate()
        .skip(view.cursor.offset)
        .take(height)
    {
        let line = match row {
            QaRow::Term(term, n) => Line::from(vec![
                Span::styled(sanitize_for_terminal(term, false), theme.warning),
                Span::styled(format!(" ({n})"), theme.muted),
            ]),
            QaRow::Finding(f) => finding_line(&report.findings[*f], theme),
            QaRow::Untranslated(n) => Line::from(vec![
                Span::styled("untranslated", theme.muted),
                Span::styled(format!(" ({n}: not checked)"), theme.muted),
            ]),
            QaRow::Ids(ids) => Line::styled(
                format!("  {}", sanitize_for_terminal(ids, false)),
                theme.text,
            ),
        };
        lines.push(if i == view.cursor.selected {
            super::highlight_row(line, area.width, selection)
        } else {
            line
        });
    }
    frame.render_widget(Paragraph::new(cut_lines(lines, area.width)), area);
}

fn finding_line(f: &QaFinding, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::raw("  "),
        Span::styled(
            format!(
                "segment {}",
                sanitize_for_terminal(&f.segment_label(), false)
            ),
            theme.link,
        ),
        Span::raw("  "),
        Span::styled(f.code, code_style(f.code, theme)),
        Span::raw("  "),
        Span::styled(sanitize_for_terminal(&f.fix, false), theme.text),
    ])
}

fn draw_opened(frame: &mut Frame, area: Rect, out: &QaOutput, opened: &Opened, theme: &Theme) {
    let Some(f) = out.report.findings.get(opened.finding) else {
        return;
    };
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    let segment = vec![
        Line::from(vec![
            Span::styled(
                format!(
                    "segment {}",
                    sanitize_for_terminal(&f.segment_label(), false)
                ),
                theme.link,
            ),
            Span::raw("  "),
            Span::styled(f.code, code_style(f.code, theme)),
        ]),
        Line::default(),
        Line::styled("source", theme.muted),
        marked(&f.source, theme),
        Line::default(),
        Line::styled("target", theme.muted),
        marked(&f.target, theme),
        Line::default(),
        Line::styled(sanitize_for_terminal(&f.fix, false), theme.text),
    ];
    frame.render_widget(Paragraph::new(segment).wrap(Wrap { trim: false }), left);
    let block = Block::default()
        .borders(Borders::LEFT)
        .border_style(theme.muted);
    let mut article = vec![Line::styled(
        sanitize_for_terminal(&f.article, false),
        theme.link,
    )];
    article.extend(
        opened
            .article
            .iter()
            .map(|l| Line::styled(l.clone(), theme.text)),
    );
    frame.render_widget(
        Paragraph::new(article)
            .wrap(Wrap { trim: false })
            .block(block),
        right,
    );
}
