//! The Agents pane: on a bank the five agents of spec §13.1 (Query,
//! Process Inbox, Health Check, Translate, Distill); on a Deja Vu project a
//! chat over recall and the writeback (`panes::slot` says which a layout
//! gets). Model calls run on `LlmWorker`; its messages come back through
//! `Msg::Llm`, so the interface never waits on the network. Anything
//! written goes through the review first.

pub mod check;
pub mod connection;
pub mod distill;
mod draw;
mod guard;
pub mod inbox;
mod input;
pub mod query;
pub mod recall_chat;
pub mod review;
pub mod stream;
pub mod translate;
pub mod writeback;

pub use draw::draw;

use membank_core::bank::Bank;
use membank_core::clock::Clock;
use membank_core::dejavu::Project;
use membank_core::health::HealthReport;
use membank_core::memory::Memory;
use membank_core::templates::{self, Agent};
use membank_core::text::sanitize_for_terminal;
use membank_llm::{ChatRequest, JobEvent, JobId, StreamEvent, WorkerMessage};
use ratatui_textarea::TextArea;

use self::review::Review;
use self::stream::Stream;
use super::Cx;
use crate::tui::messages::Effect;
use crate::tui::theme::Theme;
use crate::tui::widgets::confirm::{Confirm, OnYes};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AgentKind {
    #[default]
    Query,
    Inbox,
    Check,
    Translate,
    Distill,
    /// A Deja Vu project's chat: the question is the recall cue.
    Chat,
    /// A Deja Vu project's writeback of notes into records.
    Writeback,
}

impl AgentKind {
    /// The agents of a memory bank (spec §13.1), in the order of their keys.
    pub const BANK: [AgentKind; 5] = [
        AgentKind::Query,
        AgentKind::Inbox,
        AgentKind::Check,
        AgentKind::Translate,
        AgentKind::Distill,
    ];

    /// The agents of a Deja Vu project.
    pub const DEJAVU: [AgentKind; 2] = [AgentKind::Chat, AgentKind::Writeback];

    pub fn title(self) -> &'static str {
        match self {
            AgentKind::Query => "Query",
            AgentKind::Inbox => "Inbox",
            AgentKind::Check => "Check",
            AgentKind::Translate => "Translate",
            AgentKind::Distill => "Distill",
            AgentKind::Chat => "Chat",
            AgentKind::Writeback => "Writeback",
        }
    }

    /// The bank template a bank agent starts from.
    fn template(self) -> Option<Agent> {
        Some(match self {
            AgentKind::Query => Agent::Query,
            AgentKind::Inbox => Agent::Compile,
            AgentKind::Check => Agent::Lint,
            AgentKind::Translate => Agent::Translate,
            AgentKind::Distill => Agent::Distill,
            AgentKind::Chat | AgentKind::Writeback => return None,
        })
    }

    /// Agents with a text input.
    fn has_input(self) -> bool {
        !matches!(self, AgentKind::Inbox | AgentKind::Check)
    }

    /// Agents whose input Enter sends (a one-line question or path); the
    /// others take text of many lines, sent with `r`.
    fn sends_on_enter(self) -> bool {
        matches!(
            self,
            AgentKind::Query | AgentKind::Chat | AgentKind::Distill
        )
    }

    /// The chats, whose turns list the files they sent.
    fn is_chat(self) -> bool {
        matches!(self, AgentKind::Query | AgentKind::Chat)
    }
}

