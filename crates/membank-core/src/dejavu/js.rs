//! JSON values with the semantics of the JavaScript tools that define Deja Vu
//! memory: `JSON.parse`, truthiness, `String()` of arrays and numbers,
//! `trim()`, `toFixed()`, UTF-16 lengths and set membership.
//!
//! The reference tools are small Node scripts; matching them "to the last
//! digit" means reproducing what JavaScript does with odd input too
//! (`"keywords": "abc"` spreads into letters, `1e400` is Infinity, two
//! impressions without an id collide). serde_json differs on several of
//! these, so lines are parsed here.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A parsed JSON value, as `JSON.parse` would build it.
#[derive(Debug, Clone, PartialEq)]
pub enum JsValue {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<JsValue>),
    /// Keys in insertion order; a repeated key keeps its first position and
    /// takes the last value, as with JavaScript objects.
    Object(Vec<(String, JsValue)>),
}

/// Why a line is not JSON, with the byte offset in the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub offset: usize,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at position {}", self.message, self.offset)
    }
}

/// Hostile input may nest arrays arbitrarily deep; the parser recurses.
const MAX_DEPTH: usize = 256;

/// An object's keys are looked through for a repeat up to this many; past
/// it they are indexed.
const LOOKUP_BELOW: usize = 16;

/// Parse one JSON text strictly, as `JSON.parse` does. Lone UTF-16
/// surrogates in `\u` escapes (legal in JavaScript, impossible in a Rust
/// string) become U+FFFD; both are separators to the tokenizer.
pub fn parse(text: &str) -> Result<JsValue, ParseError> {
    let mut p = Parser {
        s: text.as_bytes(),
        src: text,
        i: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("unexpected text after the JSON value"));
    }
    Ok(v)
}

/// [`parse`], building of a top-level object only the properties named in
/// `keys` (the others are checked as strictly, so the result is an error
/// exactly when `parse`'s is, with the same message and position).
pub fn parse_keeping(text: &str, keys: &[&str]) -> Result<JsValue, ParseError> {
    let mut p = Parser {
        s: text.as_bytes(),
        src: text,
        i: 0,
    };
    p.ws();
    let v = if p.s.get(p.i) == Some(&b'{') {
        p.object_keeping(0, Some(keys))?
    } else {
        p.value(0)?
    };
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("unexpected text after the JSON value"));
    }
    Ok(v)
}

/// The top-level keys of a JSON object text with the byte range of each
/// value, for edits that leave the rest of a line as written.
pub fn object_value_spans(text: &str) -> Option<Vec<(String, std::ops::Range<usize>)>> {
    let mut p = Parser {
        s: text.as_bytes(),
        src: text,
        i: 0,
    };
    p.ws();
    if p.s.get(p.i) != Some(&b'{') {
        return None;
    }
    let mut out = Vec::new();
    p.properties(|p, key| {
        let start = p.i;
        p.value(1)?;
        out.push((key.into_owned(), start..p.i));
        Ok(())
    })
    .ok()?;
    Some(out)
}

