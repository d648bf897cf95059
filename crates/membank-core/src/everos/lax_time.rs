//! What everos's schemas take for a day or a moment: a daily log's
//! `date: dt.date` and `last_appended_at: dt.datetime | None`, read by
//! PyYAML's `safe_load` (YAML 1.1) and validated by pydantic v2 in lax
//! mode. Both are more lenient than ISO 8601 text: pydantic takes Unix
//! time (a number, or text that is one) and, for a day, a date and time
//! at exactly midnight; PyYAML types an unquoted `2026-06-01 00:00:00` as
//! a date and time before pydantic sees it. A value refused here is one
//! everos cannot load the file with.

use std::sync::LazyLock;

use jiff::civil::{Date, Time};
use regex::Regex;
use yaml_serde::Value;

/// A frontmatter value as everos's YAML reader hands it to its schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar<'a> {
    Bool,
    Int(i128),
    Float(f64),
    /// A date, or a date and time: PyYAML's timestamps, and the moments
    /// pydantic reads in text. The time of day is as written, in its own
    /// offset, to the microsecond as Python keeps it.
    Moment {
        day: Date,
        time: Option<Time>,
    },
    Text(&'a str),
    /// A list, a mapping or null: neither takes it.
    Other,
}

/// `value`, the frontmatter's value of a key, as everos reads it; `plain`
/// is what is written after the key when it is a plain (unquoted) scalar
/// on its line (see [`super::yaml11::plain_value`]), which PyYAML types
/// by YAML 1.1's rules rather than YAML 1.2's.
pub(crate) fn scalar<'a>(value: &'a Value, plain: Option<&'a str>) -> Scalar<'a> {
    let is_scalar = matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_));
    if let Some(raw) = plain.filter(|_| is_scalar) {
        return match super::yaml11::not_text(raw) {
            Some("a boolean") => Scalar::Bool,
            Some("a whole number") => yaml11_int(raw).map_or(Scalar::Other, Scalar::Int),
            Some("a number") => yaml11_float(raw).map_or(Scalar::Other, Scalar::Float),
            // PyYAML's timestamp; one that is no real day or time makes
            // its reader raise, which everos cannot read either.
            Some(_) => pyyaml_timestamp(raw).unwrap_or(Scalar::Other),
            None => match value {
                Value::String(s) => Scalar::Text(s),
                _ => Scalar::Text(raw),
            },
        };
    }
    match value {
        Value::String(s) => Scalar::Text(s),
        Value::Bool(_) => Scalar::Bool,
        Value::Number(n) => match n.as_i64() {
            Some(i) => Scalar::Int(i128::from(i)),
            None => n
                .as_u64()
                .map(|u| Scalar::Int(i128::from(u)))
                .or_else(|| n.as_f64().map(Scalar::Float))
                .unwrap_or(Scalar::Other),
        },
        Value::Tagged(t) => scalar(&t.value, None),
        _ => Scalar::Other,
    }
}

/// The day pydantic's lax `date` takes `s` for, or `None` when it refuses
/// it: a date; a date and time at exactly midnight (any offset); Unix time
/// that falls exactly on a midnight UTC.
pub(crate) fn lax_date(s: &Scalar) -> Option<Date> {
    let at_midnight =
        |day: Date, time: Option<Time>| time.is_none_or(|t| t == Time::midnight()).then_some(day);
    match s {
        Scalar::Moment { day, time } => at_midnight(*day, *time),
        Scalar::Int(_) | Scalar::Float(_) => unix_moment(s).and_then(|(d, t)| at_midnight(d, t)),
        Scalar::Text(t) => {
            let (day, time) = text_moment(t)?;
            at_midnight(day, time)
        }
        Scalar::Bool | Scalar::Other => None,
    }
}

/// The day and time pydantic's lax `datetime` takes `s` for, or `None`
/// when it refuses it: a date (at midnight), a date and time, or Unix
/// time (its day and time in UTC). The day and time are as written, in
/// their own offset.
pub(crate) fn lax_datetime(s: &Scalar) -> Option<(Date, Option<Time>)> {
    match s {
        Scalar::Moment { day, time } => Some((*day, *time)),
        Scalar::Int(_) | Scalar::Float(_) => unix_moment(s),
        Scalar::Text(t) => text_moment(t),
        Scalar::Bool | Scalar::Other => None,
    }
}

