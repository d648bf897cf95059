//! Agent prompt templates (spec §13): a bank's own override in
//! `06_TEMPLATES/` wins, otherwise the copy bundled with membank is used.

use std::path::Path;

use serde::Serialize;

use crate::layout::Folder;
use crate::safe_read::RootReader;
use crate::text;

/// The five agents of spec §13.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// Process Inbox.
    Compile,
    /// Health Check.
    Lint,
    /// Chat.
    Query,
    /// Translate with memory bank.
    Translate,
    Distill,
}

impl Agent {
    pub const ALL: [Agent; 5] = [
        Agent::Compile,
        Agent::Lint,
        Agent::Query,
        Agent::Translate,
        Agent::Distill,
    ];

    /// The short name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Compile => "compile",
            Agent::Lint => "lint",
            Agent::Query => "query",
            Agent::Translate => "translate",
            Agent::Distill => "distill",
        }
    }

    /// The template file name the spec assigns to the agent.
    pub fn file_name(self) -> &'static str {
        match self {
            Agent::Compile => "compile.md",
            Agent::Lint => "lint.md",
            Agent::Query => "query.md",
            Agent::Translate => "translate_with_memory_bank.md",
            Agent::Distill => "distill.md",
        }
    }

    /// File names accepted as a bank override, preferred first. Banks made
    /// for spec v1.0 still carry the old translate template name.
    pub fn override_names(self) -> &'static [&'static str] {
        match self {
            Agent::Translate => &["translate_with_memory_bank.md", "translate_with_kb.md"],
            Agent::Compile => &["compile.md"],
            Agent::Lint => &["lint.md"],
            Agent::Query => &["query.md"],
            Agent::Distill => &["distill.md"],
        }
    }

    /// The human name of the agent in the spec's table.
    pub fn title(self) -> &'static str {
        match self {
            Agent::Compile => "Process Inbox",
            Agent::Lint => "Health Check",
            Agent::Query => "Query (chat)",
            Agent::Translate => "Translate with memory bank",
            Agent::Distill => "Distill",
        }
    }

    /// Accepts the short name or any of the template file names (with or
    /// without `.md`), ignoring letter case.
    pub fn from_name(name: &str) -> Option<Agent> {
        let name = name.trim().to_ascii_lowercase();
        let stem = name.strip_suffix(".md").unwrap_or(&name);
        Agent::ALL.into_iter().find(|a| {
            a.name() == stem
                || a.override_names()
                    .iter()
                    .any(|f| f.strip_suffix(".md") == Some(stem))
        })
    }

    /// The text membank ships for this agent.
    pub fn bundled_text(self) -> &'static str {
        match self {
            Agent::Compile => include_str!("../templates/compile.md"),
            Agent::Lint => include_str!("../templates/lint.md"),
            Agent::Query => include_str!("../templates/query.md"),
            Agent::Translate => include_str!("../templates/translate_with_memory_bank.md"),
            Agent::Distill => include_str!("../templates/distill.md"),
        }
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The bank's own `06_TEMPLATES/` file.
    Bank,
    /// The copy built into membank.
    Bundled,
}

/// The prompt template an agent will use, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Template {
    pub agent: Agent,
    pub source: Source,
    /// Relative to the bank root with `/` separators; `None` when bundled.
    pub path: Option<String>,
    /// The template text, BOM removed and line endings folded to LF.
    pub text: String,
    /// Set when an override exists but could not be used, so the bundled
    /// text was taken instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// Find the template for `agent`: the bank override first, else the bundled
/// copy. Overrides are used silently (spec §13); only an override that
/// exists but cannot be read produces a warning. Reads under the user's
/// read policy; [`resolve_with`] takes the bank's own reader.
pub fn resolve(bank_root: &Path, agent: Agent) -> Template {
    match RootReader::for_root(bank_root) {
        Ok(reader) => resolve_with(&reader, agent),
        Err(_) => bundled(agent, None),
    }
}

fn bundled(agent: Agent, warning: Option<String>) -> Template {
    Template {
        agent,
        source: Source::Bundled,
        path: None,
        text: agent.bundled_text().to_owned(),
        warning,
    }
}

