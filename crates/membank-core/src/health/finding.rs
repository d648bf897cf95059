//! One finding, kept small: a large bank has hundreds of thousands of them,
//! all held until they are sorted. The most frequent messages are stored as
//! the few facts they are made of and written out only when read.

use std::borrow::Cow;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;
use std::sync::{Arc, LazyLock, RwLock};

use jiff::civil::Date;
use serde::Serialize;
use serde::ser::SerializeStruct;

use super::Severity;
use crate::layout::Folder;

/// One thing the checks found.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone)]
pub struct Finding {
    /// See [`Finding::code`].
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    code: Code,
    pub severity: Severity,
    /// Relative to the bank root, `/`-separated; empty for the bank itself.
    /// An article's findings share one copy.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub path: Arc<str>,
    /// See [`Finding::line`].
    #[cfg_attr(feature = "schema", schemars(with = "Option<usize>"))]
    line: Line,
    /// What is wrong, why it matters and what to do; see [`Finding::message`].
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    message: Message,
}

/// A finding's message: its text, or the facts a frequent message is
/// written from (see [`Finding::message`]).
// Texts are shared, not copied: a re-check after a change keeps most of
// the report before, and copying every kept text cost more than the checks
// it saved.
#[derive(Debug, Clone)]
pub(crate) enum Message {
    Text(Arc<str>),
    /// `stale`: the article's `last_updated`, the age allowed and the day
    /// it is measured from.
    Stale {
        date: Date,
        days: u32,
        today: Date,
    },
    /// `missing-key`: the key, whether it is present but empty, and why
    /// the article should have it.
    MissingKey {
        key: &'static str,
        empty: bool,
        rule: KeyRule,
    },
    /// `orphan`: everything it says comes from the finding's path.
    Orphan,
    /// `dead-link`: the link as written.
    DeadLink(Arc<str>),
    /// `term-conflict`: the articles about the term, shared by their
    /// findings, and which of them this one is.
    TermConflict {
        group: Arc<super::terms::TermGroup>,
        member: u32,
    },
}

/// Why an article should carry a frontmatter key.
#[derive(Debug, Clone, Copy)]
pub(crate) enum KeyRule {
    /// Required in this folder.
    Required(Folder),
    /// Recommended in this folder.
    Recommended(Folder),
    /// Carried by processed inbox files.
    Archive,
}

impl From<String> for Message {
    fn from(text: String) -> Message {
        Message::Text(text.into())
    }
}

impl From<&str> for Message {
    fn from(text: &str) -> Message {
        Message::Text(text.into())
    }
}

impl Finding {
    pub fn new(
        code: &'static str,
        severity: Severity,
        path: impl AsRef<str>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Finding {
        Finding::with_message(code, severity, path.as_ref(), line, message.into().into())
    }

    pub(crate) fn with_message(
        code: &'static str,
        severity: Severity,
        path: &str,
        line: Option<usize>,
        message: Message,
    ) -> Finding {
        Finding {
            code: Code::of(code),
            severity,
            path: shared_path(path),
            line: Line::of(line),
            message,
        }
    }

    /// The finding's stable kebab-case code, e.g. `dead-link`.
    pub fn code(&self) -> &'static str {
        self.code.name()
    }

    /// The 1-based line in the file as it is on disk, if the finding has one.
    pub fn line(&self) -> Option<usize> {
        self.line.get()
    }