/// The day and time a date-and-time written as text stands for, as
/// pydantic reads text for a `datetime`, when it has a time of day: what
/// an entry's `**timestamp**:` records. A date alone, or text that is no
/// real moment (`2026-06-01T25:99:00`), has none.
pub fn text_time_of_day(s: &str) -> Option<(Date, Time)> {
    match text_moment(s.trim())? {
        (day, Some(time)) => Some((day, time)),
        (_, None) => None,
    }
}

/// Unix time as pydantic reads a number: seconds, or milliseconds when
/// its size is over 2·10¹⁰; within the years 1 to 9999. Its day and time
/// in UTC.
fn unix_moment(s: &Scalar) -> Option<(Date, Option<Time>)> {
    const MS_FROM: f64 = 2e10;
    let micros: i128 = match *s {
        Scalar::Int(i) if i.unsigned_abs() as f64 > MS_FROM => i.checked_mul(1000)?,
        Scalar::Int(i) => i.checked_mul(1_000_000)?,
        Scalar::Float(f) if !f.is_finite() => return None,
        Scalar::Float(f) if f.abs() > MS_FROM => (f * 1000.0).round() as i128,
        Scalar::Float(f) => (f * 1_000_000.0).round() as i128,
        _ => return None,
    };
    // By days from 1970, not as a `jiff::Timestamp`, whose range ends
    // before Python's (9999-12-31T23:59:59.999999).
    let (secs, micro) = (micros.div_euclid(1_000_000), micros.rem_euclid(1_000_000));
    let days = i32::try_from(secs.div_euclid(86_400)).ok()?;
    let day = jiff::civil::date(1970, 1, 1)
        .checked_add(jiff::Span::new().try_days(days).ok()?)
        .ok()?;
    let sod = secs.rem_euclid(86_400) as i32;
    let time = Time::new(
        (sod / 3600) as i8,
        (sod / 60 % 60) as i8,
        (sod % 60) as i8,
        micro as i32 * 1000,
    )
    .ok()?;
    (day.year() >= 1).then_some((day, Some(time)))
}

/// Text as pydantic (speedate) reads it for a date or a date and time:
/// Unix time (`1780300800`, `-1.5`, `1.5e3`), or `YYYY-MM-DD` then, after
/// `T`, `t`, `_` or a space, `HH:MM`, optional `:SS` and a fraction (`.`
/// or `,`), and an offset (`Z`, `±HH:MM`, `±HHMM`). No other spacing.
fn text_moment(t: &str) -> Option<(Date, Option<Time>)> {
    if let Some(n) = number_text(t) {
        return unix_moment(&n);
    }
    let b = t.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<i16> {
        let part = b.get(r)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0i16, |n, d| n * 10 + i16::from(d - b'0')))
    };
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let year = digits(0..4).filter(|&y| y >= 1)?;
    let day = Date::new(year, digits(5..7)? as i8, digits(8..10)? as i8).ok()?;
    if b.len() == 10 {
        return Some((day, None));
    }
    if !matches!(b[10], b'T' | b't' | b'_' | b' ') || b.get(13) != Some(&b':') {
        return None;
    }
    let (hour, minute) = (digits(11..13)?, digits(14..16)?);
    let mut at = 16;
    let mut second = 0;
    let mut micro = 0;
    if b.get(at) == Some(&b':') {
        second = digits(17..19)?;
        at = 19;
        if matches!(b.get(at), Some(b'.' | b',')) {
            let frac: Vec<u8> = b[at + 1..]
                .iter()
                .copied()
                .take_while(u8::is_ascii_digit)
                .collect();
            if frac.is_empty() {
                return None;
            }
            at += 1 + frac.len();
            // Python keeps microseconds: later digits are dropped.
            micro = frac
                .iter()
                .chain(std::iter::repeat(&b'0'))
                .take(6)
                .fold(0i32, |n, d| n * 10 + i32::from(d - b'0'));
        }
    }
    let offset_ok = match &b[at..] {
        [] | [b'Z' | b'z'] => true,
        [b'+' | b'-', rest @ ..] => {
            let (h, m) = match rest {
                [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => ([*h1, *h2], [*m1, *m2]),
                _ => return None,
            };
            let two = |p: [u8; 2]| {
                p.iter()
                    .all(u8::is_ascii_digit)
                    .then(|| (p[0] - b'0') * 10 + (p[1] - b'0'))
            };
            two(h).is_some_and(|h| h < 24) && two(m).is_some_and(|m| m < 60)
        }
        _ => false,
    };
    if !offset_ok {
        return None;
    }
    let time = Time::new(hour as i8, minute as i8, second as i8, micro * 1000).ok()?;
    Some((day, Some(time)))
}

