//! The application state and `update`: every message that changes what is
//! on screen goes through here. Keys reach the focused pane through the
//! key map and the pane contract (`panes::Component`); what a pane cannot
//! do itself comes back as an `Effect` on the one queue applied here.
//! Drawing (`ui::draw`) only reads the state.

use std::collections::HashSet;
use std::sync::Arc;

use membank_core::bank::Bank;
use membank_core::clock::Clock;
use membank_core::health::{HealthOptions, HealthReport};
use membank_core::layout::{ARCHIVE_DIR, Folder};
use membank_core::memory::{Memory, changes};
use membank_core::text::sanitize_for_terminal;
use ratatui::layout::Rect;

use super::areas::{Areas, compute_areas, inner, zoom};
use super::keys::KeyMap;
use super::panes::agents::AgentsPane;
use super::panes::article::ArticlePane;
use super::panes::bank::BankPane;
use super::panes::context::{self, ContextPane};
use super::panes::health::{self, HealthPane};
use super::panes::no_agents::NoAgents;
use super::panes::recall::RecallPane;
use super::panes::search::SearchPane;
use super::panes::slot::Slot;
use super::panes::{Component, Cx};
use super::reload::Reread;
use super::theme::Theme;
use super::widgets::fuzzy::{Finder, FinderItem, Placement};
use super::widgets::status::Status;
use crate::layouts;

/// The panes, named as on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Bank,
    Article,
    Context,
    Health,
    Agents,
}

impl Pane {
    pub const ORDER: [Pane; 5] = [
        Pane::Bank,
        Pane::Article,
        Pane::Context,
        Pane::Health,
        Pane::Agents,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Bank => "Bank",
            Pane::Article => "Article",
            Pane::Context => "Context",
            Pane::Health => "Health",
            Pane::Agents => "Agents",
        }
    }
}

/// How the status line starts while the memory is read in the background.
pub const LOADING: &str = "reading";

