//! Keys in the Agents pane: typing in an agent's input, the pane's
//! actions, and the hints that name them.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::review::Review;
use super::{AgentCtx, AgentEffect, AgentKind, AgentsPane};
use crate::tui::keys::{Action, KeyMap};

impl AgentsPane {
    /// A key while the text input has the keyboard.
    pub fn edit_key(&mut self, key: KeyEvent, ctx: &AgentCtx) -> bool {
        let alt_or_shift = key
            .modifiers
            .intersects(KeyModifiers::ALT | KeyModifiers::SHIFT);
        match key.code {
            KeyCode::Esc => {
                if !self.cancel() {
                    self.editing = false;
                }
                true
            }
            // Chat and Distill send on Enter; Alt-Enter (or Shift-Enter
            // where the terminal reports it) starts a new line instead.
            KeyCode::Enter if !alt_or_shift && self.kind != AgentKind::Translate => self.run(ctx),
            KeyCode::Enter if self.kind == AgentKind::Distill => false,
            // Ctrl-J is a line feed: a new line wherever the terminal
            // cannot report Alt-Enter or Shift-Enter.
            KeyCode::Char('j')
                if key.modifiers.contains(KeyModifiers::CONTROL)
                    && self.kind != AgentKind::Distill =>
            {
                if let Some(input) = self.input_mut() {
                    input.insert_newline();
                }
                true
            }
            KeyCode::Enter => {
                if let Some(input) = self.input_mut() {
                    input.insert_newline();
                }
                true
            }
            _ => match self.input_mut() {
                Some(input) => input.input(key),
                None => false,
            },
        }
    }

    /// Pasted text goes into the input being typed in.
    pub fn paste(&mut self, text: &str) -> bool {
        let single_line = self.kind == AgentKind::Distill;
        match self.input_mut() {
            Some(input) => {
                let text = text.replace("\r\n", "\n");
                let text = if single_line {
                    text.replace('\n', " ")
                } else {
                    text
                };
                input.insert_str(text)
            }
            None => false,
        }
    }

    /// An action while the pane has focus (and no input has the keyboard).
    pub fn action(&mut self, action: Action, ctx: &AgentCtx) -> bool {
        let list_h = review_list_height(ctx.height);
        match action {
            Action::ChatAgent => self.select(AgentKind::Chat, ctx.bank),
            Action::InboxAgent => self.select(AgentKind::Inbox, ctx.bank),
            Action::LintAgent => self.select(AgentKind::Lint, ctx.bank),
            Action::TranslateAgent => self.select(AgentKind::Translate, ctx.bank),
            Action::DistillAgent => self.select(AgentKind::Distill, ctx.bank),
            Action::Type if self.kind.has_input() => self.editing = true,
            Action::RunAgent => return self.run(ctx),
            Action::CancelReply => {
                if self.cancel() {
                    return true;
                }
                // Leave a review of Health Check fixes for the report.
                if self.kind == AgentKind::Lint && self.lint.show_review {
                    self.lint.show_review = false;
                    return true;
                }
                return false;
            }
            Action::ToggleBlock => return self.review_mut().is_some_and(Review::toggle),
            Action::AcceptAll | Action::DeclineAll => {
                let on = action == Action::AcceptAll;
                return self.review_mut().is_some_and(|r| r.set_all(on));
            }
            Action::Apply => return self.apply(ctx),
            Action::Up | Action::Down | Action::PageUp | Action::PageDown => {
                let step: isize = match action {
                    Action::Up => -1,
                    Action::Down => 1,
                    Action::PageUp => -(ctx.height.max(2) as isize - 1),
                    _ => ctx.height.max(2) as isize - 1,
                };
                if let Some(r) = self.review_mut() {
                    if matches!(action, Action::Up | Action::Down) {
                        r.move_by(step, list_h);
                    } else {
                        r.scroll_detail(step);
                    }
                    return true;
                }
                match self.kind {
                    AgentKind::Chat if matches!(action, Action::Up | Action::Down) => {
                        self.chat.move_article(step)
                    }
                    AgentKind::Chat => {
                        self.chat.scroll_back = self.chat.scroll_back.saturating_add_signed(-step)
                    }
                    AgentKind::Lint => {
                        self.lint.scroll = self.lint.scroll.saturating_add_signed(step)
                    }
                    _ => return false,
                }
            }
            Action::Top | Action::Bottom => match self.kind {
                AgentKind::Chat => {
                    self.chat.scroll_back = if action == Action::Top {
                        usize::MAX / 2
                    } else {
                        0
                    }
                }
                AgentKind::Lint => {
                    self.lint.scroll = if action == Action::Top {
                        0
                    } else {
                        usize::MAX / 2
                    }
                }
                _ => return false,
            },
            Action::CopyReply => {
                let text = match self.kind {
                    AgentKind::Chat => self.chat.turns.last().map(|t| t.reply.text.clone()),
                    AgentKind::Translate => Some(self.translate.reply.text.clone()),
                    AgentKind::Lint => Some(self.lint.reply.text.clone()),
                    _ => None,
                };
                match text.filter(|t| !t.is_empty()) {
                    Some(t) => {
                        self.effects.push(AgentEffect::Copy(t));
                        self.effects
                            .push(AgentEffect::Info("copied the reply".into()));
                    }
                    None => return false,
                }
            }
            Action::ClearChat if self.kind == AgentKind::Chat => {
                if self.cancel() {
                    return true;
                }
                self.chat.clear();
            }
            _ => return false,
        }
        true
    }

