//! Where each pane goes on screen, from the terminal size and the focus.

use ratatui::layout::{Constraint, Layout, Rect};

use super::app::Pane;

/// Where each pane is on screen, derived from the size and focus.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Areas {
    pub tabs: Rect,
    pub bank: Option<Rect>,
    pub main: Option<(Pane, Rect)>,
    pub side: Option<(Pane, Rect)>,
    pub status: Rect,
}

impl Areas {
    pub fn of(&self, pane: Pane) -> Option<Rect> {
        if pane == Pane::Bank {
            return self.bank;
        }
        [self.main, self.side]
            .into_iter()
            .flatten()
            .find(|(p, _)| *p == pane)
            .map(|(_, r)| r)
    }

    pub fn visible(&self, pane: Pane) -> bool {
        self.of(pane).is_some()
    }
}

/// The inside of a bordered pane.
pub fn inner(r: Rect) -> Rect {
    Rect {
        x: r.x + 1,
        y: r.y + 1,
        width: r.width.saturating_sub(2),
        height: r.height.saturating_sub(2),
    }
}

/// Widths at which the layout changes.
pub const THREE_COLUMNS: u16 = 150;
pub const TWO_COLUMNS: u16 = 70;

/// Lay out the screen. Wide: Bank | Article | Context or Health or Agents.
/// Medium: Bank | the last focused of the others. Narrow: one pane.
pub fn compute_areas(size: Rect, focus: Pane, main: Pane, side: Pane) -> Areas {
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(size);
    let mut areas = Areas {
        tabs,
        status,
        ..Areas::default()
    };
    if size.width >= THREE_COLUMNS {
        let [t, m, s] = Layout::horizontal([
            Constraint::Length(32),
            Constraint::Fill(1),
            Constraint::Fill(1),
        ])
        .areas(body);
        areas.bank = Some(t);
        areas.main = Some((Pane::Article, m));
        areas.side = Some((side, s));
    } else if size.width >= TWO_COLUMNS {
        let bank_w = (size.width / 3).clamp(24, 34);
        let [t, m] =
            Layout::horizontal([Constraint::Length(bank_w), Constraint::Fill(1)]).areas(body);
        areas.bank = Some(t);
        areas.main = Some((main, m));
    } else if focus == Pane::Bank {
        areas.bank = Some(body);
    } else {
        areas.main = Some((focus, body));
    }
    areas
}

/// `areas` with the focused pane given the whole body (between the tabs
/// and the status line) and every other pane hidden.
pub fn zoom(areas: Areas, focus: Pane) -> Areas {
    let top = areas.tabs.y + areas.tabs.height;
    let body = Rect {
        x: areas.tabs.x,
        y: top,
        width: areas.tabs.width,
        height: areas.status.y.saturating_sub(top),
    };
    let mut zoomed = Areas {
        bank: None,
        main: None,
        side: None,
        ..areas
    };
    if focus == Pane::Bank {
        zoomed.bank = Some(body);
    } else {
        zoomed.main = Some((focus, body));
    }
    zoomed
}

/// Where the search popup goes: most of the screen, so hits show their
/// snippets in full.
pub fn search_popup(size: Rect) -> Rect {
    let w = size.width.saturating_sub(4).min(110);
    let h = size.height.saturating_sub(4);
    Rect {
        x: size.x + (size.width - w) / 2,
        y: size.y + (size.height - h) / 2,
        width: w,
        height: h,
    }
}
