//! The words for a finding's severity, the same in every report and pane:
//! errors, warnings and notes. (`--json` keeps the format's `info`.)

use membank_core::health::Severity;

/// The singular word: "error", "warning" or "note".
pub fn word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// "1 error", "3 notes".
pub fn count(severity: Severity, n: usize) -> String {
    let w = word(severity);
    if n == 1 {
        format!("{n} {w}")
    } else {
        format!("{n} {w}s")
    }
}

/// The heading of a group: "Errors", "Warnings", "Notes".
pub fn heading(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "Errors",
        Severity::Warning => "Warnings",
        Severity::Info => "Notes",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_use_the_same_words_as_headings() {
        assert_eq!(count(Severity::Info, 1), "1 note");
        assert_eq!(count(Severity::Info, 3), "3 notes");
        assert_eq!(count(Severity::Error, 0), "0 errors");
        assert_eq!(heading(Severity::Warning), "Warnings");
    }
}
