//! The Article pane on a bank: an article rendered with links resolved
//! by the bank's rules, its line numbers as on disk, and its Links and
//! Backlinks listed after it; a file the bank did not load as an article
//! is read with the bank's limits.

use membank_core::bank::{Bank, Resolution};
use membank_core::text::{self, sanitize_for_terminal};
use membank_core::wikilink::normalize_value;
use ratatui::text::{Line, Span};

use super::{ArticlePane, findings_lines, message_doc};
use crate::tui::theme::Theme;
use crate::tui::widgets::markdown::{LinkSpot, RenderedDoc, render_article};

impl ArticlePane {
    /// [`ArticlePane::lay_out`] for the file `rel` of a bank.
    pub(super) fn lay_out_bank(&mut self, bank: &Bank, rel: &str, theme: &Theme, width: u16) {
        let resolve = |t: &str| {
            !matches!(
                bank.resolve_from(normalize_value(t), Some(rel)),
                Resolution::Dead
            )
        };
        let id = bank.find(rel);
        // The bank keeps no bodies: the text is read again, and a file no
        // longer as it was read is not shown against what the bank knows
        // of it (links, lines of findings) but read again whole.
        let text = id.map(|id| bank.article_text(id));
        if let (Some(id), Some(Err(problem))) = (id, &text) {
            self.changed_on_disk = Some(rel.to_owned());
            self.header = format!(
                "{} — {}",
                sanitize_for_terminal(bank.article(id).title(), false),
                sanitize_for_terminal(rel, false)
            );
            // The reader's advice is for a command; here the file is read
            // again by itself.
            let why = problem.message.trim_end_matches("; run the command again");
            self.doc = message_doc(&format!("{rel}: {why}; reading it again"), width, theme);
            self.dests = vec![None; self.doc.links.len()];
            self.keep_selected_link(theme);
            return;
        }
        let (mut doc, title) = match id.zip(text.and_then(Result::ok)) {
            Some((id, text)) => {
                let a = bank.article(id);
                let mut doc = render_article(&text, width, theme, &resolve);
                // The article text lacks any stripped fence line (the
                // closing one included); findings count lines in the file.
                for l in doc.source_lines.iter_mut().chain(&mut doc.source_ends) {
                    *l = a.encoding.file_line(*l);
                }
                let mut notes = findings_lines(&self.health, rel, self.findings_open, theme, width);
                if notes.is_empty() && a.encoding.fenced {
                    notes.push(Line::styled(
                        "note: wrapped in a code fence (tolerated, spec §4.3)",
                        theme.warning,
                    ));
                }
                doc.prepend_rows(notes);
                (doc, a.title().to_owned())
            }
            // Templates and other files not loaded as articles: the bank's
            // reader applies the same limits as loading.
            None => {
                // The header adds the path; the title is the file's name.
                let name = rel.rsplit('/').next().unwrap_or(rel).to_owned();
                let problem = match bank.reader().read(std::path::Path::new(rel)) {
                    Ok(bytes) => text::decode(&bytes).map_err(|e| e.to_string()),
                    Err(e) => Err(crate::tui::panes::read_problem(&e)),
                };
                match problem {
                    Ok(d) => (render_article(&d.text, width, theme, &resolve), name),
                    Err(e) => {
                        let mut doc = message_doc(&format!("{rel}: {e}"), width, theme);
                        // The checks' words on the file say what to do about
                        // it, and there is nothing else to read: listed open.
                        let notes = findings_lines(&self.health, rel, true, theme, width);
                        doc.lines.splice(0..0, notes);
                        (doc, name)
                    }
                }
            }
        };
        let mut dests: Vec<Option<String>> = doc
            .links
            .iter()
            .map(|l| resolve_rel(bank, &l.target, rel))
            .collect();
        if let Some(id) = id {
            append_link_lists(bank, id, &mut doc, &mut dests, theme);
        }
        self.header = format!(
            "{} — {}",
            sanitize_for_terminal(&title, false),
            sanitize_for_terminal(rel, false)
        );
        self.doc = doc;
        self.dests = dests;
        self.keep_selected_link(theme);
    }
}

/// Where a link written in the file `from` leads (relative links and shared
/// names depend on where the link is written).
fn resolve_rel(bank: &Bank, target: &str, from: &str) -> Option<String> {
    bank.resolve_from(normalize_value(target), Some(from))
        .target()
        .map(|id| bank.article(id).rel_path.clone())
}

/// Add "Links" and "Backlinks" sections whose entries can be selected and
/// followed like links in the text.
fn append_link_lists(
    bank: &Bank,
    id: usize,
    doc: &mut RenderedDoc,
    dests: &mut Vec<Option<String>>,
    theme: &Theme,
) {
    let rule = Line::styled("─".repeat(20), theme.rule);
    doc.lines.push(Line::default());
    doc.lines.push(rule);
    let mut seen = std::collections::BTreeSet::new();
    // Each link's article, or the file (an attachment) it reaches.
    let outgoing: Vec<(String, Option<String>, Option<String>)> = bank
        .outgoing(id)
        .filter(|(l, _)| seen.insert(l.target().to_lowercase()))
        .map(|(l, r)| {
            let file = match r {
                membank_core::bank::Resolution::File(i) => Some(bank.link_file(i).to_owned()),
                _ => None,
            };
            (
                l.target().to_owned(),
                r.target().map(|t| bank.article(t).rel_path.clone()),
                file,
            )
        })
        .collect();
    doc.lines.push(Line::styled(
        format!("Links ({})", outgoing.len()),
        theme.heading3,
    ));
    for (target, dest, file) in outgoing {
        let live = dest.is_some();
        let line_no = doc.lines.len();
        let shown = match (&dest, &file) {
            (Some(rel), _) => format!("→ {}", sanitize_for_terminal(rel, false)),
            (None, Some(file)) => format!("→ {} (attachment)", sanitize_for_terminal(file, false)),
            (None, None) if membank_core::health::is_attachment(&target) => {
                "(missing attachment)".to_owned()
            }
            (None, None) => "(no such article)".to_owned(),
        };
        doc.lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(
                format!("[[{}]]", sanitize_for_terminal(&target, false)),
                if live || file.is_some() {
                    theme.link
                } else {
                    theme.dead_link
                },
            ),
            Span::styled(format!("  {shown}"), theme.muted),
        ]));
        doc.links.push(LinkSpot {
            target,
            // A file is there: Enter says it is not an article, not dead.
            live: live || file.is_some(),
            line: line_no,
            spans: vec![(line_no, 1)],
        });
        dests.push(dest);
    }
    let backlinks = bank.backlinks(id);
    doc.lines.push(Line::default());
    doc.lines.push(Line::styled(
        format!("Backlinks ({})", backlinks.len()),
        theme.heading3,
    ));
    for from in backlinks {
        let a = bank.article(from);
        let line_no = doc.lines.len();
        doc.lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(sanitize_for_terminal(&a.rel_path, false), theme.link),
        ]));
        doc.links.push(LinkSpot {
            target: a.stem().to_owned(),
            live: true,
            line: line_no,
            spans: vec![(line_no, 1)],
        });
        dests.push(Some(a.rel_path.clone()));
    }
}
