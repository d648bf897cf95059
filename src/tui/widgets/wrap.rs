//! Word wrapping for text the agents show, so a pane knows how many rows
//! a reply takes (to keep the newest text in view).

use unicode_width::UnicodeWidthChar;

/// Split `text` into rows at most `width` columns wide, breaking at
/// spaces where possible and inside a word only when it is too long.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let w_of = |s: &str| s.chars().map(|c| c.width().unwrap_or(0)).sum::<usize>();
    let mut rows = Vec::new();
    for line in text.split('\n') {
        let mut row = String::new();
        let mut row_w = 0;
        let mut first = true;
        for word in line.split(' ') {
            let word_w = w_of(word);
            if !first {
                if row_w + 1 + word_w <= width {
                    row.push(' ');
                    row.push_str(word);
                    row_w += 1 + word_w;
                    continue;
                }
                rows.push(std::mem::take(&mut row));
                row_w = 0;
            }
            first = false;
            for c in word.chars() {
                let w = c.width().unwrap_or(0);
                if row_w + w > width && !row.is_empty() {
                    rows.push(std::mem::take(&mut row));
                    row_w = 0;
                }
                row.push(c);
                row_w += w;
            }
        }
        rows.push(row);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn breaks_at_spaces_and_splits_long_words() {
        assert_eq!(wrap("aaa bbb ccc", 7), ["aaa bbb", "ccc"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("one\n\ntwo", 10), ["one", "", "two"]);
    }
}
