//! Selection and scroll position of a list, kept valid in `update` so
//! drawing only has to slice.

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pub selected: usize,
    /// First visible row.
    pub offset: usize,
}

impl Cursor {
    /// Move by `delta` rows within `len` rows and keep the selection inside
    /// a viewport of `height` rows.
    pub fn move_by(&mut self, delta: isize, len: usize, height: usize) {
        if len == 0 {
            *self = Cursor::default();
            return;
        }
        let target = (self.selected as isize + delta).clamp(0, len as isize - 1);
        self.selected = target as usize;
        self.clamp(len, height);
    }

    pub fn to_top(&mut self) {
        *self = Cursor::default();
    }

    pub fn to_bottom(&mut self, len: usize, height: usize) {
        self.selected = len.saturating_sub(1);
        self.clamp(len, height);
    }

    pub fn select(&mut self, index: usize, len: usize, height: usize) {
        self.selected = index;
        self.clamp(len, height);
    }

    /// Re-establish the invariants after the list or viewport changed.
    pub fn clamp(&mut self, len: usize, height: usize) {
        let height = height.max(1);
        if len == 0 {
            *self = Cursor::default();
            return;
        }
        self.selected = self.selected.min(len - 1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        self.offset = self.offset.min(len.saturating_sub(height));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_stays_visible_and_in_range() {
        let mut c = Cursor::default();
        c.move_by(7, 10, 3);
        assert_eq!((c.selected, c.offset), (7, 5));
        c.move_by(100, 10, 3);
        assert_eq!((c.selected, c.offset), (9, 7));
        c.move_by(-9, 10, 3);
        assert_eq!((c.selected, c.offset), (0, 0));
        c.to_bottom(10, 3);
        c.clamp(4, 3);
        assert_eq!((c.selected, c.offset), (3, 1));
        c.move_by(1, 0, 3);
        assert_eq!(c, Cursor::default());
    }
}
