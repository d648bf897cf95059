//! Drawing the Context pane: the query form (or its folded line), the
//! summary, and the candidates with the selected one's detail.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::*;
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::{cut_line, cut_lines};

/// Height of the form above the candidate list (fields, hint, summary, rule)
/// when the summary fits on one row.
pub const FORM_HEIGHT: u16 = FORM_ROWS as u16 + 3;

/// Rows the summary may wrap to.
pub(super) const MAX_SUMMARY_ROWS: usize = 3;

pub fn draw(frame: &mut Frame, area: Rect, pane: &ContextPane, focused: bool, theme: &Theme) {
    let summary_rows = pane.summary_lines.len().max(1);
    let detail_rows = if pane.detail.is_empty() {
        0
    } else {
        pane.detail_rows() as u16
    };
    let [form, summary_area, rule_area, list, detail_area] = Layout::vertical([
        Constraint::Length(pane.form_rows() as u16),
        Constraint::Length(summary_rows as u16),
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(detail_rows),
    ])
    .areas(area);
    let selection = if focused {
        theme.selection
    } else {
        theme.selection_unfocused
    };
    if pane.form_collapsed() {
        frame.render_widget(
            Paragraph::new(cut_line(folded_form(pane, theme), usize::from(area.width))),
            form,
        );
    } else {
        draw_form(frame, form, pane, selection, theme);
    }
    draw_results(
        frame,
        area,
        pane,
        selection,
        theme,
        [summary_area, rule_area, list, detail_area],
    );
}

/// The query on one line, for the folded form.
fn folded_form(pane: &ContextPane, theme: &Theme) -> Line<'static> {
    let query = if pane.query_text.is_empty() {
        "(any)".to_owned()
    } else {
        pane.query_text.clone()
    };
    let budget = pane.field_text(Field::Budget).trim().to_owned();
    let unscored = if pane.include_unscored {
        "unscored in"
    } else {
        "unscored out"
    };
    Line::from(vec![
        Span::styled("query ", theme.property_key),
        Span::styled(query, theme.text),
        Span::styled(
            format!(" · budget {budget} · {unscored} · i edit"),
            theme.muted,
        ),
    ])
}

fn draw_form(
    frame: &mut Frame,
    form: Rect,
    pane: &ContextPane,
    selection: ratatui::style::Style,
    theme: &Theme,
) {
    let area = form;
    // A pane too short for every field shows a window of them that holds
    // the selected one, rather than letting rows shrink away unseen.
    let height = usize::from(form.height).min(FORM_ROWS + 1);
    let first = pane
        .row
        .min(FORM_ROWS - 1)
        .saturating_sub(height / 2)
        .min(FORM_ROWS + 1 - height);
    let row_area = |i: usize| -> Option<Rect> {
        (first..first + height).contains(&i).then(|| Rect {
            y: form.y + (i - first) as u16,
            height: 1,
            ..form
        })
    };
    for (i, field) in Field::ALL.iter().enumerate() {
        let Some(row) = row_area(i) else { continue };
        let [label, value] =
            Layout::horizontal([Constraint::Length(13), Constraint::Min(1)]).areas(row);
        let label_style = if pane.row == i {
            selection
        } else {
            theme.property_key
        };
        frame.render_widget(
            Paragraph::new(Span::styled(format!("{:<12}", field.label()), label_style)),
            label,
        );
        match field {
            Field::Unscored => {
                let text = if pane.include_unscored {
                    "included (Enter toggles)"
                } else {
                    "left out (Enter toggles)"
                };
                frame.render_widget(Paragraph::new(Span::styled(text, theme.text)), value);
            }
            f => {
                let input = &pane.inputs[*f as usize];
                if pane.editing && pane.row == i {
                    frame.render_widget(input, value);
                } else {
                    let text = input.lines().first().cloned().unwrap_or_default();
                    let shown = if text.is_empty() && *f != Field::Budget {
                        Span::styled("(any)", theme.muted)
                    } else {
                        Span::styled(text, theme.text)
                    };
                    frame.render_widget(
                        Paragraph::new(cut_line(Line::from(shown), usize::from(value.width))),
                        value,
                    );
                }
            }
        }
    }
    let hint = if let Some(err) = &pane.budget_error {
        Line::styled(format!("budget: {err}"), theme.error)
    } else if pane.editing && !pane.suggestions.is_empty() {
        let mut spans = vec![Span::styled("Tab ", theme.hint_key)];
        for (i, s) in pane.suggestions.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(" · ", theme.muted));
            }
            // The one in the field now, while Tab steps through them.
            let style = if pane.picked == Some(i) {
                theme.hint_key
            } else {
                theme.hint_text
            };
            spans.push(Span::styled(s.clone(), style));
        }
        Line::from(spans)
    } else if pane.editing {
        Line::styled("Enter/Esc done · ↑/↓ other field", theme.muted)
    } else {
        Line::styled("Enter edit · ↑/↓ move", theme.muted)
    };
    if let Some(row) = row_area(FORM_ROWS) {
        frame.render_widget(Paragraph::new(cut_line(hint, usize::from(area.width))), row);
    }
}

fn draw_results(
    frame: &mut Frame,
    area: Rect,
    pane: &ContextPane,
    selection: ratatui::style::Style,
    theme: &Theme,
    [summary_area, rule_area, list, detail_area]: [Rect; 4],
) {
    let detail_rows = detail_area.height;
    frame.render_widget(
        Paragraph::new(cut_lines(pane.summary_lines.clone(), area.width)),
        summary_area,
    );
    frame.render_widget(
        Paragraph::new(Span::styled(
            "─".repeat(usize::from(area.width)),
            theme.border,
        )),
        rule_area,
    );
    if detail_rows > 0 {
        let mut text = vec![Line::styled(
            "─".repeat(usize::from(detail_area.width)),
            theme.muted,
        )];
        text.extend(pane.detail.iter().cloned());
        // A box too short for the text says how much is left and where.
        let rows = usize::from(detail_rows);
        if text.len() > rows {
            let more = text.len() - rows + 1;
            text.truncate(rows - 1);
            text.push(Line::styled(
                format!(
                    "… {more} more lines: {} shows them in full",
                    pane.explain_key
                ),
                theme.muted,
            ));
        }
        frame.render_widget(
            Paragraph::new(cut_lines(text, detail_area.width)),
            detail_area,
        );
    }
    let height = usize::from(list.height);
    let mut lines: Vec<Line> = Vec::with_capacity(height);
    for (k, c) in pane.visible.iter().enumerate() {
        let i = pane.offset + k;
        if lines.len() >= height {
            break;
        }
        let selected = pane.row == FORM_ROWS + i;
        for l in &c.lines {
            lines.push(if selected {
                crate::tui::panes::highlight_row(l.clone(), area.width, selection)
            } else {
                l.clone()
            });
        }
    }
    if pane.entries.is_empty() {
        lines.push(Line::styled("no content articles", theme.muted));
    }
    lines.truncate(height);
    frame.render_widget(Paragraph::new(cut_lines(lines, list.width)), list);
}
