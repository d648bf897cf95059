//! The application state and `update`: every message that changes what is
//! on screen goes through here. Drawing (`ui::draw`) only reads the state.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use membank_core::bank::Bank;
use membank_core::text::sanitize_for_terminal;
use ratatui::crossterm::event::{
    Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers,
};
use ratatui::layout::{Constraint, Layout, Rect};

use super::agents::{AgentCtx, AgentEffect, AgentsPane};
use super::keys::{Action, Context, Key, KeyMap};
use super::panes::health::HealthPane;
use super::panes::inspector::{self, InspectorPane, Outcome};
use super::panes::preview::PreviewPane;
use super::panes::tree::{RowKind, TreePane};
use super::theme::Theme;
use super::widgets::fuzzy::{Finder, FinderItem};
use super::widgets::help::Help;
use super::widgets::status::Status;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Tree,
    Preview,
    Inspector,
    Health,
    Agents,
}

impl Pane {
    pub const ORDER: [Pane; 5] = [
        Pane::Tree,
        Pane::Preview,
        Pane::Inspector,
        Pane::Health,
        Pane::Agents,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Tree => "Bank",
            Pane::Preview => "Article",
            Pane::Inspector => "Context",
            Pane::Health => "Health",
            Pane::Agents => "Agents",
        }
    }

    pub fn context(self) -> Context {
        match self {
            Pane::Tree => Context::Tree,
            Pane::Preview => Context::Preview,
            Pane::Inspector => Context::Inspector,
            Pane::Health => Context::Health,
            Pane::Agents => Context::Agents,
        }
    }
}

/// Messages `update` understands.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Paste(String),
    Resize(u16, u16),
    /// Files changed on disk (absolute or bank-relative paths).
    FilesChanged(Vec<PathBuf>),
    /// The external editor closed; re-read this file.
    Edited(String),
    /// A message from the model worker.
    Llm(super::agents::link::LinkEvent),
    Error(String),
}

impl Msg {
    /// Terminal events that matter; key releases and mouse moves do not.
    pub fn from_terminal(ev: TermEvent) -> Option<Msg> {
        match ev {
            TermEvent::Key(k) if k.kind != KeyEventKind::Release => Some(Msg::Key(k)),
            TermEvent::Paste(s) => Some(Msg::Paste(s)),
            TermEvent::Resize(w, h) => Some(Msg::Resize(w, h)),
            _ => None,
        }
    }
}

/// Things only the runner can do (they need the terminal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Quit,
    Suspend,
    Edit { rel: String, line: Option<usize> },
    Copy(String),
}

pub enum Popup {
    Help(Help),
    Finder(Box<Finder>),
}

/// Where each pane is on screen, derived from the size and focus.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Areas {
    pub tabs: Rect,
    pub tree: Option<Rect>,
    pub main: Option<(Pane, Rect)>,
    pub side: Option<(Pane, Rect)>,
    pub status: Rect,
}

impl Areas {
    pub fn of(&self, pane: Pane) -> Option<Rect> {
        if pane == Pane::Tree {
            return self.tree;
        }
        [self.main, self.side]
            .into_iter()
            .flatten()
            .find(|(p, _)| *p == pane)
            .map(|(_, r)| r)
    }

    pub fn visible(&self, pane: Pane) -> bool {
        self.of(pane).is_some()
    }
}

/// The inside of a bordered pane.
pub fn inner(r: Rect) -> Rect {
    Rect {
        x: r.x + 1,
        y: r.y + 1,
        width: r.width.saturating_sub(2),
        height: r.height.saturating_sub(2),
    }
}

/// Widths at which the layout changes.
pub const THREE_COLUMNS: u16 = 150;
pub const TWO_COLUMNS: u16 = 70;

/// Lay out the screen. Wide: tree | article | context or health.
/// Medium: tree | the last focused of the others. Narrow: one pane.
pub fn compute_areas(size: Rect, focus: Pane, main: Pane, side: Pane) -> Areas {
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(size);
    let mut areas = Areas {
        tabs,
        status,
        ..Areas::default()
    };
    if size.width >= THREE_COLUMNS {
        let [t, m, s] = Layout::horizontal([
            Constraint::Length(32),
            Constraint::Fill(1),
            Constraint::Fill(1),
        ])
        .areas(body);
        areas.tree = Some(t);
        areas.main = Some((Pane::Preview, m));
        areas.side = Some((side, s));
    } else if size.width >= TWO_COLUMNS {
        let tree_w = (size.width / 3).clamp(24, 34);
        let [t, m] =
            Layout::horizontal([Constraint::Length(tree_w), Constraint::Fill(1)]).areas(body);
        areas.tree = Some(t);
        areas.main = Some((main, m));
    } else if focus == Pane::Tree {
        areas.tree = Some(body);
    } else {
        areas.main = Some((focus, body));
    }
    areas
}

