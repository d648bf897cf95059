//! Reading changed files again, away from the interface's thread: a
//! `git pull` can change thousands of files of a large bank, and reading
//! and checking them must not stop the keys. The memory on screen stays in
//! use until the new one is ready; then the two are swapped.
//!
//! A bank copies itself with only the changed files read again
//! (`Bank::reloaded`) and re-runs the health checks of what the change can
//! affect (`health::incremental::recheck`). A folder that changed, or
//! another layout, is read again whole and checked in full.

use std::sync::Arc;

use membank_core::bank::Bank;
use membank_core::health::{HealthOptions, HealthReport, incremental};
use membank_core::memory::Memory;
use membank_core::scoring::{self, Query};
use membank_core::text::sanitize_for_terminal;

use super::messages::ReadMemory;

/// One re-read: the memory shown now, its checks, and what changed.
pub struct Reread {
    pub memory: Arc<dyn Memory>,
    pub health: Arc<HealthReport>,
    /// The day `health` was made on; the staleness of articles depends on it.
    pub checked_on: jiff::civil::Date,
    pub files: Vec<String>,
    /// Read everything again (a folder changed, or not a bank).
    pub whole: bool,
}

impl Reread {
    /// The new memory with its checks, ready to be swapped in.
    pub fn run(&self) -> Result<ReadMemory, String> {
        let opts = HealthOptions::default();
        if !self.whole
            && let Some(old) = self.memory.downcast_ref::<Bank>()
        {
            let fresh = old.reloaded(&self.files);
            let health = if self.checked_on == opts.today {
                incremental::recheck(old, &self.health, &fresh, &self.files, &opts)
            } else {
                fresh.check(&opts)
            };
            prepare(&fresh);
            return Ok(ReadMemory {
                memory: Box::new(fresh),
                health: Some(health),
            });
        }
        let spec = self.memory.spec();
        let memory = (spec.open)(self.memory.root())
            .map_err(|e| sanitize_for_terminal(&e.to_string(), false))?;
        let health = memory.check(&opts);
        prepare(memory.as_ref());
        Ok(ReadMemory {
            memory,
            health: Some(health),
        })
    }
}

/// Build here what the interface would otherwise build on its thread the
/// first time it ranks: a bank's packed scoring arrays (a fifth of a
/// second at 100,000 articles).
pub fn prepare(memory: &dyn Memory) {
    if let Some(bank) = memory.downcast_ref::<Bank>() {
        scoring::rank(bank, &Query::default());
    }
}
