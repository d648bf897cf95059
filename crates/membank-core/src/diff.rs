//! The unified diff shown for a file a reply proposes to change, the same
//! for the command line plan, the review in the terminal interface and any
//! other front end.

/// `old` → `new` as a unified diff with three lines of context, headed with
/// the bank-relative path.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}
