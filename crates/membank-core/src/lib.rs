//! The Supervertaler Memory Bank Format v1.1, implemented exactly: loading a
//! bank, frontmatter, wikilinks, scoring, the token budget, and safe writing.
//!
//! Pure and synchronous: no terminal, no network, no async runtime.

pub mod archive;
pub mod article;
pub mod atomic;
pub mod bank;
pub mod budget;
pub mod clock;
pub mod compile;
pub mod context;
pub mod dejavu;
pub mod diff;
pub mod everos;
pub mod fileblocks;
pub mod fix;
pub mod frontmatter;
pub mod health;
pub mod inbox;
pub mod init;
mod intern;
pub mod journal;
pub mod json;
pub mod layout;
pub mod load_options;
pub mod lock;
pub mod memory;
pub mod near_miss;
pub mod new_note;
pub mod outcome;
pub mod parallel;
pub mod pathsafe;
#[cfg(test)]
mod random_text;
pub mod rename;
mod resolve;
pub mod review;
pub mod safe_read;
pub mod scoring;
pub mod search;
pub mod secrets;
pub mod shared_sort;
pub mod snapshot;
pub mod stamp;
pub mod suggest;
pub mod surface;
#[cfg(feature = "synth")]
pub mod synth;
#[cfg(feature = "synth")]
pub mod synth_everos;
pub mod templates;
pub mod terms;
pub mod text;
pub mod toml_error;
pub mod transaction;
pub mod vocabulary;
pub mod wikilink;

/// The format version this crate implements.
pub const SPEC_VERSION: &str = "1.1";
