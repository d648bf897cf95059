//! The unified diff shown for a file a reply proposes to change, the same
//! for the command line plan, the review in the terminal interface and any
//! other front end.

/// `old` → `new` as a unified diff with three lines of context, headed with
/// the bank-relative path.
/// A name holding a line break would start a line of its own in the
/// header, where it could pass for a hunk: its controls are made visible
/// (the lines below are the file's, and a front end shows them as such).
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let path = crate::text::sanitize_for_terminal(path, false);
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_line_break_in_a_name_stays_in_the_header_line() {
        let diff = super::unified_diff("04_STYLE/y\n+++ b/fake.md", "a\n", "b\n");
        let lines: Vec<&str> = diff.lines().collect();
        assert_eq!(lines[0], "--- a/04_STYLE/y␊+++ b/fake.md", "{diff}");
        assert_eq!(lines[1], "+++ b/04_STYLE/y␊+++ b/fake.md", "{diff}");
        assert!(lines[2].starts_with("@@"), "{diff}");
    }
}
