//! Where "today" and "now" come from. Every date membank compares with or
//! writes (staleness, `compiled_date`, archive names, stamps) is read from a
//! `Clock` handed down by the front end, so a test or a user can pin it and
//! get the same report on any day.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};

/// The system's clock, or a moment fixed in advance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clock {
    /// The machine's local time.
    #[default]
    System,
    /// A fixed local time: reports are reproduced as of that moment.
    Pinned(DateTime),
}

impl Clock {
    /// A clock fixed at `text`: a day (`2026-04-08`, taken at noon) or a
    /// local date and time (`2026-04-08T17:10:55`).
    pub fn pinned_at(text: &str) -> Result<Clock, String> {
        let text = text.trim();
        // Only the two forms the help gives: jiff also reads a time zone
        // offset (which a local time would silently drop), times without
        // seconds, a space for the `T` and years past 9999 or before 1.
        let at = match documented_form(text) {
            Some(false) => text.parse::<Date>().ok().map(|day| day.at(12, 0, 0, 0)),
            Some(true) => text.parse::<DateTime>().ok(),
            None => None,
        };
        at.map(Clock::Pinned).ok_or_else(|| {
            format!(
                "{} is not a date (YYYY-MM-DD) or a local time (YYYY-MM-DDTHH:MM:SS)",
                crate::text::quoted(text)
            )
        })
    }

    /// The local date and time.
    pub fn now(&self) -> DateTime {
        match self {
            Clock::System => Zoned::now().datetime(),
            Clock::Pinned(at) => *at,
        }
    }

    /// The local date.
    pub fn today(&self) -> Date {
        self.now().date()
    }

    /// The moment as an instant; a pinned time is read as UTC so the answer
    /// does not depend on the machine's time zone.
    pub fn timestamp(&self) -> Timestamp {
        match self {
            Clock::System => Timestamp::now(),
            Clock::Pinned(at) => at
                .to_zoned(TimeZone::UTC)
                .map(|z| z.timestamp())
                .unwrap_or(Timestamp::UNIX_EPOCH),
        }
    }

    pub fn is_pinned(&self) -> bool {
        matches!(self, Clock::Pinned(_))
    }
}

/// `Some(false)` for `YYYY-MM-DD`, `Some(true)` for
/// `YYYY-MM-DDTHH:MM:SS`, by their shape (digits where digits go, a year
/// from 0001); `None` for anything else.
fn documented_form(text: &str) -> Option<bool> {
    let b = text.as_bytes();
    let digits_but = |part: &[u8], seps: &[(usize, u8)]| {
        part.iter()
            .enumerate()
            .all(|(i, c)| match seps.iter().find(|s| s.0 == i) {
                Some(&(_, sep)) => *c == sep,
                None => c.is_ascii_digit(),
            })
    };
    let date =
        |d: &[u8]| d.len() == 10 && digits_but(d, &[(4, b'-'), (7, b'-')]) && &d[..4] != b"0000";
    match b.len() {
        10 if date(b) => Some(false),
        19 if date(&b[..10]) && b[10] == b'T' && digits_but(&b[11..], &[(2, b':'), (5, b':')]) => {
            Some(true)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_is_pinned_at_noon() {
        let clock = Clock::pinned_at("2026-04-08").unwrap();
        assert_eq!(clock.today(), jiff::civil::date(2026, 4, 8));
        assert_eq!(clock.now(), jiff::civil::date(2026, 4, 8).at(12, 0, 0, 0));
        assert_eq!(
            clock.timestamp(),
            "2026-04-08T12:00:00Z".parse::<Timestamp>().unwrap()
        );
    }

    #[test]
    fn a_local_time_is_pinned_as_given() {
        let clock = Clock::pinned_at(" 2030-01-31T23:59:58 ").unwrap();
        assert_eq!(clock.today(), jiff::civil::date(2030, 1, 31));
        assert_eq!(clock.now().second(), 58);
    }

    #[test]
    fn nonsense_is_refused_with_the_text() {
        for bad in [
            "",
            "tomorrow",
            "2026-13-01",
            "2026-02-30",
            "08/04/2026",
            // Forms jiff reads but the help does not give.
            "2026-04-08T23:30:00-05:00",
            "2026-04-08T10:00",
            "2026-04-08 10:00:00",
            "2026-04-08t10:00:00",
            "-009999-01-01",
            "0000-01-01",
            "2026-4-8",
        ] {
            let e = Clock::pinned_at(bad).unwrap_err();
            assert!(e.contains(&format!("{:?}", bad.trim())), "{e}");
        }
    }

    #[test]
    fn a_pinned_clock_does_not_move() {
        let clock = Clock::pinned_at("2027-01-16").unwrap();
        assert_eq!(clock.now(), clock.now());
        assert!(clock.is_pinned());
        assert!(!Clock::System.is_pinned());
    }
}
