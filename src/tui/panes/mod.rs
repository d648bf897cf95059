//! The four panes. Each owns its state, changes it in response to the
//! app's messages, and draws it without computing anything.

pub mod cursor;
pub mod health;
pub mod inspector;
pub mod preview;
pub mod tree;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// A selected row: padded to the pane's width so the highlight spans the
/// whole row, not just the text.
pub fn highlight_row(line: Line<'static>, width: u16, style: Style) -> Line<'static> {
    let used = line.width();
    let mut line = line;
    let width = usize::from(width);
    if used < width {
        line.spans.push(Span::raw(" ".repeat(width - used)));
    }
    line.style(style)
}
