//! The unified diff lives in the core, shared by every front end.

pub use membank_core::diff::unified_diff;
