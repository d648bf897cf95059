//! The snippet of a hit: the line with the most distinct query words,
//! shortened around the first of them, with the matches marked.

use std::ops::Range;

use super::tokens::for_each_word;
use crate::text::sanitize_for_terminal;

/// Characters of context kept before the first match of a long line.
const BEFORE: usize = 40;
/// Longest snippet, in characters.
const MAX_CHARS: usize = 160;

pub struct Snippet {
    pub text: String,
    /// Lines after the document's first line.
    pub line_offset: usize,
    pub highlights: Vec<Range<usize>>,
}

pub fn best_line(text: &str, terms: &[String]) -> Snippet {
    let mut best: Option<(usize, usize, &str)> = None; // (distinct, offset, line)
    let mut first_nonblank: Option<(usize, &str)> = None;
    for (n, line) in text.split('\n').enumerate() {
        if first_nonblank.is_none() && !line.trim().is_empty() {
            first_nonblank = Some((n, line));
        }
        let mut found = vec![false; terms.len()];
        for_each_word(line, |w, _| {
            if let Some(i) = terms.iter().position(|t| t == w) {
                found[i] = true;
            }
        });
        let distinct = found.iter().filter(|&&f| f).count();
        if distinct > best.map_or(0, |b| b.0) {
            best = Some((distinct, n, line));
            if distinct == terms.len() {
                break;
            }
        }
    }
    let (line_offset, line) = match best {
        Some((_, n, l)) => (n, l),
        None => first_nonblank.unwrap_or((0, "")),
    };
    let mut matches = Vec::new();
    for_each_word(line, |w, span| {
        if terms.iter().any(|t| t == w) {
            matches.push(span);
        }
    });
    // Cut a long line to a window that starts a little before the first match.
    let start_char = matches.first().map_or(0, |m| {
        line[..m.start].chars().count().saturating_sub(BEFORE)
    });
    let start = line
        .char_indices()
        .nth(start_char)
        .map_or(line.len(), |(i, _)| i);
    let end = line[start..]
        .char_indices()
        .nth(MAX_CHARS)
        .map_or(line.len(), |(i, _)| start + i);
    let (lead, tail) = (
        if start > 0 { "…" } else { "" },
        if end < line.len() { "…" } else { "" },
    );
    let trimmed_start = start + (line[start..end].len() - line[start..end].trim_start().len());
    let body = line[trimmed_start..end].trim_end();
    // Rebuilt piece by piece so that sanitising (which may lengthen a
    // piece) keeps the highlights on the matched words.
    let mut text = String::from(lead);
    let mut highlights: Vec<Range<usize>> = Vec::new();
    let mut pos = trimmed_start;
    let body_end = trimmed_start + body.len();
    for m in matches
        .into_iter()
        .filter(|m| m.start >= trimmed_start && m.end <= body_end)
    {
        text.push_str(&sanitize_for_terminal(&line[pos..m.start], false));
        let start = text.len();
        text.push_str(&sanitize_for_terminal(&line[m.clone()], false));
        // Touching matches (東京 is two words) are marked as one.
        match highlights.last_mut() {
            Some(last) if last.end == start => last.end = text.len(),
            _ => highlights.push(start..text.len()),
        }
        pos = m.end;
    }
    text.push_str(&sanitize_for_terminal(&line[pos..body_end], false));
    text.push_str(tail);
    Snippet {
        text,
        line_offset,
        highlights,
    }
}