struct Parser<'a> {
    s: &'a [u8],
    src: &'a str,
    i: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, message: &str) -> ParseError {
        ParseError {
            message: message.to_owned(),
            offset: self.i,
        }
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<JsValue, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        match self.s.get(self.i) {
            None => Err(self.err("unexpected end of line")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(JsValue::String(self.string()?)),
            Some(b't') => self.word("true", JsValue::Bool(true)),
            Some(b'f') => self.word("false", JsValue::Bool(false)),
            Some(b'n') => self.word("null", JsValue::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("unexpected character")),
        }
    }

    fn word(&mut self, w: &str, v: JsValue) -> Result<JsValue, ParseError> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(self.err("unexpected character"))
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.s.get(self.i) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<JsValue, ParseError> {
        let start = self.i;
        self.number_text()?;
        // Rust's parse rounds correctly and overflows to infinity, like
        // JavaScript's.
        let n: f64 = self.src[start..self.i].parse().unwrap_or(f64::NAN);
        Ok(JsValue::Number(n))
    }

    /// Step over a number's text, checking its grammar.
    fn number_text(&mut self) -> Result<(), ParseError> {
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.err("no digit in number")),
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.err("no digit after decimal point"));
            }
        }
        if let Some(b'e' | b'E') = self.s.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.s.get(self.i) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.err("no digit in exponent"));
            }
        }
        Ok(())
    }

    fn hex4(&mut self) -> Result<u16, ParseError> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .and_then(|b| std::str::from_utf8(b).ok())
            .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|h| u16::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.err("bad \\u escape"))?;
        self.i += 4;
        Ok(h)
    }

    fn string(&mut self) -> Result<String, ParseError> {
        let mut out = String::new();
        self.string_into(Some(&mut out))?;
        Ok(out)
    }

    /// A string borrowed from the text when it has no escapes (most keys
    /// and values), decoded otherwise.
    fn string_cow(&mut self) -> Result<Cow<'a, str>, ParseError> {
        let start = self.i + 1;
        let mut end = start;
        while let Some(&b) = self.s.get(end) {
            if b == b'"' {
                self.i = end + 1;
                return Ok(Cow::Borrowed(&self.src[start..end]));
            }
            if b == b'\\' || b < 0x20 {
                break;
            }
            end += 1;
        }
        self.string().map(Cow::Owned)
    }

    /// Read a string; `out`, when given, receives its decoded text. The
    /// same checks either way, so skipping accepts exactly what parsing
    /// does.
    fn string_into(&mut self, mut out: Option<&mut String>) -> Result<(), ParseError> {
        self.i += 1; // opening quote
        loop {
            let start = self.i;
            while let Some(&b) = self.s.get(self.i) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            if let Some(out) = out.as_deref_mut() {
                out.push_str(&self.src[start..self.i]);
            }
            match self.s.get(self.i) {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.i += 1;
                    let esc = *self
                        .s
                        .get(self.i)
                        .ok_or_else(|| self.err("unterminated string"))?;
                    self.i += 1;
                    let c = match esc {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let unit = self.hex4()?;
                            self.unit_to_char(unit)?
                        }
                        _ => {
                            self.i -= 1;
                            return Err(self.err("bad escape"));
                        }
                    };
                    if let Some(out) = out.as_deref_mut() {
                        out.push(c);
                    }
                }
                Some(_) => return Err(self.err("control character in string")),
            }
        }
    }

    /// A `\uXXXX` unit, joined with a following low surrogate escape.
    fn unit_to_char(&mut self, unit: u16) -> Result<char, ParseError> {
        if (0xD800..0xDC00).contains(&unit) && self.s[self.i..].starts_with(b"\\u") {
            let save = self.i;
            self.i += 2;
            let low = self.hex4()?;
            if (0xDC00..0xE000).contains(&low) {
                let c = 0x10000 + (((unit as u32) - 0xD800) << 10) + (low as u32 - 0xDC00);
                return Ok(char::from_u32(c).unwrap_or('\u{FFFD}'));
            }
            self.i = save;
        }
        Ok(char::from_u32(unit as u32).unwrap_or('\u{FFFD}'))
    }

    fn array(&mut self, depth: usize) -> Result<JsValue, ParseError> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.s.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(JsValue::Array(items));
        }
        loop {
            self.ws();
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    // Every impression line's arrays and objects stay
                    // loaded: the doubling slack would be a third of them.
                    items.shrink_to_fit();
                    return Ok(JsValue::Array(items));
                }
                _ => return Err(self.err("expected ',' or ']'")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<JsValue, ParseError> {
        self.object_keeping(depth, None)
    }

    /// An object; with `only`, the properties with other keys are checked
    /// and stepped over, not built.
    fn object_keeping(
        &mut self,
        depth: usize,
        only: Option<&[&str]>,
    ) -> Result<JsValue, ParseError> {
        let mut fields: Vec<(String, JsValue)> = Vec::new();
        // Where each key is, once there are too many to look through: a
        // hostile line may hold a million keys.
        let mut positions: HashMap<String, usize> = HashMap::new();
        self.properties(|p, key| {
            if only.is_some_and(|keys| !keys.contains(&&*key)) {
                return p.skip(depth + 1);
            }
            let v = p.value(depth + 1)?;
            let at = if fields.len() < LOOKUP_BELOW {
                fields.iter().position(|(k, _)| *k == key)
            } else {
                if positions.is_empty() {
                    positions.extend(fields.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)));
                }
                positions.get(&*key).copied()
            };
            match at {
                Some(i) => fields[i].1 = v,
                None => {
                    if !positions.is_empty() {
                        positions.insert(key.to_string(), fields.len());
                    }
                    fields.push((key.into_owned(), v));
                }
            }
            Ok(())
        })?;
        fields.shrink_to_fit();
        Ok(JsValue::Object(fields))
    }

    /// Walk the object whose `{` is next: each property's key goes to
    /// `on` with the parser at its value, which `on` reads or steps over.
    /// Building, skipping and searching all walk through here, so each
    /// gives the same errors at the same offsets.
    fn properties(
        &mut self,
        mut on: impl FnMut(&mut Self, Cow<'a, str>) -> Result<(), ParseError>,
    ) -> Result<(), ParseError> {
        self.i += 1;
        self.ws();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.ws();
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.err("expected a property name"));
            }
            let key = self.string_cow()?;
            self.ws();
            if self.s.get(self.i) != Some(&b':') {
                return Err(self.err("expected ':'"));
            }
            self.i += 1;
            self.ws();
            on(self, key)?;
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(self.err("expected ',' or '}'")),
            }
        }
    }
}

