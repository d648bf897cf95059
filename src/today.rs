//! The clock every front end reads "today" from: the system's, unless the
//! user pins it (`--today`, or `MEMBANK_TODAY` for a whole session, a CI job
//! or a test run) to reproduce a report as of a date.

use membank_core::clock::Clock;

/// The variable that pins the clock for every command.
pub const ENV: &str = "MEMBANK_TODAY";

/// The clock for this run: `flag` if given, else `MEMBANK_TODAY`, else the
/// system's.
pub fn clock(flag: Option<&str>) -> Result<Clock, String> {
    if let Some(text) = flag {
        return Clock::pinned_at(text).map_err(|e| format!("--today: {e}"));
    }
    match std::env::var_os(ENV) {
        None => Ok(Clock::System),
        Some(v) => match v.to_str() {
            Some(text) if !text.trim().is_empty() => {
                Clock::pinned_at(text).map_err(|e| format!("{ENV}: {e}"))
            }
            Some(_) => Ok(Clock::System),
            None => Err(format!("{ENV} is not valid UTF-8")),
        },
    }
}
