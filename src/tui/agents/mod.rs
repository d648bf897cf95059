//! The Agents pane: the five agents of spec §13.1 (Query, Process Inbox,
//! Health Check, Translate, Distill). Model calls run on `LlmWorker`; its
//! messages come back through `Msg::Llm`, so the interface never waits on
//! the network. Anything written to the bank goes through the review first.

pub mod chat;
pub mod distill;
pub mod inbox;
pub mod link;
pub mod lint;
pub mod review;
pub mod stream;
pub mod translate;

use std::path::Path;

use membank_core::bank::Bank;
use membank_core::budget::BudgetOptions;
use membank_core::scoring::Query;
use membank_core::templates::{self, Agent};
use membank_core::text::sanitize_for_terminal;
use membank_llm::{ChatRequest, JobId, WorkerMessage};
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui_textarea::TextArea;

use self::link::{LinkEvent, Submitted};
use self::review::Review;
use self::stream::Stream;
use super::keys::{Action, KeyMap};
use super::theme::Theme;
use super::widgets::wrap::wrap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AgentKind {
    #[default]
    Chat,
    Inbox,
    Lint,
    Translate,
    Distill,
}

impl AgentKind {
    pub const ALL: [AgentKind; 5] = [
        AgentKind::Chat,
        AgentKind::Inbox,
        AgentKind::Lint,
        AgentKind::Translate,
        AgentKind::Distill,
    ];

    pub fn title(self) -> &'static str {
        match self {
            AgentKind::Chat => "Query",
            AgentKind::Inbox => "Inbox",
            AgentKind::Lint => "Check",
            AgentKind::Translate => "Translate",
            AgentKind::Distill => "Distill",
        }
    }

    fn template(self) -> Agent {
        match self {
            AgentKind::Chat => Agent::Query,
            AgentKind::Inbox => Agent::Compile,
            AgentKind::Lint => Agent::Lint,
            AgentKind::Translate => Agent::Translate,
            AgentKind::Distill => Agent::Distill,
        }
    }

    /// Agents with a text input.
    fn has_input(self) -> bool {
        matches!(
            self,
            AgentKind::Chat | AgentKind::Translate | AgentKind::Distill
        )
    }
}

/// What the pane needs from the rest of the app for one call.
pub struct AgentCtx<'a> {
    pub bank: &'a Bank,
    pub query: Query,
    pub budget: BudgetOptions,
    /// Rows inside the pane.
    pub height: usize,
}

/// Things only the app can do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentEffect {
    OpenArticle(String),
    Copy(String),
    /// Files were written: read the bank again.
    ReloadBank,
    Info(String),
    Warn(String),
}

#[derive(Default)]
pub struct AgentsPane {
    pub kind: AgentKind,
    /// Keys go to the agent's text input.
    pub editing: bool,
    pub chat: chat::ChatAgent,
    pub inbox: inbox::InboxAgent,
    pub lint: lint::LintAgent,
    pub translate: translate::TranslateAgent,
    pub distill: distill::DistillAgent,
    pub llm: link::LlmLink,
    /// The call in flight and the agent it belongs to (one at a time);
    /// no id yet while the model configuration is being read.
    job: Option<(Option<JobId>, AgentKind)>,
    /// Why the last run could not start (shown in the pane).
    pub problem: Option<String>,
    pub effects: Vec<AgentEffect>,
}

impl AgentsPane {
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Recompute what is derived from the bank (pending inbox, findings).
    pub fn refresh(&mut self, bank: &Bank) {
        self.inbox.refresh(bank);
        if self.kind == AgentKind::Lint && !self.lint.reply.is_running() {
            self.lint.refresh(bank);
        }
    }

    fn select(&mut self, kind: AgentKind, bank: &Bank) {
        self.kind = kind;
        self.editing = false;
        self.problem = None;
        match kind {
            AgentKind::Inbox => self.inbox.refresh(bank),
            AgentKind::Lint if !self.lint.reply.is_running() => self.lint.refresh(bank),
            _ => {}
        }
    }