pub struct App {
    pub bank: Bank,
    pub bank_label: String,
    pub theme: Theme,
    pub keymap: KeyMap,
    pub focus: Pane,
    /// The pane shown beside the tree in the two-column layout.
    pub main: Pane,
    /// The pane shown right of the article in the three-column layout.
    pub side: Pane,
    pub size: Rect,
    pub areas: Areas,
    pub tree: TreePane,
    pub preview: PreviewPane,
    pub inspector: InspectorPane,
    pub health: HealthPane,
    pub agents: AgentsPane,
    pub popup: Option<Popup>,
    pub status: Status,
    /// One-line key hints per pane, shown in its bottom border.
    pub hints: [String; 5],
    flagged: HashSet<String>,
    /// Something visible changed since the last draw.
    pub dirty: bool,
    pub effects: Vec<Effect>,
}

fn hint_line(keymap: &KeyMap, pane: Pane) -> String {
    let pick: &[(Action, &str)] = match pane {
        Pane::Tree => &[
            (Action::Open, "open"),
            (Action::Expand, "fold"),
            (Action::Find, "find"),
        ],
        Pane::Preview => &[
            (Action::NextLink, "link"),
            (Action::Open, "follow"),
            (Action::Back, "back"),
        ],
        Pane::Inspector => &[(Action::Open, "edit/open"), (Action::Down, "move")],
        Pane::Health => &[(Action::Open, "jump"), (Action::Rerun, "re-run")],
        Pane::Agents => &[
            (Action::Type, "type"),
            (Action::RunAgent, "run"),
            (Action::CancelReply, "stop"),
        ],
    };
    let mut parts: Vec<String> = pick
        .iter()
        .map(|(a, what)| {
            let key = keymap
                .keys(*a)
                .first()
                .map(|k| k.to_string())
                .unwrap_or_default();
            format!("{key} {what}")
        })
        .collect();
    if let Some(k) = keymap.keys(Action::Help).first() {
        parts.push(format!("{k} keys"));
    }
    parts.join(" · ")
}

impl App {
    pub fn new(bank: Bank, theme: Theme, keymap: KeyMap, size: Rect) -> App {
        let bank_label = sanitize_for_terminal(&bank.root().display().to_string(), false);
        let hints = Pane::ORDER.map(|p| hint_line(&keymap, p));
        let inspector = InspectorPane::new(&theme);
        let mut app = App {
            bank,
            bank_label,
            theme,
            keymap,
            focus: Pane::Tree,
            main: Pane::Preview,
            side: Pane::Inspector,
            size,
            areas: Areas::default(),
            tree: TreePane::new(),
            preview: PreviewPane::default(),
            inspector,
            health: HealthPane::default(),
            agents: AgentsPane::default(),
            popup: None,
            status: Status::default(),
            hints,
            flagged: HashSet::new(),
            dirty: true,
            effects: Vec::new(),
        };
        app.relayout();
        app.refresh_all();
        app
    }

    fn height_of(&self, pane: Pane) -> usize {
        let h = self.areas.of(pane).map_or(1, |r| inner(r).height);
        let h = match pane {
            Pane::Inspector => h.saturating_sub(inspector::FORM_HEIGHT),
            Pane::Health => h.saturating_sub(super::panes::health::detail_height(h)),
            _ => h,
        };
        usize::from(h.max(1))
    }

    /// Width the article is rendered at: its pane's inside, or the main
    /// area's when it is not visible.
    fn preview_width(&self) -> u16 {
        self.areas
            .of(Pane::Preview)
            .or(self.areas.main.map(|(_, r)| r))
            .map_or(self.size.width, |r| inner(r).width)
            .max(10)
    }

