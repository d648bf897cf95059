//! Cutting text to a display width. Whatever is cut ends in `…`, so a
//! reader knows there is more; a wide character is never split in half.

use std::borrow::Cow;

use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The mark left where text was cut.
pub const MORE: char = '…';

/// The longest start of `text` at most `room` columns wide, and its width.
pub fn head_within(text: &str, room: usize) -> (&str, usize) {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            return (&text[..at], used);
        }
        used += w;
    }
    (text, used)
}

/// `text` if it fits in `width` columns, else its start and `…`.
pub fn cut(text: &str, width: usize) -> Cow<'_, str> {
    if text.width() <= width {
        return Cow::Borrowed(text);
    }
    if width == 0 {
        return Cow::Borrowed("");
    }
    let (head, _) = head_within(text, width - 1);
    Cow::Owned(format!("{head}{MORE}"))
}

/// `text` if it fits in `width` columns, else `…` and its end: for a
/// folder, whose last parts tell similar paths apart.
pub fn cut_start(text: &str, width: usize) -> Cow<'_, str> {
    if text.width() <= width {
        return Cow::Borrowed(text);
    }
    if width == 0 {
        return Cow::Borrowed("");
    }
    let room = width - 1;
    let mut used = 0;
    let mut from = text.len();
    for (at, c) in text.char_indices().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        from = at;
    }
    Cow::Owned(format!("{MORE}{}", &text[from..]))
}

/// `text` if it fits in `width` columns, else its start, `…` and its end:
/// for a path whose both ends matter (the top folder and the file name).
pub fn cut_middle(text: &str, width: usize) -> Cow<'_, str> {
    if text.width() <= width {
        return Cow::Borrowed(text);
    }
    if width == 0 {
        return Cow::Borrowed("");
    }
    let room = width - 1;
    let (head, used) = head_within(text, room / 2);
    let tail = cut_start(&text[head.len()..], room - used + 1);
    Cow::Owned(format!("{head}{tail}"))
}

/// `line` if it fits in `width` columns, else its start and `…` (in the
/// style of the span that was cut).
pub fn cut_line(line: Line<'_>, width: usize) -> Line<'_> {
    if line.width() <= width {
        return line;
    }
    let Line {
        style,
        alignment,
        spans,
    } = line;
    let mut kept: Vec<Span> = Vec::new();
    let room = width.saturating_sub(1);
    let mut used = 0;
    for span in spans {
        let w = span.width();
        if used + w <= room {
            used += w;
            kept.push(span);
            continue;
        }
        let (head, _) = head_within(&span.content, room - used);
        let cut_here = Span::styled(format!("{head}{MORE}"), span.style);
        if width > 0 {
            kept.push(cut_here);
        }
        break;
    }
    Line {
        style,
        alignment,
        spans: kept,
    }
}

/// Every line of `lines` cut to `width` columns.
pub fn cut_lines<'a>(lines: impl IntoIterator<Item = Line<'a>>, width: u16) -> Vec<Line<'a>> {
    lines
        .into_iter()
        .map(|l| cut_line(l, usize::from(width)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Style;

    #[test]
    fn text_that_fits_is_kept_and_text_that_does_not_ends_in_an_ellipsis() {
        assert_eq!(cut("Globex", 6), "Globex");
        assert_eq!(cut("_EXAMPLE_Client_Profile", 10), "_EXAMPLE_…");
        assert_eq!(cut("abc", 1), "…");
        assert_eq!(cut("abc", 0), "");
    }

    #[test]
    fn a_folder_is_cut_at_its_start_keeping_its_last_parts() {
        let folder = "03_DOMAINS/ObsidianHelp/Plugins/Core plugins/";
        assert_eq!(cut_start(folder, 60), folder);
        assert_eq!(cut_start(folder, 22), "…Plugins/Core plugins/");
        assert_eq!(cut_start(folder, 21).width(), 21);
        assert_eq!(cut_start("日本語/", 4), "…語/");
        assert_eq!(cut_start("abc", 1), "…");
        assert_eq!(cut_start("abc", 0), "");
    }

    #[test]
    fn a_path_is_cut_in_the_middle_keeping_both_ends() {
        let path = "03_DOMAINS/Level1/Level2 long/Deep Note.md";
        assert_eq!(cut_middle(path, 60), path);
        assert_eq!(cut_middle(path, 21), "03_DOMAINS…ep Note.md");
        assert_eq!(cut_middle(path, 21).width(), 21);
        assert_eq!(cut_middle(path, 22).width(), 22);
        assert_eq!(cut_middle("日本語の名前", 6).width(), 5);
        assert_eq!(cut_middle("abc", 1), "…");
        assert_eq!(cut_middle("abc", 0), "");
    }

    #[test]
    fn a_wide_character_is_never_split() {
        // Each of these takes two columns: 5 columns hold two and the mark.
        assert_eq!(cut("日本語の名前", 5), "日本…");
        assert_eq!(cut("日本語の名前", 6), "日本…");
        assert_eq!(cut("日本語の名前", 12), "日本語の名前");
        assert_eq!(head_within("a日b", 2), ("a", 1));
    }

    #[test]
    fn a_line_is_cut_across_its_spans_keeping_their_styles() {
        let line = Line::from(vec![
            Span::styled("[x] new  ", Style::new().bold()),
            Span::raw("02_TERMINOLOGY/audit → audit.md"),
        ]);
        let cut = cut_line(line, 20);
        assert_eq!(cut.to_string(), "[x] new  02_TERMINO…");
        assert_eq!(cut.width(), 20);
        assert_eq!(cut.spans[0].style, Style::new().bold());
        assert_eq!(cut.spans[1].style, Style::new());
        // Cut right at a span's end: the next span gives way to the mark.
        let line = Line::from(vec![Span::raw("abc"), Span::raw("def")]);
        assert_eq!(cut_line(line, 4).to_string(), "abc…");
        let short = Line::from("short");
        assert_eq!(cut_line(short.clone(), 5), short);
    }
}