    fn stream_mut(&mut self, kind: AgentKind) -> Option<&mut Stream> {
        match kind {
            AgentKind::Chat => self.chat.current(),
            AgentKind::Inbox => Some(&mut self.inbox.reply),
            AgentKind::Lint => Some(&mut self.lint.reply),
            AgentKind::Translate => Some(&mut self.translate.reply),
            AgentKind::Distill => Some(&mut self.distill.reply),
        }
    }

    /// The review on screen, if the current agent shows one.
    fn review_mut(&mut self) -> Option<&mut Review> {
        match self.kind {
            AgentKind::Inbox => self.inbox.review.as_mut(),
            AgentKind::Lint if self.lint.show_review => self.lint.review.as_mut(),
            AgentKind::Distill => self.distill.review.as_mut(),
            _ => None,
        }
    }

    fn input_mut(&mut self) -> Option<&mut TextArea<'static>> {
        match self.kind {
            AgentKind::Chat => Some(&mut self.chat.input),
            AgentKind::Translate => Some(&mut self.translate.input),
            AgentKind::Distill => Some(&mut self.distill.input),
            _ => None,
        }
    }

    /// Stop the reply in flight; its text is kept and marked incomplete
    /// when the worker confirms.
    pub fn cancel(&mut self) -> bool {
        let Some((job, kind)) = self.job else {
            return false;
        };
        match job {
            Some(job) => {
                self.llm.cancel(job);
                if let Some(s) = self.stream_mut(kind) {
                    s.mark_cancelled();
                }
            }
            // Not sent yet: nothing will arrive, so it ends here.
            None => {
                self.llm.drop_queued();
                self.end_unstarted(kind, "stopped with Esc".into());
            }
        }
        true
    }

    /// A call that never reached the model.
    fn end_unstarted(&mut self, kind: AgentKind, why: String) {
        self.job = None;
        if kind == AgentKind::Chat {
            self.chat.on_failed(why);
        } else if let Some(s) = self.stream_mut(kind) {
            s.fail(why);
        }
    }

    fn template(&mut self, root: &Path) -> String {
        let t = templates::resolve(root, self.kind.template());
        if let Some(w) = &t.warning {
            self.effects
                .push(AgentEffect::Warn(sanitize_for_terminal(w, false)));
        }
        t.text
    }

    /// Run the current agent.
    pub fn run(&mut self, ctx: &AgentCtx) -> bool {
        if self.job.is_some() {
            self.effects.push(AgentEffect::Warn(
                "a reply is still arriving; Esc stops it".into(),
            ));
            return true;
        }
        self.editing = false;
        let template = self.template(ctx.bank.root());
        let request: Result<ChatRequest, String> = match self.kind {
            AgentKind::Chat => self
                .chat
                .ask(ctx.bank, &template, ctx.query.clone(), ctx.budget)
                .ok_or_else(|| "type a question first (i)".to_owned()),
            AgentKind::Inbox => self.inbox.prepare(ctx.bank, &template),
            AgentKind::Lint => Ok(self.lint.prepare(ctx.bank, &template)),
            AgentKind::Translate => self
                .translate
                .prepare(ctx.bank, &template, &ctx.query, ctx.budget),
            AgentKind::Distill => {
                let cwd = std::env::current_dir().unwrap_or_default();
                self.distill.prepare(&cwd, &template, &ctx.query)
            }
        };
        let request = match request {
            Ok(r) => r,
            Err(e) => {
                self.problem = Some(e);
                return true;
            }
        };
        let kind = self.kind;
        if let Some(s) = self.stream_mut(kind) {
            s.start();
        }
        match self.llm.submit(request) {
            Ok(submitted) => {
                self.problem = None;
                let job = match submitted {
                    Submitted::Started(job) => Some(job),
                    Submitted::Resolving => None,
                };
                self.job = Some((job, kind));
                self.announce_model(kind);
            }
            Err(e) => {
                self.end_unstarted(kind, e.clone());
                self.problem = Some(e);
            }
        }
        true
    }

    fn announce_model(&mut self, kind: AgentKind) {
        if let Some(Ok(model)) = self.llm.describe() {
            self.effects.push(AgentEffect::Info(format!(
                "{}: asking {model}",
                kind.title()
            )));
        }
    }

    /// One event from the link. Returns whether the pane changed.
    pub fn on_link(&mut self, event: LinkEvent, root: &Path) -> bool {
        if matches!(event, LinkEvent::Checked) {
            // The notice may have changed.
            return true;
        }
        let Some((job, kind)) = self.job else {
            return false;
        };
        match event {
            LinkEvent::Started(id) if job.is_none() => {
                self.job = Some((Some(id), kind));
                self.announce_model(kind);
                true
            }
            LinkEvent::Failed(why) if job.is_none() => {
                self.end_unstarted(kind, why.clone());
                self.problem = Some(why);
                true
            }
            LinkEvent::Worker(msg) if job == Some(msg.job) => self.on_worker(msg, kind, root),
            _ => false,
        }
    }

    fn on_worker(&mut self, msg: WorkerMessage, kind: AgentKind, root: &Path) -> bool {
        let finished = if kind == AgentKind::Chat {
            self.chat.on_event(msg.event)
        } else {
            self.stream_mut(kind).and_then(|s| s.apply(msg.event))
        };
        if let Some(f) = finished {
            self.job = None;
            let complete = f.complete;
            match kind {
                AgentKind::Inbox => self.inbox.finish(root, f),
                AgentKind::Lint => self.lint.finish(root, f),
                AgentKind::Distill => self.distill.finish(root, f),
                AgentKind::Chat | AgentKind::Translate => {}
            }
            self.effects.push(if complete {
                AgentEffect::Info(format!("{}: reply complete", kind.title()))
            } else {
                AgentEffect::Warn(format!("{}: the reply is incomplete", kind.title()))
            });
        }
        true
    }

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
        let lines = review.apply(&root);
        let written = lines
            .iter()
            .filter(|l| l.starts_with("created") || l.starts_with("updated"))
            .count();
        self.effects.push(AgentEffect::ReloadBank);
        self.effects
            .push(AgentEffect::Info(format!("wrote {written} file(s)")));
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

