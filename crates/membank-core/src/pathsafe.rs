//! Validating the target path of a file block before anything is written
//! (spec §10), and resolving it inside the bank without following symbolic
//! links out of it.
//!
//! Besides the spec's rules, names Windows cannot store (forbidden
//! characters, device names, trailing dots or spaces) are rejected so that a
//! bank written on one system opens on every other.

use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::layout::Folder;

/// A block target that passed §10: relative, `/`-separated, inside a
/// writable folder, ending in `.md`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SafePath {
    folder: Folder,
    rel: String,
}

impl SafePath {
    /// The normalised relative path, `/`-separated.
    pub fn as_str(&self) -> &str {
        &self.rel
    }

    pub fn folder(&self) -> Folder {
        self.folder
    }

    /// The path segments, folder first.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.rel.split('/')
    }

    /// The file name (last segment).
    pub fn file_name(&self) -> &str {
        self.rel.rsplit('/').next().unwrap_or(&self.rel)
    }

    /// The path joined onto `root` lexically (no symlink checks; use
    /// [`resolve_in_bank`] before writing).
    pub fn join_to(&self, root: &Path) -> PathBuf {
        let mut p = root.to_path_buf();
        p.extend(self.segments());
        p
    }
}

impl fmt::Display for SafePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rel)
    }
}

/// Why a path was refused, in words a translator understands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejection {
    /// A stable short code for scripts (`absolute`, `parent-segment`, ...).
    pub code: &'static str,
    pub reason: String,
}

