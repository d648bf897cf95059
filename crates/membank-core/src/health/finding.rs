//! One finding, kept small: a large bank has hundreds of thousands of them,
//! all held until they are sorted. The most frequent messages are stored as
//! the few facts they are made of and written out only when read.

use std::borrow::Cow;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use jiff::civil::Date;
use serde::Serialize;
use serde::ser::SerializeStruct;

use super::Severity;
use crate::layout::Folder;

/// One thing the checks found.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    /// Relative to the bank root, `/`-separated; empty for the bank itself.
    /// An article's findings share one copy.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub path: Arc<str>,
    /// 1-based line in the file as it is on disk.
    pub line: Option<usize>,
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
            code,
            severity,
            path: shared_path(path),
            line,
            message,
        }
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
            Message::Stale { date, days, today } => {
                Cow::Owned(super::stale_message(*date, *days, *today))
            }
            Message::MissingKey { key, empty, rule } => {
                Cow::Owned(super::frontmatter::missing_key_message(key, *empty, *rule))
            }
            Message::Orphan => Cow::Owned(super::links::orphan_message(crate::article::stem_of(
                &self.path,
            ))),
            Message::DeadLink(written) => Cow::Owned(super::links::dead_link_message(written)),
        }
    }

    /// `path:line`, `path`, or `(bank)` for findings about the whole bank.
    pub fn location(&self) -> String {
        match (self.path.is_empty(), self.line) {
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
            .then_with(|| (self.line, self.code).cmp(&(other.line, other.code)))
            .then_with(|| self.cmp_message(other))
    }

    fn cmp_message(&self, other: &Finding) -> Ordering {
        match (&self.message, &other.message) {
            (Message::Text(a), Message::Text(b)) => a.cmp(b),
            _ => self.message().cmp(&other.message()),
        }
    }
}

thread_local! {
    /// The path of the last finding made on this thread.
    static LAST_PATH: RefCell<Option<Arc<str>>> = const { RefCell::new(None) };
}

/// `path` as an `Arc`, the same one as the previous finding's when both are
/// about the same file: the checks make an article's findings one after
/// another on one thread, so they share one copy of its path.
fn shared_path(path: &str) -> Arc<str> {
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
            .field("code", &self.code)
            .field("severity", &self.severity)
            .field("path", &self.path)
            .field("line", &self.line)
            .field("message", &self.message())
            .finish()
    }
}

impl Serialize for Finding {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Finding", 5)?;
        s.serialize_field("code", self.code)?;
        s.serialize_field("severity", &self.severity)?;
        s.serialize_field("path", &*self.path)?;
        s.serialize_field("line", &self.line)?;
        s.serialize_field("message", &self.message())?;
        s.end()
    }
}

#[cfg(test)]
#[path = "finding_tests.rs"]
mod tests;
