//! Deja Vu memory: a repo-local `memory/` folder of Markdown records, an
//! `impressions.jsonl` cue index and a `recall-feedback.jsonl` log.
//!
//! Recall and the checks reproduce the public reference tools (the scan,
//! lint, doctor and feedback report scripts) to the last digit, JavaScript
//! quirks included; see `js` for why lines are not parsed with serde_json.
//! Paths are relative to the project folder (the parent of `memory/`) and
//! `/`-separated, like `record_path`.

pub mod checks;
pub mod context;
pub mod explained;
pub mod feedback;
pub mod fix;
pub mod js;
pub mod jsonl;
pub mod layout;
pub mod paths;
pub mod project;
pub mod recall;
pub mod record;
pub mod rename;
pub mod stream;
pub mod supersede;
pub mod writeback;

pub use layout::{LAYOUT, open_project};
pub use project::{NotAProject, Project, Record, detect};
pub use recall::{Level, Recall, recall};

pub const MEMORY_DIR: &str = "memory";
pub const AGENTS_PATH: &str = "AGENTS.md";
pub const SUMMARY_PATH: &str = "memory/summary.md";
pub const INDEX_PATH: &str = "memory/index.md";
pub const IMPRESSIONS_PATH: &str = "memory/impressions.jsonl";
pub const FEEDBACK_PATH: &str = "memory/recall-feedback.jsonl";
