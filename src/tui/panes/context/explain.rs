//! Putting a ranked candidate into words: its row in the list (wrapped
//! to the pane's width) and the detail box of the selected one, with the
//! §8 rule that decides what the budget drops first.

use membank_core::bank::Bank;
use membank_core::context::{ContextEntry, ContextReport, ExplainedEntry};
use membank_core::layout::Folder;
use membank_core::scoring::{Query, SignalMatch};
use membank_core::text::sanitize_for_terminal;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::CandidateRow;
use crate::tui::theme::Theme;

/// Columns the lines under a candidate's path are indented by.
const INDENT: usize = 10;

pub fn summary(report: &ContextReport, bank: &Bank) -> String {
    let kept = report.articles.iter().filter(|e| e.included).count();
    let budget = if report.budget == 0 {
        "unlimited".to_owned()
    } else {
        report.budget.to_string()
    };
    let mut line = format!(
        "used {} / {} tokens · {} kept · {} dropped · {}",
        report.used_tokens,
        budget,
        kept,
        report.articles.len() - kept,
        report.token_estimator
    );
    if let Some(note) = report.tier_order_note(bank) {
        line.push_str(" · ");
        line.push_str(&note);
    }
    line
}

fn signal_text(m: &SignalMatch, points: u32) -> String {
    let mut s = format!("{}: {}", m.key, m.value);
    if let (Some(tag), Some(q)) = (&m.tag, &m.query) {
        s.push_str(&format!(" ({tag} ~ {q})"));
    }
    s.push_str(&format!(" → +{points}"));
    sanitize_for_terminal(&s, false)
}

/// The core words its reasons for the command line; here the switch is
/// the "unscored" row.
fn tui_wording(reason: &str) -> String {
    reason.replace(
        "add it with --include-unscored",
        "switch \"unscored\" to include it",
    )
}

fn signals(explained: &ExplainedEntry) -> Vec<String> {
    [
        (&explained.matched.client, explained.signals.client),
        (&explained.matched.domain, explained.signals.domain),
        (&explained.matched.language, explained.signals.language),
    ]
    .into_iter()
    .filter_map(|(m, p)| m.as_ref().map(|m| signal_text(m, p)))
    .collect()
}

fn date_text(explained: &ExplainedEntry) -> String {
    match explained.last_updated.as_deref() {
        None => "no date".to_owned(),
        Some(d) if membank_core::frontmatter::parse_iso_date(d).is_some() => d.to_owned(),
        Some(d) => format!("invalid date “{}”", sanitize_for_terminal(d, false)),
    }
}

/// Lay styled pieces out in rows of at most `width` columns, each row
/// starting with `indent` spaces; breaks fall between words.
pub fn wrap_spans(pieces: &[(String, Style)], indent: usize, width: usize) -> Vec<Line<'static>> {
    let room = width.saturating_sub(indent).max(12);
    let mut rows: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    for (text, style) in pieces {
        for word in text.split(' ').filter(|w| !w.is_empty()) {
            let w = word.width();
            if used > 0 && used + 1 + w > room {
                rows.push(Vec::new());
                used = 0;
            }
            let row = rows.last_mut().expect("one row at least");
            let piece = if used > 0 {
                format!(" {word}")
            } else {
                word.to_owned()
            };
            used += piece.width();
            row.push(Span::styled(piece, *style));
        }
    }
    rows.into_iter()
        .map(|mut spans| {
            spans.insert(0, Span::raw(" ".repeat(indent)));
            Line::from(spans)
        })
        .collect()
}

/// A candidate's row in the list: rank, mark, score and path, then its
/// tokens, date and matched signals, then why it was left out, wrapped.
pub fn candidate_row(
    e: &ContextEntry,
    bank: &Bank,
    query: &Query,
    theme: &Theme,
    width: usize,
) -> CandidateRow {
    let explained = e.explain(bank, query);
    let (mark, mark_style) = if e.included {
        ("✓", theme.kept)
    } else {
        ("✗", theme.dropped)
    };
    let head = Line::from(vec![
        Span::styled(format!("{:>3} ", e.rank), theme.muted),
        Span::styled(format!("{mark} "), mark_style),
        Span::styled(format!("{:>2}  ", e.score), theme.score),
        Span::styled(sanitize_for_terminal(&explained.path, false), theme.text),
    ]);
    let mut pieces = vec![(
        format!("{} tok · {} ·", e.tokens, date_text(&explained)),
        theme.muted,
    )];
    let found = signals(&explained);
    if found.is_empty() {
        pieces.push(("no signal matched".to_owned(), theme.muted));
    } else {
        pieces.push((found.join(" · "), theme.matched));
    }
    let mut lines = vec![head];
    lines.extend(wrap_spans(&pieces, INDENT, width));
    if let Some(reason) = &explained.drop_reason {
        let text = format!(
            "dropped: {}",
            sanitize_for_terminal(&tui_wording(reason), false)
        );
        lines.extend(wrap_spans(&[(text, theme.dropped)], INDENT, width));
    }
    CandidateRow {
        rel: explained.path.clone(),
        included: e.included,
        lines,
    }
}

