//! Where each pane goes on screen, from the terminal size and the focus.

use ratatui::layout::{Constraint, Layout, Rect};

use super::panes::Pane;

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

/// The narrowest tree pane: its border, a fold mark and a short name.
pub const TREE_MIN: u16 = 12;
/// Columns each pane beside the tree keeps, however wide the tree is made.
const BESIDE_MIN: u16 = 36;

/// The tree pane's width when none was chosen.
fn default_tree_width(screen_width: u16) -> u16 {
    if screen_width >= THREE_COLUMNS {
        32
    } else {
        (screen_width / 3).clamp(24, 34)
    }
}

/// The widths the tree pane may take on a screen this wide.
pub fn tree_width_range(screen_width: u16) -> (u16, u16) {
    let beside = if screen_width >= THREE_COLUMNS {
        2 * BESIDE_MIN
    } else {
        BESIDE_MIN
    };
    let max = screen_width.saturating_sub(beside).max(TREE_MIN);
    (TREE_MIN, max)
}

/// The tree pane's width: the one chosen (`<`, `>`, a drag of its border)
/// kept within what the screen allows, else the default.
pub fn tree_width(screen_width: u16, chosen: Option<u16>) -> u16 {
    let (min, max) = tree_width_range(screen_width);
    chosen.map_or(default_tree_width(screen_width), |w| w.clamp(min, max))
}

/// Lay out the screen. Wide: Bank | Article | Context or Health or Agents.
/// Medium: Bank | the last focused of the others. Narrow: one pane. The
/// tree is `tree_width` columns wide when that is given and fits.
pub fn compute_areas(
    size: Rect,
    focus: Pane,
    main: Pane,
    side: Pane,
    chosen_tree_width: Option<u16>,
) -> Areas {
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
        // The agents' replies, reviews and diffs need the width more than
        // the article beside them: they get two shares of it.
        let side_share = if side == Pane::Agents { 2 } else { 1 };
        let [t, m, s] = Layout::horizontal([
            Constraint::Length(tree_width(size.width, chosen_tree_width)),
            Constraint::Fill(1),
            Constraint::Fill(side_share),
        ])
        .areas(body);
        areas.bank = Some(t);
        areas.main = Some((Pane::Article, m));
        areas.side = Some((side, s));
    } else if size.width >= TWO_COLUMNS {
        let bank_w = tree_width(size.width, chosen_tree_width);
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
/// Blank the popup's area and the column on each side of it, within
/// `screen`: the panes' text would otherwise show one character between
/// the popup's border and a pane's (`│,│`), which reads as garbage.
pub fn clear_popup(frame: &mut ratatui::Frame, area: Rect) {
    let screen = frame.area();
    let left = area.x.saturating_sub(1).max(screen.x);
    let right = (area.x + area.width + 1).min(screen.x + screen.width);
    let around = Rect {
        x: left,
        width: right.saturating_sub(left),
        ..area
    };
    frame.render_widget(ratatui::widgets::Clear, around);
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// At 160 columns the agents get the wider of the two columns beside
    /// the tree: a review's diff no longer sits in a third of the screen.
    #[test]
    fn three_columns_give_the_agents_the_wider_share() {
        let size = Rect::new(0, 0, 160, 45);
        let with_agents = compute_areas(size, Pane::Agents, Pane::Article, Pane::Agents, None);
        let (article, agents) = (
            with_agents.of(Pane::Article).unwrap(),
            with_agents.of(Pane::Agents).unwrap(),
        );
        assert!(
            agents.width >= 2 * article.width - 1,
            "{article:?} {agents:?}"
        );
        let with_context = compute_areas(size, Pane::Context, Pane::Article, Pane::Context, None);
        let (article, context) = (
            with_context.of(Pane::Article).unwrap(),
            with_context.of(Pane::Context).unwrap(),
        );
        assert!(article.width.abs_diff(context.width) <= 1);
    }
}