    fn relayout(&mut self) {
        self.areas = compute_areas(self.size, self.focus, self.main, self.side);
        let width = self.preview_width();
        if self.preview.rel.is_some() && self.preview.width() != width {
            self.preview.render(&self.bank, &self.theme, width);
        }
        let (th, hh, ih) = (
            self.height_of(Pane::Tree),
            self.height_of(Pane::Health),
            self.height_of(Pane::Inspector),
        );
        self.tree.cursor.clamp(self.tree.rows.len(), th);
        self.health.cursor.clamp(self.health.rows.len(), hh);
        self.inspector.clamp_scroll(ih, &self.bank, &self.theme);
    }

    /// Recompute everything derived from the bank.
    fn refresh_all(&mut self) {
        self.health
            .refresh(&self.bank, &self.theme, self.height_of(Pane::Health));
        self.flagged = self.health.flagged();
        self.tree
            .rebuild(&self.bank, &self.flagged, self.height_of(Pane::Tree));
        self.inspector.reload(&self.bank, &self.theme);
        self.agents.refresh(&self.bank);
        if self.preview.rel.is_some() {
            self.preview
                .render(&self.bank, &self.theme, self.preview_width());
        }
        self.status.bank = self.bank_label.clone();
        self.status.articles = self.bank.articles().len();
        self.status.query = self.inspector.query_text.clone();
        self.dirty = true;
    }

    fn focus_pane(&mut self, pane: Pane) {
        self.focus = pane;
        if pane == Pane::Agents {
            self.agents.llm.prepare();
        }
        match pane {
            Pane::Tree => {}
            Pane::Preview => self.main = Pane::Preview,
            Pane::Inspector | Pane::Health | Pane::Agents => {
                self.main = pane;
                self.side = pane;
            }
        }
        self.relayout();
    }

    /// Show a file in the article pane and focus it.
    pub fn open_article(&mut self, rel: &str) {
        let width = self.preview_width();
        self.preview.open(&self.bank, rel, &self.theme, width);
        self.tree
            .reveal(rel, &self.bank, &self.flagged, self.height_of(Pane::Tree));
        self.focus_pane(Pane::Preview);
    }

    fn bank_relative(&self, path: &Path) -> Option<String> {
        super::event::bank_relative(self.bank.root(), path)
    }

    fn reload_paths(&mut self, rels: Vec<String>) {
        if rels.is_empty() {
            return;
        }
        if let Err(e) = super::event::reload(&mut self.bank, &rels) {
            self.status
                .error(sanitize_for_terminal(&e.to_string(), false));
            self.dirty = true;
            return;
        }
        self.refresh_all();
        let n = rels.len();
        if n == 1 {
            self.status.info(format!(
                "reloaded {}",
                sanitize_for_terminal(&rels[0], false)
            ));
        } else {
            self.status.info(format!("reloaded {n} files"));
        }
    }

    /// What the agents take from the rest of the app: the bank and the
    /// Context pane's settings.
    fn with_agents<R>(&mut self, f: impl FnOnce(&mut AgentsPane, &AgentCtx) -> R) -> R {
        let ctx = AgentCtx {
            bank: &self.bank,
            query: self.inspector.query(),
            budget: self.inspector.budget_options(),
            height: self.height_of(Pane::Agents),
        };
        let r = f(&mut self.agents, &ctx);
        self.take_agent_effects();
        r
    }

    /// Carry out what the agents asked for.
    fn take_agent_effects(&mut self) {
        for effect in std::mem::take(&mut self.agents.effects) {
            self.dirty = true;
            match effect {
                AgentEffect::OpenArticle(rel) => {
                    if self.bank.find(&rel).is_some() {
                        self.open_article(&rel);
                    } else {
                        self.status.warn(format!(
                            "{} is no longer in the bank",
                            sanitize_for_terminal(&rel, false)
                        ));
                    }
                }
                AgentEffect::Copy(text) => self.effects.push(Effect::Copy(text)),
                AgentEffect::Reload(rels) => self.reload_paths(rels),
                AgentEffect::Info(m) => self.status.info(m),
                AgentEffect::Warn(m) => self.status.warn(m),
            }
        }
    }

    fn open_finder(&mut self) {
        let items = self
            .bank
            .articles()
            .iter()
            .enumerate()
            .map(|(id, a)| {
                let text = if a.title != a.stem {
                    format!("{} · {}", a.stem, a.title)
                } else {
                    a.stem.clone()
                };
                FinderItem {
                    text: sanitize_for_terminal(&text, false),
                    id,
                }
            })
            .collect();
        let finder = Finder::new("Find article", items, &self.theme);
        self.popup = Some(Popup::Finder(Box::new(finder)));
    }
}