    /// The key a `missing-key` finding asks for.
    pub fn missing_key(&self) -> Option<&'static str> {
        match self.message {
            Message::MissingKey { key, .. } => Some(key),
            _ => None,
        }
    }

    /// What is wrong, why it matters and what to do about it.
    pub fn message(&self) -> Cow<'_, str> {
        match &self.message {
            Message::Text(text) => Cow::Borrowed(text),
            _ => {
                let mut out = String::with_capacity(192);
                self.write_message(&mut out, &|out, part| out.push_str(part));
                Cow::Owned(out)
            }
        }
    }

    /// [`Finding::message`] appended to `out` as
    /// [`crate::text::sanitize_into`] shows it on a terminal. A report
    /// writes up to hundreds of thousands of them: the frequent ones are
    /// written in place rather than made as a string, scanned and copied,
    /// and only the parts that come from the bank are sanitised.
    pub fn write_message_for_terminal(&self, out: &mut String) {
        self.write_message(out, &|out, part| {
            crate::text::sanitize_into(out, part, false)
        });
    }

    /// The message onto `out`, each part taken from the bank (a name, a
    /// link as written) passed through `from_bank`.
    fn write_message(&self, out: &mut String, from_bank: &dyn Fn(&mut String, &str)) {
        match &self.message {
            Message::Text(text) => from_bank(out, text),
            Message::Stale { date, days, today } => {
                super::write_stale_message(out, *date, *days, *today)
            }
            Message::MissingKey { key, empty, rule } => {
                super::frontmatter::write_missing_key_message(out, key, *empty, *rule)
            }
            Message::Orphan => super::links::write_orphan_message(out, &self.path, from_bank),
            Message::DeadLink(written) => {
                super::links::write_dead_link_message(out, written, from_bank)
            }
            Message::TermConflict { group, member } => {
                group.write_message(*member as usize, out, from_bank)
            }
        }
    }

    /// `path:line`, `path`, or `(bank)` for findings about the whole bank.
    pub fn location(&self) -> String {
        match (self.path.is_empty(), self.line()) {
            (true, _) => "(bank)".to_owned(),
            (false, Some(line)) => format!("{}:{line}", self.path),
            (false, None) => self.path.to_string(),
        }
    }

    /// The order of a report: severity (errors first), path, line, code,
    /// then message.
    pub fn report_order(&self, other: &Finding) -> Ordering {
        // An article's findings share one copy of its path: comparing the
        // pointers first spares reading the text, in a sort of 100,000s.
        let same_path = Arc::ptr_eq(&self.path, &other.path);
        self.severity
            .cmp(&other.severity)
            .then_with(|| {
                if same_path {
                    Ordering::Equal
                } else {
                    self.path.cmp(&other.path)
                }
            })
            .then_with(|| self.line().cmp(&other.line()))
            .then_with(|| {
                if self.code == other.code {
                    Ordering::Equal
                } else {
                    self.code().cmp(other.code())
                }
            })
            .then_with(|| self.cmp_message(other))
    }

    fn cmp_message(&self, other: &Finding) -> Ordering {
        match (&self.message, &other.message) {
            (Message::Text(a), Message::Text(b)) => a.cmp(b),
            // "The key {key} is …": the keys are lower-case letters and
            // `_`, each after the space that follows a key, so two keys
            // order their messages as they order themselves. An article
            // missing several keys on no line compared them this way in
            // every sort, each time writing both messages out.
            (Message::MissingKey { key: a, .. }, Message::MissingKey { key: b, .. }) if a != b => {
                a.cmp(b)
            }
            _ => self.message().cmp(&other.message()),
        }
    }
}

/// A finding's code as its number among the codes known so far: two bytes
/// where the text's address and length take sixteen, in every one of a
/// large bank's hundreds of thousands of findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Code(u16);

/// The codes the checks emit, numbered once; any other code (a check's
/// code missing from its table) is numbered the first time it is seen.
struct Codes {
    known: Vec<&'static str>,
    numbers: rustc_hash::FxHashMap<&'static str, u16>,
    /// Numbered after the known ones.
    others: RwLock<Vec<&'static str>>,
}

