//! The application state: the open memory, the panes and what is on
//! screen. Messages change it through `update`; keys reach the focused
//! pane through the key map and the pane contract (`panes::Component`);
//! what a pane cannot do itself comes back as an `Effect` on the one queue
//! applied here. Re-reading is `reload`'s, the finder `find`'s. Drawing
//! (`ui::draw`) only reads the state.

use std::collections::HashSet;
use std::sync::Arc;

use membank_core::bank::Bank;
use membank_core::clock::Clock;
use membank_core::health::HealthReport;
use membank_core::memory::Memory;
use membank_core::text::sanitize_for_terminal;
use ratatui::layout::Rect;

use super::areas::{Areas, compute_areas, inner, zoom};
use super::jobs;
use super::keys::KeyMap;
use super::panes::agents::AgentsPane;
use super::panes::article::ArticlePane;
use super::panes::bank::BankPane;
use super::panes::context::{self, ContextPane};
use super::panes::health::{self, Flagged, HealthPane};
use super::panes::no_agents::NoAgents;
use super::panes::recall::RecallPane;
use super::panes::search::SearchPane;
use super::panes::slot::Slot;
use super::panes::{Component, Cx};
use super::theme::Theme;
use super::widgets::status::Status;
use crate::layouts;

pub use super::messages::{Effect, Msg, Popup, ReadMemory};
pub use super::panes::set::Panes;
pub use super::panes::{LOADING, Pane};

pub struct App {
    /// The open memory, whatever its layout; [`App::bank`] when it is a bank.
    /// Shared with work done in the background (the search index).
    pub memory: Arc<dyn Memory>,
    pub bank_label: String,
    pub theme: Theme,
    pub keymap: KeyMap,
    pub focus: Pane,
    /// The pane shown beside the Bank pane in the two-column layout.
    pub main: Pane,
    /// The pane shown right of the article in the three-column layout.
    pub side: Pane,
    pub size: Rect,
    /// The focused pane fills the screen (`z`), for reading at 80×24.
    pub zoomed: bool,
    pub areas: Areas,
    pub panes: Panes,
    pub popup: Option<Popup>,
    pub status: Status,
    /// Files opened lately, the latest last (for the finder's empty list).
    pub recent: Vec<String>,
    /// The health checks of the last refresh: run once, shown by the
    /// Health pane, the Bank pane's markers and the Check agent.
    pub(super) health: Arc<HealthReport>,
    pub(super) flagged: Flagged,
    /// The checks of a memory read in the background, run there.
    pub(super) checked: Option<HealthReport>,
    /// What the worker derived along with `checked`.
    pub(super) derived: Option<super::reload::Derived>,
    /// A remembered query waiting for the bank to be read.
    pub(super) pending_query: Option<crate::last_query::SavedQuery>,
    /// How many files the first read's walk found, for its progress.
    pub(super) files_listed: Option<usize>,
    /// Where work done in the background sends its result; without one
    /// (tests) the work is done at once.
    pub(super) background: Option<jobs::Sink>,
    /// Re-reads started in the background; only the latest is shown.
    pub(super) reloads: u64,
    /// A re-read is under way: changes meanwhile wait for it.
    pub(super) rereading: bool,
    /// Changed files waiting for the re-read under way (or the first read).
    pub(super) queued: Vec<String>,
    /// Files membank wrote itself, until when their re-read goes unsaid.
    pub(super) own_writes: Vec<(String, std::time::Instant)>,
    /// The day the health report on screen was made.
    pub(super) checked_on: jiff::civil::Date,
    /// Where "today" comes from (pinned by `--today`, or by a test).
    pub clock: Clock,
    /// The tree pane's width as the user chose it, if they did; the
    /// layout keeps it within what the screen allows.
    pub tree_width: Option<u16>,
    /// A drag of the tree pane's border is under way.
    pub dragging_tree_border: bool,
    /// What a write from the interface shows once the next re-read is in.
    pub(super) after_write: Option<super::panes::write_dialog::AfterWrite>,
    /// Something visible changed since the last draw.
    pub dirty: bool,
    /// The effect queue: panes add to it, `update` applies what it can and
    /// leaves what needs the terminal for the runner.
    pub effects: Vec<Effect>,
}

