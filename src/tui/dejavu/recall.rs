//! The Recall tab: type a cue and see the level, the score, what a host
//! would load and every impression's tokens and arithmetic, updated on each
//! key; save a feedback line for the cue just tried.
//!
//! State and `on_key` compute; `draw` only reads the state.

use std::sync::Arc;

use membank_core::dejavu::feedback::{self, OUTCOMES};
use membank_core::dejavu::js::{self, JsValue};
use membank_core::dejavu::recall::{Considered, Explanation, Level};
use membank_core::dejavu::{self, Project, Recall};
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::super::theme::Theme;

pub struct RecallView {
    project: Arc<Project>,
    pub cue: String,
    recall: Recall,
    /// Impression lines in display order: matches by rank, then the rest.
    order: Vec<usize>,
    pub scroll: usize,
    outcome: usize,
    pub status: String,
}

fn safe(s: &str) -> String {
    sanitize_for_terminal(s, false)
}

fn num(x: f64) -> String {
    js::number_to_string(x)
}

impl RecallView {
    pub fn new(project: Arc<Project>) -> RecallView {
        let mut v = RecallView {
            recall: dejavu::recall(project.impressions.as_ref(), ""),
            project,
            cue: String::new(),
            order: Vec::new(),
            scroll: 0,
            outcome: 0,
            status: String::new(),
        };
        v.recompute();
        v
    }

    fn recompute(&mut self) {
        self.recall = dejavu::recall(self.project.impressions.as_ref(), js::js_trim(&self.cue));
        let mut order: Vec<usize> = (0..self.recall.explanations.len()).collect();
        order.sort_by_key(|&i| self.recall.explanations[i].rank.unwrap_or(usize::MAX));
        self.order = order;
        self.scroll = 0;
    }

    pub fn level(&self) -> Level {
        self.recall.level
    }

    /// Handle a key (the app has taken Tab, Esc and Ctrl-C).
    pub fn on_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('o') if ctrl => {
                self.outcome = (self.outcome + 1) % OUTCOMES.len();
                self.status = format!("feedback outcome: {}", OUTCOMES[self.outcome]);
            }
            KeyCode::Char('f') if ctrl => self.save_feedback(),
            KeyCode::Char('u') if ctrl => {
                self.cue.clear();
                self.recompute();
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() => {
                self.cue.push(c);
                self.recompute();
            }
            KeyCode::Backspace => {
                self.cue.pop();
                self.recompute();
            }
            KeyCode::Down => {
                self.scroll = (self.scroll + 1).min(self.order.len().saturating_sub(1))
            }
            KeyCode::Up => self.scroll = self.scroll.saturating_sub(1),
            KeyCode::PageDown => {
                self.scroll = (self.scroll + 5).min(self.order.len().saturating_sub(1))
            }
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(5),
            _ => {}
        }
    }

    pub fn hints(&self) -> String {
        format!(
            "type a cue · ↑/↓ scroll · ^O outcome: {} · ^F save feedback · ^U clear",
            OUTCOMES[self.outcome]
        )
    }

    /// Append a sanitized feedback line for the cue just tried.
    fn save_feedback(&mut self) {
        let matched_id = match self.recall.matches.first().and_then(|m| m.id.as_ref()) {
            Some(JsValue::String(id)) => Some(id.clone()),
            _ => None,
        };
        let today = jiff::Zoned::now().date().to_string();
        let result = feedback::feedback_line(
            &self.cue,
            OUTCOMES[self.outcome],
            matched_id.as_deref(),
            None,
            &today,
        )
        .and_then(|line| feedback::append(&self.project.root, &line).map(|_| line));
        self.status = match result {
            Ok(line) => format!("appended to {}: {}", dejavu::FEEDBACK_PATH, safe(&line)),
            Err(e) => format!("feedback not saved: {}", safe(&e)),
        };
    }

    fn header(&self, theme: &Theme) -> Vec<Line<'static>> {
        let r = &self.recall;
        let mut lines = vec![
            Line::from(vec![
                Span::styled("cue › ", theme.muted),
                Span::styled(safe(&self.cue), theme.input),
                Span::styled("▏", theme.muted),
            ]),
            Line::from(vec![
                Span::styled("cue tokens  ", theme.muted),
                Span::styled(safe(&r.cue_tokens.join(" ")), theme.text),
            ]),
        ];
        let level_style = match r.level {
            Level::Strong => theme.kept,
            Level::Weak => theme.warning,
            Level::None => theme.muted,
            Level::NotInitialized => theme.error,
        };
        let load = r.would_load();
        lines.push(Line::from(vec![
            Span::styled("level ", theme.muted),
            Span::styled(r.level.as_str().to_owned(), level_style),
            Span::styled("  score ", theme.muted),
            Span::styled(num(r.score), theme.score),
            Span::styled(
                format!(
                    "  {} of {} matched  loads ",
                    r.matches.len(),
                    r.explanations.len()
                ),
                theme.muted,
            ),
            Span::styled(
                if load.is_empty() {
                    "nothing".to_owned()
                } else {
                    safe(&load.join(", "))
                },
                theme.text,
            ),
        ]));
        lines
    }

    fn impression_lines(&self, e: &Explanation, theme: &Theme) -> Vec<Line<'static>> {
        let id = if e.id.is_empty() { "(no id)" } else { &e.id };
        let rank = e.rank.map_or("  -".to_owned(), |r| format!("#{r:<2}"));
        let mut head = vec![
            Span::styled(format!("{rank} "), theme.muted),
            Span::styled(format!("L{:<3} ", e.line), theme.muted),
            Span::styled(safe(id), theme.title),
        ];
        let detail = match &e.considered {
            Considered::Invalid { error } => {
                head.push(Span::styled(
                    format!("  invalid: {}", safe(error)),
                    theme.error,
                ));
                return vec![Line::from(head)];
            }
            Considered::Inactive { status } => {
                head.push(Span::styled(
                    format!("  skipped, status {}", safe(status)),
                    theme.muted,
                ));
                return vec![Line::from(head)];
            }
            Considered::Scored => format!(
                "    {}/min({}, {}) = {} × (0.75 + {}{} × 0.25) = {}",
                e.matched.len(),
                self.recall.cue_tokens.len(),
                e.tokens.len(),
                num(js::round4(e.overlap)),
                num(e.weight),
                if e.weight_defaulted { " default" } else { "" },
                num(e.score)
            ),
        };
        head.push(Span::styled(format!("  {}", num(e.score)), theme.score));
        if let Some(m) = self.recall.matches.iter().find(|m| m.line == e.line)
            && let Some(JsValue::String(path)) = &m.record_path
        {
            head.push(Span::styled(format!("  → {}", safe(path)), theme.link));
        }
        let mut tokens = vec![Span::styled("    ", theme.muted)];
        for t in &e.tokens {
            let style = if e.matched.contains(t) {
                theme.matched
            } else {
                theme.muted
            };
            tokens.push(Span::styled(safe(t), style));
            tokens.push(Span::raw(" "));
        }
        vec![
            Line::from(head),
            Line::from(Span::styled(detail, theme.text)),
            Line::from(tokens),
        ]
    }
}

/// Draw the tab from the state alone.
pub fn draw(frame: &mut Frame, area: Rect, view: &RecallView, theme: &Theme) {
    let mut lines = view.header(theme);
    lines.push(Line::raw(""));
    for &i in view.order.iter().skip(view.scroll) {
        lines.extend(view.impression_lines(&view.recall.explanations[i], theme));
        if lines.len() > usize::from(area.height) {
            break;
        }
    }
    frame.render_widget(Paragraph::new(lines), area);
}