#[derive(Default)]
pub struct AgentsPane {
    /// The agents the open layout offers, in the order of their keys.
    pub offered: &'static [AgentKind],
    pub kind: AgentKind,
    /// Keys go to the agent's text input.
    pub editing: bool,
    pub query: query::QueryAgent,
    pub inbox: inbox::InboxAgent,
    pub check: check::CheckAgent,
    pub translate: translate::TranslateAgent,
    pub distill: distill::DistillAgent,
    /// The chat over a Deja Vu project's recall.
    pub chat: query::QueryAgent,
    pub writeback: writeback::WritebackAgent,
    pub connection: connection::ModelConnection,
    /// The call in flight and the agent it belongs to (one at a time).
    job: Option<(JobId, AgentKind)>,
    /// Why the last run could not start (shown in the pane).
    pub problem: Option<String>,
    /// An action the user just said yes to (see `guard`).
    approved: Option<crate::tui::keys::Action>,
    /// The user agreed to send inbox notes; asked once per run.
    inbox_agreed: bool,
    /// The input was just left with Esc: `r` then sends what it holds
    /// (anywhere else `r` is a letter typed into it).
    left_input: bool,
    /// A warning the run in flight started with, said again when it ends.
    run_warning: Option<String>,
    /// A question already warned about going out with an empty context:
    /// sending it again sends it.
    warned_empty: Option<String>,
}

impl AgentsPane {
    /// The pane with these agents, the first one on screen.
    pub fn offering(offered: &'static [AgentKind]) -> AgentsPane {
        AgentsPane {
            offered,
            kind: offered.first().copied().unwrap_or_default(),
            chat: query::QueryAgent::new(recall_chat::WORDS),
            ..AgentsPane::default()
        }
    }

    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Style the text inputs for whether they have the keyboard; after
    /// every change, never while drawing.
    pub fn style_inputs(&mut self, theme: &Theme) {
        let typing = |kind: AgentKind| self.editing && self.kind == kind;
        let (q, t, d, c, w) = (
            typing(AgentKind::Query),
            typing(AgentKind::Translate),
            typing(AgentKind::Distill),
            typing(AgentKind::Chat),
            typing(AgentKind::Writeback),
        );
        draw::style_input(&mut self.query.input, q, theme);
        self.query.set_theme(theme);
        draw::style_input(&mut self.translate.input, t, theme);
        draw::style_input(&mut self.distill.input, d, theme);
        draw::style_input(&mut self.chat.input, c, theme);
        self.chat.set_theme(theme);
        draw::style_input(&mut self.writeback.input, w, theme);
    }

    /// Wrap every reply at the pane's new width.
    pub fn set_width(&mut self, width: usize) {
        self.query.set_width(width);
        self.chat.set_width(width);
        for s in [
            &mut self.writeback.reply,
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
        // An open review's diffs follow the files on disk.
        for review in [
            &mut self.inbox.review,
            &mut self.check.review,
            &mut self.distill.review,
        ]
        .into_iter()
        .flatten()
        {
            review.refresh_diffs(bank.root());
        }
        if self.kind == AgentKind::Check && !self.check.reply.is_running() {
            self.check.refresh(health);
        }
    }

    /// Show the agent at `place` (0 for the first key) of the offered ones.
    fn select(&mut self, place: usize, bank: Option<&Bank>, health: &HealthReport) -> bool {
        let Some(&kind) = self.offered.get(place) else {
            return false;
        };
        self.kind = kind;
        self.editing = false;
        self.left_input = false;
        self.problem = None;
        match (kind, bank) {
            (AgentKind::Inbox, Some(bank)) => self.inbox.refresh(bank),
            (AgentKind::Check, _) if !self.check.reply.is_running() => self.check.refresh(health),
            _ => {}
        }
        true
    }

    /// The chat on screen, if the current agent is one.
    fn chat_mut(&mut self) -> Option<&mut query::QueryAgent> {
        match self.kind {
            AgentKind::Query => Some(&mut self.query),
            AgentKind::Chat => Some(&mut self.chat),
            _ => None,
        }
    }

    fn stream_mut(&mut self, kind: AgentKind) -> Option<&mut Stream> {
        match kind {
            AgentKind::Query => self.query.current(),
            AgentKind::Chat => self.chat.current(),
            AgentKind::Inbox => Some(&mut self.inbox.reply),
            AgentKind::Check => Some(&mut self.check.reply),
            AgentKind::Translate => Some(&mut self.translate.reply),
            AgentKind::Distill => Some(&mut self.distill.reply),
            AgentKind::Writeback => Some(&mut self.writeback.reply),
        }
    }

    /// The review on screen, if the current agent shows one.
    fn review_mut(&mut self) -> Option<&mut Review> {
        match self.kind {
            AgentKind::Inbox => self.inbox.review.as_mut(),
            AgentKind::Check if self.check.show_review => self.check.review.as_mut(),
            AgentKind::Distill => self.distill.review.as_mut(),
            AgentKind::Writeback => self.writeback.review.as_mut(),
            _ => None,
        }
    }

    fn input_mut(&mut self) -> Option<&mut TextArea<'static>> {
        match self.kind {
            AgentKind::Query => Some(&mut self.query.input),
            AgentKind::Translate => Some(&mut self.translate.input),
            AgentKind::Distill => Some(&mut self.distill.input),
            AgentKind::Chat => Some(&mut self.chat.input),
            AgentKind::Writeback => Some(&mut self.writeback.input),
            AgentKind::Inbox | AgentKind::Check => None,
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
        } else if kind == AgentKind::Chat {
            self.chat.on_failed(why);
        } else if let Some(s) = self.stream_mut(kind) {
            s.fail(why);
        }
    }