pub use super::messages::{Effect, Msg, Popup, ReadMemory};
pub use super::panes::set::Panes;

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
    flagged: HashSet<String>,
    /// The checks of a memory read in the background, run there.
    checked: Option<HealthReport>,
    /// What the worker derived along with `checked`.
    derived: Option<super::reload::Derived>,
    /// A remembered query waiting for the bank to be read.
    pending_query: Option<crate::last_query::SavedQuery>,
    /// How many files the first read's walk found, for its progress.
    files_listed: Option<usize>,
    /// Where work done in the background sends its result; without one
    /// (tests) the work is done at once.
    background: Option<Arc<dyn Fn(Msg) + Send + Sync>>,
    /// Re-reads started in the background; only the latest is shown.
    reloads: u64,
    /// A re-read is under way: changes meanwhile wait for it.
    rereading: bool,
    /// Changed files waiting for the re-read under way (or the first read).
    queued: Vec<String>,
    /// The day the health report on screen was made.
    checked_on: jiff::civil::Date,
    /// Where "today" comes from (pinned by `--today`, or by a test).
    pub clock: Clock,
    /// The tree pane's width as the user chose it, if they did; the
    /// layout keeps it within what the screen allows.
    pub tree_width: Option<u16>,
    /// A drag of the tree pane's border is under way.
    pub dragging_tree_border: bool,
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
            },
            slot: layouts::face(spec).slot,
            agents_work: !layouts::face(spec).agents.is_empty(),
        };
        panes.bank.name = panes.slot.tree_title();
        panes.agents.style_inputs(&theme);
        let mut app = App {
            memory: Arc::from(memory),
            background: None,
            reloads: 0,
            rereading: false,
            queued: Vec::new(),
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
            status: Status::default(),
            recent: Vec::new(),
            health: Arc::default(),
            flagged: HashSet::new(),
            pending_query: None,
            files_listed: None,
            checked: None,
            derived: None,
            tree_width: None,
            dragging_tree_border: false,
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

    /// What the panes show now, for a read that lays out the next memory.
    pub fn plan(&self) -> super::reload::Plan {
        super::reload::Plan {
            sort: self.panes.bank.sort,
            expanded: self.panes.bank.expanded().clone(),
            ranking: self.panes.context.ranking(),
        }
    }

    /// Read the changed files on a worker thread (everything, when the
    /// memory needs it), with their checks; `Msg::Reloaded` brings the new
    /// memory.
    /// Without a channel (tests) the same work is done at once.
    fn reread(&mut self, files: Vec<String>) {
        self.reloads += 1;
        let generation = self.reloads;
        let job = Reread {
            memory: Arc::clone(&self.memory),
            health: Arc::clone(&self.health),
            checked_on: self.checked_on,
            clock: self.clock,
            files,
            plan: self.plan(),
        };
        let Some(sink) = self.background.clone() else {
            let read = job.run();
            self.reloaded(generation, read, &job.files);
            return;
        };
        self.rereading = true;
        let spawned = std::thread::Builder::new()
            .name("membank-reload".into())
            .spawn(move || {
                let read = job.run();
                // The old memory is no longer needed here: let it go before
                // the new one is shown, not after.
                let files = job.files;
                drop(job.memory);
                sink(Msg::Reloaded {
                    generation,
                    read: Box::new(read),
                    files,
                });
            });
        if let Err(e) = spawned {
            self.rereading = false;
            self.status
                .error(format!("could not start reading again: {e}"));
        }
    }

    /// A memory read again in the background arrived: show it unless a
    /// later read is under way, keeping what is selected and open; then
    /// read what changed meanwhile.
    fn reloaded(&mut self, generation: u64, read: Result<ReadMemory, String>, files: &[String]) {
        if generation != self.reloads {
            return;
        }
        self.rereading = false;
        match read {
            Ok(read) => {
                self.install(read);
                self.say_reloaded(files);
            }
            Err(e) => {
                tracing::error!(error = %e, "reloading failed");
                self.status.error(e);
                self.dirty = true;
            }
        }
        self.reread_queued();
    }

    /// Show a memory read elsewhere, with its checks.
    fn install(&mut self, read: ReadMemory) {
        let old_memory = std::mem::replace(&mut self.memory, Arc::from(read.memory));
        let old_health = Arc::clone(&self.health);
        if read.health.is_some() {
            self.checked_on = self.clock.today();
        }
        self.checked = read.health;
        self.derived = read.derived;
        self.refresh_all();
        // Freeing a large memory and its report takes a noticeable part of
        // a second: let a worker do it.
        super::drop_later::drop_later((old_memory, old_health));
    }

    /// Start reading the files that changed while another read was under way.
    fn reread_queued(&mut self) {
        if !self.queued.is_empty() {
            let mut files = std::mem::take(&mut self.queued);
            files.sort();
            files.dedup();
            self.reload_paths(files);
        }
    }

    /// Send what background work produces (as a message for `update`)
    /// through `sink`, the runner's event channel.
    pub fn send_background_results_to(&mut self, sink: impl Fn(Msg) + Send + Sync + 'static) {
        self.background = Some(Arc::new(sink));
    }

    /// Build the search index of the memory open now, on a worker thread
    /// when there is a channel back, else at once.
    fn index_search(&mut self, generation: u64) {
        use super::panes::search::Indexed;
        let Some(sink) = self.background.clone() else {
            let index = membank_core::search::SearchIndex::of_memory(self.memory.as_ref());
            let (memory, theme) = (self.memory.as_ref(), &self.theme);
            let built = Indexed { generation, index };
            let search = &mut self.panes.search;
            if search.indexed(built, memory, theme)
                && let Some(said) = search.outcome()
            {
                self.status.info(said);
            }
            return;
        };
        let memory = Arc::clone(&self.memory);
        let spawned = std::thread::Builder::new()
            .name("membank-index".into())
            .spawn(move || {
                let index = membank_core::search::SearchIndex::of_memory(memory.as_ref());
                // The memory is shared until here: let the interface read
                // changed files into it again.
                drop(memory);
                sink(Msg::SearchIndexed(Indexed { generation, index }));
            });
        if let Err(e) = spawned {
            self.status.error(format!("could not start indexing: {e}"));
        }
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
    fn article_width(&self) -> u16 {
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
    fn context_width(&self) -> u16 {
        self.areas
            .of(Pane::Context)
            .or(self.areas.main.map(|(_, r)| r))
            .map_or(self.size.width, |r| inner(r).width)
    }

    fn relayout(&mut self) {
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
        let article = &mut self.panes.article;
        if article.rel.is_some() && article.width() != width {
            article.lay_out(self.memory.as_ref(), &self.theme, width);
        }
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

    /// Recompute everything derived from the bank.
    fn refresh_all(&mut self) {
        let (hh, bh, width) = (
            self.height_of(Pane::Health),
            self.height_of(Pane::Bank),
            self.article_width(),
        );
        let (ch, cw) = (self.height_of(Pane::Context), self.context_width());
        // Through the layout boundary: the checks of whatever layout is open.
        let (report, fresh_report) = match self.checked.take() {
            Some(report) => (report, true),
            None => (
                self.memory.check(&HealthOptions::as_of(self.clock.today())),
                false,
            ),
        };
        // What was derived with the report, only together with it.
        let mut derived = if fresh_report {
            self.derived.take()
        } else {
            None
        };
        self.derived = None;
        let (mut values, mut ranked) = (None, None);
        self.health = Arc::new(report);
        let (memory, theme, p) = (self.memory.as_ref(), &self.theme, &mut self.panes);
        let findings = derived.as_mut().map(|d| std::mem::take(&mut d.findings));
        p.health
            .refresh_grouped(self.health.clone(), findings, theme, hh);
        p.article.set_health(self.health.clone());
        match derived {
            Some(derived) => {
                self.flagged = derived.flagged;
                values = derived.values;
                ranked = derived.ranked;
                match derived.grouped {
                    Some((grouped, sort, laid_out)) => {
                        p.bank.files_changed_grouped(grouped, sort, Some(laid_out))
                    }
                    None => p.bank.files_changed(),
                }
            }
            None => {
                self.flagged = p.health.flagged();
                p.bank.files_changed();
            }
        }
        p.bank.rebuild(memory, &self.flagged, bh);
        p.article.empty_note = None;
        p.article.noun = memory.spec().record;
        if let Some(bank) = crate::layouts::bank(memory) {
            // The screen may have been laid out before there was a bank
            // to size the list for (the first read).
            p.context.set_width(cw, bank, theme);
            p.context.clamp_scroll(ch, bank, theme);
            p.context.reload(bank, values, ranked, theme);
            p.agents.refresh(bank, &self.health);
            p.article.empty_note = super::panes::bank::starter_note(bank);
        }
        p.recall.recompute(layouts::project(memory), theme);
        let reindex = p.search.memory_changed(memory);
        if p.article.rel.is_some() {
            p.article.lay_out(memory, theme, width);
        }
        self.status.bank = self.bank_label.clone();
        self.status.articles = memory.len();
        self.status.unread = layouts::is_unread(memory);
        self.status.noun = layouts::face(memory.spec()).status_noun;
        self.status.query = p.context.query_text.clone();
        self.dirty = true;
        if let Some(generation) = reindex {
            self.index_search(generation);
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

    fn say_query_restored(&mut self) {
        self.status.query = self.panes.context.query_text.clone();
        self.status
            .info(format!("last query restored: {}", self.status.query));
        self.dirty = true;
    }

    /// Give the focused pane the whole screen, or put the layout back.
    pub(crate) fn toggle_zoom(&mut self) {
        self.zoomed = !self.zoomed;
        self.relayout();
        self.status.info(if self.zoomed {
            "zoomed: z puts the panes back"
        } else {
            "all panes shown"
        });
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
    pub fn open_at(&mut self, rel: &str, entry: Option<&str>) {
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

    fn reload_paths(&mut self, rels: Vec<String>) {
        if rels.is_empty() {
            return;
        }
        // The first read or another re-read is under way: these files are
        // read once it is in, from the memory it brings.
        if self.rereading || crate::layouts::is_unread(&*self.memory) {
            self.queued.extend(rels);
            return;
        }
        // The memory decides how much to read again (`Memory::refreshed`).
        tracing::info!(files = rels.len(), "reloading");
        tracing::debug!(paths = ?rels, "reloading");
        self.reread(rels);
    }

    fn say_reloaded(&mut self, rels: &[String]) {
        let n = rels.len();
        // Background news; a start-up notice (where the demo lives) stays
        // until it expires.
        if !self.status.shows_notice() {
            self.status.info(if n == 1 {
                format!("reloaded {}", sanitize_for_terminal(&rels[0], false))
            } else {
                format!("reloaded {n} files")
            });
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
    fn apply_effects(&mut self) {
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
                Effect::RerunHealth => {
                    self.refresh_all();
                    let summary = &self.panes.health.summary;
                    self.status.info(format!("health re-run: {summary}"));
                }
                Effect::IndexSearch { generation } => self.index_search(generation),
                Effect::ShowText { title, lines } => {
                    let text = super::widgets::help::Help::text(title, lines);
                    self.popup = Some(Popup::Help(text));
                }
                Effect::Ask(confirm) => self.popup = Some(Popup::Confirm(confirm)),
                Effect::Info(m) => self.status.info(m),
                Effect::Warn(m) => self.status.warn(m),
                Effect::Quit | Effect::Suspend | Effect::Edit { .. } | Effect::Copy(_) => {}
            }
        }
    }

    pub(super) fn open_finder(&mut self) {
        // The tree may show the walked files already, but the finder needs
        // what is in them: an empty one would look like a memory without
        // any.
        if layouts::is_unread(&*self.memory) {
            let kind = self.memory_kind();
            self.status
                .info(format!("{kind} is still being read; find opens when it is"));
            return;
        }
        let Some(bank) = crate::layouts::bank(&*self.memory) else {
            self.open_document_finder();
            return;
        };
        let items = bank
            .articles()
            .iter()
            .enumerate()
            .map(|(id, a)| {
                let folder = a.rel_path.rsplit_once('/').map_or("", |(dir, _)| dir);
                let archive = format!("{}/{ARCHIVE_DIR}", Folder::Inbox.dir_name());
                let placement = if !a.folder.is_content() {
                    if folder.starts_with(&archive) {
                        Placement::Archived
                    } else if a.folder == Folder::Inbox {
                        Placement::Inbox
                    } else {
                        Placement::Other
                    }
                } else {
                    Placement::Content
                };
                FinderItem {
                    name: sanitize_for_terminal(a.stem(), false),
                    title: (a.title != a.stem()).then(|| sanitize_for_terminal(&a.title, false)),
                    folder: sanitize_for_terminal(folder, false),
                    placement,
                    id,
                }
            })
            .collect();
        let recent: Vec<usize> = self
            .recent
            .iter()
            .rev()
            .filter_map(|r| bank.find(r))
            .collect();
        let finder = Finder::new("Find article", items, &self.theme).with_recent(&recent);
        self.popup = Some(Popup::Finder(Box::new(finder)));
    }

    /// The finder over any layout's documents, by title and groups.
    fn open_document_finder(&mut self) {
        let items = self
            .memory
            .documents()
            .enumerate()
            .map(|(id, d)| {
                let name = d.path.rsplit('/').next().unwrap_or(d.path);
                let name = name.strip_suffix(".md").unwrap_or(name);
                FinderItem {
                    name: sanitize_for_terminal(name, false),
                    title: (d.title != name).then(|| sanitize_for_terminal(&d.title, false)),
                    folder: sanitize_for_terminal(&d.groups.join("/"), false),
                    placement: Placement::Content,
                    id,
                }
            })
            .collect();
        let paths: Vec<&str> = self.memory.documents().map(|d| d.path).collect();
        let recent: Vec<usize> = self
            .recent
            .iter()
            .rev()
            .filter_map(|r| paths.iter().position(|p| p == r))
            .collect();
        let finder = Finder::new("Find a file", items, &self.theme).with_recent(&recent);
        self.popup = Some(Popup::Finder(Box::new(finder)));
    }

    /// Full-text search: in the Context slot when it is the Search pane,
    /// else in a popup over the panes.
    pub(super) fn open_search(&mut self) {
        if self.panes.slot == Slot::Search {
            self.focus_pane(Pane::Context);
        } else {
            self.popup = Some(Popup::Search);
        }
        // Back to the results of the last search, to move through them;
        // `i` or `/` edits the query.
        self.panes.search.typing = self.panes.search.hits.is_empty();
    }

    /// Call the Search pane through its contract while it is a popup, then
    /// apply what it queued; opening a hit closes the popup.
    pub(super) fn dispatch_search<R>(
        &mut self,
        f: impl FnOnce(&mut SearchPane, &mut Cx) -> R,
    ) -> R {
        let height = usize::from(inner(super::areas::search_popup(self.size)).height).max(1);
        let mut cx = Cx {
            memory: self.memory.as_ref(),
            bank: crate::layouts::bank(&*self.memory),
            theme: &self.theme,
            health: &self.health,
            flagged: &self.flagged,
            height,
            article_width: self.article_width(),
            query: self.panes.context.query(),
            budget: self.panes.context.budget_options(),
            clock: self.clock,
            effects: &mut self.effects,
        };
        let r = f(&mut self.panes.search, &mut cx);
        if self
            .effects
            .iter()
            .any(|e| matches!(e, Effect::ShowArticle { .. } | Effect::ShowEntry { .. }))
        {
            self.popup = None;
        }
        self.apply_effects();
        r
    }
}

/// Apply one message. Sets `app.dirty` when the screen must be redrawn
/// and leaves anything that needs the terminal in `app.effects`.
pub fn update(app: &mut App, msg: Msg) {
    match msg {
        Msg::Resize(w, h) => {
            app.size = Rect::new(0, 0, w, h);
            app.relayout();
            app.dirty = true;
        }
        Msg::Key(key) => super::routing::on_key(app, key),
        Msg::Paste(text) => {
            if let Some(Popup::Finder(f)) = &mut app.popup {
                f.input
                    .insert_str(sanitize_for_terminal(&text.replace('\n', " "), false));
                f.refilter();
                app.dirty = true;
            } else if app.dispatch(app.focus, |pane, cx| pane.on_paste(&text, cx)) {
                app.dirty = true;
            }
        }
        Msg::FilesChanged(paths) => {
            let memory = app.memory.as_ref();
            let rels = changes::changed_paths(memory.spec(), memory.root(), &paths);
            app.reload_paths(rels);
        }
        Msg::Edited(rel) => app.reload_paths(vec![rel]),
        Msg::Llm(message) => {
            let memory = app.memory.clone();
            let changed = app
                .panes
                .agents
                .on_message(message, memory.as_ref(), &mut app.effects);
            if changed && app.areas.visible(Pane::Agents) {
                app.dirty = true;
            }
            app.apply_effects();
        }
        Msg::Error(e) => {
            app.status.error(sanitize_for_terminal(&e, false));
            app.dirty = true;
        }
        Msg::Mouse(ev) => super::mouse::on_mouse(app, ev),
        Msg::Tick(now) => {
            if app.status.expire(now) {
                app.dirty = true;
            }
        }
        Msg::Listed(tree) => {
            // Only while nothing is read yet: a bank already shown has its
            // own files.
            if app.memory.is_empty() {
                app.files_listed = Some(tree.files);
                let bh = app.height_of(Pane::Bank);
                app.panes.bank.show_listing(*tree, app.memory.as_ref(), bh);
                app.dirty = true;
            }
        }
        Msg::Loading(files) => {
            // Progress never hides a message someone should read.
            if app.status.shows_loading() {
                let kind = app.memory_kind();
                let of = app
                    .files_listed
                    .map(|n| format!(" of {n}"))
                    .unwrap_or_default();
                app.status
                    .info(format!("{LOADING} {kind}… {files}{of} files"));
                app.dirty = true;
            }
        }
        Msg::Reloaded {
            generation,
            read,
            files,
        } => app.reloaded(generation, *read, &files),
        Msg::SearchIndexed(built) => {
            let (memory, theme) = (app.memory.as_ref(), &app.theme);
            let search = &mut app.panes.search;
            if search.indexed(built, memory, theme)
                && let Some(said) = search.outcome()
            {
                app.status.info(said);
            }
            app.dirty = true;
        }
        Msg::Loaded(loaded) => match *loaded {
            Ok(read) => {
                app.install(read);
                // Ranked for it with the bank, on the thread that read it.
                if app.pending_query.take().is_some() {
                    app.say_query_restored();
                }
                // The bar already counts what was read; the progress goes.
                if app.status.shows_loading() {
                    app.status.message = None;
                    app.status.expires = None;
                }
                if app.panes.article.empty_note.is_some() {
                    app.status
                        .notice("only _EXAMPLE_ files: see the Article pane");
                }
                app.reread_queued();
            }
            Err(e) => {
                app.status.error(sanitize_for_terminal(&e, false));
                app.dirty = true;
            }
        },
    }
}
