//! The few text styles of the readable reports. Only the 16 standard
//! colours are used, and `anstream` drops them when output is not a
//! terminal, when `NO_COLOR` is set or with `--color never`.

use anstyle::{AnsiColor, Style};

pub const HEADING: Style = Style::new().bold();
pub const ERROR: Style = AnsiColor::Red.on_default().bold();
pub const WARNING: Style = AnsiColor::Yellow.on_default().bold();
pub const NOTE: Style = AnsiColor::Cyan.on_default();
pub const GOOD: Style = AnsiColor::Green.on_default();
/// Secondary text; dim rather than "bright black", which some palettes
/// draw invisibly.
pub const MUTED: Style = Style::new().dimmed();
pub const CODE: Style = Style::new().bold();

/// Apply `--color` to everything printed through `anstream` (auto also
/// honours `NO_COLOR` and whether the output is a terminal).
pub fn set_choice(choice: membank::tui::ColorChoice) {
    let choice = match choice {
        membank::tui::ColorChoice::Auto => anstream::ColorChoice::Auto,
        membank::tui::ColorChoice::Always => anstream::ColorChoice::Always,
        membank::tui::ColorChoice::Never => anstream::ColorChoice::Never,
    };
    choice.write_global();
}

/// A block of a long report, written by `write` with its styles kept or
/// dropped as `anstream` decided (`choice`) for the real standard output.
/// Blocks can be made on any thread and written out in order.
pub fn styled_block(
    choice: anstream::ColorChoice,
    write: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Vec<u8> {
    styled_block_in(choice, Vec::new(), write)
}

/// [`styled_block`] written into `block`, which may have room made for it.
pub fn styled_block_in(
    choice: anstream::ColorChoice,
    block: Vec<u8>,
    write: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Vec<u8> {
    let mut block = anstream::AutoStream::new(block, choice);
    let _ = write(&mut block);
    block.into_inner()
}