static CODES: LazyLock<Codes> = LazyLock::new(|| {
    let known: Vec<&'static str> = super::CODES
        .iter()
        .chain(crate::dejavu::checks::CODES)
        .chain(crate::everos::check::CODES)
        .map(|&(code, _)| code)
        .collect();
    let mut numbers = rustc_hash::FxHashMap::default();
    for (number, &code) in known.iter().enumerate() {
        numbers.entry(code).or_insert(number as u16);
    }
    Codes {
        known,
        numbers,
        others: RwLock::new(Vec::new()),
    }
});

impl Code {
    fn of(code: &'static str) -> Code {
        let codes = &*CODES;
        if let Some(&number) = codes.numbers.get(code) {
            return Code(number);
        }
        // Not in the tables: rare, so a lock is fine here.
        let mut others = codes.others.write().unwrap_or_else(|e| e.into_inner());
        let at = match others.iter().position(|&name| name == code) {
            Some(at) => at,
            None => {
                others.push(code);
                others.len() - 1
            }
        };
        // Past 65,535 codes (never, in practice) the last number stands
        // for the rest rather than failing.
        Code(u16::try_from(codes.known.len() + at).unwrap_or(u16::MAX))
    }

    fn name(self) -> &'static str {
        let codes = &*CODES;
        let number = usize::from(self.0);
        if let Some(&name) = codes.known.get(number) {
            return name;
        }
        let others = codes.others.read().unwrap_or_else(|e| e.into_inner());
        others[(number - codes.known.len()).min(others.len() - 1)]
    }
}

/// A 1-based line in four bytes; [`Line::NONE`] when the finding has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Line(u32);

impl Line {
    const NONE: Line = Line(u32::MAX);

    fn of(line: Option<usize>) -> Line {
        // A line past four billion cannot be in a file of bounded size;
        // it is kept as the largest number there is room for.
        line.map_or(Line::NONE, |n| {
            Line(u32::try_from(n).unwrap_or(u32::MAX - 1).min(u32::MAX - 1))
        })
    }

    fn get(self) -> Option<usize> {
        (self != Line::NONE).then_some(self.0 as usize)
    }
}

thread_local! {
    /// The path of the last finding made on this thread.
    static LAST_PATH: RefCell<Option<Arc<str>>> = const { RefCell::new(None) };
}

/// Make `path` the one the next findings about that file on this thread
/// share: a pass after reading uses the copy kept with the article, so
/// all of its findings hold one copy and compare by pointer in the sort.
pub(super) fn share_path(path: &Arc<str>) {
    LAST_PATH.with(|last| *last.borrow_mut() = Some(Arc::clone(path)));
}

/// `path` as an `Arc`, the same one as the previous finding's when both are
/// about the same file: the checks make an article's findings one after
/// another on one thread, so they share one copy of its path.
pub(super) fn shared_path(path: &str) -> Arc<str> {
    LAST_PATH.with(|last| {
        let mut last = last.borrow_mut();
        match &*last {
            Some(shared) if **shared == *path => Arc::clone(shared),
            _ => {
                let shared: Arc<str> = Arc::from(path);
                *last = Some(Arc::clone(&shared));
                shared
            }
        }
    })
}

impl PartialEq for Finding {
    fn eq(&self, other: &Finding) -> bool {
        (self.code, self.severity, &self.path, self.line)
            == (other.code, other.severity, &other.path, other.line)
            && self.cmp_message(other) == Ordering::Equal
    }
}

impl Eq for Finding {}

impl fmt::Debug for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Finding")
            .field("code", &self.code())
            .field("severity", &self.severity)
            .field("path", &self.path)
            .field("line", &self.line())
            .field("message", &self.message())
            .finish()
    }
}

impl Serialize for Finding {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Finding", 5)?;
        s.serialize_field("code", self.code())?;
        s.serialize_field("severity", &self.severity)?;
        s.serialize_field("path", &*self.path)?;
        s.serialize_field("line", &self.line())?;
        s.serialize_field("message", &self.message())?;
        s.end()
    }
}

#[cfg(test)]
#[path = "finding_tests.rs"]
mod tests;
