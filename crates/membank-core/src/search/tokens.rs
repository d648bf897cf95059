//! Words for search: runs of letters and digits, lowercased and with
//! accents removed (`Café` and `cafe` are the same word), and each
//! character of scripts written without spaces on its own.

use std::ops::Range;

use unicode_normalization::char::{decompose_canonical, is_combining_mark};

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

/// Append `c` lowercased and without its accents: the canonical
/// decomposition minus its combining marks.
fn push_folded(buf: &mut String, c: char) {
    for lower in c.to_lowercase() {
        decompose_canonical(lower, |d| {
            if !is_combining_mark(d) {
                buf.push(d);
            }
        });
    }
}

/// Call `f` with each word of `text` (folded into a reused buffer, or
/// borrowed from `text` when it is lower-case ASCII already) and its byte
/// range. Allocates nothing per word.
pub fn for_each_word(text: &str, mut f: impl FnMut(&str, Range<usize>)) {
    let bytes = text.as_bytes();
    let mut buf = String::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphanumeric() {
            // The common case: an ASCII word, passed on without copying
            // unless it has capitals.
            let start = i;
            let mut upper = false;
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                upper |= bytes[i].is_ascii_uppercase();
                i += 1;
            }
            if i < bytes.len() && bytes[i] >= 0x80 {
                buf.clear();
                buf.extend(
                    bytes[start..i]
                        .iter()
                        .map(|b| b.to_ascii_lowercase() as char),
                );
                i = word_tail(text, start, i, &mut buf, &mut f);
            } else if upper {
                buf.clear();
                buf.extend(
                    bytes[start..i]
                        .iter()
                        .map(|b| b.to_ascii_lowercase() as char),
                );
                f(&buf, start..i);
            } else {
                f(&text[start..i], start..i);
            }
        } else if b < 0x80 {
            i += 1;
        } else {
            let c = text[i..].chars().next().unwrap_or_default();
            if is_unspaced(c) {
                let end = i + c.len_utf8();
                f(&text[i..end], i..end);
                i = end;
            } else if c.is_alphanumeric() {
                buf.clear();
                i = word_tail(text, i, i, &mut buf, &mut f);
            } else {
                i += c.len_utf8();
            }
        }
    }
}

/// Finish a word that started at `start` and has been read up to `at`
/// (`buf` holds it folded so far): letters, digits and combining marks
/// continue it. Calls `f` with it and returns where reading goes on.
fn word_tail(
    text: &str,
    start: usize,
    at: usize,
    buf: &mut String,
    f: &mut impl FnMut(&str, Range<usize>),
) -> usize {
    let mut end = at;
    for c in text[at..].chars() {
        if is_unspaced(c) || !(c.is_alphanumeric() || is_combining_mark(c)) {
            break;
        }
        if c.is_ascii() {
            buf.push(c.to_ascii_lowercase());
        } else {
            push_folded(buf, c);
        }
        end += c.len_utf8();
    }
    if !buf.is_empty() {
        f(buf, start..end);
    }
    end
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
    fn words_are_folded_letter_and_digit_runs() {
        assert_eq!(
            terms("API keys: ep_20260601, Zoë's ☕!"),
            ["api", "keys", "ep", "20260601", "zoe", "s"]
        );
        let t = tokenize("  Ünïcode wörds");
        assert_eq!(t[0].span, 2..11);
        assert_eq!(t[0].term, "unicode");
        assert_eq!(t[1].term, "words");
    }

    #[test]
    fn accents_fold_whether_composed_or_not() {
        // é as one character, and as e followed by a combining acute.
        assert_eq!(
            terms("Café CAFE\u{301} naïve façade"),
            ["cafe", "cafe", "naive", "facade"]
        );
        let t = tokenize("x cafe\u{301} y");
        assert_eq!(t[1].span, 2..8);
        // Letters without a decomposition stay as they are.
        assert_eq!(terms("Straße Øre"), ["straße", "øre"]);
    }

    #[test]
    fn han_and_kana_are_one_word_per_character() {
        assert_eq!(
            terms("Trip to 東京です"),
            ["trip", "to", "東", "京", "で", "す"]
        );
        assert_eq!(terms("用户_李雷"), ["用", "户", "李", "雷"]);
        // Kana keep their voicing marks: が is not か.
        assert_eq!(terms("がか"), ["が", "か"]);
    }

    #[test]
    fn hangul_syllables_are_one_word_each() {
        assert_eq!(
            terms("한국어 번역메모리"),
            ["한", "국", "어", "번", "역", "메", "모", "리"]
        );
        // Next to Latin letters and digits, with each span one syllable.
        let t = tokenize("API키2개");
        let shown: Vec<(&str, &str)> = t
            .iter()
            .map(|t| (t.term.as_str(), &"API키2개"[t.span.clone()]))
            .collect();
        assert_eq!(
            shown,
            [("api", "API"), ("키", "키"), ("2", "2"), ("개", "개")]
        );
    }

    #[test]
    fn the_fast_path_agrees_with_char_by_char_folding() {
        for text in [
            "abc",
            "ABC déf",
            "x1Y2 ÉCOLE école",
            "a\u{301}b",
            "東a京B",
            "ǅemal",
        ] {
            let slow: Vec<String> = {
                let mut out = Vec::new();
                let mut word = String::new();
                for c in text.chars() {
                    if is_unspaced(c) {
                        if !word.is_empty() {
                            out.push(std::mem::take(&mut word));
                        }
                        out.push(c.to_string());
                    } else if c.is_alphanumeric() || (is_combining_mark(c) && !word.is_empty()) {
                        push_folded(&mut word, c);
                    } else if !word.is_empty() {
                        out.push(std::mem::take(&mut word));
                    }
                }
                if !word.is_empty() {
                    out.push(word);
                }
                out
            };
            assert_eq!(terms(text), slow, "{text}");
        }
    }
}