impl Parser<'_> {
    /// Step over a value, checking it as [`Parser::value`] would (the same
    /// errors at the same offsets) without building it.
    fn skip(&mut self, depth: usize) -> Result<(), ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        match self.s.get(self.i) {
            None => Err(self.err("unexpected end of line")),
            Some(b'{') => self.skip_object(depth),
            Some(b'[') => self.skip_array(depth),
            Some(b'"') => self.string_into(None),
            Some(b't') => self.word("true", JsValue::Null).map(drop),
            Some(b'f') => self.word("false", JsValue::Null).map(drop),
            Some(b'n') => self.word("null", JsValue::Null).map(drop),
            Some(b'-' | b'0'..=b'9') => self.number_text(),
            Some(_) => Err(self.err("unexpected character")),
        }
    }

    fn skip_array(&mut self, depth: usize) -> Result<(), ParseError> {
        self.i += 1;
        self.ws();
        if self.s.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.ws();
            self.skip(depth + 1)?;
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(self.err("expected ',' or ']'")),
            }
        }
    }

    fn skip_object(&mut self, depth: usize) -> Result<(), ParseError> {
        self.properties(|p, _| p.skip(depth + 1))
    }
}

/// `JSON.parse(text)[key]` when the text is a JSON object and that
/// property is a string, without building the rest of the object; `None`
/// when the text is not valid JSON, not an object, or the property is
/// absent or of another type. Borrowed from `text` unless it has escapes.
pub fn string_field<'a>(text: &'a str, key: &str) -> Option<Cow<'a, str>> {
    find_field(text, key, |p| {
        if p.s.get(p.i) == Some(&b'"') {
            p.string_cow().map(Some)
        } else {
            p.skip(1).map(|()| None)
        }
    })
    .flatten()
}

/// `JSON.parse(text)[key]` when the text is a JSON object that has the
/// property, building only that property's value.
pub fn field(text: &str, key: &str) -> Option<JsValue> {
    find_field(text, key, |p| p.value(1))
}

/// The value `read` makes of the property `key` of the JSON object `text`
/// (the last one, when the key repeats, as in JavaScript); every other
/// property is checked and stepped over. `None` when the text is not a
/// valid JSON object or has no such property.
fn find_field<'a, T>(
    text: &'a str,
    key: &str,
    mut read: impl FnMut(&mut Parser<'a>) -> Result<T, ParseError>,
) -> Option<T> {
    let mut p = Parser {
        s: text.as_bytes(),
        src: text,
        i: 0,
    };
    p.ws();
    if p.s.get(p.i) != Some(&b'{') {
        return None;
    }
    let mut found = None;
    p.properties(|p, name| {
        if name == key {
            found = Some(read(p)?);
            Ok(())
        } else {
            p.skip(1)
        }
    })
    .ok()?;
    p.ws();
    if p.i != p.s.len() {
        return None;
    }
    found
}

impl JsValue {
    /// `value[key]` for a non-null value: only objects have own keys here
    /// (no record field name is a property of strings or arrays).
    pub fn get(&self, key: &str) -> Option<&JsValue> {
        match self {
            JsValue::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsValue::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<f64> {
        match self {
            JsValue::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// JavaScript truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            JsValue::Null => false,
            JsValue::Bool(b) => *b,
            JsValue::Number(n) => *n != 0.0 && !n.is_nan(),
            JsValue::String(s) => !s.is_empty(),
            JsValue::Array(_) | JsValue::Object(_) => true,
        }
    }

    /// `String(value)` as `Array.prototype.join` applies it to elements
    /// (null becomes the empty string there).
    pub fn join_string(&self) -> String {
        let mut out = String::new();
        self.write_join_string(&mut out);
        out
    }

    /// [`JsValue::join_string`] appended to `out`.
    pub fn write_join_string(&self, out: &mut String) {
        match self {
            JsValue::Null => {}
            JsValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsValue::Number(n) => out.push_str(&number_to_string(*n)),
            JsValue::String(s) => out.push_str(s),
            JsValue::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_join_string(out);
                }
            }
            JsValue::Object(_) => out.push_str("[object Object]"),
        }
    }

