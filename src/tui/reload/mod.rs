//! Reading changed files again, away from the interface's thread: a
//! `git pull` can change thousands of files of a large bank, and reading
//! and checking them must not stop the keys. The memory on screen stays in
//! use until the new one is ready; then the two are swapped.
//!
//! The memory refreshes itself from the changed files
//! (`Memory::refreshed`): a bank copies itself with only those read again
//! and the health checks of what the change can affect are re-run
//! (`health::incremental::recheck`). A folder that changed, or another
//! layout, is read again whole and checked in full.

mod apply;

use std::collections::BTreeSet;
use std::sync::Arc;

use membank_core::clock::Clock;
use membank_core::context::ContextReport;
use membank_core::health::{HealthOptions, HealthReport, incremental};
use membank_core::memory::Memory;
use membank_core::scoring::{self, Query};
use membank_core::text::sanitize_for_terminal;
use membank_core::vocabulary::{self, Vocabulary};

use super::messages::ReadMemory;
use super::panes::bank::{Grouped, LaidOut, TreeSort, group_files, lay_out};
use super::panes::context::Ranking;
use super::panes::health::{Flagged, HealthLayout, HealthView, flagged_files, group_findings};

/// One re-read: the memory shown now, its checks, and what changed.
pub struct Reread {
    pub memory: Arc<dyn Memory>,
    pub health: Arc<HealthReport>,
    /// The day `health` was made on; the staleness of articles depends on it.
    pub checked_on: jiff::civil::Date,
    /// Today, for the checks made now.
    pub clock: Clock,
    pub files: Vec<String>,
    /// What the panes showed when the read began.
    pub plan: Plan,
}

impl Reread {
    /// The new memory with its checks, ready to be swapped in.
    pub fn run(&self) -> Result<ReadMemory, String> {
        let opts = HealthOptions::as_of(self.clock.today());
        let refreshed = self
            .memory
            .refreshed(&self.files)
            .map_err(|e| sanitize_for_terminal(&e.to_string(), false))?;
        let memory = refreshed.memory;
        let health = match (
            crate::layouts::bank(&*self.memory),
            crate::layouts::bank(&*memory),
        ) {
            (Some(old), Some(fresh)) if refreshed.in_part && self.checked_on == opts.today => {
                incremental::recheck(old, &self.health, fresh, &self.files, &opts)
            }
            _ => memory.check(&opts),
        };
        prepare(memory.as_ref());
        let derived = Derived::of(memory.as_ref(), &health, &self.plan);
        Ok(ReadMemory {
            memory,
            health: Some(health),
            derived: Some(derived),
        })
    }
}

/// What a re-read brought, for the status bar: the notes that are new or
/// changed and those that went, never the folders the watcher also names
/// (a note in three new folders is one file, not four).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct News {
    pub changed: Vec<String>,
    pub removed: Vec<String>,
}

impl News {
    /// The paths the watcher named, sorted out by the memory before
    /// (`old`) and after (`new`) the read. A folder named alone (moved in
    /// or out whole) stands for the notes under it that came or went.
    pub fn of(old: &dyn Memory, new: &dyn Memory, paths: &[String]) -> News {
        let (mut changed, mut removed) = (BTreeSet::new(), BTreeSet::new());
        // Anything else named (a folder, an image, a skipped file): the
        // notes under it, found by looking up each note's own folders, so
        // a batch of many such paths costs no more than one.
        let mut folders = std::collections::HashSet::new();
        for path in paths {
            if new.find(path).is_some() {
                changed.insert(path.clone());
            } else if old.find(path).is_some() {
                removed.insert(path.clone());
            } else {
                folders.insert(path.as_str());
            }
        }
        if !folders.is_empty() {
            let in_named_folder = |p: &str| {
                p.match_indices('/')
                    .any(|(slash, _)| folders.contains(&p[..slash]))
            };
            let under = |memory: &dyn Memory| -> BTreeSet<String> {
                (0..memory.len())
                    .map(|id| memory.document(id).path)
                    .filter(|p| in_named_folder(p))
                    .map(str::to_owned)
                    .collect()
            };
            let (before, after) = (under(old), under(new));
            changed.extend(after.difference(&before).cloned());
            removed.extend(before.difference(&after).cloned());
        }
        News {
            changed: changed.into_iter().collect(),
            removed: removed.into_iter().collect(),
        }
    }
}

/// Build here what the interface would otherwise build on its thread the
/// first time it ranks: a bank's packed scoring arrays (a fifth of a
/// second at 100,000 articles).
pub fn prepare(memory: &dyn Memory) {
    if let Some(bank) = crate::layouts::bank(memory) {
        scoring::rank(bank, &Query::default());
    }
}

/// What the panes show, taken when a read begins, so that the thread that
/// reads can also lay out what they will show of the new memory. Whatever
/// changed meanwhile is made again on the interface's thread.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The Bank pane's order of files.
    pub sort: TreeSort,
    /// The Bank pane's open folders.
    pub expanded: BTreeSet<String>,
    /// What the Context pane ranks for.
    pub ranking: Ranking,
    /// How the Health pane is folded, filtered and themed.
    pub health: HealthView,
}

/// What the panes would otherwise derive from a new memory on the
/// interface's thread when it is shown (half a second at 100,000 articles):
/// the files with findings, a bank's files grouped and laid out for its
/// tree, the clients, domains and languages the Context pane completes and
/// checks, and its ranking, and the Health pane's rows.
#[derive(Debug)]
pub struct Derived {
    pub flagged: Flagged,
    /// A bank's files grouped in this order, with the tree's rows.
    pub grouped: Option<(Grouped, TreeSort, LaidOut)>,
    /// A bank's values (reading them visits every article).
    pub values: Option<Vocabulary>,
    /// A bank's candidates for the Context pane's query.
    pub ranked: Option<(Ranking, ContextReport)>,
    /// The Health pane's rows (and its findings grouped, unfiltered).
    /// Taken when shown (the rest is moved in after it).
    pub health: Option<HealthLayout>,
}

impl Derived {
    pub fn of(memory: &dyn Memory, health: &HealthReport, plan: &Plan) -> Derived {
        let flagged = flagged_files(health);
        let bank = crate::layouts::bank(memory);
        let grouped = bank.map(|bank| {
            let grouped = group_files(bank, plan.sort, &flagged);
            let laid_out = lay_out(bank, &grouped, plan.sort, plan.expanded.clone(), &flagged);
            (grouped, plan.sort, laid_out)
        });
        let values = bank.map(vocabulary::collect);
        let ranked = bank.map(|bank| (plan.ranking.clone(), plan.ranking.build(bank)));
        Derived {
            health: Some(HealthLayout::of(
                health,
                group_findings(health, ""),
                plan.health.clone(),
            )),
            flagged,
            grouped,
            values,
            ranked,
        }
    }
}