fn draw_tabs(frame: &mut Frame, area: Rect, pane: &AgentsPane, theme: &Theme) {
    let mut spans = Vec::new();
    for (i, kind) in AgentKind::ALL.iter().enumerate() {
        let style = if *kind == pane.kind {
            theme.selection
        } else {
            theme.muted
        };
        spans.push(Span::styled(format!("{} {} ", i + 1, kind.title()), style));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

pub fn draw(frame: &mut Frame, area: Rect, pane: &AgentsPane, focused: bool, theme: &Theme) {
    let notice = pane
        .problem
        .clone()
        .or_else(|| pane.llm.describe().and_then(Result::err));
    let width = usize::from(area.width);
    let mut notice_lines: Vec<Line> = Vec::new();
    if let Some(text) = notice {
        let unavailable = pane.llm.describe().is_some_and(|d| d.is_err());
        notice_lines.extend(
            wrap(&text, width)
                .into_iter()
                .map(|r| Line::styled(r, theme.error)),
        );
        if unavailable {
            notice_lines.extend(
                wrap(link::SETUP_HINT, width)
                    .into_iter()
                    .map(|r| Line::styled(r, theme.muted)),
            );
        }
    }
    // The notice never takes more than half the pane.
    notice_lines.truncate(usize::from(area.height / 2));
    let [tabs, note, body] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(notice_lines.len() as u16),
        Constraint::Fill(1),
    ])
    .areas(area);
    draw_tabs(frame, tabs, pane, theme);
    frame.render_widget(Paragraph::new(notice_lines), note);
    let editing = pane.editing && focused;
    match pane.kind {
        AgentKind::Chat => chat::draw(frame, body, &pane.chat, editing, focused, theme),
        AgentKind::Inbox => inbox::draw(frame, body, &pane.inbox, focused, theme),
        AgentKind::Lint => lint::draw(frame, body, &pane.lint, focused, theme),
        AgentKind::Translate => translate::draw(frame, body, &pane.translate, editing, theme),
        AgentKind::Distill => distill::draw(frame, body, &pane.distill, editing, focused, theme),
    }
}