    /// A short human description for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            JsValue::Null => "null",
            JsValue::Bool(_) => "a boolean",
            JsValue::Number(_) => "a number",
            JsValue::String(_) => "a string",
            JsValue::Array(_) => "an array",
            JsValue::Object(_) => "an object",
        }
    }
}

/// Truthiness of a possibly missing property (`undefined` is falsy).
pub fn truthy(v: Option<&JsValue>) -> bool {
    v.is_some_and(JsValue::truthy)
}

/// How `Set` and `Map` compare keys (SameValueZero): primitives by value,
/// every array or object is distinct from every other.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SetKey {
    Undefined,
    Null,
    Bool(bool),
    Number(u64),
    String(String),
    /// An object or array: equal only to itself.
    Unique(usize),
}

impl SetKey {
    /// `unique` must differ for every object/array value of one run (the
    /// caller passes the JSONL line number, for instance).
    pub fn of(v: Option<&JsValue>, unique: usize) -> SetKey {
        match v {
            None => SetKey::Undefined,
            Some(JsValue::Null) => SetKey::Null,
            Some(JsValue::Bool(b)) => SetKey::Bool(*b),
            // -0 and 0 are the same key.
            Some(JsValue::Number(n)) => SetKey::Number(if *n == 0.0 { 0 } else { n.to_bits() }),
            Some(JsValue::String(s)) => SetKey::String(s.clone()),
            Some(JsValue::Array(_) | JsValue::Object(_)) => SetKey::Unique(unique),
        }
    }
}

/// `Number.prototype.toString()`: shortest round-trip digits, placed by the
/// ECMAScript rules (`1e+21`, `1e-7`, `0.000001`, `123`).
pub fn number_to_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    // Rust's `{:e}` gives the shortest digits that round-trip: "1.2345e-7".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i64;
    let n = exp.parse::<i64>().unwrap_or(0) + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let esign = if e < 0 { '-' } else { '+' };
        if k == 1 {
            format!("{digits}e{esign}{}", e.abs())
        } else {
            format!("{}.{}e{esign}{}", &digits[..1], &digits[1..], e.abs())
        }
    };
    format!("{sign}{body}")
}

/// `Number(x.toFixed(4))` for `0 <= x < 1e21`: the exact binary value is
/// rounded half up at the fourth decimal (not half to even, and not on a
/// decimal approximation).
pub fn round4(x: f64) -> f64 {
    if !x.is_finite() || x < 0.0 {
        return x;
    }
    let bits = x.to_bits();
    let exp_bits = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (mantissa, exp) = if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    };
    let scaled = mantissa as u128 * 10_000;
    let n: u128 = if exp >= 0 {
        // Only for values of 2^53 and more; far outside any score.
        return x;
    } else if -exp >= 120 {
        0
    } else {
        let shift = (-exp) as u32;
        let floor = scaled >> shift;
        let rem = scaled & ((1u128 << shift) - 1);
        if rem * 2 >= (1u128 << shift) {
            floor + 1
        } else {
            floor
        }
    };
    format!("{}.{:04}", n / 10_000, n % 10_000)
        .parse()
        .unwrap_or(x)
}

/// `Math.min(a, b)`: NaN wins (Rust's `f64::min` would drop it).
pub fn js_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// `String.prototype.trim()`: ECMAScript white space and line terminators,
/// which include U+FEFF and exclude U+0085 (unlike `str::trim`).
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `string.length`: UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// Compare as JavaScript's default `sort()` does: by UTF-16 code units.
pub fn cmp_utf16(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// An array index key (`"0"`, `"17"`): JavaScript lists these first, in
/// numeric order, whatever the insertion order.
fn array_index(key: &str) -> Option<u32> {
    if key == "0" {
        return Some(0);
    }
    if key.starts_with('0') || key.is_empty() || key.len() > 10 {
        return None;
    }
    key.parse::<u32>().ok().filter(|n| *n != u32::MAX)
}

/// Object keys in the order `JSON.stringify` writes them.
pub fn js_key_order(fields: &[(String, JsValue)]) -> Vec<&(String, JsValue)> {
    let mut indexed: Vec<(u32, &(String, JsValue))> = fields
        .iter()
        .filter_map(|f| array_index(&f.0).map(|n| (n, f)))
        .collect();
    crate::shared_sort::sort_by_key(&mut indexed, |(n, _)| *n);
    let mut out: Vec<&(String, JsValue)> = indexed.into_iter().map(|(_, f)| f).collect();
    out.extend(fields.iter().filter(|f| array_index(&f.0).is_none()));
    out
}

/// Serialized as `JSON.stringify` would: integral numbers without a
/// fraction, non-finite numbers as null, keys in JavaScript order.
/// Any JSON value: the reference keeps what the file holds.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for JsValue {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "JsValue".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!(true)
    }
}