    /// Enter: open the chat's selected article, show or apply a review.
    fn apply(&mut self, ctx: &AgentCtx) -> bool {
        if self.kind == AgentKind::Chat {
            if let Some(rel) = self.chat.selected_article() {
                self.effects.push(AgentEffect::OpenArticle(rel.to_owned()));
                return true;
            }
            return false;
        }
        if self.kind == AgentKind::Lint && !self.lint.show_review {
            if self.lint.review.is_some() {
                self.lint.show_review = true;
                return true;
            }
            return false;
        }
        let root = ctx.bank.root().to_path_buf();
        let Some(review) = self.review_mut() else {
            return false;
        };
        if review.is_applied() {
            // A second Enter closes the result.
            match self.kind {
                AgentKind::Inbox => self.inbox.review = None,
                AgentKind::Lint => {
                    self.lint.review = None;
                    self.lint.show_review = false;
                }
                AgentKind::Distill => self.distill.review = None,
                _ => {}
            }
            return true;
        }
        let applied = review.apply(&root);
        self.effects.push(AgentEffect::Reload(applied.changed));
        self.effects.push(AgentEffect::Info(format!(
            "wrote {} file(s)",
            applied.written
        )));
        true
    }
}

/// Key hints for the pane's bottom border, for the agent on screen.
pub fn hint_line(keymap: &KeyMap, pane: &AgentsPane) -> String {
    let reviewing = match pane.kind {
        AgentKind::Inbox => pane.inbox.review.is_some(),
        AgentKind::Lint => pane.lint.show_review,
        AgentKind::Distill => pane.distill.review.is_some(),
        _ => false,
    };
    let pick: &[(Action, &str)] = if pane.busy() {
        &[(Action::CancelReply, "stop")]
    } else if reviewing {
        &[
            (Action::ToggleBlock, "toggle"),
            (Action::AcceptAll, "all"),
            (Action::Apply, "write"),
        ]
    } else {
        match pane.kind {
            AgentKind::Chat => &[
                (Action::Type, "ask"),
                (Action::Apply, "open"),
                (Action::ClearChat, "new"),
            ],
            AgentKind::Inbox | AgentKind::Lint => &[(Action::RunAgent, "run")],
            AgentKind::Translate => &[
                (Action::Type, "type"),
                (Action::RunAgent, "run"),
                (Action::CopyReply, "copy"),
            ],
            AgentKind::Distill => &[(Action::Type, "path"), (Action::RunAgent, "run")],
        }
    };
    let mut parts: Vec<String> = pick
        .iter()
        .filter_map(|(a, what)| keymap.keys(*a).first().map(|k| format!("{k} {what}")))
        .collect();
    if let Some(k) = keymap.keys(Action::Help).first() {
        parts.push(format!("{k} keys"));
    }
    parts.join(" · ")
}

/// The review's list height for a pane of `height` rows.
fn review_list_height(height: usize) -> usize {
    (height.saturating_sub(3) / 3).max(3)
}