/// [`resolve`] through a bank's reader: an override that is a FIFO, too
/// large, or a link out of the bank is not read, and the warning says why.
pub fn resolve_with(reader: &RootReader, agent: Agent) -> Template {
    let mut warning = None;
    for name in agent.override_names() {
        let rel = format!("{}/{}", Folder::Templates.dir_name(), name);
        let problem = match reader.read(Path::new(&rel)) {
            Ok(bytes) => match text::decode(&bytes) {
                Ok(decoded) => {
                    return Template {
                        agent,
                        source: Source::Bank,
                        path: Some(rel),
                        text: decoded.text,
                        warning,
                    };
                }
                Err(e) => e.to_string(),
            },
            Err(e) if e.is_not_found() => continue,
            Err(e) => e.to_string(),
        };
        warning.get_or_insert(format!("{rel}: {problem}; this override is ignored"));
    }
    bundled(agent, warning)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bank_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("06_TEMPLATES")).unwrap();
        for (name, bytes) in files {
            std::fs::write(dir.path().join("06_TEMPLATES").join(name), bytes).unwrap();
        }
        dir
    }

    #[test]
    fn names_and_file_names_are_accepted() {
        for a in Agent::ALL {
            assert_eq!(Agent::from_name(a.name()), Some(a));
            assert_eq!(Agent::from_name(a.file_name()), Some(a));
        }
        assert_eq!(
            Agent::from_name("translate_with_kb"),
            Some(Agent::Translate)
        );
        assert_eq!(
            Agent::from_name("Translate_With_Memory_Bank.md"),
            Some(Agent::Translate)
        );
        assert_eq!(Agent::from_name("LINT"), Some(Agent::Lint));
        assert_eq!(Agent::from_name("chat"), None);
        assert_eq!(Agent::from_name(""), None);
    }

    #[test]
    fn bundled_templates_teach_the_output_contract() {
        for a in [Agent::Compile, Agent::Lint] {
            let t = a.bundled_text();
            assert!(t.contains("### FILE: <relative path>"), "{a}");
            assert!(t.contains("06_TEMPLATES"), "{a}");
            assert!(t.contains("YYYY-MM-DD"), "{a}");
            assert!(t.contains("[[wikilinks]]"), "{a}");
        }
        assert!(Agent::Compile.bundled_text().contains("compiled_from"));
        assert!(Agent::Lint.bundled_text().contains("truncated"));
        for key in [
            "term_source",
            "term_target",
            "source_lang",
            "target_lang",
            "status",
            "client",
            "languages",
            "scope",
            "related_domains",
            "last_updated",
        ] {
            assert!(Agent::Compile.bundled_text().contains(key), "{key}");
        }
    }

    #[test]
    fn bundled_is_used_without_override() {
        let bank = bank_with(&[]);
        let t = resolve(bank.path(), Agent::Query);
        assert_eq!(t.source, Source::Bundled);
        assert_eq!(t.path, None);
        assert_eq!(t.text, Agent::Query.bundled_text());
        assert_eq!(t.warning, None);
    }

    #[test]
    fn bank_override_wins_and_is_decoded() {
        let bank = bank_with(&[("lint.md", b"\xEF\xBB\xBFMy lint\r\nrules\r\n")]);
        let t = resolve(bank.path(), Agent::Lint);
        assert_eq!(t.source, Source::Bank);
        assert_eq!(t.path.as_deref(), Some("06_TEMPLATES/lint.md"));
        assert_eq!(t.text, "My lint\nrules\n");
        assert_eq!(t.warning, None);
    }

    #[test]
    fn translate_prefers_the_v1_1_name_but_accepts_v1_0() {
        let old_only = bank_with(&[("translate_with_kb.md", b"old")]);
        let t = resolve(old_only.path(), Agent::Translate);
        assert_eq!(t.path.as_deref(), Some("06_TEMPLATES/translate_with_kb.md"));
        assert_eq!(t.text, "old");

        let both = bank_with(&[
            ("translate_with_kb.md", b"old"),
            ("translate_with_memory_bank.md", b"new"),
        ]);
        let t = resolve(both.path(), Agent::Translate);
        assert_eq!(
            t.path.as_deref(),
            Some("06_TEMPLATES/translate_with_memory_bank.md")
        );
        assert_eq!(t.text, "new");
    }

    #[test]
    fn broken_override_falls_back_with_a_warning() {
        let bank = bank_with(&[("distill.md", b"fine\n\xff\xfe broken")]);
        let t = resolve(bank.path(), Agent::Distill);
        assert_eq!(t.source, Source::Bundled);
        assert_eq!(t.text, Agent::Distill.bundled_text());
        let w = t.warning.expect("a warning");
        assert!(w.contains("06_TEMPLATES/distill.md"), "{w}");
        assert!(w.contains("UTF-8"), "{w}");
    }

    #[test]
    fn broken_v1_1_override_falls_back_to_v1_0_override() {
        let bank = bank_with(&[
            ("translate_with_memory_bank.md", b"\xff"),
            ("translate_with_kb.md", b"old"),
        ]);
        let t = resolve(bank.path(), Agent::Translate);
        assert_eq!(t.source, Source::Bank);
        assert_eq!(t.text, "old");
        assert!(
            t.warning
                .is_some_and(|w| w.contains("translate_with_memory_bank.md"))
        );
    }

    #[test]
    fn missing_bank_folder_is_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let t = resolve(&dir.path().join("nope"), Agent::Compile);
        assert_eq!(t.source, Source::Bundled);
    }

    #[cfg(unix)]
    #[test]
    fn an_override_linked_out_of_the_bank_or_a_fifo_is_not_read() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("id_ed25519"), "PRIVATE KEY").unwrap();
        let bank = bank_with(&[]);
        let dir = bank.path().join("06_TEMPLATES");
        std::os::unix::fs::symlink(outside.path().join("id_ed25519"), dir.join("query.md"))
            .unwrap();
        let t = resolve(bank.path(), Agent::Query);
        assert_eq!(t.source, Source::Bundled);
        assert!(!t.text.contains("PRIVATE KEY"));
        assert!(t.warning.is_some_and(|w| w.contains("outside the bank")));

        let fifo =
            std::ffi::CString::new(dir.join("lint.md").as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let t = resolve(bank.path(), Agent::Lint);
        assert_eq!(t.source, Source::Bundled);
        assert!(t.warning.is_some_and(|w| w.contains("FIFO")));
    }
}
