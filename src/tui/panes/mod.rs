//! The four panes. Each owns its state, changes it in response to the
//! app's messages, and draws it without computing anything.

pub mod cursor;
pub mod health;
pub mod inspector;
pub mod preview;
pub mod tree;