/// What the budget does after dropping, in words.
const FILL_RULE: &str = "once the rest fits, the dropped articles are tried again, most \
    important first, and each one that fits in what is left is put back";

/// Where the article's folder stands in §8's drop order, in words.
fn tier_rule(folder: Folder, score: u32) -> &'static str {
    if score == 0 {
        return "the spec's budget rule (§8): unscored articles are dropped before any scored one";
    }
    match folder {
        Folder::Terminology => {
            "the spec's budget rule (§8): terminology is dropped before any style guide, domain or client \
             profile, whatever their scores"
        }
        Folder::Style => {
            "the spec's budget rule (§8): style guides are dropped after terminology, before domains and \
             client profiles"
        }
        Folder::Domains => {
            "the spec's budget rule (§8): domains are dropped after terminology and style guides, before \
             any client profile"
        }
        _ => {
            "the spec's budget rule (§8): client profiles are dropped last: terminology is dropped before any client profile"
        }
    }
}

/// Why articles scoring below a dropped one are kept, from how many are
/// in a tier the budget trims later and how many the fill put back.
fn kept_below_note((later, put_back): (usize, usize)) -> Option<String> {
    let n = later + put_back;
    if n == 0 {
        return None;
    }
    let head = if n == 1 {
        "1 kept article scores below this one".to_owned()
    } else {
        format!("{n} kept articles score below this one")
    };
    let later_words = "in a tier the budget trims later";
    let back_words = "put back after the trim, small enough for what was left of the budget";
    Some(match (later, put_back) {
        (_, 0) if n == 1 => format!("{head}: it is {later_words}"),
        (_, 0) => format!("{head}: they are {later_words}"),
        (0, _) if n == 1 => format!("{head}: it was {back_words}"),
        (0, _) => format!("{head}: they were {back_words}"),
        _ => format!("{head}: {later} {later_words}, {put_back} {back_words}"),
    })
}

/// The detail box of the selected candidate: everything the row has,
/// one fact per paragraph, and the rule that decided whether it was kept;
/// wrapped to `width`.
pub fn detail_lines(
    e: &ContextEntry,
    kept_below: (usize, usize),
    bank: &Bank,
    query: &Query,
    theme: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let explained = e.explain(bank, query);
    let folder = bank.article(e.id).folder;
    let s = explained.signals;
    let mut paragraphs: Vec<Vec<(String, Style)>> = vec![
        vec![
            (sanitize_for_terminal(&explained.path, false), theme.link),
            (format!("({})", folder.label()), theme.muted),
        ],
        vec![(
            format!(
                "rank {} · score {} = client {} + domain {} + languages {} · {} tokens · {}",
                e.rank,
                e.score,
                s.client,
                s.domain,
                s.language,
                e.tokens,
                date_text(&explained)
            ),
            theme.text,
        )],
    ];
    let found = signals(&explained);
    if found.is_empty() {
        paragraphs.push(vec![(
            "no signal matched the query".to_owned(),
            theme.muted,
        )]);
    }
    paragraphs.extend(found.into_iter().map(|t| vec![(t, theme.matched)]));
    paragraphs.push(match &explained.drop_reason {
        None => vec![("kept: it fits the budget".to_owned(), theme.kept)],
        Some(reason) => vec![(
            format!(
                "dropped: {}",
                sanitize_for_terminal(&tui_wording(reason), false)
            ),
            theme.dropped,
        )],
    });
    if let Some(note) = kept_below_note(kept_below).filter(|_| !e.included) {
        paragraphs.push(vec![(note, theme.warning)]);
    }
    paragraphs.push(vec![(tier_rule(folder, e.score).to_owned(), theme.muted)]);
    // The trim alone does not decide: say what follows it.
    paragraphs.push(vec![(FILL_RULE.to_owned(), theme.muted)]);
    paragraphs
        .iter()
        .flat_map(|p| wrap_spans(p, 0, width))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    /// Lower scores kept past a dropped article are either in a tier
    /// trimmed later or put back by the fill: each is said as it is.
    #[test]
    fn kept_lower_scores_say_why_they_are_in() {
        assert_eq!(kept_below_note((0, 0)), None);
        assert_eq!(
            kept_below_note((2, 0)).unwrap(),
            "2 kept articles score below this one: they are in a tier the budget trims later"
        );
        assert_eq!(
            kept_below_note((0, 1)).unwrap(),
            "1 kept article scores below this one: it was put back after the trim, small \
             enough for what was left of the budget"
        );
        assert_eq!(
            kept_below_note((1, 2)).unwrap(),
            "3 kept articles score below this one: 1 in a tier the budget trims later, 2 put \
             back after the trim, small enough for what was left of the budget"
        );
    }

    #[test]
    fn pieces_wrap_between_words_under_the_indent() {
        let style = Style::new();
        let rows = wrap_spans(
            &[
                ("442 tok · 2026-09-18 ·".to_owned(), style),
                ("client: Brightwell Pharma → +3".to_owned(), style),
            ],
            4,
            30,
        );
        let rows = text(&rows);
        assert_eq!(
            rows,
            [
                "    442 tok · 2026-09-18 ·",
                "    client: Brightwell Pharma",
                "    → +3"
            ]
        );
        assert!(rows.iter().all(|r| r.width() <= 30));
    }
}
