//! The editing keys of a one-line text input typed at its end (a rename,
//! a quick note, a filter, a query): the same keys everywhere, as a shell
//! reads them.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Apply `key` to `text`; whether it was one of the input's keys.
/// Backspace deletes a character, Ctrl-U the whole line, Ctrl-W the word
/// before the cursor; a plain or shifted character is typed, and one with
/// both Ctrl and Alt (AltGr). Any other key with Ctrl or Alt is not the
/// input's (a terminal reports Ctrl-A as
/// the letter with a modifier, which must not be typed): the caller
/// handles or ignores it.
pub fn edit(text: &mut String, key: &KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Backspace if !alt => {
            text.pop();
        }
        KeyCode::Char('u') if ctrl && !alt => text.clear(),
        KeyCode::Char('w') if ctrl && !alt => delete_word_before_end(text),
        // Ctrl and Alt together are AltGr on Windows consoles, which type
        // `@`, `[` or `€` on many European keyboards.
        KeyCode::Char(c) if ctrl == alt && !c.is_control() => text.push(c),
        _ => return false,
    }
    true
}

/// Ctrl-W: the spaces before the end, then the word before them.
fn delete_word_before_end(text: &mut String) {
    let kept = text.trim_end().len();
    let word_start = text[..kept].rfind(char::is_whitespace).map_or(0, |at| {
        at + text[at..].chars().next().map_or(1, char::len_utf8)
    });
    text.truncate(word_start);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn ctrl_and_alt_letters_are_never_typed() {
        let mut text = "03_DOMAINS/Law".to_owned();
        for m in [KeyModifiers::CONTROL, KeyModifiers::ALT] {
            for c in ['a', 'e', 'k', 'x'] {
                assert!(!edit(&mut text, &with(KeyCode::Char(c), m)));
            }
        }
        assert_eq!(text, "03_DOMAINS/Law");
        assert!(edit(
            &mut text,
            &with(KeyCode::Char('S'), KeyModifiers::SHIFT)
        ));
        assert_eq!(text, "03_DOMAINS/LawS");
        // AltGr, as a Windows console reports it.
        assert!(edit(
            &mut text,
            &with(
                KeyCode::Char('['),
                KeyModifiers::CONTROL | KeyModifiers::ALT
            )
        ));
        assert_eq!(text, "03_DOMAINS/LawS[");
    }

    #[test]
    fn ctrl_w_deletes_the_word_before_the_cursor_and_ctrl_u_the_line() {
        let mut text = "Acme wants  Oxford commas  ".to_owned();
        let ctrl = |c| with(KeyCode::Char(c), KeyModifiers::CONTROL);
        assert!(edit(&mut text, &ctrl('w')));
        assert_eq!(text, "Acme wants  Oxford ");
        assert!(edit(&mut text, &ctrl('w')));
        assert_eq!(text, "Acme wants  ");
        text.push_str("café");
        assert!(edit(&mut text, &ctrl('w')));
        assert_eq!(text, "Acme wants  ");
        assert!(edit(&mut text, &ctrl('u')));
        assert_eq!(text, "");
        assert!(edit(&mut text, &ctrl('w')));
        assert_eq!(text, "");
    }
}