/// Text pydantic takes for a number of a date or a moment: an optional
/// sign and digits, with a `.` and more digits and an exponent (`1.`,
/// `.5`, `1.5e3`; an exponent only after a `.`: not `1e3`).
fn number_text(t: &str) -> Option<Scalar<'static>> {
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (whole, frac) = match unsigned.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (unsigned, None),
    };
    if !whole.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    match frac {
        None if !whole.is_empty() => t.parse::<i128>().ok().map(Scalar::Int),
        None => None,
        Some(f) => {
            let (digits, exp) = match f.split_once(['e', 'E']) {
                Some((d, e)) => (d, Some(e)),
                None => (f, None),
            };
            let exp_ok = exp.is_none_or(|e| {
                let e = e.strip_prefix(['+', '-']).unwrap_or(e);
                !e.is_empty() && e.bytes().all(|c| c.is_ascii_digit())
            });
            let any_digit = !whole.is_empty() || !digits.is_empty();
            (any_digit && exp_ok && digits.bytes().all(|c| c.is_ascii_digit()))
                .then(|| t.parse::<f64>().ok())
                .flatten()
                .map(Scalar::Float)
        }
    }
}

/// A YAML 1.1 integer as PyYAML reads it: `_` ignored, `0b` binary, `0x`
/// hex, a leading `0` octal, `a:b:c` base 60.
fn yaml11_int(raw: &str) -> Option<i128> {
    let s: String = raw.chars().filter(|&c| c != '_').collect();
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, &s[..]),
    };
    let n = if s == "0" {
        0
    } else if let Some(bin) = s.strip_prefix("0b") {
        i128::from_str_radix(bin, 2).ok()?
    } else if let Some(hex) = s.strip_prefix("0x") {
        i128::from_str_radix(hex, 16).ok()?
    } else if let Some(oct) = s.strip_prefix('0') {
        i128::from_str_radix(oct, 8).ok()?
    } else if s.contains(':') {
        s.split(':').try_fold(0i128, |n, part| {
            n.checked_mul(60)?.checked_add(part.parse::<i128>().ok()?)
        })?
    } else {
        s.parse().ok()?
    };
    Some(if negative { -n } else { n })
}

/// A YAML 1.1 float as PyYAML reads it: `_` ignored, `a:b.c` base 60,
/// `.inf` and `.nan` (which no moment is).
fn yaml11_float(raw: &str) -> Option<f64> {
    let s: String = raw.chars().filter(|&c| c != '_').collect();
    let lower = s.to_ascii_lowercase();
    if lower.ends_with(".inf") || lower.ends_with(".nan") {
        return Some(f64::NAN);
    }
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, &s[..]),
    };
    let n = if s.contains(':') {
        s.split(':')
            .try_fold(0f64, |n, part| Some(n * 60.0 + part.parse::<f64>().ok()?))?
    } else {
        s.parse().ok()?
    };
    Some(if negative { -n } else { n })
}

