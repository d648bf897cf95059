//! A bank's tree put in another order (`s`) on a worker thread: at
//! 100,000 files grouping and laying them out takes longer than a key
//! should wait. The tree keeps its order until the new one arrives; only
//! the latest order asked for is shown.

use std::sync::Arc;

use super::app::{App, Msg};
use super::jobs::{self, Ran};
use super::panes::Pane;
use super::panes::bank::{SortedTree, TreeSort};
use super::update::update;

impl App {
    pub(super) fn sort_tree(&mut self, sort: TreeSort, generation: u64) {
        if crate::layouts::bank(&*self.memory).is_none() {
            return;
        }
        let memory = Arc::clone(&self.memory);
        let flagged = self.flagged.clone();
        let expanded = self.panes.bank.expanded().clone();
        let ran = jobs::run(self.background.as_ref(), "membank-sort", move || {
            let sorted = crate::layouts::bank(&*memory)
                .map(|bank| SortedTree::of(bank, sort, generation, &flagged, expanded));
            match sorted {
                Some(sorted) => Msg::TreeSorted(Box::new(sorted)),
                None => Msg::Error("the tree could not be sorted: not a bank".into()),
            }
        });
        match ran {
            Ran::Now(msg) => update(self, msg),
            Ran::Started => {}
            Ran::NotStarted(e) => self.status.error(format!("could not sort the tree: {e}")),
        }
    }

    /// An order's grouping arrived: shown if it is still wanted.
    pub(super) fn tree_sorted(&mut self, sorted: SortedTree) {
        let h = self.height_of(Pane::Bank);
        let shown = self
            .panes
            .bank
            .sorted(sorted, self.memory.as_ref(), &self.flagged, h);
        if let Some(sort) = shown {
            self.status.info(format!("tree sorted by {}", sort.word()));
            self.dirty = true;
        }
    }
}
