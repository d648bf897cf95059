//! The one vocabulary for what a proposed file does to the memory (new,
//! changed, unchanged, rejected), before and after it is written, and the
//! one line every front end prints for it.

use serde::Serialize;

/// What one proposed file would do, or did.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    New,
    Changed,
    Unchanged,
    /// The checks refused it (or the user declined it); it is never written.
    Rejected,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::New => "new",
            Change::Changed => "changed",
            Change::Unchanged => "unchanged",
            Change::Rejected => "rejected",
        }
    }
}

/// `new        path`, or for a rejected file `rejected   path (line N):
/// reason`: the line the command line and the interface both show. The
/// path and reason are untrusted: sanitise the line before a terminal
/// shows it.
pub fn outcome_line(change: Change, path: &str, line: usize, reason: Option<&str>) -> String {
    match (change, reason) {
        (Change::Rejected, Some(reason)) => {
            format!("{:<9}  {path} (line {line}): {reason}", change.as_str())
        }
        _ => format!("{:<9}  {path}", change.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_outcome() {
        assert_eq!(
            outcome_line(Change::New, "a.md", 3, None),
            "new        a.md"
        );
        assert_eq!(
            outcome_line(Change::Rejected, "b.md", 7, Some("no")),
            "rejected   b.md (line 7): no"
        );
    }
}
