//! A yes/no question over the panes, asked before a key does something
//! that cannot be taken back (quitting with work unwritten, sending notes
//! to the model, writing or deciding many files at once). No is the
//! default: only `y` goes ahead.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::cut::{MORE, cut_line};
use super::fuzzy::centered;
use super::wrap::wrap;
use crate::tui::keys::{Action, Key, KeyMap};
use crate::tui::theme::Theme;

/// What a yes carries out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnYes {
    Quit,
    /// The Agents pane's action, this time without asking.
    Agents(Action),
    /// Set the Context pane's client (one the question named), then send
    /// the question.
    SetClientAndAsk(String),
    /// Take back the journal's last change to this memory: the entry
    /// (its id) the question named, and no other.
    Undo(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    /// The question, ending in "y/N".
    pub question: String,
    /// A line below it, saying more (what is kept, what goes), if any.
    pub detail: Option<String>,
    pub on_yes: OnYes,
}

impl Confirm {
    pub fn new(question: impl Into<String>, on_yes: OnYes) -> Confirm {
        Confirm {
            question: question.into(),
            detail: None,
            on_yes,
        }
    }

    pub fn detail(mut self, detail: impl Into<String>) -> Confirm {
        self.detail = Some(detail.into());
        self
    }
}

/// The question as shown: its closing "y/N" names the key that says yes
/// when `[keys]` moved it (a "y" that does nothing must not be offered).
fn question(confirm: &Confirm, keys: &KeyMap) -> String {
    let yes = yes_keys(keys);
    match confirm.question.strip_suffix(" y/N") {
        Some(asked) if yes.first() != Some(&Key::ch('y')) => match yes.first() {
            Some(key) => format!("{asked} {key}/N"),
            None => asked.to_owned(),
        },
        _ => confirm.question.clone(),
    }
}

/// The keys that answer yes: those of `[keys] yes` not also bound to no
/// (such a key answers no: the Confirm scope looks up no first).
fn yes_keys(keys: &KeyMap) -> Vec<Key> {
    let no = keys.keys(Action::No);
    keys.keys(Action::Yes)
        .iter()
        .filter(|k| !no.contains(k))
        .copied()
        .collect()
}

pub fn draw(frame: &mut Frame, confirm: &Confirm, theme: &Theme, keys: &KeyMap) {
    let screen = frame.area();
    let inside = usize::from(screen.width.saturating_sub(4)).clamp(10, 70);
    let mut lines: Vec<Line> = wrap(&question(confirm, keys), inside)
        .into_iter()
        .map(|l| Line::styled(l, theme.title))
        .collect();
    if let Some(detail) = &confirm.detail {
        lines.extend(
            wrap(detail, inside)
                .into_iter()
                .map(|l| Line::styled(l, theme.text)),
        );
    }
    // The keys as bound (`[keys] yes`/`no`), as `?` shows them.
    let yes: Vec<String> = yes_keys(keys).iter().map(ToString::to_string).collect();
    let hint = Line::from(vec![
        Span::styled(yes.join(" / "), theme.hint_key),
        Span::styled(" yes · ", theme.hint_text),
        Span::styled(keys.label(Action::No), theme.hint_key),
        Span::styled(" no", theme.hint_text),
    ]);
    let widest = lines
        .iter()
        .chain(std::iter::once(&hint))
        .map(Line::width)
        .max()
        .unwrap_or(0);
    let width = (widest + 4).min(usize::from(screen.width)) as u16;
    let height = (lines.len() + 3).min(usize::from(screen.height)) as u16;
    // The answer keys stay whatever the screen's height (without them the
    // box does not say how to answer); the text gives way, its last row
    // shown ending in `…`.
    let text_rows = usize::from(height).saturating_sub(3);
    if lines.len() > text_rows {
        lines.truncate(text_rows);
        if let Some(last) = lines.last_mut() {
            last.spans.push(Span::raw(MORE.to_string()));
        }
    }
    let area = centered(screen, width, height);
    crate::tui::areas::clear_popup(frame, area);
    let room = usize::from(width.saturating_sub(2));
    let mut shown: Vec<Line> = lines.into_iter().map(|l| cut_line(l, room)).collect();
    shown.push(cut_line(hint, room));
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused);
    frame.render_widget(Paragraph::new(shown).block(block), area);
}
