//! The trail a user can attach to a bug report: structured events
//! (`tracing`) appended to `membank.log` in membank's state folder, never
//! on the terminal. `--log-level` or `MEMBANK_LOG` sets the level (`off`,
//! `error`, `warn`, `info`, `debug`, `trace`; default `info`).
//!
//! What is logged above debug level names commands, layouts, paths, counts,
//! models and outcomes; never a key and never the text of an article or a
//! reply.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tracing::level_filters::LevelFilter;

/// The environment variable that sets the level when `--log-level` does not.
pub const ENV: &str = "MEMBANK_LOG";

/// A log larger than this is moved aside to `membank.log.1` at start, so
/// the trail stays bounded.
const ROTATE_BYTES: u64 = 5 * 1024 * 1024;

/// The level names `--log-level` accepts.
pub const LEVELS: [&str; 6] = membank_args::LOG_LEVELS;

pub fn parse_level(name: &str) -> Option<LevelFilter> {
    Some(match name.trim().to_ascii_lowercase().as_str() {
        "off" => LevelFilter::OFF,
        "error" => LevelFilter::ERROR,
        "warn" | "warning" => LevelFilter::WARN,
        "info" => LevelFilter::INFO,
        "debug" => LevelFilter::DEBUG,
        "trace" => LevelFilter::TRACE,
        _ => return None,
    })
}

/// `membank.log` in membank's state folder (see [`crate::state`]).
pub fn log_file() -> Option<PathBuf> {
    crate::state::state_dir().map(|d| d.join("membank.log"))
}

fn open(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    if std::fs::metadata(path).is_ok_and(|m| m.len() > ROTATE_BYTES) {
        let _ = std::fs::rename(path, path.with_extension("log.1"));
    }
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    // The log names memories, files and what failed in them: its owner's
    // to read, as the undo journal beside it is.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Start logging for this process. `flag` is `--log-level`; without it
/// `MEMBANK_LOG` decides. Logging that cannot start (no state folder, an
/// unwritable file, a level name that means nothing) leaves the program
/// running without a log; an unknown level name is returned as the error.
pub fn init(flag: Option<&str>) -> Result<(), String> {
    let env = std::env::var(ENV).ok().filter(|v| !v.trim().is_empty());
    let (name, source) = match (flag, env.as_deref()) {
        (Some(f), _) => (f, "--log-level"),
        (None, Some(e)) => (e, ENV),
        (None, None) => ("info", ""),
    };
    let Some(level) = parse_level(name) else {
        return Err(format!(
            "{source}: unknown level {}; use one of {}",
            membank_core::text::quoted(&membank_core::text::sanitize_for_terminal(name, false)),
            LEVELS.join(", ")
        ));
    };
    if level == LevelFilter::OFF {
        return Ok(());
    }
    let Some(file) = log_file().and_then(|p| open(&p).ok()) else {
        return Ok(());
    };
    let _ = tracing_subscriber::fmt()
        .with_writer(Mutex::new(OneLine(file)))
        .with_ansi(false)
        .with_target(false)
        .with_max_level(level)
        .try_init();
    Ok(())
}

/// The log file's writer: each event arrives as one write of one line, and
/// every control character in it (a newline or an escape in a bank's path or
/// a file's title) is made visible, so a field cannot forge another line or
/// put raw escapes into the log, whichever event carries it.
struct OneLine<W>(W);

impl<W: std::io::Write> std::io::Write for OneLine<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let (line, end) = match text.strip_suffix('\n') {
            Some(line) => (line, "\n"),
            None => (&*text, ""),
        };
        let safe = membank_core::text::sanitize_for_terminal(line, false);
        self.0.write_all(format!("{safe}{end}").as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}
