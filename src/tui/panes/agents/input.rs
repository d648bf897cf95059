//! The Agents pane's side of the pane contract: typing in an agent's
//! input, the pane's actions, and the hints that name them.

use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

use super::review::Review;
use super::{AgentKind, AgentsPane, guard};
use crate::tui::keys::{Action, KeyMap, Scope};
use crate::tui::messages::Effect;
use crate::tui::panes::Cx;
use crate::tui::panes::{Component, hint_text};
use crate::tui::theme::Theme;

impl AgentsPane {
    /// A key while the text input has the keyboard.
    pub fn edit_key(&mut self, key: KeyEvent, ctx: &mut Cx) -> bool {
        let alt_or_shift = key
            .modifiers
            .intersects(KeyModifiers::ALT | KeyModifiers::SHIFT);
        match key.code {
            // Esc only leaves the input; a reply keeps arriving (s stops it).
            KeyCode::Esc => {
                self.editing = false;
                self.left_input = true;
                true
            }
            // The chats and Distill send on Enter; Alt-Enter (or Shift-Enter
            // where the terminal reports it) starts a new line instead.
            KeyCode::Enter if !alt_or_shift && self.kind.sends_on_enter() => self.run(ctx),
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
    pub fn action(&mut self, action: Action, ctx: &mut Cx) -> bool {
        let list_h = review_list_height(ctx.height);
        match action {
            // The keys pick the layout's agents by their place on the tabs.
            Action::QueryAgent => return self.select(0, ctx.bank, ctx.health),
            Action::InboxAgent => return self.select(1, ctx.bank, ctx.health),
            Action::CheckAgent => return self.select(2, ctx.bank, ctx.health),
            Action::TranslateAgent => return self.select(3, ctx.bank, ctx.health),
            Action::DistillAgent => return self.select(4, ctx.bank, ctx.health),
            Action::Type if self.kind.has_input() => self.editing = true,
            Action::RunAgent => return self.run(ctx),
            Action::CancelReply => {
                if self.cancel() {
                    return true;
                }
                // Leave a review of Health Check fixes for the report.
                if self.kind == AgentKind::Check && self.check.show_review {
                    self.check.show_review = false;
                    return true;
                }
                return false;
            }
            Action::ToggleBlock => {
                if let Some(r) = self.review_mut() {
                    return r.toggle();
                }
                return self.kind == AgentKind::Inbox && !self.busy() && self.inbox.toggle();
            }
            Action::AcceptAll | Action::DeclineAll => {
                let on = action == Action::AcceptAll;
                let Some(r) = self.review_mut().filter(|r| !r.is_applied()) else {
                    return false;
                };
                let n = r.would_change(on);
                if n > 1 {
                    let verb = if on { "Accept" } else { "Decline" };
                    let question = format!("{verb} all: {}? y/N", guard::files(n));
                    if self.ask_first(action, question, None, ctx.effects) {
                        return true;
                    }
                }
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
                if self.kind == AgentKind::Inbox && self.inbox.review.is_none() {
                    if !matches!(action, Action::Up | Action::Down) {
                        return false;
                    }
                    self.inbox
                        .move_by(step, ctx.height.saturating_sub(1).max(1));
                    return true;
                }
                if let Some(r) = self.review_mut() {
                    if r.is_applied() {
                        // The result of a write scrolls, a row or a page.
                        r.scroll_result(step);
                    } else if matches!(action, Action::Up | Action::Down) {
                        r.move_by(step, list_h);
                    } else {
                        r.scroll_detail(step);
                    }
                    return true;
                }
                if let Some(chat) = self.chat_mut() {
                    if matches!(action, Action::Up | Action::Down) {
                        chat.move_article(step);
                    } else {
                        chat.scroll_back = chat.scroll_back.saturating_add_signed(-step);
                    }
                    return true;
                }
                match self.kind {
                    AgentKind::Check => {
                        self.check.scroll = self.check.scroll.saturating_add_signed(step)
                    }
                    _ => return false,
                }
            }
            Action::Top | Action::Bottom if self.review_mut().is_some_and(|r| r.is_applied()) => {
                if let Some(r) = self.review_mut() {
                    r.scroll_result(if action == Action::Top {
                        isize::MIN
                    } else {
                        isize::MAX
                    });
                }
            }
            Action::Top | Action::Bottom => match self.kind {
                AgentKind::Query | AgentKind::Chat => {
                    if let Some(chat) = self.chat_mut() {
                        chat.scroll_back = if action == Action::Top {
                            usize::MAX / 2
                        } else {
                            0
                        }
                    }
                }
                AgentKind::Check => {
                    self.check.scroll = if action == Action::Top {
                        0
                    } else {
                        usize::MAX / 2
                    }
                }
                _ => return false,
            },
            Action::CopyReply => {
                let text = match self.kind {
                    AgentKind::Query => self.query.turns.last().map(|t| t.reply.text.clone()),
                    AgentKind::Chat => self.chat.turns.last().map(|t| t.reply.text.clone()),
                    AgentKind::Translate => Some(self.translate.reply.text.clone()),
                    AgentKind::Check => Some(self.check.reply.text.clone()),
                    _ => None,
                };
                match text.filter(|t| !t.is_empty()) {
                    Some(t) => ctx.copy_long(&t, "copied the reply".into()),
                    None => return false,
                }
            }
            Action::ClearChat if self.kind.is_chat() => {
                if self.cancel() {
                    return true;
                }
                if let Some(chat) = self.chat_mut() {
                    chat.clear();
                }
            }
            _ => return false,
        }
        true
    }

    /// Enter: open the chat's selected article, show or apply a review.
    fn apply(&mut self, ctx: &mut Cx) -> bool {
        let memory = ctx.memory;
        if let Some(chat) = self.chat_mut() {
            let Some(rel) = chat.selected_article() else {
                return false;
            };
            // The file may have gone since the question; a withheld one is
            // opened too (it is the user's own).
            if memory.find(rel).is_some() {
                ctx.effects.push(Effect::open(rel.to_owned()));
            } else {
                ctx.warn(format!(
                    "{} is no longer in {}",
                    sanitize_for_terminal(rel, false),
                    memory.spec().title
                ));
            }
            return true;
        }
        if self.kind == AgentKind::Check && !self.check.show_review {
            if self.check.review.is_some() {
                self.check.show_review = true;
                return true;
            }
            return false;
        }
        let root = ctx.memory.root().to_path_buf();
        let Some(review) = self.review_mut() else {
            return false;
        };
        if review.is_applied() {
            // A second Enter closes the result.
            match self.kind {
                AgentKind::Inbox => self.inbox.review = None,
                AgentKind::Check => {
                    self.check.review = None;
                    self.check.show_review = false;
                }
                AgentKind::Distill => self.distill.review = None,
                AgentKind::Writeback => self.writeback.review = None,
                _ => {}
            }
            return true;
        }
        let n = review.accepted();
        if n > 1 {
            let archived = review.notes_to_archive();
            let question = format!("Write {}? y/N", guard::files(n));
            let mut detail = match archived {
                0 => None,
                1 => Some("1 inbox note is stamped and archived.".to_owned()),
                m => Some(format!("{m} inbox notes are stamped and archived.")),
            };
            // Named before the write, not found out after it.
            let staying = review.notes_too_large_to_stamp();
            if staying > 0 {
                let said = format!(
                    "{} stay in the inbox: a compiled_to stamp listing every file would make \
                     the frontmatter too large.",
                    crate::plural::count(staying, "note")
                );
                detail = Some(match detail {
                    Some(d) => format!("{d} {said}"),
                    None => said,
                });
            }
            if self.ask_first(Action::Apply, question, detail, ctx.effects) {
                return true;
            }
        }
        let Some(review) = self.review_mut() else {
            return false;
        };
        let applied = review.apply(&root);
        if let Some(why) = applied.failed {
            ctx.warn(why);
            return true;
        }
        if !applied.stale.is_empty() {
            ctx.warn(format!(
                "{} changed on disk since it was shown; review the new diff and press Enter again",
                applied.stale.join(", ")
            ));
            return true;
        }
        ctx.effects.push(Effect::Wrote(applied.changed));
        ctx.info(format!(
            "wrote {}",
            crate::plural::count(applied.written, "file")
        ));
        true
    }
}

impl Component for AgentsPane {
    fn scope(&self) -> Scope {
        Scope::Agents
    }

    /// With the provider and model once known ("provider · model"; the
    /// address is left to the docs and the log).
    fn title(&self) -> String {
        match self.connection.describe() {
            Some(Ok(_)) if self.connection.is_guess() => "Agents — no model set up".to_owned(),
            Some(Err(_)) => "Agents — no model can be used".to_owned(),
            Some(Ok(summary)) => {
                let model = summary.splitn(3, " · ").take(2).collect::<Vec<_>>();
                format!("Agents — {}", model.join(" · "))
            }
            _ => "Agents".to_owned(),
        }
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let changed = self.action(action, cx);
        self.style_inputs(cx.theme);
        changed
    }

    fn is_typing(&self) -> bool {
        self.editing
    }

    fn on_typing_key(&mut self, key: KeyEvent, cx: &mut Cx) -> bool {
        let changed = self.edit_key(key, cx);
        self.style_inputs(cx.theme);
        changed
    }

    fn on_paste(&mut self, text: &str, cx: &mut Cx) -> bool {
        if self.paste(text) {
            self.editing = true;
            self.style_inputs(cx.theme);
            return true;
        }
        false
    }

    /// Read the model configuration ahead, so the pane can say at once
    /// whether a model can be used.
    fn on_focus(&mut self) {
        self.connection.check_ahead();
    }

    fn hints(&self, keymap: &KeyMap) -> String {
        hint_line(keymap, self)
    }

    fn draw(&self, frame: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
        super::draw(frame, area, self, focused, theme);
    }
}

/// Key hints for the pane's bottom border, for the agent on screen.
fn hint_line(keymap: &KeyMap, pane: &AgentsPane) -> String {
    let review = match pane.kind {
        AgentKind::Inbox => pane.inbox.review.as_ref(),
        AgentKind::Check if pane.check.show_review => pane.check.review.as_ref(),
        AgentKind::Distill => pane.distill.review.as_ref(),
        AgentKind::Writeback => pane.writeback.review.as_ref(),
        _ => None,
    };
    let reviewing = review.is_some() || (pane.kind == AgentKind::Check && pane.check.show_review);
    if pane.editing {
        return if pane.busy() {
            "Esc leaves the input · then s stops the reply".to_owned()
        } else {
            "Esc leaves the input".to_owned()
        };
    }
    let pick: &[(Action, &str)] = if pane.busy() {
        &[(Action::CancelReply, "stop")]
    } else if review.is_some_and(Review::is_applied) {
        &[(Action::Apply, "close")]
    } else if reviewing {
        &[
            (Action::ToggleBlock, "toggle"),
            (Action::AcceptAll, "all"),
            (Action::Apply, "write"),
        ]
    } else {
        match pane.kind {
            // `x` clears a conversation; before the first reply it is a
            // letter of the question (see `guard`), so it is not named.
            AgentKind::Query | AgentKind::Chat if pane.has_reply() => &[
                (Action::Type, "ask"),
                (Action::Apply, "open"),
                (Action::ClearChat, "new"),
            ],
            AgentKind::Query | AgentKind::Chat => &[(Action::Type, "ask"), (Action::Apply, "open")],
            AgentKind::Inbox => &[(Action::ToggleBlock, "toggle"), (Action::RunAgent, "send")],
            AgentKind::Check => &[(Action::RunAgent, "run")],
            // `r` sends only right after Esc left the input (see `guard`).
            // `y` copies once there is a translation; before, it types.
            AgentKind::Translate => match (pane.left_input, pane.has_reply()) {
                (true, true) => &[
                    (Action::Type, "type"),
                    (Action::RunAgent, "run"),
                    (Action::CopyReply, "copy"),
                ],
                (true, false) => &[(Action::Type, "type"), (Action::RunAgent, "run")],
                (false, true) => &[(Action::Type, "type"), (Action::CopyReply, "copy")],
                (false, false) => &[(Action::Type, "type")],
            },
            AgentKind::Distill => &[(Action::Type, "path")],
            AgentKind::Writeback if pane.left_input => {
                &[(Action::Type, "notes"), (Action::RunAgent, "propose")]
            }
            AgentKind::Writeback => &[(Action::Type, "notes")],
        }
    };
    hint_text(keymap, pick)
}

/// The review's list height for a pane of `height` rows.
fn review_list_height(height: usize) -> usize {
    (height.saturating_sub(3) / 3).max(3)
}
