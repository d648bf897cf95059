//! Widgets shared by the panes.

pub mod confirm;
pub mod cut;
pub mod fuzzy;
pub mod fuzzy_rank;
pub mod help;
pub mod jsonl;
pub mod line_input;
pub mod markdown;
pub mod status;
pub mod wrap;
