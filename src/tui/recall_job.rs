//! The Recall pane's scan of a Deja Vu project's impressions for its cue,
//! on a worker thread: at tens of thousands of impressions one scan takes
//! longer than a key should wait. One scan runs at a time; a cue typed
//! meanwhile is scanned once it is done, and only the latest is shown.

use std::sync::Arc;

use super::app::{App, Msg};
use super::jobs::{self, Ran};
use super::panes::recall::Recalled;
use super::update::update;

impl App {
    /// The Recall pane's cue changed, or the memory did: scan it again.
    pub(super) fn recall_cue(&mut self) {
        self.panes.recall.ask();
        self.start_recall();
    }

    fn start_recall(&mut self) {
        if crate::layouts::project(&*self.memory).is_none() {
            // Nothing to scan: shown as it is, at once.
            let pane = &mut self.panes.recall;
            let generation = pane.ask();
            pane.recalled(generation, Recalled::default(), &self.theme);
            return;
        }
        let Some((cue, generation)) = self.panes.recall.start() else {
            return;
        };
        let memory = Arc::clone(&self.memory);
        let ran = jobs::run(self.background.as_ref(), "membank-recall", move || {
            let recalled = Recalled::scan(crate::layouts::project(&*memory), &cue);
            Msg::Recalled {
                generation,
                recalled: Box::new(recalled),
            }
        });
        match ran {
            Ran::Now(msg) => update(self, msg),
            Ran::Started => {}
            Ran::NotStarted(e) => {
                self.panes.recall.not_started();
                self.status
                    .error(format!("could not start the recall: {e}"));
            }
        }
    }

    /// A scan arrived: shown when it is of the latest cue and memory;
    /// otherwise the latest is scanned now.
    pub(super) fn recalled(&mut self, generation: u64, recalled: Recalled) {
        if !self
            .panes
            .recall
            .recalled(generation, recalled, &self.theme)
        {
            self.start_recall();
        }
        self.dirty = true;
    }
}
