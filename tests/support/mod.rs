//! What every test that runs the binary shares: a state folder of its own,
//! so no test run writes a log or a remembered query into the state folder
//! of whoever runs the tests.

// Each test crate uses only some of these.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// The state folder the tests' runs use, inside the build's temporary folder.
pub fn state_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("membank-state")
}

/// `membank`, with its state folder moved out of the user's.
pub fn membank() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_membank"));
    cmd.env("MEMBANK_STATE_DIR", state_dir());
    cmd
}
