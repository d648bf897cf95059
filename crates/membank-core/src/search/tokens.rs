//! Words for search: lowercased runs of letters and digits, and each
//! character of scripts written without spaces on its own.

use std::ops::Range;

/// A word and where it is in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub term: String,
    pub span: Range<usize>,
}

/// Han, kana and Hangul: written without spaces between words, so each
/// character is searched as a word.
fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F  // CJK Extensions B–F, compatibility supplement
    )
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// Call `f` with each word of `text` (lowercased into a reused buffer) and
/// its byte range. Allocates nothing per word.
pub fn for_each_word(text: &str, mut f: impl FnMut(&str, Range<usize>)) {
    let mut buf = String::new();
    let mut start: Option<usize> = None;
    let flush = |buf: &mut String,
                 start: &mut Option<usize>,
                 end: usize,
                 f: &mut dyn FnMut(&str, Range<usize>)| {
        if let Some(s) = start.take() {
            f(buf, s..end);
            buf.clear();
        }
    };
    for (i, c) in text.char_indices() {
        if is_unspaced(c) {
            flush(&mut buf, &mut start, i, &mut f);
            buf.push(c);
            f(&buf, i..i + c.len_utf8());
            buf.clear();
        } else if is_word_char(c) {
            if start.is_none() {
                start = Some(i);
            }
            if c.is_ascii() {
                buf.push(c.to_ascii_lowercase());
            } else {
                buf.extend(c.to_lowercase());
            }
        } else {
            flush(&mut buf, &mut start, i, &mut f);
        }
    }
    flush(&mut buf, &mut start, text.len(), &mut f);
}

/// Every word of `text` with its byte range.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for_each_word(text, |term, span| {
        out.push(Token {
            term: term.to_owned(),
            span,
        })
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(s: &str) -> Vec<String> {
        tokenize(s).into_iter().map(|t| t.term).collect()
    }

    #[test]
    fn words_are_lowercased_letter_and_digit_runs() {
        assert_eq!(
            terms("API keys: ep_20260601, Zoë's ☕!"),
            ["api", "keys", "ep", "20260601", "zoë", "s"]
        );
        let t = tokenize("  Ünïcode wörds");
        assert_eq!(t[0].span, 2..11);
        assert_eq!(t[0].term, "ünïcode");
    }

    #[test]
    fn han_and_kana_are_one_word_per_character() {
        assert_eq!(
            terms("Trip to 東京です"),
            ["trip", "to", "東", "京", "で", "す"]
        );
        assert_eq!(terms("用户_李雷"), ["用", "户", "李", "雷"]);
    }
}
