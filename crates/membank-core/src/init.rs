//! Creating a new, empty memory bank with the spec §16 layout.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::journal::Journal;
use crate::layout::{ARCHIVE_DIR, Folder};
use crate::templates::Agent;
use crate::transaction::{Kind, Transaction};

/// Example articles written into a new bank: (folder, file name, text).
const EXAMPLES: [(Folder, &str, &str); 5] = [
    (
        Folder::Clients,
        "_EXAMPLE_Client_Profile.md",
        include_str!("../skeleton/_EXAMPLE_Client_Profile.md"),
    ),
    (
        Folder::Terminology,
        "_EXAMPLE_Term_Article.md",
        include_str!("../skeleton/_EXAMPLE_Term_Article.md"),
    ),
    (
        Folder::Domains,
        "_EXAMPLE_Domain_Article.md",
        include_str!("../skeleton/_EXAMPLE_Domain_Article.md"),
    ),
    (
        Folder::Style,
        "_EXAMPLE_Style_Guide.md",
        include_str!("../skeleton/_EXAMPLE_Style_Guide.md"),
    ),
    (
        Folder::Indices,
        "_EXAMPLE_Index.md",
        include_str!("../skeleton/_EXAMPLE_Index.md"),
    ),
];

const README: &str = include_str!("../skeleton/README.md");

/// What `init_bank` created, relative to the bank root with `/`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Created {
    pub root: PathBuf,
    pub folders: Vec<String>,
    pub files: Vec<String>,
}

#[derive(Debug)]
pub enum InitError {
    /// The target exists and is not a directory.
    NotADirectory(PathBuf),
    /// The target is a symbolic link to nothing: creating the folder would
    /// fail with a bare "File exists", and membank does not create through
    /// links.
    DanglingLink(PathBuf),
    /// The directory already holds visible files or folders.
    NotEmpty { dir: PathBuf, entries: Vec<String> },
    /// `missing` (an ancestor of `dir`) does not exist; only the bank
    /// folder itself is ever created.
    MissingParent { dir: PathBuf, missing: PathBuf },
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// Writing the layout failed; the message names the file.
    Write(String),
}

impl fmt::Display for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InitError::NotADirectory(p) => write!(f, "{}: exists and is not a folder", p.display()),
            InitError::DanglingLink(p) => write!(
                f,
                "{}: is a symbolic link to something that does not exist; membank does not \
                 create a bank through a link: remove the link, or give the folder it should \
                 lead to",
                p.display()
            ),
            InitError::NotEmpty { dir, entries } => {
                let shown: Vec<&str> = entries.iter().take(5).map(String::as_str).collect();
                write!(
                    f,
                    "{}: folder is not empty ({}{}); a new bank is only created in an empty folder, nothing was written",
                    dir.display(),
                    shown.join(", "),
                    if entries.len() > shown.len() {
                        ", …"
                    } else {
                        ""
                    }
                )
            }
            InitError::MissingParent { dir, missing } => write!(
                f,
                "cannot create {}: the folder {} does not exist (only the bank folder itself is \
                 created; make its parent first)",
                dir.display(),
                missing.display()
            ),
            InitError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            InitError::Write(message) => write!(f, "{message}"),
        }
    }
}

// No `source()`: the OS error is already part of the message, and a chain
// printer would show it twice.
impl std::error::Error for InitError {}

/// The outermost ancestor of `dir` that does not exist, if its parent is
/// missing at all.
fn first_missing_ancestor(dir: &Path) -> Option<PathBuf> {
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty())?;
    if parent.exists() {
        return None;
    }
    let mut missing = parent;
    while let Some(up) = missing.parent().filter(|p| !p.as_os_str().is_empty()) {
        if up.exists() {
            break;
        }
        missing = up;
    }
    Some(missing.to_owned())
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> InitError + '_ {
    move |error| InitError::Io {
        path: path.to_owned(),
        error,
    }
}

/// Create a memory bank in `dir`: the seven folders, `00_INBOX/_archive/`,
/// the five bundled templates, example articles and a README.
///
/// `dir` may be missing or an empty folder. Hidden entries (such as an
/// Obsidian `.obsidian/` or a `.git/`) are allowed; anything else makes this
/// refuse before writing a single file. Existing files are never replaced.
pub fn init_bank(dir: &Path) -> Result<Created, InitError> {
    init_journalled(dir, None)
}

