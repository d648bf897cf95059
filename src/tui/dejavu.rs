//! The interface for a Deja Vu project: a Recall screen. Type a cue and see
//! the level, the score, what a host would load and every impression's
//! tokens and arithmetic, updated on each key; save a feedback line for
//! the cue just tried.
//!
//! State and `on_key` compute; `draw` only reads the state.

use std::path::Path;

use membank_core::dejavu::feedback::{self, OUTCOMES};
use membank_core::dejavu::js::{self, JsValue};
use membank_core::dejavu::recall::{Considered, Explanation, Level};
use membank_core::dejavu::{self, Project, Recall};
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::terminal;
use super::theme::Theme;

pub struct RecallView {
    project: Project,
    pub label: String,
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
    pub fn new(project: Project, label: String) -> RecallView {
        let mut v = RecallView {
            recall: dejavu::recall(project.impressions.as_ref(), ""),
            project,
            label,
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

    /// Handle a key; returns false when the user quits.
    pub fn on_key(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return false,
            KeyCode::Char('c') if ctrl => return false,
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
        true
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

/// Draw the Recall screen from the state alone.
pub fn draw(frame: &mut Frame, view: &RecallView, theme: &Theme) {
    let [main, status] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(frame.area());
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(format!(" Recall · {} ", safe(&view.label)), theme.title))
        .title_bottom(Span::styled(
            format!(
                " type a cue · ↑/↓ scroll · ^O outcome: {} · ^F save feedback · ^U clear · Esc quit ",
                OUTCOMES[view.outcome]
            ),
            theme.hint_text,
        ));
    let inner = block.inner(main);
    frame.render_widget(block, main);
    let mut lines = view.header(theme);
    lines.push(Line::raw(""));
    for &i in view.order.iter().skip(view.scroll) {
        lines.extend(view.impression_lines(&view.recall.explanations[i], theme));
        if lines.len() > usize::from(inner.height) {
            break;
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
    frame.render_widget(
        Paragraph::new(Line::from(Span::styled(
            view.status.clone(),
            theme.status_message,
        ))),
        Rect { ..status },
    );
}

/// Run the Recall screen on a project until the user quits.
pub fn run(root: &Path, project: Project, theme: &Theme) -> anyhow::Result<()> {
    let mut view = RecallView::new(project, root.display().to_string());
    terminal::install_panic_hook();
    let mut term = terminal::enter()?;
    let result = (|| -> anyhow::Result<()> {
        loop {
            term.draw(|f| draw(f, &view, theme))?;
            if let Event::Key(key) = event::read()?
                && key.kind != KeyEventKind::Release
                && !view.on_key(key)
            {
                return Ok(());
            }
        }
    })();
    let restored = terminal::leave();
    result?;
    restored?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use insta::assert_snapshot;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn demo() -> Project {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu");
        Project::load(&root).unwrap()
    }

    fn typed(view: &mut RecallView, s: &str) {
        for c in s.chars() {
            view.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
    }

    fn screen(view: &RecallView) -> String {
        let mut term = Terminal::new(TestBackend::new(96, 24)).unwrap();
        let theme = Theme::default_theme();
        term.draw(|f| draw(f, view, &theme)).unwrap();
        term.backend().to_string()
    }

    #[test]
    fn recall_pane_shows_a_strong_match_with_its_arithmetic() {
        let mut v = RecallView::new(demo(), "demo-dejavu".into());
        typed(&mut v, "settings sync");
        assert_snapshot!(screen(&v));
    }

    #[test]
    fn recall_pane_updates_as_the_cue_is_typed() {
        let mut v = RecallView::new(demo(), "demo-dejavu".into());
        typed(&mut v, "Continue the settings refactor.");
        assert_eq!(v.recall.level, Level::None);
        assert_snapshot!(screen(&v));
        for _ in 0.."Continue the settings refactor.".len() {
            v.on_key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
        }
        typed(&mut v, "offline vault");
        assert_eq!(v.recall.level, Level::Strong);
        assert!(screen(&v).contains("loads memory/context/project-context.md"));
    }

    #[test]
    fn feedback_is_saved_for_the_cue_just_tried() {
        fn copy(from: &Path, to: &Path) {
            std::fs::create_dir_all(to).unwrap();
            for e in std::fs::read_dir(from).unwrap() {
                let e = e.unwrap();
                if e.file_type().unwrap().is_dir() {
                    copy(&e.path(), &to.join(e.file_name()));
                } else {
                    std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
                }
            }
        }
        let tmp = tempfile::tempdir().unwrap();
        copy(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu"),
            tmp.path(),
        );
        let mut v = RecallView::new(Project::load(tmp.path()).unwrap(), "p".into());
        typed(&mut v, "settings sync");
        v.on_key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL));
        v.on_key(KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL));
        assert!(v.status.starts_with("appended"), "{}", v.status);
        let text = std::fs::read_to_string(tmp.path().join(dejavu::FEEDBACK_PATH)).unwrap();
        let last = text.lines().last().unwrap();
        assert!(last.contains(r#""query":"settings sync","matched_id":"decision-settings-sync","outcome":"irrelevant""#), "{last}");
    }
}