impl App {
    pub fn new(
        memory: Box<dyn Memory>,
        theme: Theme,
        keymap: KeyMap,
        size: Rect,
        clock: Clock,
    ) -> App {
        let bank_label = sanitize_for_terminal(&memory.root().display().to_string(), false);
        let spec = memory.spec();
        let mut panes = Panes {
            bank: BankPane::new(),
            article: ArticlePane::default(),
            context: ContextPane::new(&theme),
            recall: RecallPane::default(),
            search: SearchPane::default(),
            health: HealthPane::default(),
            agents: AgentsPane::offering(layouts::face(spec).agents),
            no_agents: NoAgents {
                layout: spec.title.to_owned(),
                tree_pane: layouts::face(spec).slot.tree_title(),
                document_pane: layouts::face(spec).document_pane,
            },
            slot: layouts::face(spec).slot,
            agents_work: !layouts::face(spec).agents.is_empty(),
            document_pane: layouts::face(spec).document_pane,
        };
        panes.bank.name = panes.slot.tree_title();
        panes.article.name = panes.document_pane;
        panes.agents.style_inputs(&theme);
        if let Some(key) = keymap.keys(super::keys::Action::Explain).first() {
            panes.context.explain_key = key.to_string();
        }
        // The empty Article pane names the finder's key as bound.
        if let Some(key) = keymap.keys(super::keys::Action::Find).first() {
            panes.article.find_key = key.to_string();
        }
        let status = Status {
            more_key: keymap
                .keys(super::keys::Action::LastMessage)
                .first()
                .map(ToString::to_string)
                .unwrap_or_default(),
            ..Status::default()
        };
        let mut app = App {
            memory: Arc::from(memory),
            background: None,
            reloads: 0,
            rereading: false,
            queued: Vec::new(),
            own_writes: Vec::new(),
            checked_on: clock.today(),
            clock,
            bank_label,
            theme,
            keymap,
            focus: Pane::Bank,
            main: Pane::Article,
            side: Pane::Context,
            size,
            areas: Areas::default(),
            panes,
            popup: None,
            status,
            recent: Vec::new(),
            health: Arc::default(),
            flagged: HashSet::new(),
            pending_query: None,
            files_listed: None,
            checked: None,
            derived: None,
            tree_width: None,
            dragging_tree_border: false,
            after_write: None,
            dirty: true,
            zoomed: false,
            effects: Vec::new(),
        };
        app.relayout();
        app.refresh_all();
        app
    }

    /// The open memory when it is a bank, for what only a bank does.
    pub fn bank(&self) -> Option<&Bank> {
        crate::layouts::bank(&*self.memory)
    }

    /// "the memory bank", "the everos memory root": the open memory's kind.
    pub fn memory_kind(&self) -> String {
        format!("the {}", self.memory.spec().noun)
    }

    /// Where model messages go: the runner's event channel (or a test's).
    pub fn send_model_messages_to(
        &mut self,
        sink: impl Fn(membank_llm::WorkerMessage) + Send + Sync + 'static,
    ) {
        self.panes.agents.connection.set_sink(sink);
    }

    /// Send what background work produces (as a message for `update`)
    /// through `sink`, the runner's event channel.
    pub fn send_background_results_to(&mut self, sink: impl Fn(Msg) + Send + Sync + 'static) {
        self.background = Some(Arc::new(sink));
    }

    /// Rows of a pane's list: its inside minus the parts that do not scroll.
    pub(crate) fn height_of(&self, pane: Pane) -> usize {
        let h = self.areas.of(pane).map_or(1, |r| inner(r).height);
        let h = match pane {
            Pane::Context if self.panes.slot == Slot::Context => {
                h.saturating_sub(context::FORM_HEIGHT)
            }
            Pane::Health => h.saturating_sub(health::detail_height(h)),
            _ => h,
        };
        usize::from(h.max(1))
    }

    /// Width the article is laid out at: its pane's inside, or the main
    /// area's when it is not visible.
    pub(super) fn article_width(&self) -> u16 {
        self.areas
            .of(Pane::Article)
            .or(self.areas.main.map(|(_, r)| r))
            .map_or(self.size.width, |r| inner(r).width)
            .max(10)
    }

    /// The tree pane's width from an earlier run; a screen too small for
    /// it gets what fits, and a larger one later gets it back.
    pub fn restore_tree_width(&mut self, width: u16) {
        self.tree_width = Some(width);
        self.relayout();
    }

    /// Make the tree pane `width` columns wide, as far as the screen
    /// allows, and say what it became.
    pub fn set_tree_width(&mut self, width: u16) {
        let (min, max) = super::areas::tree_width_range(self.size.width);
        let width = width.clamp(min, max);
        self.tree_width = Some(width);
        self.relayout();
        let limit = if width == min {
            " (the narrowest)"
        } else if width == max {
            " (the widest at this screen width)"
        } else {
            ""
        };
        self.status
            .info(format!("tree {width} columns wide{limit}"));
        self.dirty = true;
    }

    /// Width the Context pane's rows are wrapped to.
    pub(super) fn context_width(&self) -> u16 {
        self.areas
            .of(Pane::Context)
            .or(self.areas.main.map(|(_, r)| r))
            .map_or(self.size.width, |r| inner(r).width)
    }