/// [`init_bank`], journalling to `journal` instead of the installed one.
pub fn init_journalled(dir: &Path, journal: Option<Journal>) -> Result<Created, InitError> {
    if dir.exists() {
        if !dir.is_dir() {
            return Err(InitError::NotADirectory(dir.to_owned()));
        }
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io(dir))? {
            let name = entry.map_err(io(dir))?.file_name();
            let name = name.to_string_lossy().into_owned();
            if !name.starts_with('.') {
                entries.push(name);
            }
        }
        if !entries.is_empty() {
            entries.sort();
            return Err(InitError::NotEmpty {
                dir: dir.to_owned(),
                entries,
            });
        }
    } else if dir.symlink_metadata().is_ok() {
        // `exists` follows links: one leading nowhere is still there.
        return Err(InitError::DanglingLink(dir.to_owned()));
    } else {
        // Only the bank folder itself is created; a missing parent is more
        // likely a typo than a wish for a new directory tree.
        if let Some(missing) = first_missing_ancestor(dir) {
            return Err(InitError::MissingParent {
                dir: dir.to_owned(),
                missing,
            });
        }
        std::fs::create_dir(dir).map_err(io(dir))?;
    }

    let mut folders: Vec<String> = Folder::ALL
        .iter()
        .map(|f| f.dir_name().to_owned())
        .collect();
    folders.insert(1, format!("{}/{ARCHIVE_DIR}", Folder::Inbox.dir_name()));

    let mut files: Vec<(String, &str)> = vec![("README.md".to_owned(), README)];
    for (folder, name, text) in EXAMPLES {
        files.push((format!("{}/{name}", folder.dir_name()), text));
    }
    for agent in Agent::ALL {
        files.push((
            format!("{}/{}", Folder::Templates.dir_name(), agent.file_name()),
            agent.bundled_text(),
        ));
    }
    // Through the one write transaction like every other write, so that
    // `membank undo` can take a bank made in the wrong folder back out.
    let tx =
        Transaction::begin(dir, Kind::Bank, Duration::ZERO, || {}).map_err(InitError::Write)?;
    let tx = match journal {
        Some(journal) => tx.journal_to(journal),
        None => tx,
    };
    tx.set_label("init");
    let bytes: Vec<(String, &[u8])> = files
        .iter()
        .map(|(rel, text)| (rel.clone(), text.as_bytes()))
        .collect();
    tx.create_layout(&folders, &bytes)
        .map_err(InitError::Write)?;

    Ok(Created {
        root: dir.to_owned(),
        folders,
        files: files.into_iter().map(|(rel, _)| rel).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::templates::{Source, resolve};

    #[test]
    fn creates_the_full_layout_in_a_new_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let bank = tmp.path().join("My Bank");
        let created = init_bank(&bank).unwrap();
        for f in Folder::ALL {
            assert!(bank.join(f.dir_name()).is_dir(), "{}", f.dir_name());
        }
        assert!(bank.join("00_INBOX/_archive").is_dir());
        assert!(bank.join("README.md").is_file());
        for (folder, name, _) in EXAMPLES {
            assert!(name.starts_with("_EXAMPLE_"));
            assert!(bank.join(folder.dir_name()).join(name).is_file());
        }
        assert!(
            created
                .files
                .contains(&"06_TEMPLATES/translate_with_memory_bank.md".into())
        );
        // Nothing else appears next to the bank (no stray temp files either).
        let siblings: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(siblings.len(), 1);
        let stray = walk(&bank)
            .into_iter()
            .filter(|p| p.ends_with(".tmp"))
            .count();
        assert_eq!(stray, 0);
    }

    /// A link to nothing is named as one, not as "File exists".
    #[cfg(unix)]
    #[test]
    fn a_dangling_link_is_explained() {
        let tmp = tempfile::tempdir().unwrap();
        let link = tmp.path().join("dang");
        std::os::unix::fs::symlink(tmp.path().join("nowhere"), &link).unwrap();
        let said = init_bank(&link).unwrap_err().to_string();
        assert!(
            said.contains("symbolic link to something that does not exist"),
            "{said}"
        );
        assert!(
            !tmp.path().join("nowhere").exists(),
            "nothing made through it"
        );
    }

    #[test]
    fn written_templates_resolve_as_bank_overrides_with_bundled_text() {
        let tmp = tempfile::tempdir().unwrap();
        init_bank(tmp.path()).unwrap();
        for agent in Agent::ALL {
            let t = resolve(tmp.path(), agent);
            assert_eq!(t.source, Source::Bank);
            assert_eq!(t.text, agent.bundled_text());
        }
    }

    #[test]
    fn example_articles_have_frontmatter_with_a_date() {
        for (_, name, text) in EXAMPLES {
            assert!(text.starts_with("---\n"), "{name}");
            assert!(text.contains("\nlast_updated: 2026-01-15\n"), "{name}");
        }
    }

    #[test]
    fn refuses_a_non_empty_folder_and_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("notes.md"), "mine").unwrap();
        let err = init_bank(tmp.path()).unwrap_err();
        assert!(matches!(err, InitError::NotEmpty { .. }));
        assert!(err.to_string().contains("notes.md"), "{err}");
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("notes.md")).unwrap(),
            "mine"
        );
    }

    #[test]
    fn refuses_to_run_twice() {
        let tmp = tempfile::tempdir().unwrap();
        init_bank(tmp.path()).unwrap();
        assert!(matches!(
            init_bank(tmp.path()),
            Err(InitError::NotEmpty { .. })
        ));
    }

    #[test]
    fn accepts_a_folder_with_only_hidden_entries() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join(".obsidian")).unwrap();
        init_bank(tmp.path()).unwrap();
        assert!(tmp.path().join("06_TEMPLATES/compile.md").is_file());
        assert!(tmp.path().join(".obsidian").is_dir());
    }

    #[test]
    fn does_not_create_missing_parents() {
        let tmp = tempfile::tempdir().unwrap();
        let err = init_bank(&tmp.path().join("typo/deeper/bank")).unwrap_err();
        let InitError::MissingParent { missing, .. } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(missing, &tmp.path().join("typo"));
        let message = err.to_string();
        assert_eq!(message.matches("does not exist").count(), 1, "{message}");
        assert!(!tmp.path().join("typo").exists());
    }

    #[test]
    fn refuses_a_file_in_place_of_the_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("bank");
        std::fs::write(&file, "x").unwrap();
        assert!(matches!(init_bank(&file), Err(InitError::NotADirectory(_))));
    }

    fn walk(dir: &Path) -> Vec<String> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| e.path().to_string_lossy().into_owned())
            .collect()
    }
}