/// PyYAML's timestamp: a date alone, or a date and time (one- or two-digit
/// month, day and hour; `T`, `t` or spaces between; a fraction; an offset
/// after optional spaces). `None` where PyYAML's reader raises: no real
/// day or time, an offset of a day or more.
fn pyyaml_timestamp(raw: &str) -> Option<Scalar<'static>> {
    static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(?:Z|[-+]([0-9]{1,2})(?::([0-9]{2}))?))?)?$",
        )
        .expect("the timestamp pattern compiles")
    });
    let c = TIMESTAMP.captures(raw)?;
    let num = |i: usize| c.get(i).map(|m| m.as_str().parse::<i32>().ok());
    let day = Date::new(num(1)?? as i16, num(2)?? as i8, num(3)?? as i8).ok()?;
    let Some(hour) = num(4) else {
        return Some(Scalar::Moment { day, time: None });
    };
    let offset_minutes = num(8).flatten().unwrap_or(0) * 60 + num(9).flatten().unwrap_or(0);
    if offset_minutes >= 24 * 60 {
        return None;
    }
    // Python keeps microseconds: later digits are dropped.
    let micro = c.get(7).map_or(0, |m| {
        m.as_str()
            .as_bytes()
            .iter()
            .chain(std::iter::repeat(&b'0'))
            .take(6)
            .fold(0i32, |n, d| n * 10 + i32::from(d - b'0'))
    });
    let time = Time::new(hour? as i8, num(5)?? as i8, num(6)?? as i8, micro * 1000).ok()?;
    Some(Scalar::Moment {
        day,
        time: Some(time),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `field: raw` read as a frontmatter line is, then typed for everos.
    fn read(field: &str, raw: &str, take: impl Fn(&Scalar) -> Option<String>) -> Option<String> {
        let yaml = format!("{field}: {raw}\n");
        let map: yaml_serde::Mapping = yaml_serde::from_str(&yaml).unwrap();
        let value = map.get(field).unwrap();
        take(&scalar(
            value,
            super::super::yaml11::plain_value(&yaml, field),
        ))
    }

    /// Each value as pydantic 2's lax mode took it, checked against
    /// everos's schema (`date: dt.date`, `last_appended_at: dt.datetime |
    /// None`) over PyYAML's `safe_load`: the day it gives, or `None` where
    /// it refuses the value (or PyYAML cannot read it).
    #[test]
    fn a_daily_logs_date_is_what_pydantic_takes_for_a_day() {
        let day = |s: &Scalar| lax_date(s).map(|d| d.to_string());
        for (raw, want) in [
            ("2026-06-01", Some("2026-06-01")),
            ("'2026-06-01'", Some("2026-06-01")),
            ("2026-06-01 00:00:00", Some("2026-06-01")),
            ("2026-06-01 00:00:00.000", Some("2026-06-01")),
            ("2026-06-01T00:00:00Z", Some("2026-06-01")),
            ("2026-06-01 00:00:00+02:00", Some("2026-06-01")),
            ("'2026-06-01T00:00:00'", Some("2026-06-01")),
            ("'2026-06-01 00:00:00'", Some("2026-06-01")),
            ("'2026-06-01t00:00:00'", Some("2026-06-01")),
            ("'2026-06-01_00:00'", Some("2026-06-01")),
            ("'2026-06-01T00:00'", Some("2026-06-01")),
            ("'2026-06-01T00:00:00,0'", Some("2026-06-01")),
            ("'2026-06-01T00:00:00+02:00'", Some("2026-06-01")),
            ("'2026-06-01T00:00:00.000000000001'", Some("2026-06-01")),
            ("1780272000", Some("2026-06-01")),
            ("'1780272000'", Some("2026-06-01")),
            ("1780272000.0", Some("2026-06-01")),
            ("1780272000000", Some("2026-06-01")),
            ("'1780272000.'", Some("2026-06-01")),
            ("0", Some("1970-01-01")),
            ("-86400", Some("1969-12-31")),
            // Not midnight, not a date, not a day, or not read at all.
            ("2026-06-01 00:00:01", None),
            ("'2026-06-01T00:00:01'", None),
            ("'2026-06-01T00:00:00.5'", None),
            ("'2026-06-01T00'", None),
            ("'2026-06-01T24:00:00'", None),
            ("'2026-06-01T00:00:00+25:00'", None),
            ("1780272001", None),
            ("1780272000.5", None),
            ("1780272000001", None),
            ("20260601", None),
            ("'20260601'", None),
            ("0x6a1e6a00", None),
            ("true", None),
            ("yes", None),
            ("2026-6-1", None),
            ("'2026-06-01 '", None),
            ("2026-02-30", None),
            ("'99999999999999999999999'", None),
            ("~", None),
        ] {
            assert_eq!(read("date", raw, day).as_deref(), want, "date: {raw}");
        }
    }

    #[test]
    fn last_appended_at_is_what_pydantic_takes_for_a_moment() {
        let day = |s: &Scalar| lax_datetime(s).map(|(d, t)| format!("{d} {t:?}"));
        for (raw, want) in [
            ("1780300800", Some("2026-06-01 Some(08:00:00)")),
            ("'1780300800'", Some("2026-06-01 Some(08:00:00)")),
            ("'+1780300800'", Some("2026-06-01 Some(08:00:00)")),
            ("1780300800.5", Some("2026-06-01 Some(08:00:00.5)")),
            ("'1780300800.5'", Some("2026-06-01 Some(08:00:00.5)")),
            ("1780300800000", Some("2026-06-01 Some(08:00:00)")),
            ("'1780300800000'", Some("2026-06-01 Some(08:00:00)")),
            ("1_780_300_800", Some("2026-06-01 Some(08:00:00)")),
            ("1.0e+3", Some("1970-01-01 Some(00:16:40)")),
            ("'1.5e3'", Some("1970-01-01 Some(00:25:00)")),
            ("'-1'", Some("1969-12-31 Some(23:59:59)")),
            ("0x10", Some("1970-01-01 Some(00:00:16)")),
            ("017", Some("1970-01-01 Some(00:00:15)")),
            ("12:30", Some("1970-01-01 Some(00:12:30)")),
            ("253402300799999", Some("9999-12-31 Some(23:59:59.999)")),
            ("-62135596800000", Some("0001-01-01 Some(00:00:00)")),
            ("2026-06-01", Some("2026-06-01 None")),
            ("'2026-06-01'", Some("2026-06-01 None")),
            ("2026-06-01 07:45:00", Some("2026-06-01 Some(07:45:00)")),
            ("2026-6-1 7:45:00", Some("2026-06-01 Some(07:45:00)")),
            (
                "2026-06-01 07:45:00.5 +02:00",
                Some("2026-06-01 Some(07:45:00.5)"),
            ),
            (
                "'2026-06-01 07:45:00+00:00'",
                Some("2026-06-01 Some(07:45:00)"),
            ),
            ("'2026-06-01T07:45'", Some("2026-06-01 Some(07:45:00)")),
            ("'2026-06-01T07:45Z'", Some("2026-06-01 Some(07:45:00)")),
            ("'2026-06-01t07:45:00z'", Some("2026-06-01 Some(07:45:00)")),
            (
                "'2026-06-01T07:45:00+0200'",
                Some("2026-06-01 Some(07:45:00)"),
            ),
            (
                "'2026-06-01T07:45:00+23:59'",
                Some("2026-06-01 Some(07:45:00)"),
            ),
            (
                "'2026-06-01T07:45:00.123456789Z'",
                Some("2026-06-01 Some(07:45:00.123456)"),
            ),
            ("'2028-02-29T00:00:00'", Some("2028-02-29 Some(00:00:00)")),
            // Refused.
            ("true", None),
            ("yes", None),
            (".inf", None),
            ("1780300800000000", None),
            ("253402300800000", None),
            ("-62135596801000", None),
            ("'99999999999999999999999'", None),
            ("'1_000'", None),
            ("'  1780300800  '", None),
            ("'1e3'", None),
            ("'.'", None),
            ("'2026-06-01T07'", None),
            ("'2026-06-01T25:99:00'", None),
            ("'2026-06-01T07:45:60'", None),
            ("'2026-06-01T24:00:00'", None),
            ("'2026-06-01T7:45:00'", None),
            ("'2026-06-01  07:45:00'", None),
            ("'2026-06-01T07:45:00 Z'", None),
            ("'2026-06-01T07:45:00+02'", None),
            ("'2026-06-01T07:45:00+24:00'", None),
            ("'2026-06-01T07:45:00.'", None),
            ("'2026-02-29'", None),
            ("'0000-01-01'", None),
            ("2026-13-45", None),
        ] {
            assert_eq!(
                read("last_appended_at", raw, day).as_deref(),
                want,
                "last_appended_at: {raw}"
            );
        }
    }

    #[test]
    fn an_entry_records_a_time_only_when_it_is_a_real_one() {
        let hm = |s: &str| text_time_of_day(s).map(|(_, t)| t.strftime("%H:%M").to_string());
        assert_eq!(hm("2026-06-01T07:01:47+00:00").as_deref(), Some("07:01"));
        assert_eq!(hm("2026-06-01 07:45:00+00:00").as_deref(), Some("07:45"));
        assert_eq!(hm("2026-06-01T25:99:00+00:00"), None);
        assert_eq!(hm("2026-06-01"), None);
        assert_eq!(hm("yesterday"), None);
    }
}