    pub(super) fn relayout(&mut self) {
        self.areas = compute_areas(self.size, self.focus, self.main, self.side, self.tree_width);
        if self.zoomed {
            self.areas = zoom(self.areas, self.focus);
        }
        let agents_width = self
            .areas
            .of(Pane::Agents)
            .or(self.areas.main.map(|(_, r)| r))
            .map_or(self.size.width, |r| inner(r).width);
        self.panes.agents.set_width(usize::from(agents_width));
        let width = self.article_width();
        let article_height = self.height_of(Pane::Article);
        let article = &mut self.panes.article;
        if article.rel.is_some() && article.width() != width {
            article.lay_out(self.memory.as_ref(), &self.theme, width);
        }
        article.set_height(article_height);
        let (bh, hh, ch) = (
            self.height_of(Pane::Bank),
            self.height_of(Pane::Health),
            self.height_of(Pane::Context),
        );
        let context_width = self.context_width();
        let p = &mut self.panes;
        p.bank.cursor.clamp(p.bank.rows.len(), bh);
        p.health.cursor.clamp(p.health.rows.len(), hh);
        if let Some(bank) = crate::layouts::bank(&*self.memory) {
            p.context.set_width(context_width, bank, &self.theme);
            p.context.clamp_scroll(ch, bank, &self.theme);
        }
    }

    /// Start from a query remembered from an earlier session.
    pub fn restore_query(&mut self, saved: &crate::last_query::SavedQuery) {
        if saved.is_empty() {
            return;
        }
        let Some(bank) = crate::layouts::bank(&*self.memory) else {
            // A bank still being read is ranked for it when it arrives.
            if self.panes.slot == Slot::Context {
                self.panes.context.fill(saved);
                self.pending_query = Some(saved.clone());
            }
            return;
        };
        self.panes.context.restore(saved, bank, &self.theme);
        self.say_query_restored();
    }

    pub(super) fn say_query_restored(&mut self) {
        self.status.query = self.panes.context.query_text.clone();
        let restored = format!("last query restored: {}", self.status.query);
        // A warning about the settings said on start (a [keys] clash) stays
        // in front: the restored query is added after it, not over it.
        match &self.status.message {
            Some((warning, super::widgets::status::Level::Warning))
                if self.status.shows_notice() =>
            {
                let both = format!("{warning} · {restored}");
                self.status.start_warning(both);
            }
            _ => self.status.info(restored),
        }
        self.dirty = true;
    }

    /// Give the focused pane the whole screen, or put the layout back.
    pub(crate) fn toggle_zoom(&mut self) {
        self.zoomed = !self.zoomed;
        self.relayout();
        let said = match self.zoom_key() {
            Some(key) if self.zoomed => format!("zoomed: {key} puts the panes back"),
            None if self.zoomed => "zoomed".to_owned(),
            _ => "all panes shown".to_owned(),
        };
        self.status.info(said);
    }

    /// The key that zooms and puts the panes back, as bound.
    pub(crate) fn zoom_key(&self) -> Option<String> {
        self.keymap
            .keys(super::keys::Action::Zoom)
            .first()
            .map(ToString::to_string)
    }

    pub(crate) fn focus_pane(&mut self, pane: Pane) {
        self.focus = pane;
        self.panes.get_mut(pane).on_focus();
        match pane {
            Pane::Bank => {}
            Pane::Article => self.main = Pane::Article,
            Pane::Context | Pane::Health | Pane::Agents => {
                self.main = pane;
                self.side = pane;
            }
        }
        self.relayout();
    }

    /// Show a file in the Article pane, select it in the Bank pane, and
    /// focus the article.
    /// Set the Context pane's client, as typing it there would.
    pub fn set_context_client(&mut self, client: &str) {
        let Some(bank) = crate::layouts::bank(&*self.memory) else {
            return;
        };
        let field = super::panes::context::Field::Client;
        self.panes
            .context
            .set_field(field, client, bank, &self.theme);
        self.status.query.clone_from(&self.panes.context.query_text);
        self.dirty = true;
    }

    pub fn open_article(&mut self, rel: &str) {
        self.open_at(rel, None);
    }

    /// [`App::open_article`], or one entry inside the file.
    pub fn open_at(&mut self, rel: &str, entry: Option<&super::panes::document::EntryAt>) {
        let (width, bh) = (self.article_width(), self.height_of(Pane::Bank));
        let (memory, p) = (self.memory.as_ref(), &mut self.panes);
        p.article.open_at(memory, rel, entry, &self.theme, width);
        p.bank.reveal(rel, memory, &self.flagged, bh);
        self.focus_pane(Pane::Article);
        self.recent.retain(|r| r != rel);
        self.recent.push(rel.to_owned());
        // Enough to fill the finder's first screen.
        if self.recent.len() > 30 {
            self.recent.remove(0);
        }
    }

