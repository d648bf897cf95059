//! The interface's side of a re-read: starting one for the files that
//! changed, and showing the memory it brings back with its checks.

use std::sync::Arc;

use membank_core::health::HealthOptions;
use membank_core::text::sanitize_for_terminal;

use super::{News, Reread};
use crate::layouts;
use crate::tui::app::{App, Msg, Pane};
use crate::tui::drop_later::drop_later;
use crate::tui::jobs::{self, Ran};
use crate::tui::messages::ReadMemory;
use crate::tui::update::update;

/// Reading again and showing what was read, on the app.
impl App {
    /// What the panes show now, for a read that lays out the next memory.
    pub fn plan(&self) -> super::Plan {
        super::Plan {
            sort: self.panes.bank.sort,
            expanded: self.panes.bank.expanded().clone(),
            ranking: self.panes.context.ranking(),
            health: self.panes.health.view(),
        }
    }

    /// Read the changed files on a worker thread (everything, when the
    /// memory needs it), with their checks; `Msg::Reloaded` brings the new
    /// memory.
    /// Without a channel (tests) the same work is done at once.
    pub(in crate::tui) fn reread(&mut self, files: Vec<String>) {
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
        self.rereading = true;
        let ran = jobs::run(self.background.as_ref(), "membank-reload", move || {
            let read = job.run();
            // Told apart here, where both memories are at hand and a
            // folder's notes can be listed off the interface's thread.
            let news = match &read {
                Ok(read) => News::of(job.memory.as_ref(), read.memory.as_ref(), &job.files),
                Err(_) => News::default(),
            };
            // The old memory is no longer needed here: let it go before
            // the new one is shown, not after.
            drop(job.memory);
            Msg::Reloaded {
                generation,
                read: Box::new(read),
                news,
            }
        });
        match ran {
            Ran::Now(msg) => update(self, msg),
            Ran::Started => {}
            Ran::NotStarted(e) => {
                self.rereading = false;
                self.status
                    .error(format!("could not start reading again: {e}"));
            }
        }
    }

    /// A memory read again in the background arrived: show it unless a
    /// later read is under way, keeping what is selected and open; then
    /// read what changed meanwhile.
    pub(in crate::tui) fn reloaded(
        &mut self,
        generation: u64,
        read: Result<ReadMemory, String>,
        news: &News,
    ) {
        if generation != self.reloads {
            return;
        }
        self.rereading = false;
        match read {
            Ok(read) => {
                self.install(read);
                self.say_reloaded(news);
                crate::tui::panes::write_dialog::settle(self);
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
    pub(in crate::tui) fn install(&mut self, read: ReadMemory) {
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
        crate::tui::drop_later::drop_later((old_memory, old_health));
        // The read's buffers on its threads are free by now, the old
        // memory soon: their pages would otherwise stay resident.
        crate::tui::drop_later::give_back_pages_later();
    }

    /// Start reading the files that changed while another read was under way.
    pub(in crate::tui) fn reread_queued(&mut self) {
        if !self.queued.is_empty() {
            let mut files = std::mem::take(&mut self.queued);
            files.sort();
            files.dedup();
            self.reload_paths(files);
        }
    }

    /// Recompute everything derived from the bank.
    pub(in crate::tui) fn refresh_all(&mut self) {
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
        let laid_out = derived.as_mut().and_then(|d| d.health.take());
        p.health.refresh_laid_out(self.health.clone(), laid_out, hh);
        p.article.set_health(self.health.clone());
        match derived {
            Some(derived) => {
                // Freeing the paths of the files flagged before (tens of
                // thousands at 100,000 articles) takes a key's time.
                drop_later(std::mem::replace(&mut self.flagged, derived.flagged));
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
                drop_later(std::mem::replace(&mut self.flagged, p.health.flagged()));
                p.bank.files_changed();
            }
        }
        p.bank.rebuild(memory, &self.flagged, bh);
        p.article.empty_note = None;
        p.article.noun = memory.spec().record;
        if let Some(bank) = crate::layouts::bank(memory) {
            // The screen may have been laid out before there was a bank
            // to size the list for (the first read).
            // Ranked again first: until then its rows name articles of the
            // memory before, which the new one may no longer have.
            p.context.reload(bank, values, ranked, theme);
            p.context.set_width(cw, bank, theme);
            p.context.clamp_scroll(ch, bank, theme);
            p.agents.refresh(bank, &self.health);
            p.article.empty_note = crate::tui::panes::bank::starter_note(bank);
        }
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
        self.recall_cue();
    }

    pub(in crate::tui) fn reload_paths(&mut self, rels: Vec<String>) {
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

    /// Remember files membank just wrote: their re-reads, its own and the
    /// watcher's report of the same write, are not news.
    pub(in crate::tui) fn wrote(&mut self, rels: &[String]) {
        // Long enough for the watcher to settle and the read to finish.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let now = std::time::Instant::now();
        self.own_writes.retain(|(_, t)| *t > now);
        self.own_writes
            .extend(rels.iter().map(|rel| (rel.clone(), until)));
    }

    /// Say what a re-read brought, unless membank wrote it itself: the
    /// note, or how many, read again, and those deleted.
    pub(in crate::tui) fn say_reloaded(&mut self, news: &News) {
        let now = std::time::Instant::now();
        self.own_writes.retain(|(_, t)| *t > now);
        let not_own = |rels: &[String]| -> Vec<String> {
            rels.iter()
                .filter(|rel| !self.own_writes.iter().any(|(own, _)| own == *rel))
                .map(|rel| sanitize_for_terminal(rel, false))
                .collect()
        };
        let said = |verb: &str, rels: Vec<String>| match rels.as_slice() {
            [] => None,
            [one] => Some(format!("{verb} {one}")),
            many => Some(format!("{verb} {} files", many.len())),
        };
        let parts: Vec<String> = [
            said("reloaded", not_own(&news.changed)),
            said("deleted", not_own(&news.removed)),
        ]
        .into_iter()
        .flatten()
        .collect();
        if parts.is_empty() {
            return;
        }
        // Background news; a start-up notice (where the demo lives) stays
        // until it expires.
        if !self.status.shows_notice() {
            self.status.info(parts.join(" · "));
        }
    }

    /// Build the search index of the memory open now, on a worker thread
    /// when there is a channel back, else at once.
    pub(in crate::tui) fn index_search(&mut self, generation: u64) {
        use crate::tui::panes::search::Indexed;
        let memory = Arc::clone(&self.memory);
        let ran = jobs::run(self.background.as_ref(), "membank-index", move || {
            let index = membank_core::search::SearchIndex::of_memory(memory.as_ref());
            // The memory is shared until here: let the interface read
            // changed files into it again.
            drop(memory);
            // The build's tables on the worker threads are free now.
            crate::tui::drop_later::give_back_pages();
            Msg::SearchIndexed(Indexed { generation, index })
        });
        match ran {
            Ran::Now(msg) => update(self, msg),
            Ran::Started => {}
            Ran::NotStarted(e) => self.status.error(format!("could not start indexing: {e}")),
        }
    }
}