    fn template(bank: &Bank, agent: Agent, effects: &mut Vec<Effect>) -> String {
        let t = templates::resolve_with(bank.reader(), agent);
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
        self.editing = false;
        self.left_input = false;
        // Asking again replaces the review on screen: never by accident.
        if let Some(n) = self
            .review_mut()
            .filter(|r| !r.is_applied())
            .map(|r| r.accepted())
        {
            let question = format!(
                "Ask the model again and drop this review ({} accepted, not written)? y/N",
                guard::files(n)
            );
            let action = crate::tui::keys::Action::RunAgent;
            if self.ask_first(action, question, None, ctx.effects) {
                return true;
            }
        }
        if self.kind == AgentKind::Inbox && !self.inbox_agreed {
            let (n, bytes) = self.inbox.selected();
            if n == 0 {
                self.problem = Some(if self.inbox.pending.is_empty() {
                    "00_INBOX/ has no pending files; put new notes there first".into()
                } else {
                    "no inbox note is selected; Space selects one".into()
                });
                return true;
            }
            let notes = if n == 1 { "note" } else { "notes" };
            let question = format!(
                "Send {n} inbox {notes} ({}) to the model? y/N",
                inbox::size_text(bytes)
            );
            let detail = "Related articles go with them; notes you hold back do not. \
                          Asked once per run.";
            let action = crate::tui::keys::Action::RunAgent;
            if self.ask_first(action, question, Some(detail.into()), ctx.effects) {
                return true;
            }
            self.inbox_agreed = true;
        }
        let request = match self.kind.template() {
            Some(agent) => {
                let Some(bank) = ctx.bank else {
                    return false;
                };
                let template = Self::template(bank, agent, ctx.effects);
                self.bank_request(bank, &template, ctx)
            }
            None => {
                let Some(project) = crate::layouts::project(ctx.memory) else {
                    return false;
                };
                self.project_request(project, ctx.clock)
            }
        };
        let request = match request {
            Ok(r) => r,
            Err(e) => {
                self.problem = Some(e);
                // Where Enter sends, the input keeps the keyboard: the
                // user edits the question, or sends it again as it is.
                if self.kind.sends_on_enter() {
                    self.editing = true;
                }
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

    /// The request of a bank agent.
    fn bank_request(
        &mut self,
        bank: &Bank,
        template: &str,
        ctx: &mut Cx,
    ) -> Result<ChatRequest, String> {
        self.run_warning = None;
        match self.kind {
            AgentKind::Query => {
                let question = self.query.input.lines().join("\n").trim().to_owned();
                let warned = self.warned_empty.take();
                if !question.is_empty()
                    && warned.as_deref() != Some(question.as_str())
                    && let Some((warning, client)) =
                        query::empty_context_warning(bank, &ctx.query, ctx.budget, &question)
                {
                    self.warned_empty = Some(question);
                    if let Some(client) = client {
                        let shown = sanitize_for_terminal(&client, false);
                        let confirm = Confirm::new(
                            format!("The question names the client {shown}. Set it in Context and send? y/N"),
                            OnYes::SetClientAndAsk(client),
                        )
                        .detail("N leaves the question as it is; Enter again sends it without a client.");
                        ctx.effects.push(Effect::Ask(confirm));
                    }
                    return Err(warning);
                }
                let settings = (ctx.query.clone(), ctx.budget);
                self.query
                    .ask(|session, q| query::bank_turn(session, bank, template, settings, q))
                    .ok_or_else(|| "type a question first (i)".to_owned())
            }
            AgentKind::Inbox => self.inbox.prepare(bank, template, ctx.clock),
            AgentKind::Check => Ok(self.check.prepare(bank, ctx.health, template)),
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
                self.run_warning = (!missing.is_empty()).then(|| {
                    format!(
                        "no {} set in the Context pane, so the context has no client \
                         profile or language match",
                        missing.join(" or ")
                    )
                });
                if let Some(warning) = &self.run_warning {
                    ctx.effects
                        .push(Effect::Warn(format!("Translate: {warning}")));
                }
                self.translate
                    .prepare(bank, template, &ctx.query, ctx.budget)
            }
            AgentKind::Distill => {
                let cwd = std::env::current_dir().unwrap_or_default();
                self.distill.prepare(&cwd, template, &ctx.query, ctx.clock)
            }
            AgentKind::Chat | AgentKind::Writeback => Err("not an agent of a bank".into()),
        }
    }

    /// The request of a Deja Vu agent.
    fn project_request(&mut self, project: &Project, clock: Clock) -> Result<ChatRequest, String> {
        match self.kind {
            AgentKind::Chat => self
                .chat
                .ask(|session, q| recall_chat::recall_turn(session, project, q))
                .ok_or_else(|| "type a question first (i)".to_owned()),
            AgentKind::Writeback => self.writeback.prepare(project, clock),
            _ => Err("not an agent of a Deja Vu project".into()),
        }
    }

    /// One message from the model connection. Returns whether the pane
    /// changed.
    pub fn on_message(
        &mut self,
        message: WorkerMessage,
        memory: &dyn Memory,
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
                self.on_worker(event, kind, memory, effects)
            }
        }
    }

