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

/// The first character of `text` that would act rather than show when the
/// copy is pasted: a control character (a newline ends a shell command, an
/// escape starts a terminal sequence) or a bidirectional override or
/// isolate (the pasted text reads differently from what it does). Short
/// copies (a path, a link, an entry id) holding one are refused: the name
/// on screen shows it as `␊` or `␛`, but the clipboard would get the
/// character itself.
pub fn acts_when_pasted(text: &str) -> Option<char> {
    text.chars().find(|&c| c.is_control() || is_bidi_control(c))
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// What the status bar says when a short copy is refused: `what` names the
/// text ("name", "id") and `fix` says what to do, if anything. Short enough
/// for an 80-column status bar.
pub fn refusal(what: &str, c: char, fix: &str) -> String {
    format!(
        "not copied: the {what} holds U+{:04X}, which would act when pasted{fix}",
        u32::from(c)
    )
}

/// A long text (an assembled context, a model's reply) made safe to paste:
/// escape sequences are dropped whole, other control characters and
/// bidirectional overrides too, but newlines and tabs stay, since such a
/// text has them legitimately. Also how many pieces were dropped, so the
/// status bar can say so.
pub fn pasteable(text: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut dropped = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            // ESC [ … final byte (CSI); ESC ] / P / X / ^ / _ … BEL or ESC \
            // (OSC and the other strings); ESC and one more character
            // otherwise. The 8-bit CSI (U+009B) and string starters are
            // read the same way.
            '\x1b' | '\u{9b}' | '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => {
                dropped += 1;
                let kind = if c == '\x1b' {
                    match chars.next_if(|d| (' '..='~').contains(d)) {
                        Some('[') => '\u{9b}',
                        Some(']') => '\u{9d}',
                        Some('P') => '\u{90}',
                        Some('X') => '\u{98}',
                        Some('^') => '\u{9e}',
                        Some('_') => '\u{9f}',
                        _ => continue,
                    }
                } else {
                    c
                };
                if kind == '\u{9b}' {
                    // Parameter and intermediate bytes, then one final byte.
                    while chars.next_if(|d| (' '..='?').contains(d)).is_some() {}
                    chars.next_if(|d| ('@'..='~').contains(d));
                } else {
                    // A string runs to BEL or ST (ESC \ or U+009C); a
                    // newline ends it too, so an unended one cannot take
                    // the rest of the text with it.
                    while let Some(d) = chars.next_if(|&d| d != '\n') {
                        if d == '\x07' || d == '\u{9c}' {
                            break;
                        }
                        if d == '\x1b' {
                            chars.next_if_eq(&'\\');
                            break;
                        }
                    }
                }
            }
            c if c.is_control() || is_bidi_control(c) => dropped += 1,
            c => out.push(c),
        }
    }
    (out, dropped)
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
    fn what_acts_when_pasted_is_told_apart() {
        assert_eq!(acts_when_pasted("03_DOMAINS/Café 日本.md"), None);
        assert_eq!(acts_when_pasted("a\ntouch PWNED\nx.md"), Some('\n'));
        assert_eq!(acts_when_pasted("a\tb"), Some('\t'));
        assert_eq!(acts_when_pasted("a\u{9b}1m"), Some('\u{9b}'));
        assert_eq!(acts_when_pasted("dm\u{202e}txt.md"), Some('\u{202e}'));
    }

    #[test]
    fn a_long_text_keeps_its_lines_and_loses_its_escapes() {
        let cases = [
            ("plain\n\ttext", "plain\n\ttext", 0),
            ("a\x1b[31mred\x1b[0m b", "ared b", 2),
            ("a\x1b]52;c;aGk=\x07b", "ab", 1),
            ("a\x1b]0;title\x1b\\b", "ab", 1),
            ("a\u{9b}2Jb\u{9d}x\u{9c}c", "abc", 2),
            ("a\x1bcb", "ab", 1),
            ("a\rb\u{7f}c\u{202e}d", "abcd", 3),
            // An unended string stops at the end of its line.
            ("a\x1b]0;never ended\nnext", "a\nnext", 1),
            ("end\x1b", "end", 1),
            ("a\x1b\nb", "a\nb", 1),
        ];
        for (text, want, dropped) in cases {
            assert_eq!(pasteable(text), (want.to_owned(), dropped), "{text:?}");
        }
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