impl Serialize for JsValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            JsValue::Null => s.serialize_unit(),
            JsValue::Bool(b) => s.serialize_bool(*b),
            JsValue::Number(n) => serialize_number(n, s),
            JsValue::String(v) => s.serialize_str(v),
            JsValue::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            JsValue::Object(fields) => {
                let mut map = s.serialize_map(Some(fields.len()))?;
                for (k, v) in js_key_order(fields) {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// A number as JavaScript prints it in JSON.
pub fn serialize_number<S: Serializer>(n: &f64, s: S) -> Result<S::Ok, S::Error> {
    let n = *n;
    if !n.is_finite() {
        s.serialize_unit()
    } else if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        s.serialize_i64(n as i64)
    } else {
        s.serialize_f64(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_json_parse() {
        assert_eq!(parse(" 1e400 ").unwrap(), JsValue::Number(f64::INFINITY));
        assert_eq!(
            parse(r#"{"a":1,"b":2,"a":3}"#).unwrap(),
            JsValue::Object(vec![
                ("a".into(), JsValue::Number(3.0)),
                ("b".into(), JsValue::Number(2.0))
            ])
        );
        assert_eq!(
            parse(r#""\ud83d\ude00\ud800x""#).unwrap(),
            JsValue::String("😀\u{FFFD}x".into())
        );
        for bad in [
            "",
            "01",
            "1.",
            ".5",
            "-",
            "[1,]",
            "{\"a\":1,}",
            "'a'",
            "\"a\tb\"",
            "nul",
            "1 2",
            "\"\\x\"",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should not parse");
        }
        let deep = "[".repeat(100_000);
        assert!(parse(&deep).is_err());
    }

    #[test]
    fn one_field_is_read_as_the_whole_parse_would_give_it() {
        let texts = [
            r#"{"a":"x","b":[1,{"c":"\u00e9"}],"a":"y"}"#,
            r#"{"a":1,"a":"last"}"#,
            r#"{"a":"first","a":2}"#,
            r#" { "a" : "caf\u00e9\n" , "\u0061" : "escaped key" } "#,
            r#"{"b":{"a":"nested only"}}"#,
            r#"{"a":"x","b":[1,]}"#,
            r#"{"a":"x","b":01}"#,
            r#"{"a":"x","b":"\q"}"#,
            r#"{"a":"x","b":"tab	inside"}"#,
            r#"{"a":"x"} trailing"#,
            r#"{"a":"x","b":nul}"#,
            r#"{"a":"x","b":1e}"#,
            r#"{"a":"x","b":"\ud800"}"#,
            r#"{"a":"x",}"#,
            r#"{"a":"x""#,
            r#"["a","x"]"#,
            r#""a""#,
            "null",
            "{}",
            "",
        ];
        let deep = format!(r#"{{"a":"x","b":{}{}}}"#, "[".repeat(300), "]".repeat(300));
        let many_keys = format!(
            "{{{}\"a\":\"again\"}}",
            (0..100)
                .map(|i| format!("\"k{}\":{i},\"a\":{i},", i % 40))
                .collect::<String>()
        );
        // Past the looked-through few, a repeated key still keeps its first
        // place and takes its last value.
        let JsValue::Object(fields) = parse(&many_keys).unwrap() else {
            panic!("an object")
        };
        assert_eq!(fields.len(), 41);
        assert_eq!(fields[1], ("a".into(), JsValue::String("again".into())));
        assert_eq!(fields[40], ("k39".into(), JsValue::Number(79.0)));
        assert_eq!(fields[0], ("k0".into(), JsValue::Number(80.0)));
        for text in texts
            .iter()
            .copied()
            .chain([deep.as_str(), many_keys.as_str()])
        {
            let kept = parse_keeping(text, &["a", "c"]);
            match parse(text) {
                Ok(JsValue::Object(fields)) => {
                    let only: Vec<_> = fields
                        .into_iter()
                        .filter(|(k, _)| k == "a" || k == "c")
                        .collect();
                    assert_eq!(kept, Ok(JsValue::Object(only)), "{text:?}");
                }
                whole => assert_eq!(kept, whole, "{text:?}"),
            }
            let whole = parse(text).ok();
            for key in ["a", "b", "c"] {
                let expected = whole.as_ref().and_then(|v| v.get(key));
                assert_eq!(field(text, key).as_ref(), expected, "{text:?} {key}");
                assert_eq!(
                    string_field(text, key).as_deref(),
                    expected.and_then(JsValue::as_str),
                    "{text:?} {key}"
                );
            }
        }
    }

    /// What the reference-parity tests rest on: reading some properties
    /// fails exactly when the whole parse does, with its message and place.
    fn agrees_with_the_whole_parse(text: &str) {
        let whole = parse(text);
        let kept = parse_keeping(text, &["a", "c"]);
        match &whole {
            Ok(JsValue::Object(fields)) => {
                let only: Vec<_> = fields
                    .iter()
                    .filter(|(k, _)| k == "a" || k == "c")
                    .cloned()
                    .collect();
                assert_eq!(kept, Ok(JsValue::Object(only)), "{text:?}");
            }
            _ => assert_eq!(kept, whole, "{text:?}"),
        }
        let expected = whole.as_ref().ok().and_then(|v| v.get("a"));
        assert_eq!(field(text, "a").as_ref(), expected, "{text:?}");
        assert_eq!(
            string_field(text, "a").as_deref(),
            expected.and_then(JsValue::as_str),
            "{text:?}"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_text_reads_alike_in_part_and_whole(
            text in r#"[{}\[\]",:abc019 .eE+\\u-]{0,48}"#,
        ) {
            agrees_with_the_whole_parse(&text);
        }

        #[test]
        fn an_object_reads_alike_in_part_and_whole(
            inner in r#"("[abc]":("[a-c\\u0-9 ]{0,6}"|-?[0-9.eE+]{1,5}|\[[0-9,"a ]{0,8}\]|\{"c":[a-z0-9"]{0,4}\}|true|nul),?){0,6}"#,
        ) {
            agrees_with_the_whole_parse(&format!("{{{inner}}}"));
        }
    }

    #[test]
    fn join_strings_follow_javascript() {
        let v = parse(r#"[null, true, 1e21, 0.1, [1, null, [2]], {"a":1}, -0]"#).unwrap();
        assert_eq!(v.join_string(), ",true,1e+21,0.1,1,,2,[object Object],0");
    }

    #[test]
    fn numbers_print_like_javascript() {
        let cases = [
            (1.0, "1"),
            (0.975, "0.975"),
            (1e21, "1e+21"),
            (123e18, "123000000000000000000"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (-2.5, "-2.5"),
            (1e-7, "1e-7"),
        ];
        for (x, s) in cases {
            assert_eq!(number_to_string(x), s);
        }
    }

    #[test]
    fn to_fixed_rounds_the_exact_binary_value_half_up() {
        // 0.25 * 0.975 is just below 0.24375 in binary.
        assert_eq!(round4(0.25 * (0.75 + 0.9 * 0.25)), 0.2437);
        // 1/32 = 0.03125 is an exact tie: JavaScript takes the larger.
        assert_eq!(round4(0.03125), 0.0313);
        assert_eq!(round4(0.975), 0.975);
        assert_eq!(round4(1.0), 1.0);
        assert_eq!(round4(0.00004), 0.0);
        assert_eq!(round4(0.00005), 0.0001);
    }

    #[test]
    fn trim_and_lengths_follow_javascript() {
        assert_eq!(js_trim("\u{feff} a \u{3000}"), "a");
        assert_eq!(js_trim("\u{85}a"), "\u{85}a");
        assert_eq!(utf16_len("a😀"), 3);
        assert_eq!(cmp_utf16("\u{ffff}", "😀"), std::cmp::Ordering::Greater);
        assert!(!JsValue::Number(-0.0).truthy());
        assert!(JsValue::Array(vec![]).truthy());
        assert_eq!(
            SetKey::of(Some(&JsValue::Number(-0.0)), 1),
            SetKey::of(Some(&JsValue::Number(0.0)), 2)
        );
    }

    #[test]
    fn serializes_like_json_stringify() {
        let v = parse(r#"{"b":1.0,"2":true,"a":[1e400,0.5],"1":null}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"1":null,"2":true,"b":1,"a":[null,0.5]}"#
        );
    }
}
