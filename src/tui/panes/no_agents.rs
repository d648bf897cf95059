//! The Agents pane for a layout the agents do not work on: says so, and
//! what the interface does offer there.

use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use super::{Component, Cx};
use crate::tui::keys::{Action, KeyMap, Scope};
use crate::tui::theme::Theme;

#[derive(Debug, Default)]
pub struct NoAgents {
    /// What the open memory is, with an article ("an everos memory root").
    pub layout: String,
    /// The names of the tree and document panes on their tabs ("Memory",
    /// "File"), so the text names panes the user can see.
    pub tree_pane: &'static str,
    pub document_pane: &'static str,
}

impl Component for NoAgents {
    fn scope(&self) -> Scope {
        Scope::Agents
    }

    fn title(&self) -> String {
        "Agents".to_owned()
    }

    fn on_action(&mut self, _action: Action, _cx: &mut Cx) -> bool {
        false
    }

    fn hints(&self, _keymap: &KeyMap) -> String {
        "agents work on memory banks and Deja Vu projects".to_owned()
    }

    fn draw(&self, frame: &mut Frame, area: Rect, _focused: bool, theme: &Theme) {
        let text = vec![
            Line::default(),
            Line::styled(
                "The agents work on memory banks and Deja Vu projects.",
                theme.text,
            ),
            Line::default(),
            Line::styled(
                format!(
                    "This is {}: browse it in the {} and {} panes, check it in Health, \
                     and search it with Ctrl-F.",
                    sanitize_for_terminal(&self.layout, false),
                    self.tree_pane,
                    self.document_pane
                ),
                theme.muted,
            ),
        ];
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), area);
    }
}