impl Rejection {
    fn new(code: &'static str, reason: impl Into<String>) -> Rejection {
        Rejection {
            code,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Rejection {}

const FORBIDDEN_CHARS: &[char] = &['<', '>', ':', '"', '|', '?', '*'];

/// Shared with the health checks, which report existing files so named.
pub(crate) const DEVICE_NAMES: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
    // Windows also reserves these spellings.
    "COM¹", "COM²", "COM³", "LPT¹", "LPT²", "LPT³", "CONIN$", "CONOUT$",
];

fn allowed_folders() -> String {
    Folder::WRITABLE
        .iter()
        .map(|f| f.dir_name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Check a raw block path against §10 and normalise its separators.
pub fn validate(raw: &str) -> Result<SafePath, Rejection> {
    let rel = relative_path(raw)?;
    let segments: Vec<&str> = rel.split('/').collect();
    let first = segments[0];
    let folder = match Folder::from_dir_name(first) {
        Some(Folder::Templates) => {
            return Err(Rejection::new(
                "templates",
                "targets 06_TEMPLATES, which holds human-written prompt templates that agents may not change",
            ));
        }
        Some(f) => f,
        None => {
            let near = Folder::ALL
                .into_iter()
                .find(|f| f.dir_name().eq_ignore_ascii_case(first));
            let reason = match near {
                Some(f) => format!(
                    "folder '{first}' must be written exactly '{}' (letter case matters)",
                    f.dir_name()
                ),
                None => format!(
                    "must start with one of the memory bank folders ({}); '{first}' is not one",
                    allowed_folders()
                ),
            };
            return Err(Rejection::new("folder", reason));
        }
    };
    if segments.len() < 2 {
        return Err(Rejection::new(
            "no-file",
            "names a folder, not a file inside it",
        ));
    }

    let file_name = segments[segments.len() - 1];
    if file_name.eq_ignore_ascii_case(".md") {
        return Err(Rejection::new(
            "no-file",
            "the file name is empty before .md",
        ));
    }
    if !crate::layout::is_markdown(file_name) {
        return Err(Rejection::new(
            "not-markdown",
            "is not a Markdown file (the name must end in .md)",
        ));
    }

    for seg in &segments[1..] {
        check_name(seg)?;
    }
    Ok(SafePath { folder, rel })
}

/// A raw path made relative and `/`-separated: no network share, absolute
/// path, drive letter, empty, `.` or `..` segment. Shared by every layout's
/// write rules.
pub fn relative_path(raw: &str) -> Result<String, Rejection> {
    relative_path_as_written(raw.trim())
}

/// [`relative_path`] without trimming: the path of a file that exists,
/// whose name may end in a space (one `check` asks to rename).
pub fn relative_path_as_written(raw: &str) -> Result<String, Rejection> {
    if raw.is_empty() {
        return Err(Rejection::new("empty", "no file path after FILE:"));
    }
    if raw.starts_with("\\\\") || raw.starts_with("//") {
        return Err(Rejection::new(
            "unc",
            "points to a network share (UNC path); only paths inside the memory folder are allowed",
        ));
    }
    if raw.starts_with('/') || raw.starts_with('\\') {
        return Err(Rejection::new(
            "absolute",
            "is an absolute path; only paths relative to the memory folder are allowed",
        ));
    }
    let mut chars = raw.chars();
    let drive = match (chars.next(), chars.next()) {
        (Some(d), Some(':')) if d.is_ascii_alphabetic() => Some(d),
        _ => None,
    };
    if let Some(d) = drive {
        return Err(Rejection::new(
            "drive",
            format!(
                "starts with a drive letter ({d}:); only paths relative to the memory folder are allowed"
            ),
        ));
    }
    let rel = raw.replace('\\', "/");
    let segments: Vec<&str> = rel.split('/').collect();
    for seg in &segments {
        match *seg {
            "" => {
                return Err(Rejection::new(
                    "empty-segment",
                    "has an empty folder name (a doubled or trailing slash)",
                ));
            }
            ".." => {
                return Err(Rejection::new(
                    "parent-segment",
                    "contains '..', which could leave the memory folder",
                ));
            }
            "." => {
                return Err(Rejection::new(
                    "dot-segment",
                    "contains a '.' folder; write the path without it",
                ));
            }
            _ => {}
        }
    }
    Ok(rel)
}

/// The longest file or folder name written, in bytes.
pub const MAX_NAME_BYTES: usize = 255;

/// One file or folder name of a path to write: nothing Windows cannot store,
/// no control or invisible characters, not hidden.
pub fn check_name(seg: &str) -> Result<(), Rejection> {
    // The common limit of file systems (ext4, APFS, NTFS in UTF-16 units,
    // which a name within 255 bytes never exceeds).
    if seg.len() > MAX_NAME_BYTES {
        return Err(Rejection::new(
            "name-too-long",
            format!(
                "the name '{}…' is {} bytes long; file systems hold at most {MAX_NAME_BYTES}",
                crate::text::sanitize_for_terminal(
                    &seg.chars().take(40).collect::<String>(),
                    false
                ),
                seg.len()
            ),
        ));
    }
    if let Some(c) = seg.chars().find(|c| FORBIDDEN_CHARS.contains(c)) {
        return Err(Rejection::new(
            "forbidden-char",
            format!("the name '{seg}' contains '{c}', which Windows does not allow in file names"),
        ));
    }
    // The name is quoted as a terminal shows it (`␇` for a bell), and the
    // character is named by its code point: readers are not Rust programs.
    if let Some(c) = seg.chars().find(|c| c.is_control()) {
        return Err(Rejection::new(
            "control-char",
            format!(
                "the name '{}' contains the invisible control character U+{:04X}",
                crate::text::sanitize_for_terminal(seg, false),
                c as u32
            ),
        ));
    }
    if let Some(c) = crate::text::invisible_in_name(seg) {
        return Err(Rejection::new(
            "invisible-char",
            format!(
                "the name '{}' contains an invisible character (U+{:04X}) that can make \
                 it look like another name",
                crate::text::sanitize_for_terminal(seg, false),
                c as u32
            ),
        ));
    }
    if seg.starts_with('.') {
        return Err(Rejection::new(
            "hidden",
            format!(
                "the name '{seg}' starts with a dot: hidden files and folders are not read \
                 as part of the bank, so a file written there would be invisible"
            ),
        ));
    }
    if seg.ends_with('.') || seg.ends_with(' ') {
        return Err(Rejection::new(
            "trailing-dot-space",
            format!("the name '{seg}' ends in a dot or space, which Windows drops silently"),
        ));
    }
    let stem = seg.split('.').next().unwrap_or(seg).trim_end_matches(' ');
    if DEVICE_NAMES.iter().any(|d| d.eq_ignore_ascii_case(stem)) {
        return Err(Rejection::new(
            "device-name",
            format!("the name '{seg}' is a reserved Windows device name"),
        ));
    }
    Ok(())
}

/// Is the file at `rel` itself a symbolic link? One to another file of
/// the bank is read as usual, and nothing is written through it.
pub fn is_symlink_at(root: &Path, rel: &str) -> bool {
    std::fs::symlink_metadata(root.join(rel)).is_ok_and(|m| m.file_type().is_symlink())
}

/// The symbolic link a file of the bank is reached through, when it is:
/// the file itself, or (`folders_too`: the walk followed links, as
/// `follow_links_out` lets it) a folder on its way. Such a file is read,
/// but nothing is written through the link, so a plan leaves it out.
pub fn link_on_the_way(root: &Path, rel: &str, folders_too: bool) -> Option<String> {
    if !folders_too {
        return is_symlink_at(root, rel).then(|| rel.to_owned());
    }
    let mut at = root.to_path_buf();
    let mut end = 0;
    for part in rel.split('/') {
        at.push(part);
        end += part.len();
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Some(rel[..end].to_owned());
        }
        end += 1;
    }
    None
}

/// The bank-relative path the symbolic link at `rel` leads to, when it
/// leads to a file inside `root`.
pub fn symlink_target_in(root: &Path, rel: &str) -> Option<String> {
    let root = root.canonicalize().ok()?;
    let target = root.join(rel).canonicalize().ok()?;
    let inside = target.strip_prefix(&root).ok()?;
    let parts: Vec<String> = inside
        .components()
        .map(|c| c.as_os_str().to_str().map(str::to_owned))
        .collect::<Option<_>>()?;
    Some(parts.join("/"))
}

/// Why nothing is written through `link` (a path inside the memory that
/// is a symbolic link), said the same way by every write.
pub fn writes_through_no_link(link: &str) -> String {
    format!("{link} is a symbolic link; membank never writes through one")
}

/// Resolve `path` under `root`, guaranteeing the result stays inside the
/// bank and inside a writable folder.
///
/// No symbolic link on the way is followed, not even one that stays inside
/// the bank: the bank's walk reads no link, so a file written through one
/// would land where the bank is not read (or twice over), and an undo,
/// which deletes only through no link, could not take it back. The root
/// itself may be reached through links. Missing parts are appended; the
/// returned path is where a write lands.
pub fn resolve_in_bank(root: &Path, path: &SafePath) -> Result<PathBuf, Rejection> {
    let root = root.canonicalize().map_err(|e| {
        Rejection::new(
            "bank-missing",
            format!(
                "the memory bank folder {} cannot be opened: {e}",
                root.display()
            ),
        )
    })?;
    let segments: Vec<&str> = path.segments().collect();
    let mut current = root.clone();
    let mut i = 0;
    while i < segments.len() {
        let next = current.join(segments[i]);
        let is_link = match std::fs::symlink_metadata(&next) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => {
                return Err(Rejection::new(
                    "unreadable",
                    format!("cannot check {}: {e}", display_rel(&root, &next)),
                ));
            }
            Ok(meta) => meta.file_type().is_symlink(),
        };
        let resolved = next.canonicalize().map_err(|_| {
            Rejection::new(
                "symlink",
                format!(
                    "{} is a symbolic link to a place that does not exist",
                    display_rel(&root, &next)
                ),
            )
        })?;
        if !resolved.starts_with(&root) {
            return Err(Rejection::new(
                "symlink-escape",
                format!(
                    "{} is a symbolic link that leads outside the memory bank",
                    display_rel(&root, &next)
                ),
            ));
        }
        if is_link {
            return Err(Rejection::new(
                "symlink",
                writes_through_no_link(&display_rel(&root, &next)),
            ));
        }
        let is_last = i + 1 == segments.len();
        if !is_last && !resolved.is_dir() {
            return Err(Rejection::new(
                "not-a-folder",
                format!("{} exists but is not a folder", display_rel(&root, &next)),
            ));
        }
        if is_last && resolved.is_dir() {
            return Err(Rejection::new(
                "is-a-folder",
                format!("{} is a folder, not a file", path.as_str()),
            ));
        }
        current = resolved;
        i += 1;
    }
    for seg in &segments[i..] {
        current.push(seg);
    }

    // Each part was looked at before it was resolved: a link swapped in
    // between the two must still not lead into templates or the bank root.
    let inside = current.strip_prefix(&root).unwrap_or(Path::new(""));
    let top = match inside.components().next() {
        Some(Component::Normal(s)) => s.to_str().and_then(Folder::from_dir_name),
        _ => None,
    };
    match top {
        Some(f) if Folder::WRITABLE.contains(&f) => {
            check_resolved(path, inside)?;
            Ok(current)
        }
        _ => Err(Rejection::new(
            "symlink-escape",
            format!(
                "{} leads through a symbolic link to {}, which agents may not write",
                path.as_str(),
                inside.display()
            ),
        )),
    }
}

/// Is a `/`-separated bank path inside `00_INBOX/_archive/`?
/// A path as case-insensitive and normalising file systems (macOS, Windows)
/// see it: lower case, composed (NFC). Two paths with the same key are the
/// same file there.
pub fn same_file_key(rel: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    rel.nfc().collect::<String>().to_lowercase().nfc().collect()
}

/// An existing file or folder on the way to `rel` whose name differs from
/// the one written only in letter case or Unicode form, as it is spelt on
/// disk (`01_CLIENTS/Brightwell Pharma.md` for `01_CLIENTS/brightwell
/// pharma.md`). Writing `rel` would replace it where names are compared
/// that way, and leave two look-alike files everywhere else.
pub fn case_twin(root: &Path, rel: &str) -> Option<String> {
    let mut dir = root.to_path_buf();
    let mut spelt = Vec::new();
    for part in rel.split('/').filter(|p| !p.is_empty()) {
        let key = same_file_key(part);
        let mut exact = false;
        let mut twin = None;
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name == part {
                exact = true;
                break;
            }
            if twin.is_none() && same_file_key(name) == key {
                twin = Some(name.to_owned());
            }
        }
        match (exact, twin) {
            (true, _) => spelt.push(part.to_owned()),
            (false, Some(name)) => {
                spelt.push(name);
                return Some(spelt.join("/"));
            }
            (false, None) => return None,
        }
        dir.push(part);
    }
    None
}

pub fn in_archive(rel: &str) -> bool {
    let mut segments = rel.split('/');
    segments.next() == Some(Folder::Inbox.dir_name())
        && segments
            .next()
            .is_some_and(|s| s.eq_ignore_ascii_case(crate::layout::ARCHIVE_DIR))
        && segments.next().is_some()
}

/// The rules hold for where a write really lands, not only for the path
/// as written: should a link be swapped in while the path is resolved, it
/// must not lead to a path the checks would refuse (a hidden folder, the
/// archive).
fn check_resolved(path: &SafePath, inside: &Path) -> Result<(), Rejection> {
    let resolved = inside.to_string_lossy().replace('\\', "/");
    if resolved == path.as_str() {
        return Ok(());
    }
    let through_link = |reason: String| {
        Rejection::new(
            "symlink-target",
            format!(
                "{} leads through a symbolic link to {resolved}, which {reason}",
                path.as_str()
            ),
        )
    };
    if let Err(r) = validate(&resolved) {
        return Err(through_link(format!("is refused: {}", r.reason)));
    }
    if in_archive(&resolved) && !in_archive(path.as_str()) {
        return Err(through_link(
            "is the archive that Process Inbox keeps itself".into(),
        ));
    }
    Ok(())
}

/// Where a validated path really lands, relative to the bank and
/// `/`-separated (links followed), for rules that compare paths.
pub fn resolved_rel(root: &Path, path: &SafePath) -> Result<String, Rejection> {
    let target = resolve_in_bank(root, path)?;
    let root = root
        .canonicalize()
        .map_err(|e| Rejection::new("bank-missing", e.to_string()))?;
    Ok(display_rel(&root, &target))
}

fn display_rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn code(raw: &str) -> &'static str {
        validate(raw).expect_err(raw).code
    }

    #[test]
    fn accepts_spec_examples_and_normalises_backslashes() {
        let p = validate("01_CLIENTS/Acme Corporation.md").unwrap();
        assert_eq!(p.as_str(), "01_CLIENTS/Acme Corporation.md");
        assert_eq!(p.folder(), Folder::Clients);
        let p = validate("02_TERMINOLOGY\\compliance → naleving.MD").unwrap();
        assert_eq!(p.as_str(), "02_TERMINOLOGY/compliance → naleving.MD");
        assert_eq!(p.file_name(), "compliance → naleving.MD");
        assert!(validate("00_INBOX/sub/note.md").is_ok());
        assert!(validate("05_INDICES/index.md").is_ok());
    }

    #[test]
    fn rejects_escapes_and_absolute_paths() {
        assert_eq!(code("/etc/passwd.md"), "absolute");
        assert_eq!(code("\\01_CLIENTS\\a.md"), "absolute");
        assert_eq!(code("C:\\bank\\01_CLIENTS\\a.md"), "drive");
        assert_eq!(code("c:01_CLIENTS/a.md"), "drive");
        assert_eq!(code("\\\\server\\share\\a.md"), "unc");
        assert_eq!(code("//server/share/a.md"), "unc");
        assert_eq!(
            code("01_CLIENTS/../06_TEMPLATES/compile.md"),
            "parent-segment"
        );
        assert_eq!(code("01_CLIENTS\\..\\..\\x.md"), "parent-segment");
        assert_eq!(code("01_CLIENTS/./a.md"), "dot-segment");
        assert_eq!(code("01_CLIENTS//a.md"), "empty-segment");
    }

    #[test]
    fn folder_rules() {
        assert_eq!(code("06_TEMPLATES/compile.md"), "templates");
        assert_eq!(code("01_clients/a.md"), "folder");
        assert!(
            validate("01_clients/a.md")
                .unwrap_err()
                .reason
                .contains("01_CLIENTS")
        );
        assert_eq!(code("notes/a.md"), "folder");
        assert_eq!(code("a.md"), "folder");
        assert_eq!(code("01_CLIENTS"), "no-file");
        assert_eq!(code("01_CLIENTS/.md"), "no-file");
        assert_eq!(code("01_CLIENTS/a.txt"), "not-markdown");
        assert_eq!(code("01_CLIENTS/a.md.bak"), "not-markdown");
        assert_eq!(code(""), "empty");
    }

    #[test]
    fn windows_unsafe_names() {
        assert_eq!(code("01_CLIENTS/a:b.md"), "forbidden-char");
        assert_eq!(code("01_CLIENTS/what?.md"), "forbidden-char");
        assert_eq!(code("01_CLIENTS/\"q\".md"), "forbidden-char");
        assert_eq!(code("01_CLIENTS/a\u{1}b.md"), "control-char");
        assert_eq!(code("01_CLIENTS/CON.md"), "device-name");
        assert_eq!(code("01_CLIENTS/con.md"), "device-name");
        assert_eq!(code("01_CLIENTS/Lpt9.notes.md"), "device-name");
        assert_eq!(code("01_CLIENTS/aux/a.md"), "device-name");
        assert_eq!(code("01_CLIENTS/com².md"), "device-name");
        assert_eq!(code("01_CLIENTS/conout$.md"), "device-name");
        assert!(validate("01_CLIENTS/CONSOLE.md").is_ok());
        assert!(validate("01_CLIENTS/COM10.md").is_ok());
        assert_eq!(code("01_CLIENTS/dir./a.md"), "trailing-dot-space");
        assert_eq!(code("01_CLIENTS/dir /a.md"), "trailing-dot-space");
    }

    #[test]
    fn resolve_creates_nothing_and_stays_inside() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("01_CLIENTS")).unwrap();
        let p = validate("01_CLIENTS/new/deeper/a.md").unwrap();
        let out = resolve_in_bank(dir.path(), &p).unwrap();
        assert!(out.starts_with(dir.path().canonicalize().unwrap()));
        assert!(out.ends_with("01_CLIENTS/new/deeper/a.md"));
        assert!(!dir.path().join("01_CLIENTS/new").exists());
        // A missing top folder is fine: it will be created inside the bank.
        let p = validate("03_DOMAINS/Legal.md").unwrap();
        assert_eq!(
            resolve_in_bank(dir.path(), &p).unwrap(),
            dir.path()
                .canonicalize()
                .unwrap()
                .join("03_DOMAINS/Legal.md")
        );
    }

    #[test]
    fn resolve_refuses_a_folder_as_target() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("01_CLIENTS/x.md")).unwrap();
        let p = validate("01_CLIENTS/x.md").unwrap();
        assert_eq!(
            resolve_in_bank(dir.path(), &p).unwrap_err().code,
            "is-a-folder"
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_bank_are_refused() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("01_CLIENTS")).unwrap();
        std::fs::create_dir_all(root.join("06_TEMPLATES")).unwrap();
        std::fs::write(root.join("06_TEMPLATES/compile.md"), "t").unwrap();
        symlink(outside.path(), root.join("01_CLIENTS/out")).unwrap();
        symlink(outside.path().join("f.md"), root.join("01_CLIENTS/f.md")).unwrap();
        symlink(root.join("06_TEMPLATES"), root.join("01_CLIENTS/tpl")).unwrap();
        symlink(
            root.join("06_TEMPLATES/compile.md"),
            root.join("01_CLIENTS/c.md"),
        )
        .unwrap();
        std::fs::write(root.join("01_CLIENTS/real.md"), "r").unwrap();
        symlink(
            root.join("01_CLIENTS/real.md"),
            root.join("01_CLIENTS/alias.md"),
        )
        .unwrap();

        let check = |raw: &str| resolve_in_bank(root, &validate(raw).unwrap());
        assert_eq!(
            check("01_CLIENTS/out/x.md").unwrap_err().code,
            "symlink-escape"
        );
        // Dangling link pointing outside: refused, nothing gets created there.
        assert!(check("01_CLIENTS/f.md").is_err());
        // Links that stay in the bank are not written through either,
        // wherever they lead.
        assert_eq!(
            check("01_CLIENTS/tpl/compile.md").unwrap_err().code,
            "symlink"
        );
        assert_eq!(check("01_CLIENTS/c.md").unwrap_err().code, "symlink");
        // A link that stays in a writable folder is not written through
        // either: the bank's walk does not read it.
        assert_eq!(check("01_CLIENTS/alias.md").unwrap_err().code, "symlink");
        std::fs::create_dir_all(root.join("03_DOMAINS")).unwrap();
        symlink(root.join("03_DOMAINS"), root.join("01_CLIENTS/domains")).unwrap();
        let through_folder = check("01_CLIENTS/domains/x.md").unwrap_err();
        assert_eq!(through_folder.code, "symlink");
        assert!(
            through_folder
                .reason
                .contains("01_CLIENTS/domains is a symbolic link"),
            "{}",
            through_folder.reason
        );
        // The bank folder itself may be reached through a link.
        let linked_root = outside.path().join("bank-link");
        symlink(root, &linked_root).unwrap();
        let real = resolve_in_bank(&linked_root, &validate("01_CLIENTS/real.md").unwrap());
        assert_eq!(
            real.unwrap(),
            root.canonicalize().unwrap().join("01_CLIENTS/real.md")
        );
    }

    /// A name a person would give a file or folder: letters from several
    /// scripts, digits, inner spaces and dots; never a device name.
    fn plain_name() -> impl Strategy<Value = String> {
        "[A-Za-z0-9éßøЖ漢字한→_-][A-Za-z0-9éßøЖ漢字한→ ._-]{0,10}[A-Za-z0-9éßøЖ漢字한→_-]"
            .prop_filter("a device name", |n| {
                let stem = n.split('.').next().unwrap_or(n).trim_end_matches(' ');
                !DEVICE_NAMES.iter().any(|d| d.eq_ignore_ascii_case(stem))
            })
    }

    /// A path as a model writes one: a writable folder, up to two
    /// subfolders, a file name and a `.md` in any letter case.
    fn plain_path() -> impl Strategy<Value = (Folder, Vec<String>)> {
        (
            proptest::sample::select(Folder::WRITABLE.to_vec()),
            prop::collection::vec(plain_name(), 0..3),
            plain_name(),
            proptest::sample::select(vec![".md", ".MD", ".Md"]),
        )
            .prop_map(|(folder, mut names, file, ext)| {
                names.push(file + ext);
                (folder, names)
            })
    }

    /// The characters the validator exists to stop: C0 and C1 controls,
    /// bidirectional controls and zero-width characters.
    fn unseen_char() -> impl Strategy<Value = char> {
        prop_oneof![
            proptest::char::range('\u{0}', '\u{1f}'),
            proptest::char::range('\u{7f}', '\u{9f}'),
            proptest::sample::select(vec![
                '\u{AD}', '\u{61C}', '\u{180E}', '\u{200B}', '\u{200C}', '\u{200D}', '\u{200E}',
                '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2060}',
                '\u{2064}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{FEFF}',
            ]),
        ]
    }

    /// Pieces of ordinary names and folders.
    const PLAIN_PIECES: &[&str] = &[
        "a", "Acme", "漢字", "한", "/", " b", "-x", "_y", ".notes", "2",
    ];

    /// Pieces of hostile paths: separators, dot segments, hidden names,
    /// forbidden and unseen characters, device names, the templates folder.
    const HOSTILE_PIECES: &[&str] = &[
        "01_CLIENTS/",
        "06_TEMPLATES/",
        "Acme ",
        "漢字",
        "한",
        "/",
        "\\",
        "//",
        ".",
        "..",
        "../",
        ".git/",
        " ",
        ".md",
        ".MD",
        "CON",
        "com1",
        ":",
        "?",
        "*",
        "\"",
        "\u{202E}",
        "\u{200B}",
        "\u{2066}",
        "\u{FEFF}",
        "\u{AD}",
        "\u{7}",
        "\u{1b}",
        "\u{85}",
        "\t",
        "\n",
        "C:",
        "~",
    ];

    /// A folder as a model might write it, then name pieces with hostile
    /// ones among them, then maybe an extension: accepted often enough that
    /// the promises of an accepted path are checked on many cases.
    fn hostile_path() -> impl Strategy<Value = String> {
        (
            proptest::sample::select(vec![
                "01_CLIENTS/",
                "02_TERMINOLOGY\\",
                "00_INBOX/",
                "06_TEMPLATES/",
                "01_clients/",
                "",
            ]),
            prop::collection::vec(
                prop_oneof![
                    6 => proptest::sample::select(PLAIN_PIECES),
                    1 => proptest::sample::select(HOSTILE_PIECES),
                ],
                0..8,
            ),
            proptest::sample::select(vec!["", ".md", ".MD", ".md", ".md"]),
        )
            .prop_map(|(folder, pieces, ext)| format!("{folder}{}{ext}", pieces.concat()))
    }

    #[test]
    fn hostile_paths_are_often_accepted_so_their_checks_run() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = hostile_path();
        let accepted = (0..2000)
            .filter(|_| validate(&strategy.new_tree(&mut runner).unwrap().current()).is_ok())
            .count();
        assert!(accepted >= 200, "only {accepted} of 2000 accepted");
    }

    /// Everything an accepted path promises, checked on the normalised
    /// path and on each name in it.
    fn assert_tame(p: &SafePath) -> Result<(), TestCaseError> {
        let rel = p.as_str();
        prop_assert!(Folder::WRITABLE.contains(&p.folder()), "{rel:?}");
        prop_assert_eq!(p.segments().next(), Some(p.folder().dir_name()));
        prop_assert!(p.segments().count() >= 2, "{rel:?}");
        prop_assert!(crate::layout::is_markdown(p.file_name()), "{rel:?}");
        prop_assert!(!rel.contains('\\'), "{rel:?}");
        for seg in p.segments().skip(1) {
            prop_assert!(!seg.is_empty() && seg != "." && seg != "..", "{rel:?}");
            prop_assert!(!seg.starts_with('.'), "{rel:?}");
            prop_assert!(!seg.ends_with('.') && !seg.ends_with(' '), "{rel:?}");
            prop_assert!(
                !seg.chars()
                    .any(|c| c.is_control() || FORBIDDEN_CHARS.contains(&c))
                    && crate::text::invisible_in_name(seg).is_none(),
                "{rel:?}"
            );
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn plain_paths_are_accepted_as_written(
            (folder, names) in plain_path(),
            backslash in any::<bool>(),
        ) {
            let written = format!("{}/{}", folder.dir_name(), names.join("/"));
            let raw = if backslash { written.replace('/', "\\") } else { written.clone() };
            let p = validate(&raw).map_err(|r| TestCaseError::fail(format!("{raw:?}: {r}")))?;
            prop_assert_eq!(p.as_str(), written.as_str());
            prop_assert_eq!(p.folder(), folder);
            assert_tame(&p)?;
        }

        #[test]
        fn an_unseen_character_in_any_name_is_refused(
            (folder, names) in plain_path(),
            c in unseen_char(),
            which in any::<proptest::sample::Index>(),
            at in any::<proptest::sample::Index>(),
        ) {
            let mut names = names;
            let last = names.len() - 1;
            let picked = which.index(names.len());
            let name = &mut names[picked];
            // Inside the name, before its `.md`: a character after the
            // extension would be refused as not Markdown instead.
            let room = name.chars().count() - if picked == last { 3 } else { 0 };
            let cut = name.char_indices().map(|(i, _)| i).nth(at.index(room)).unwrap_or(0);
            name.insert(cut, c);
            let raw = format!("{}/{}", folder.dir_name(), names.join("/"));
            let refused = validate(&raw);
            prop_assert!(refused.is_err(), "accepted {raw:?}");
            let code = refused.unwrap_err().code;
            prop_assert!(["control-char", "invisible-char"].contains(&code), "{raw:?}: {code}");
        }

        #[test]
        fn hostile_paths_never_panic_and_accepted_ones_are_tame(raw in hostile_path()) {
            if let Ok(p) = validate(&raw) {
                assert_tame(&p)?;
            }
        }
    }

    #[test]
    fn invisible_characters_and_hidden_segments_are_refused() {
        for (raw, code) in [
            ("01_CLIENTS/evil\u{202E}dm.txt.md", "invisible-char"),
            ("01_CLIENTS/Ac\u{200B}me.md", "invisible-char"),
            ("01_CLIENTS/\u{2066}x\u{2069}.md", "invisible-char"),
            ("01_CLIENTS/\u{FEFF}x.md", "invisible-char"),
            ("01_CLIENTS/.hidden.md", "hidden"),
            ("01_CLIENTS/.git/hooks.md", "hidden"),
            ("02_TERMINOLOGY/sub/.x/y.md", "hidden"),
        ] {
            assert_eq!(validate(raw).unwrap_err().code, code, "{raw:?}");
        }
        // Ordinary non-ASCII names stay fine, emoji joined into one too.
        assert!(validate("02_TERMINOLOGY/Straße → straat.md").is_ok());
        assert!(validate("03_DOMAINS/Family 👨\u{200D}👩\u{200D}👧.md").is_ok());
        assert!(validate("03_DOMAINS/Health 👨\u{200D}⚕\u{FE0F}.md").is_ok());
        let scotland = "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}";
        assert!(validate(&format!("03_DOMAINS/Scotland {scotland}.md")).is_ok());
        // Tag characters anywhere else hide text.
        assert_eq!(
            validate("03_DOMAINS/a\u{E0067}b.md").unwrap_err().code,
            "invisible-char"
        );
        // A joiner anywhere else is hidden.
        for hidden in [
            "03_DOMAINS/a\u{200D}b.md",
            "03_DOMAINS/👨\u{200D}.md",
            "03_DOMAINS/→\u{200D}→.md",
        ] {
            assert_eq!(
                validate(hidden).unwrap_err().code,
                "invisible-char",
                "{hidden:?}"
            );
        }
        assert!(validate("01_CLIENTS/عميل.md").is_ok());
    }

    #[test]
    fn a_refused_name_is_quoted_as_the_terminal_shows_it_not_as_rust_debug_text() {
        let why = validate("01_CLIENTS/bell\u{7}.md").unwrap_err().reason;
        assert!(why.contains("'bell\u{2407}.md'"), "{why}");
        assert!(why.contains("U+0007"), "{why}");
        assert!(!why.contains("\\u{"), "{why}");
    }
}