/// Apply one message. Sets `app.dirty` when the screen must be redrawn
/// and queues anything that needs the terminal in `app.effects`.
pub fn update(app: &mut App, msg: Msg) {
    match msg {
        Msg::Resize(w, h) => {
            app.size = Rect::new(0, 0, w, h);
            app.relayout();
            app.dirty = true;
        }
        Msg::Key(key) => {
            on_key(app, key);
        }
        Msg::Paste(text) => {
            if let Some(Popup::Finder(f)) = &mut app.popup {
                f.input
                    .insert_str(sanitize_for_terminal(&text.replace('\n', " "), false));
                f.refilter();
                app.dirty = true;
            } else if app.focus == Pane::Inspector
                && app.inspector.paste(&text, &app.bank, &app.theme)
            {
                app.status.query = app.inspector.query_text.clone();
                app.dirty = true;
            } else if app.focus == Pane::Agents && app.agents.paste(&text) {
                app.agents.editing = true;
                app.dirty = true;
            }
        }
        Msg::FilesChanged(paths) => {
            let mut rels: Vec<String> = paths.iter().filter_map(|p| app.bank_relative(p)).collect();
            rels.sort();
            rels.dedup();
            app.reload_paths(rels);
        }
        Msg::Edited(rel) => app.reload_paths(vec![rel]),
        Msg::Llm(message) => {
            let root = app.bank.root().to_path_buf();
            if app.agents.on_link(message, &root) && app.areas.visible(Pane::Agents) {
                app.dirty = true;
            }
            app.take_agent_effects();
        }
        Msg::Error(e) => {
            app.status.error(sanitize_for_terminal(&e, false));
            app.dirty = true;
        }
    }
}

fn on_key(app: &mut App, key: KeyEvent) {
    // Ctrl-C always quits, whatever has the keyboard.
    if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
        app.effects.push(Effect::Quit);
        return;
    }
    if app.popup.is_some() {
        on_popup_key(app, key);
        app.dirty = true;
        return;
    }
    if app.focus == Pane::Inspector && app.inspector.editing {
        let h = app.height_of(Pane::Inspector);
        app.inspector.edit_key(key, &app.bank, &app.theme, h);
        app.status.query = app.inspector.query_text.clone();
        app.dirty = true;
        return;
    }
    if app.focus == Pane::Agents && app.agents.editing {
        let changed = app.with_agents(|agents, ctx| agents.edit_key(key, ctx));
        app.dirty |= changed;
        return;
    }
    let Some(k) = Key::from_event(&key) else {
        return;
    };
    let Some(action) = app.keymap.lookup(app.focus.context(), k) else {
        return;
    };
    let before = app.status.message.clone();
    if perform(app, action) {
        app.dirty = true;
    }
    if app.status.message != before {
        app.dirty = true;
    }
}

fn on_popup_key(app: &mut App, key: KeyEvent) {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match app.popup.as_mut() {
        Some(Popup::Help(_)) => {
            let k = Key::from_event(&key);
            let is_help = k.is_some_and(|k| app.keymap.keys(Action::Help).contains(&k));
            if matches!(key.code, KeyCode::Esc | KeyCode::Char('q') | KeyCode::Enter) || is_help {
                app.popup = None;
            }
        }
        Some(Popup::Finder(f)) => match key.code {
            KeyCode::Esc => app.popup = None,
            KeyCode::Enter => {
                let chosen = f.selected_id();
                app.popup = None;
                if let Some(id) = chosen {
                    let rel = app.bank.article(id).rel_path.clone();
                    app.open_article(&rel);
                }
            }
            KeyCode::Up => f.move_selection(-1),
            KeyCode::Down => f.move_selection(1),
            KeyCode::Char('p' | 'k') if ctrl => f.move_selection(-1),
            KeyCode::Char('n' | 'j') if ctrl => f.move_selection(1),
            KeyCode::PageUp => f.move_selection(-10),
            KeyCode::PageDown => f.move_selection(10),
            KeyCode::Char('u') if ctrl => {
                if f.input.delete_line_by_head() {
                    f.refilter();
                }
            }
            _ => {
                if f.input.input(key) {
                    f.refilter();
                }
            }
        },
        None => {}
    }
}

