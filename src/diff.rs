//! The unified diff shown for a file an agent proposes to change, shared by
//! the command line plan and the review in the terminal interface.

/// `old` → `new` as a unified diff with three lines of context, headed with
/// the bank-relative path.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}