    /// Call a pane through its contract, then apply what it queued.
    pub(crate) fn dispatch<R>(
        &mut self,
        pane: Pane,
        f: impl FnOnce(&mut dyn Component, &mut Cx) -> R,
    ) -> R {
        let mut cx = Cx {
            memory: self.memory.as_ref(),
            bank: crate::layouts::bank(&*self.memory),
            theme: &self.theme,
            health: &self.health,
            flagged: &self.flagged,
            height: self.height_of(pane),
            article_width: self.article_width(),
            query: self.panes.context.query(),
            budget: self.panes.context.budget_options(),
            clock: self.clock,
            effects: &mut self.effects,
        };
        let r = f(self.panes.get_mut(pane), &mut cx);
        if pane == Pane::Context {
            let query = &self.panes.context.query_text;
            self.status.query.clone_from(query);
        }
        self.apply_effects();
        r
    }

    /// Apply the queued effects that need no terminal, in order; the rest
    /// stay queued for the runner.
    pub(super) fn apply_effects(&mut self) {
        while let Some(at) = self.effects.iter().position(|e| !e.needs_terminal()) {
            let effect = self.effects.remove(at);
            self.dirty = true;
            match effect {
                Effect::ShowArticle { rel, line, banner } => {
                    self.open_article(&rel);
                    // Come from a finding: the others of the file are listed
                    // too, and the banner and that list come first, since
                    // the scroll must allow for the rows they take.
                    if banner.is_some() {
                        let width = self.article_width();
                        let (memory, p) = (self.memory.as_ref(), &mut self.panes);
                        p.article.open_findings(memory, &self.theme, width);
                        self.panes.article.banner = banner;
                    }
                    if let Some(line) = line {
                        let h = self.height_of(Pane::Article);
                        self.panes.article.scroll_to_source_line(line, h);
                    }
                }
                Effect::ShowEntry { rel, entry } => self.open_at(&rel, Some(&entry)),
                Effect::Preview(rel) => {
                    if self.areas.visible(Pane::Article) && self.focus == Pane::Bank {
                        let width = self.article_width();
                        let (memory, p) = (self.memory.as_ref(), &mut self.panes);
                        p.article.preview(memory, &rel, &self.theme, width);
                    }
                }
                Effect::ResizeTree(delta) => {
                    // Alone on a narrow screen the tree has no width to change.
                    let beside = self.areas.main.is_some();
                    match self.areas.bank.map(|r| r.width).filter(|_| beside) {
                        Some(w) => self.set_tree_width(w.saturating_add_signed(delta)),
                        None => self.status.info("the tree fills the screen at this width"),
                    }
                }
                Effect::RevealInBank(rel) => {
                    let h = self.height_of(Pane::Bank);
                    let p = &mut self.panes;
                    p.bank.reveal(&rel, self.memory.as_ref(), &self.flagged, h);
                }
                Effect::Reload(rels) => self.reload_paths(rels),
                Effect::Wrote(rels) => {
                    self.wrote(&rels);
                    self.reload_paths(rels);
                }
                Effect::RerunHealth => {
                    self.refresh_all();
                    let summary = &self.panes.health.summary;
                    self.status.info(format!("health re-run: {summary}"));
                }
                Effect::IndexSearch { generation } => self.index_search(generation),
                Effect::SortTree { sort, generation } => self.sort_tree(sort, generation),
                Effect::CheckTerms(file) => self.check_terms(file),
                Effect::Recall => self.recall_cue(),
                Effect::ShowText { title, lines } => {
                    let text = super::widgets::help::Help::text(title, lines);
                    self.popup = Some(Popup::Help(text));
                }
                Effect::Ask(confirm) => self.popup = Some(Popup::Confirm(confirm)),
                Effect::Info(m) => self.status.info(m),
                Effect::LinkNote(m) => match self.panes.article.rel.clone() {
                    Some(rel) => self.status.link(m, &rel),
                    None => self.status.info(m),
                },
                Effect::SearchNote(m) => self.status.search_match(m),
                Effect::Warn(m) => self.status.warn(m),
                Effect::Quit | Effect::Suspend | Effect::Edit { .. } | Effect::Copy(_) => {}
            }
        }
        // A note on where a link goes outlives neither the article nor the
        // selection it was about.
        let article = &self.panes.article;
        let shown = article.selected_link.and(article.rel.as_deref());
        self.status.drop_stale_link_note(shown);
        let searching = self.panes.article.search.is_some();
        self.status.drop_stale_search_note(searching);
    }
}