/// Carry out an action in the focused pane. Returns whether the screen
/// changed.
fn perform(app: &mut App, action: Action) -> bool {
    match action {
        Action::Quit => {
            app.effects.push(Effect::Quit);
            false
        }
        Action::Suspend => {
            app.effects.push(Effect::Suspend);
            true
        }
        Action::Help => {
            let help = Help::new(app.focus.title(), app.focus.context(), &app.keymap);
            app.popup = Some(Popup::Help(help));
            true
        }
        Action::NextPane | Action::PrevPane => {
            let i = Pane::ORDER
                .iter()
                .position(|p| *p == app.focus)
                .unwrap_or(0);
            let n = Pane::ORDER.len();
            let next = if action == Action::NextPane {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            };
            app.focus_pane(Pane::ORDER[next]);
            true
        }
        Action::Find => {
            app.open_finder();
            true
        }
        Action::Agents => {
            app.focus_pane(Pane::Agents);
            true
        }
        _ => match app.focus {
            Pane::Tree => tree_action(app, action),
            Pane::Preview => preview_action(app, action),
            Pane::Inspector => inspector_action(app, action),
            Pane::Health => health_action(app, action),
            Pane::Agents => app.with_agents(|agents, ctx| agents.action(action, ctx)),
        },
    }
}

fn page(h: usize) -> isize {
    h.saturating_sub(1).max(1) as isize
}

fn copy_path(app: &mut App, rel: Option<String>) -> bool {
    match rel {
        Some(rel) => {
            let abs = app.bank.root().join(&rel).display().to_string();
            app.status
                .info(format!("copied {}", sanitize_for_terminal(&rel, false)));
            app.effects.push(Effect::Copy(abs));
            true
        }
        None => false,
    }
}

fn tree_action(app: &mut App, action: Action) -> bool {
    let h = app.height_of(Pane::Tree);
    let len = app.tree.rows.len();
    let selected_file = match app.tree.selected().map(|r| &r.kind) {
        Some(RowKind::File { rel }) => Some(rel.clone()),
        _ => None,
    };
    match action {
        Action::Up => app.tree.cursor.move_by(-1, len, h),
        Action::Down => app.tree.cursor.move_by(1, len, h),
        Action::PageUp => app.tree.cursor.move_by(-page(h), len, h),
        Action::PageDown => app.tree.cursor.move_by(page(h), len, h),
        Action::Top => app.tree.cursor.to_top(),
        Action::Bottom => app.tree.cursor.to_bottom(len, h),
        Action::Expand | Action::Collapse => {
            let open = action == Action::Expand;
            if app.tree.set_expanded(open) {
                app.tree.rebuild(&app.bank, &app.flagged, h);
            } else if !open {
                return app.tree.select_parent(h);
            } else if let Some(rel) = selected_file {
                app.open_article(&rel);
            } else {
                return false;
            }
        }
        Action::Open => match selected_file {
            Some(rel) => app.open_article(&rel),
            None => {
                let open = !matches!(
                    app.tree.selected().map(|r| &r.kind),
                    Some(RowKind::Folder { expanded: true, .. })
                );
                app.tree.set_expanded(open);
                app.tree.rebuild(&app.bank, &app.flagged, h);
            }
        },
        Action::Edit => match selected_file {
            Some(rel) => app.effects.push(Effect::Edit { rel, line: None }),
            None => return false,
        },
        Action::CopyPath => return copy_path(app, selected_file),
        _ => return false,
    }
    true
}

