//! The fixed folder layout of a memory bank (spec §1–§3).
//!
//! Everything that knows the folder names lives here, so another markdown
//! memory layout can later be added as a separate adapter without touching
//! scoring, budgeting or writing.

use serde::Serialize;

/// One of the seven top-level folders the format defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Folder {
    Inbox,
    Clients,
    Terminology,
    Domains,
    Style,
    Indices,
    Templates,
}

impl Folder {
    pub const ALL: [Folder; 7] = [
        Folder::Inbox,
        Folder::Clients,
        Folder::Terminology,
        Folder::Domains,
        Folder::Style,
        Folder::Indices,
        Folder::Templates,
    ];

    /// The content folders (§1.2): the only ones scored and put in a context.
    pub const CONTENT: [Folder; 4] = [
        Folder::Clients,
        Folder::Terminology,
        Folder::Domains,
        Folder::Style,
    ];

    /// Folders an agent may write into (§10): everything but templates.
    pub const WRITABLE: [Folder; 6] = [
        Folder::Inbox,
        Folder::Clients,
        Folder::Terminology,
        Folder::Domains,
        Folder::Style,
        Folder::Indices,
    ];

    pub fn dir_name(self) -> &'static str {
        match self {
            Folder::Inbox => "00_INBOX",
            Folder::Clients => "01_CLIENTS",
            Folder::Terminology => "02_TERMINOLOGY",
            Folder::Domains => "03_DOMAINS",
            Folder::Style => "04_STYLE",
            Folder::Indices => "05_INDICES",
            Folder::Templates => "06_TEMPLATES",
        }
    }

    /// Exact, case-sensitive: the prefixes are part of the contract.
    pub fn from_dir_name(name: &str) -> Option<Folder> {
        Folder::ALL.into_iter().find(|f| f.dir_name() == name)
    }

    pub fn is_content(self) -> bool {
        matches!(
            self,
            Folder::Clients | Folder::Terminology | Folder::Domains | Folder::Style
        )
    }

    /// A short human label, used in tables and the TUI.
    pub fn label(self) -> &'static str {
        match self {
            Folder::Inbox => "inbox",
            Folder::Clients => "clients",
            Folder::Terminology => "terminology",
            Folder::Domains => "domains",
            Folder::Style => "style",
            Folder::Indices => "indices",
            Folder::Templates => "templates",
        }
    }

    /// The §8 trimming tier: lower numbers are dropped first.
    pub fn drop_tier(self) -> u8 {
        match self {
            Folder::Terminology => 0,
            Folder::Style => 1,
            Folder::Domains => 2,
            Folder::Clients => 3,
            _ => 4,
        }
    }
}

/// Name of the archive folder inside `00_INBOX/` (§11).
pub const ARCHIVE_DIR: &str = "_archive";

/// Why a `.md` file inside a bank folder is not treated as an article.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// `_EXAMPLE_*` files document the skeleton and are never content (§3).
    Example,
    /// Other `_`-prefixed files are reserved for future use (§3).
    Reserved,
    /// A name that is not valid Unicode: no link, command or message can
    /// name the file as it is, so it is not read.
    NotUnicode,
}

/// Classify a file name by the §3 underscore rules.
pub fn skip_reason(file_name: &str) -> Option<SkipReason> {
    if file_name.starts_with("_EXAMPLE_") {
        Some(SkipReason::Example)
    } else if file_name.starts_with('_') {
        Some(SkipReason::Reserved)
    } else {
        None
    }
}

/// Is `rel` an inbox note: a Markdown file under `00_INBOX/`, outside its
/// `_archive/`, in no hidden folder, not hidden or `_`-prefixed itself?
pub fn is_inbox_note(rel: &str) -> bool {
    let mut segments = rel.split('/');
    if segments.next() != Some(Folder::Inbox.dir_name()) {
        return false;
    }
    let rest: Vec<&str> = segments.collect();
    let Some((name, folders)) = rest.split_last() else {
        return false;
    };
    folders.first() != Some(&ARCHIVE_DIR)
        && !rest.iter().any(|s| s.starts_with('.') || s.is_empty())
        && is_markdown(name)
        && skip_reason(name).is_none()
}

/// The one pending-inbox rule (§11), for the loaded bank and for Process
/// Inbox alike: an inbox note whose frontmatter does not say
/// `compiled: true`.
pub fn is_pending_inbox(rel: &str, compiled: bool) -> bool {
    is_inbox_note(rel) && !compiled
}

/// True for `.md` in any letter case.
pub fn is_markdown(file_name: &str) -> bool {
    file_name.len() > 3
        && file_name
            .get(file_name.len() - 3..)
            .is_some_and(|ext| ext.eq_ignore_ascii_case(".md"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_round_trip_exactly() {
        for f in Folder::ALL {
            assert_eq!(Folder::from_dir_name(f.dir_name()), Some(f));
        }
        assert_eq!(Folder::from_dir_name("01_clients"), None);
        assert_eq!(Folder::from_dir_name("01_CLIENTS "), None);
    }

    #[test]
    fn drop_tiers_follow_spec_order() {
        let mut v = Folder::CONTENT.to_vec();
        v.sort_by_key(|f| f.drop_tier());
        assert_eq!(
            v,
            vec![
                Folder::Terminology,
                Folder::Style,
                Folder::Domains,
                Folder::Clients
            ]
        );
    }

    #[test]
    fn the_pending_inbox_rule() {
        assert!(is_pending_inbox("00_INBOX/call notes.md", false));
        assert!(is_pending_inbox("00_INBOX/2026/call.MD", false));
        assert!(!is_pending_inbox("00_INBOX/call notes.md", true));
        assert!(!is_pending_inbox("00_INBOX/_archive/old.md", false));
        assert!(!is_pending_inbox("00_INBOX/_draft.md", false));
        assert!(!is_pending_inbox("00_INBOX/.trash/x.md", false));
        assert!(!is_pending_inbox("00_INBOX/notes.txt", false));
        assert!(!is_pending_inbox("01_CLIENTS/Acme.md", false));
        assert!(!is_pending_inbox("00_INBOX", false));
    }

    #[test]
    fn underscore_rules() {
        assert_eq!(skip_reason("_EXAMPLE_Term.md"), Some(SkipReason::Example));
        assert_eq!(skip_reason("_draft.md"), Some(SkipReason::Reserved));
        assert_eq!(skip_reason("Acme.md"), None);
        assert!(is_markdown("a.MD"));
        assert!(!is_markdown("a.txt"));
        assert!(!is_markdown(".md"));
        // A name whose last three bytes start inside a character.
        assert!(!is_markdown("éab"));
        assert!(!is_markdown("x\u{88}d"));
    }
}
