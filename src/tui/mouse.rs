//! The mouse: a click focuses the pane under it and selects the row
//! clicked (a second click on the selected row opens it, as Enter does),
//! a click on the tab row focuses that pane, and the wheel scrolls the
//! pane under the pointer; dragging the tree pane's right border sets its
//! width. `--no-mouse` leaves the mouse to the terminal.

use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::app::{App, Pane};
use super::areas::inner;
use super::keys::Action;
use super::panes::bank::RowKind;
use super::panes::slot::Slot;

/// Rows the wheel moves per notch.
const WHEEL_STEP: usize = 3;

/// The pane whose border box holds the point.
fn pane_at(app: &App, column: u16, row: u16) -> Option<(Pane, Rect)> {
    let at = Position::new(column, row);
    Pane::ORDER
        .iter()
        .filter_map(|p| app.areas.of(*p).map(|r| (*p, r)))
        .find(|(_, r)| r.contains(at))
}

/// The tab under a column of the tab row (" Bank │ Article │ …").
fn tab_at(app: &App, column: u16) -> Option<Pane> {
    let mut x = 0u16;
    for (i, pane) in Pane::ORDER.iter().enumerate() {
        if i > 0 {
            x += 3;
        }
        let w = app.panes.name(*pane).chars().count() as u16 + 2;
        if (x..x + w).contains(&column) {
            return Some(*pane);
        }
        x += w;
    }
    None
}

pub fn on_mouse(app: &mut App, ev: MouseEvent) {
    match ev.kind {
        MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
            let Some((pane, _)) = pane_at(app, ev.column, ev.row) else {
                return;
            };
            if app.popup.is_some() || app.panes.get(pane).is_typing() {
                return;
            }
            let action = if ev.kind == MouseEventKind::ScrollUp {
                Action::Up
            } else {
                Action::Down
            };
            for _ in 0..WHEEL_STEP {
                app.dispatch(pane, |p, cx| p.on_action(action, cx));
            }
            app.dirty = true;
        }
        MouseEventKind::Down(MouseButton::Left) => {
            // Nothing half-typed is left behind a click.
            if app.popup.is_some() || app.panes.get(app.focus).is_typing() {
                return;
            }
            if ev.row == app.areas.tabs.y {
                if let Some(pane) = tab_at(app, ev.column) {
                    app.focus_pane(pane);
                    app.dirty = true;
                }
                return;
            }
            if on_tree_border(app, ev.column, ev.row) {
                app.dragging_tree_border = true;
                return;
            }
            let Some((pane, area)) = pane_at(app, ev.column, ev.row) else {
                return;
            };
            app.focus_pane(pane);
            let inside = inner(area);
            if ev.row >= inside.y && ev.row < inside.y + inside.height {
                let y = usize::from(ev.row - inside.y);
                let x = usize::from(ev.column.saturating_sub(inside.x));
                if !(pane == Pane::Bank && click_fold_mark(app, x, y)) {
                    click_row(app, pane, y);
                }
            }
            app.dirty = true;
        }
        MouseEventKind::Drag(MouseButton::Left) if app.dragging_tree_border => {
            if let Some(tree) = app.areas.bank {
                // The border follows the pointer: it is the pane's last column.
                let width = (ev.column + 1).saturating_sub(tree.x);
                if width != tree.width {
                    app.set_tree_width(width);
                }
            }
        }
        MouseEventKind::Up(MouseButton::Left) => app.dragging_tree_border = false,
        _ => {}
    }
}

/// The point is on the tree pane's right border, with a pane beside it to
/// give or take the columns.
fn on_tree_border(app: &App, column: u16, row: u16) -> bool {
    let Some(tree) = app.areas.bank else {
        return false;
    };
    let beside = app.areas.main.is_some();
    beside && column + 1 == tree.x + tree.width && (tree.y..tree.y + tree.height).contains(&row)
}

/// A click on a tree folder's `▸` / `▾` (column `x` of row `y` inside the
/// pane) selects the folder and folds or unfolds it at once. Returns
/// whether it was one.
fn click_fold_mark(app: &mut App, x: usize, y: usize) -> bool {
    let bank = &app.panes.bank;
    let at = bank.cursor.offset + y;
    let Some(row) = bank.rows.get(at) else {
        return false;
    };
    // The mark follows the indent, two columns a level (see `bank::draw`).
    let mark = usize::from(row.depth) * 2;
    if !matches!(row.kind, RowKind::Folder { .. }) || !(mark..mark + 2).contains(&x) {
        return false;
    }
    let (height, len) = (app.height_of(Pane::Bank), bank.rows.len());
    app.panes.bank.cursor.select(at, len, height);
    app.dispatch(Pane::Bank, |p, cx| p.on_action(Action::Open, cx));
    true
}

/// Select the row `y` rows below the top of the pane's inside; on the row
/// already selected, open it.
fn click_row(app: &mut App, pane: Pane, y: usize) {
    let height = app.height_of(pane);
    let target = match pane {
        Pane::Bank => {
            let c = app.panes.bank.cursor;
            Some((c.offset + y, c.selected, app.panes.bank.rows.len()))
        }
        Pane::Health => {
            let c = app.panes.health.cursor;
            Some((c.offset + y, c.selected, app.panes.health.rows.len()))
        }
        // Rows of the §7 context only; the other slots take the wheel.
        Pane::Context if app.panes.slot == Slot::Context => app
            .panes
            .context
            .row_at(y)
            .map(|r| (r, app.panes.context.row, usize::MAX)),
        Pane::Context => None,
        Pane::Article | Pane::Agents => None,
    };
    let Some((row, selected, len)) = target else {
        return;
    };
    if row >= len {
        return;
    }
    if row == selected {
        app.dispatch(pane, |p, cx| p.on_action(Action::Open, cx));
        return;
    }
    match pane {
        Pane::Bank => app.panes.bank.cursor.select(row, len, height),
        Pane::Health => app.panes.health.cursor.select(row, len, height),
        Pane::Context => {
            let delta = row as isize - selected as isize;
            if let Some(bank) = crate::layouts::bank(&*app.memory) {
                app.panes.context.move_row(delta, height, bank, &app.theme);
            }
        }
        Pane::Article | Pane::Agents => {}
    }
}