fn preview_action(app: &mut App, action: Action) -> bool {
    let h = app.height_of(Pane::Preview);
    let width = app.preview_width();
    let p = &mut app.preview;
    match action {
        Action::Up => p.scroll_by(-1, h),
        Action::Down => p.scroll_by(1, h),
        Action::PageUp => p.scroll_by(-page(h), h),
        Action::PageDown => p.scroll_by(page(h), h),
        Action::Top => p.scroll = 0,
        Action::Bottom => p.scroll_to_end(h),
        Action::NextLink | Action::PrevLink => {
            let step = if action == Action::NextLink { 1 } else { -1 };
            if !p.cycle_link(step, h, &app.theme) {
                app.status.info("no links in this article");
                return true;
            }
            // Say where Enter would go before it is pressed.
            match p.selected_destination() {
                Some(Ok(rel)) => app
                    .status
                    .info(format!("→ {}", sanitize_for_terminal(&rel, false))),
                Some(Err(target)) => app.status.warn(format!(
                    "[[{}]] does not resolve to an article",
                    sanitize_for_terminal(&target, false)
                )),
                None => {}
            }
        }
        Action::Open => match p.selected_destination() {
            Some(Ok(rel)) => app.open_article(&rel),
            Some(Err(target)) => {
                app.status.warn(format!(
                    "[[{}]] does not resolve to an article",
                    sanitize_for_terminal(&target, false)
                ));
            }
            None => {
                app.status.info("select a link first (n / N)");
            }
        },
        Action::Back => {
            if !p.go_back(&app.bank, &app.theme, width) {
                app.status.info("no earlier article");
            } else if let Some(rel) = app.preview.rel.clone() {
                app.tree
                    .reveal(&rel, &app.bank, &app.flagged, app.height_of(Pane::Tree));
            }
        }
        Action::Forward => {
            if !p.go_forward(&app.bank, &app.theme, width) {
                app.status.info("no later article");
            }
        }
        Action::Edit => match p.rel.clone() {
            Some(rel) => app.effects.push(Effect::Edit { rel, line: None }),
            None => return false,
        },
        Action::CopyPath => return copy_path(app, app.preview.rel.clone()),
        _ => return false,
    }
    true
}

fn inspector_action(app: &mut App, action: Action) -> bool {
    let h = app.height_of(Pane::Inspector);
    let ins = &mut app.inspector;
    match action {
        Action::Up => ins.move_row(-1, h, &app.bank, &app.theme),
        Action::Down => ins.move_row(1, h, &app.bank, &app.theme),
        Action::PageUp => ins.move_row(-page(h / 2), h, &app.bank, &app.theme),
        Action::PageDown => ins.move_row(page(h / 2), h, &app.bank, &app.theme),
        Action::Top => ins.move_row(isize::MIN / 2, h, &app.bank, &app.theme),
        Action::Bottom => ins.move_row(isize::MAX / 2, h, &app.bank, &app.theme),
        Action::EditField => return ins.start_editing(),
        Action::Open => match ins.activate(&app.bank, &app.theme) {
            Outcome::Open(rel) => app.open_article(&rel),
            Outcome::Handled => app.status.query = app.inspector.query_text.clone(),
            Outcome::Ignored => return false,
        },
        Action::Edit => match ins.selected_candidate(&app.bank) {
            Some(rel) => app.effects.push(Effect::Edit {
                rel: rel.to_owned(),
                line: None,
            }),
            None => return false,
        },
        Action::CopyPath => {
            let rel = ins.selected_candidate(&app.bank).map(str::to_owned);
            return copy_path(app, rel);
        }
        _ => return false,
    }
    true
}

fn health_action(app: &mut App, action: Action) -> bool {
    let h = app.height_of(Pane::Health);
    let len = app.health.rows.len();
    let c = &mut app.health.cursor;
    match action {
        Action::Up => c.move_by(-1, len, h),
        Action::Down => c.move_by(1, len, h),
        Action::PageUp => c.move_by(-page(h), len, h),
        Action::PageDown => c.move_by(page(h), len, h),
        Action::Top => c.to_top(),
        Action::Bottom => c.to_bottom(len, h),
        Action::Rerun => {
            app.refresh_all();
            let summary = app.health.summary.clone();
            app.status.info(format!("health re-run: {summary}"));
        }
        Action::Open => {
            let Some(f) = app.health.selected_finding().cloned() else {
                return false;
            };
            if f.path.is_empty() {
                // About the bank as a whole: nothing to open.
                app.status.info(sanitize_for_terminal(
                    &format!("{}: {}", f.code, f.message),
                    false,
                ));
                return true;
            }
            app.open_article(&f.path);
            if let Some(line) = f.line {
                let h = app.height_of(Pane::Preview);
                app.preview.scroll_to_source_line(line, h);
            }
            app.preview.banner = Some(sanitize_for_terminal(
                &format!("{} at {}: {}", f.code, f.location(), f.message),
                false,
            ));
        }
        Action::Edit => {
            let Some(f) = app.health.selected_finding().filter(|f| !f.path.is_empty()) else {
                return false;
            };
            app.effects.push(Effect::Edit {
                rel: f.path.clone(),
                line: f.line,
            });
        }
        Action::CopyPath => {
            let rel = app.health.selected_finding().map(|f| f.path.clone());
            return copy_path(app, rel);
        }
        _ => return false,
    }
    true
}
