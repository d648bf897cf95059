//! The Agents pane: the five agents of spec §13.1 (Query, Process Inbox,
//! Health Check, Translate, Distill). Model calls run on `LlmWorker`; its
//! messages come back through `Msg::Llm`, so the interface never waits on
//! the network. Anything written to the bank goes through the review first.

pub mod check;
pub mod connection;
pub mod distill;
mod draw;
pub mod inbox;
mod input;
pub mod query;
pub mod review;
pub mod stream;
pub mod translate;

pub use draw::draw;

use std::path::Path;

use membank_core::bank::Bank;
use membank_core::health::HealthReport;
use membank_core::templates::{self, Agent};
use membank_core::text::sanitize_for_terminal;
use membank_llm::{ChatRequest, JobEvent, JobId, StreamEvent, WorkerMessage};
use ratatui_textarea::TextArea;

use self::review::Review;
use self::stream::Stream;
use super::Cx;
use crate::tui::app::Effect;
use crate::tui::theme::Theme;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AgentKind {
    #[default]
    Query,
    Inbox,
    Check,
    Translate,
    Distill,
}

impl AgentKind {
    pub const ALL: [AgentKind; 5] = [
        AgentKind::Query,
        AgentKind::Inbox,
        AgentKind::Check,
        AgentKind::Translate,
        AgentKind::Distill,
    ];

    pub fn title(self) -> &'static str {
        match self {
            AgentKind::Query => "Query",
            AgentKind::Inbox => "Inbox",
            AgentKind::Check => "Check",
            AgentKind::Translate => "Translate",
            AgentKind::Distill => "Distill",
        }
    }

    fn template(self) -> Agent {
        match self {
            AgentKind::Query => Agent::Query,
            AgentKind::Inbox => Agent::Compile,
            AgentKind::Check => Agent::Lint,
            AgentKind::Translate => Agent::Translate,
            AgentKind::Distill => Agent::Distill,
        }
    }

    /// Agents with a text input.
    fn has_input(self) -> bool {
        matches!(
            self,
            AgentKind::Query | AgentKind::Translate | AgentKind::Distill
        )
    }
}

#[derive(Default)]
pub struct AgentsPane {
    pub kind: AgentKind,
    /// Keys go to the agent's text input.
    pub editing: bool,
    pub query: query::QueryAgent,
    pub inbox: inbox::InboxAgent,
    pub check: check::CheckAgent,
    pub translate: translate::TranslateAgent,
    pub distill: distill::DistillAgent,
    pub connection: connection::ModelConnection,
    /// The call in flight and the agent it belongs to (one at a time).
    job: Option<(JobId, AgentKind)>,
    /// Why the last run could not start (shown in the pane).
    pub problem: Option<String>,
}

impl AgentsPane {
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Style the text inputs for whether they have the keyboard; after
    /// every change, never while drawing.
    pub fn style_inputs(&mut self, theme: &Theme) {
        let typing = |kind: AgentKind| self.editing && self.kind == kind;
        let (q, t, d) = (
            typing(AgentKind::Query),
            typing(AgentKind::Translate),
            typing(AgentKind::Distill),
        );
        draw::style_input(&mut self.query.input, q, theme);
        self.query.set_theme(theme);
        draw::style_input(&mut self.translate.input, t, theme);
        draw::style_input(&mut self.distill.input, d, theme);
    }

    /// Wrap every reply at the pane's new width.
    pub fn set_width(&mut self, width: usize) {
        self.query.set_width(width);
        for s in [
            &mut self.inbox.reply,
            &mut self.check.reply,
            &mut self.translate.reply,
            &mut self.distill.reply,
        ] {
            s.set_width(width);
        }
    }

    /// Recompute what is derived from the bank (pending inbox, findings).
    pub fn refresh(&mut self, bank: &Bank, health: &HealthReport) {
        self.inbox.refresh(bank);
        if self.kind == AgentKind::Check && !self.check.reply.is_running() {
            self.check.refresh(health);
        }
    }

    fn select(&mut self, kind: AgentKind, bank: &Bank, health: &HealthReport) {
        self.kind = kind;
        self.editing = false;
        self.problem = None;
        match kind {
            AgentKind::Inbox => self.inbox.refresh(bank),
            AgentKind::Check if !self.check.reply.is_running() => self.check.refresh(health),
            _ => {}
        }
    }

    fn stream_mut(&mut self, kind: AgentKind) -> Option<&mut Stream> {
        match kind {
            AgentKind::Query => self.query.current(),
            AgentKind::Inbox => Some(&mut self.inbox.reply),
            AgentKind::Check => Some(&mut self.check.reply),
            AgentKind::Translate => Some(&mut self.translate.reply),
            AgentKind::Distill => Some(&mut self.distill.reply),
        }
    }

