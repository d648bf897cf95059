//! What keeps the Agents pane from costing money or losing work by
//! accident: the question before quitting with a reply or a review
//! unwritten (and the reply kept on the way out), letters typed outside the
//! input going into it, and the questions before sending inbox notes or
//! deciding several files at once.

use std::path::Path;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::review::Review;
use super::{AgentKind, AgentsPane};
use crate::tui::keys::Action;
use crate::tui::messages::Effect;
use crate::tui::widgets::confirm::{Confirm, OnYes};

impl AgentsPane {
    /// What quitting now would leave undone, worded for the question
    /// ("2 accepted files not written"); `None` when nothing would be lost.
    pub fn unfinished(&self) -> Option<String> {
        if self.busy() {
            return Some("a reply is still arriving".into());
        }
        let open: Vec<&Review> = self.open_reviews().collect();
        let accepted: usize = open.iter().map(|r| r.accepted()).sum();
        match (accepted, open.is_empty()) {
            (0, true) => None,
            (0, false) => Some("a review is open, nothing written".into()),
            (1, _) => Some("1 accepted file not written".into()),
            (n, _) => Some(format!("{n} accepted files not written")),
        }
    }

    /// Reviews shown or waiting that have not been written.
    fn open_reviews(&self) -> impl Iterator<Item = &Review> {
        [
            self.inbox.review.as_ref(),
            self.check.review.as_ref(),
            self.distill.review.as_ref(),
            self.writeback.review.as_ref(),
        ]
        .into_iter()
        .flatten()
        .filter(|r| !r.is_applied())
    }

    /// Save, on the way out, each reply that would otherwise be lost: the
    /// one arriving and those of unwritten reviews. Returns what to tell
    /// the user, one line each (a path, or why nothing was saved).
    pub fn keep_replies(&self, root: &Path, now: jiff::civil::DateTime) -> Vec<String> {
        // (kind, text, whether it arrived whole): the one arriving has not.
        let mut replies: Vec<(AgentKind, &str, bool)> = Vec::new();
        if let Some((_, kind)) = self.job {
            let text = match kind {
                AgentKind::Query => self.query.turns.last().map(|t| t.reply.text.as_str()),
                AgentKind::Chat => self.chat.turns.last().map(|t| t.reply.text.as_str()),
                AgentKind::Inbox => Some(self.inbox.reply.text.as_str()),
                AgentKind::Check => Some(self.check.reply.text.as_str()),
                AgentKind::Translate => Some(self.translate.reply.text.as_str()),
                AgentKind::Distill => Some(self.distill.reply.text.as_str()),
                AgentKind::Writeback => Some(self.writeback.reply.text.as_str()),
            };
            replies.extend(text.map(|t| (kind, t, false)));
        }
        for (kind, review) in [
            (AgentKind::Inbox, &self.inbox.review),
            (AgentKind::Check, &self.check.review),
            (AgentKind::Distill, &self.distill.review),
            (AgentKind::Writeback, &self.writeback.review),
        ] {
            if let Some(r) = review.as_ref().filter(|r| !r.is_applied()) {
                replies.push((kind, r.reply(), true));
            }
        }
        let mut said = Vec::new();
        for (kind, text, complete) in replies {
            let name = kind.title().to_lowercase();
            match crate::saved_reply::save(root, text, now, &name, complete) {
                Ok(Some(path)) => said.push(format!(
                    "the {} reply is saved in {}",
                    kind.title(),
                    membank_core::text::sanitize_for_terminal(&path.display().to_string(), false)
                )),
                Ok(None) => {}
                Err(e) => said.push(format!("warning: {} reply: {e}", kind.title())),
            }
        }
        said
    }

    /// Whether a key pressed outside the input is a letter meant for it:
    /// a plain character that does nothing in the agent on screen. The
    /// letters that do something are the ones its hints and help name.
    pub fn is_stray_letter(&self, key: &KeyEvent, action: Option<Action>) -> bool {
        let KeyCode::Char(c) = key.code else {
            return false;
        };
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        if !plain || c.is_ascii_digit() || !self.kind.has_input() || self.shows_review() {
            return false;
        }
        let Some(action) = action else {
            return true;
        };
        let chat = self.kind.is_chat();
        let has_reply = self.has_reply();
        let live = match action {
            Action::Quit | Action::Help | Action::Find | Action::Type => true,
            Action::CancelReply => self.busy(),
            // The chats and Distill send with Enter from the input; the
            // others with `r` right after leaving it with Esc, never from
            // a letter typed before `i` or after a reply.
            Action::RunAgent => !chat && self.kind != AgentKind::Distill && self.left_input,
            Action::Up | Action::Down | Action::Top | Action::Bottom => chat,
            Action::CopyReply => has_reply,
            Action::ClearChat => chat && has_reply,
            _ => false,
        };
        !live
    }

    /// Whether the agent on screen has a reply to copy or a conversation
    /// to clear: until then `y` and `x` are letters of the input, and the
    /// hints do not name them.
    pub(super) fn has_reply(&self) -> bool {
        match self.kind {
            AgentKind::Query => !self.query.turns.is_empty(),
            AgentKind::Chat => !self.chat.turns.is_empty(),
            AgentKind::Translate => !self.translate.reply.text.is_empty(),
            _ => false,
        }
    }

    /// Whether a review has the pane (its keys are not typing keys).
    fn shows_review(&self) -> bool {
        match self.kind {
            AgentKind::Inbox => self.inbox.review.is_some(),
            AgentKind::Check => self.check.show_review,
            AgentKind::Distill => self.distill.review.is_some(),
            AgentKind::Writeback => self.writeback.review.is_some(),
            _ => false,
        }
    }

    /// The user said yes to `action`: the next time it comes it goes ahead.
    pub fn approve(&mut self, action: Action) {
        self.approved = Some(action);
    }

    pub fn forget_approval(&mut self) {
        self.approved = None;
    }

    /// Whether `action` was approved just now (used up by asking).
    pub(super) fn take_approval(&mut self, action: Action) -> bool {
        self.approved.take() == Some(action)
    }

    /// Ask before `action`, unless it was just approved. Returns whether
    /// the question was put (so the action waits for the answer).
    pub(super) fn ask_first(
        &mut self,
        action: Action,
        question: String,
        detail: Option<String>,
        effects: &mut Vec<Effect>,
    ) -> bool {
        if self.take_approval(action) {
            return false;
        }
        let mut confirm = Confirm::new(question, OnYes::Agents(action));
        if let Some(d) = detail {
            confirm = confirm.detail(d);
        }
        effects.push(Effect::Ask(confirm));
        true
    }
}

/// "1 file", "3 files".
pub(super) fn files(n: usize) -> String {
    if n == 1 {
        "1 file".into()
    } else {
        format!("{n} files")
    }
}
