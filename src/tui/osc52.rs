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

pub fn copy(out: &mut impl Write, text: &str) -> io::Result<()> {
    out.write_all(sequence(text).as_bytes())?;
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
}
