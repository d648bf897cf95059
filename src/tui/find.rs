//! The finder (`f`, `/`) and the search popup (`s`): opening them over
//! the open memory and routing their keys.

use membank_core::layout::{ARCHIVE_DIR, Folder};
use membank_core::text::sanitize_for_terminal;

use super::app::{App, Effect, Pane, Popup};
use super::areas::inner;
use super::panes::Cx;
use super::panes::search::SearchPane;
use super::panes::slot::Slot;
use super::widgets::fuzzy::{Finder, FinderItem, Placement};
use crate::layouts;

impl App {
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
                    title: (a.title() != a.stem()).then(|| sanitize_for_terminal(a.title(), false)),
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
    pub(super) fn open_document_finder(&mut self) {
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
