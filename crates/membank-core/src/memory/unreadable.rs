//! Layouts membank recognises but whose reader is not registered yet: the
//! folder is named correctly in messages and `--format`, and opening it says
//! plainly that it cannot be read. A layout module replaces its entry here
//! with its own `LayoutSpec`.

use std::path::Path;

use super::{LayoutSpec, Memory, OpenError, detect};

pub static DEJAVU: LayoutSpec = LayoutSpec {
    name: "dejavu",
    title: "a Deja Vu project",
    looked_for: "memory/impressions.jsonl or memory/summary.md",
    detect: detect::dejavu_root,
    open: |root| not_readable(root, "Deja Vu projects"),
};

fn not_readable(root: &Path, what: &str) -> Result<Box<dyn Memory>, OpenError> {
    Err(OpenError::Layout {
        path: root.to_path_buf(),
        message: format!("membank recognises {what} but cannot read them yet"),
    })
}