    fn on_worker(
        &mut self,
        event: StreamEvent,
        kind: AgentKind,
        memory: &dyn Memory,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let root = memory.root();
        let finished = match kind {
            AgentKind::Query => self.query.on_event(event),
            AgentKind::Chat => self.chat.on_event(event),
            _ => self.stream_mut(kind).and_then(|s| s.apply(event)),
        };
        if let Some(f) = finished {
            self.job = None;
            let complete = f.complete;
            let why = f.why.clone();
            match kind {
                AgentKind::Inbox => self.inbox.finish(root, f),
                AgentKind::Check => self.check.finish(root, f),
                AgentKind::Distill => self.distill.finish(root, f),
                AgentKind::Writeback => self.writeback.finish(crate::layouts::project(memory), f),
                AgentKind::Query | AgentKind::Translate | AgentKind::Chat => {}
            }
            // A warning given when the run started is still worth reading
            // when it ends, so it is said again rather than replaced.
            let started_with = self.run_warning.take();
            effects.push(match (complete, started_with) {
                (true, None) => Effect::Info(format!("{}: reply complete", kind.title())),
                (true, Some(warning)) => {
                    Effect::Warn(format!("{}: reply complete; {warning}", kind.title()))
                }
                // The reason names the cause: a refused connection, a
                // timeout, a stop.
                (false, _) => Effect::Warn(format!(
                    "{}: {}",
                    kind.title(),
                    why.as_deref().unwrap_or("the reply is incomplete")
                )),
            });
        }
        true
    }
}
