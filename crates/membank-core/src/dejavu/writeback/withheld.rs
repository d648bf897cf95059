//! The lines a model never saw. A shared record's lines that name private
//! memory reach the model as a marker ([`PRIVATE_LINE`]); a reply that
//! rewrites the record keeps the marker where the line stood, or drops it.
//! Either written as is would replace the user's line with membank's
//! marker, or delete it. So each marker gets its line back, in order, and a
//! block that drops one, or has a marker where nothing was withheld, is
//! not written.

use crate::dejavu::context::PRIVATE_LINE;
use crate::dejavu::project::Project;

/// The start every withheld-line marker shares (the one sent to a model
/// and the one the MCP server shows), however the model decorated it.
const MARKER_START: &str = "[line withheld: it names private memory";

/// `content` (a reply's block for the record `rel`) with each marker line
/// replaced by the line it stands for; `Err` with the reason when the two
/// do not match up.
pub(super) fn restore(project: &Project, rel: &str, content: &str) -> Result<String, String> {
    debug_assert!(PRIVATE_LINE.starts_with(MARKER_START));
    let withheld: Vec<(usize, &str)> = match project.record(rel) {
        Some(record) => {
            let numbers = project.lines_naming_private(rel);
            record
                .text
                .lines()
                .enumerate()
                .filter(|(i, _)| numbers.binary_search(&(i + 1)).is_ok())
                .map(|(i, line)| (i + 1, line))
                .collect()
        }
        None => Vec::new(),
    };
    let markers = content.lines().filter(|l| l.contains(MARKER_START)).count();
    if markers == 0 && withheld.is_empty() {
        return Ok(content.to_owned());
    }
    if markers > withheld.len() {
        return Err(format!(
            "it has {markers} withheld-line marker(s) where {} line(s) of {rel} were withheld; \
             membank cannot tell which line a marker stands for, so the block is not written",
            withheld.len()
        ));
    }
    if markers < withheld.len() {
        let dropped: Vec<String> = withheld[markers..]
            .iter()
            .map(|(n, _)| n.to_string())
            .collect();
        return Err(format!(
            "it drops {} line(s) of {rel} that name private memory and were withheld from the \
             model (line {} on disk); writing it would delete them, so the block is not written",
            withheld.len() - markers,
            dropped.join(", ")
        ));
    }
    let mut lines = withheld.iter().map(|(_, line)| *line);
    let mut out = String::with_capacity(content.len());
    for line in content.split_inclusive('\n') {
        if line.contains(MARKER_START) {
            out.push_str(lines.next().unwrap_or_default());
            if line.ends_with('\n') {
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    Ok(out)
}