    /// The review on screen, if the current agent shows one.
    fn review_mut(&mut self) -> Option<&mut Review> {
        match self.kind {
            AgentKind::Inbox => self.inbox.review.as_mut(),
            AgentKind::Check if self.check.show_review => self.check.review.as_mut(),
            AgentKind::Distill => self.distill.review.as_mut(),
            _ => None,
        }
    }

    fn input_mut(&mut self) -> Option<&mut TextArea<'static>> {
        match self.kind {
            AgentKind::Query => Some(&mut self.query.input),
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
        self.connection.cancel(job);
        if let Some(s) = self.stream_mut(kind) {
            s.mark_cancelled();
        }
        true
    }

    /// A call that never reached the model.
    fn end_unstarted(&mut self, kind: AgentKind, why: String) {
        self.job = None;
        if kind == AgentKind::Query {
            self.query.on_failed(why);
        } else if let Some(s) = self.stream_mut(kind) {
            s.fail(why);
        }
    }

    fn template(&mut self, bank: &Bank, effects: &mut Vec<Effect>) -> String {
        let t = templates::resolve_with(bank.reader(), self.kind.template());
        if let Some(w) = &t.warning {
            effects.push(Effect::Warn(sanitize_for_terminal(w, false)));
        }
        t.text
    }

    /// Run the current agent.
    pub fn run(&mut self, ctx: &mut Cx) -> bool {
        if self.job.is_some() {
            ctx.effects
                .push(Effect::Warn("a reply is still arriving; s stops it".into()));
            return true;
        }
        let Some(bank) = ctx.bank else {
            return false;
        };
        self.editing = false;
        let template = self.template(bank, ctx.effects);
        let request: Result<ChatRequest, String> = match self.kind {
            AgentKind::Query => self
                .query
                .ask(bank, &template, ctx.query.clone(), ctx.budget)
                .ok_or_else(|| "type a question first (i)".to_owned()),
            AgentKind::Inbox => self.inbox.prepare(bank, &template),
            AgentKind::Check => Ok(self.check.prepare(bank, ctx.health, &template)),
            AgentKind::Translate => {
                // Without them the context holds no client profile or
                // language-specific terms; it still runs, but say so.
                let mut missing = Vec::new();
                if ctx.query.client.is_none() {
                    missing.push("client");
                }
                if ctx.query.source_lang.is_none() && ctx.query.target_lang.is_none() {
                    missing.push("language");
                }
                if !missing.is_empty() {
                    ctx.effects.push(Effect::Warn(format!(
                        "Translate: no {} set in the Context pane, so the context has no \
                         client profile or language match",
                        missing.join(" or ")
                    )));
                }
                self.translate
                    .prepare(bank, &template, &ctx.query, ctx.budget)
            }
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
        match self.connection.submit(request) {
            Ok(job) => {
                self.problem = None;
                self.job = Some((job, kind));
            }
            Err(e) => {
                self.end_unstarted(kind, e.clone());
                self.problem = Some(e);
            }
        }
        true
    }

    /// One message from the model connection. Returns whether the pane
    /// changed.
    pub fn on_message(
        &mut self,
        message: WorkerMessage,
        root: &Path,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let no_model = self.connection.note(&message);
        let Some((_, kind)) = self.job.filter(|(job, _)| *job == message.job) else {
            // A configuration check, or a job stopped before: only what it
            // said about the model matters, and the notice may change.
            return no_model.is_some() || matches!(message.event, JobEvent::Connected { .. });
        };
        match message.event {
            JobEvent::Connected { .. } => {
                if let Some(Ok(model)) = self.connection.describe() {
                    effects.push(Effect::Info(format!("{}: asking {model}", kind.title())));
                }
                true
            }
            JobEvent::Stream(event) => {
                if let Some(why) = no_model {
                    self.problem = Some(why.clone());
                    if let Some(s) = self.stream_mut(kind) {
                        s.note_error(why);
                    }
                    // The `Done` that follows ends the call.
                    return true;
                }
                self.on_worker(event, kind, root, effects)
            }
        }
    }

    fn on_worker(
        &mut self,
        event: StreamEvent,
        kind: AgentKind,
        root: &Path,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let finished = if kind == AgentKind::Query {
            self.query.on_event(event)
        } else {
            self.stream_mut(kind).and_then(|s| s.apply(event))
        };
        if let Some(f) = finished {
            self.job = None;
            let complete = f.complete;
            match kind {
                AgentKind::Inbox => self.inbox.finish(root, f),
                AgentKind::Check => self.check.finish(root, f),
                AgentKind::Distill => self.distill.finish(root, f),
                AgentKind::Query | AgentKind::Translate => {}
            }
            effects.push(if complete {
                Effect::Info(format!("{}: reply complete", kind.title()))
            } else {
                Effect::Warn(format!("{}: the reply is incomplete", kind.title()))
            });
        }
        true
    }
}
