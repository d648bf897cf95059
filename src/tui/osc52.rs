//! Copy to the clipboard with OSC 52, which terminals honour even over SSH
//! (the sequence travels with the output, not through a local clipboard).

use std::io::{self, Write};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// The escape sequence that asks the terminal to put `text` on the
/// clipboard. BEL-terminated: understood more widely than ST.
pub fn sequence(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", STANDARD.encode(text))
}

/// The same sequence wrapped for tmux's passthrough (`ESC P tmux; … ESC \`,
/// every ESC inside doubled), which reaches the outer terminal when tmux
/// has `allow-passthrough on` even if `set-clipboard` is off.
pub fn tmux_passthrough(text: &str) -> String {
    let inner = sequence(text).replace('\x1b', "\x1b\x1b");
    format!("\x1bPtmux;{inner}\x1b\\")
}

/// What to write for a copy: inside tmux both the plain sequence (taken by
/// tmux itself with `set-clipboard on`) and the wrapped one.
pub fn sequences(text: &str, in_tmux: bool) -> String {
    let mut out = sequence(text);
    if in_tmux {
        out.push_str(&tmux_passthrough(text));
    }
    out
}

/// Whether the interface runs inside tmux.
pub fn in_tmux() -> bool {
    std::env::var_os("TMUX").is_some_and(|v| !v.is_empty())
}

/// Said once per session when copying inside tmux, since tmux keeps OSC 52
/// to itself unless told otherwise. It replaces the "copied …" message and
/// is short enough to be read whole in an 80-column status bar.
pub const TMUX_HINT: &str = "copied; tmux may need set -g set-clipboard on";

pub fn copy(out: &mut impl Write, text: &str) -> io::Result<()> {
    out.write_all(sequences(text, in_tmux()).as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_is_base64_in_osc_52() {
        assert_eq!(sequence("hi"), "\x1b]52;c;aGk=\x07");
        // Control characters in the text cannot break out: they are encoded.
        let s = sequence("\x1b[2J");
        assert_eq!(s.matches('\x1b').count(), 1);
    }

    #[test]
    fn inside_tmux_the_sequence_is_also_wrapped_for_passthrough() {
        assert_eq!(sequences("hi", false), "\x1b]52;c;aGk=\x07");
        assert_eq!(
            sequences("hi", true),
            "\x1b]52;c;aGk=\x07\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\"
        );
    }
}
