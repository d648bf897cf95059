//! membank's terminal interface and what the command line shares with it,
//! as a library, so the binary, the tests and the benchmarks use one copy.

pub mod diff;
pub mod last_query;
pub mod layout_state;
pub mod layouts;
pub mod logging;
pub mod plural;
pub mod read_settings;
pub mod saved_reply;
pub mod severity;
pub mod state;
pub mod today;
pub mod tui;
pub mod undo_journal;
pub mod watch;
