//! The Supervertaler Memory Bank Format v1.1, implemented exactly: loading a
//! bank, frontmatter, wikilinks, scoring, the token budget, and safe writing.
//!
//! Pure and synchronous: no terminal, no network, no async runtime.

pub mod article;
pub mod bank;
pub mod budget;
pub mod context;
pub mod frontmatter;
pub mod layout;
pub mod scoring;
pub mod snapshot;
pub mod synth;
pub mod text;
pub mod vocabulary;
pub mod wikilink;

/// The format version this crate implements.
pub const SPEC_VERSION: &str = "1.1";
