//! Recognising each layout by a few names at a path. Only metadata is read,
//! links are never followed, and no folder listing is read past a bound:
//! the path may come from a hostile repository.

use std::path::{Path, PathBuf};

/// Folder entries looked at per level when searching the everos
/// `<app>/<project>/users|agents` tree.
const EVEROS_SCAN_LIMIT: usize = 64;

fn is_file(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file())
}

fn is_dir(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

/// A memory bank: at least one of the numbered folders 00_INBOX … 06_TEMPLATES.
pub fn bank_root(path: &Path) -> Option<PathBuf> {
    crate::bank::is_bank(path).then(|| path.to_path_buf())
}

fn has_dejavu_memory(memory_dir: &Path) -> bool {
    is_file(&memory_dir.join("impressions.jsonl")) || is_file(&memory_dir.join("summary.md"))
}

/// A Deja Vu project: a folder whose `memory/` holds `impressions.jsonl` or
/// `summary.md`. The `memory/` folder itself names its project.
pub fn dejavu_root(path: &Path) -> Option<PathBuf> {
    if has_dejavu_memory(&path.join("memory")) {
        return Some(path.to_path_buf());
    }
    if !has_dejavu_memory(path) {
        return None;
    }
    // `membank .` inside `memory/` has no name to look at until resolved.
    let named_memory = |p: &Path| p.file_name().is_some_and(|n| n == "memory");
    if named_memory(path) {
        return path.parent().map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p.to_path_buf()
            }
        });
    }
    let resolved = path.canonicalize().ok()?;
    named_memory(&resolved)
        .then(|| resolved.parent().map(Path::to_path_buf))
        .flatten()
}

/// Up to `EVEROS_SCAN_LIMIT` visible sub-folders of `dir`, links excluded.
#[cfg(not(target_os = "linux"))]
fn visible_dirs(dir: &Path) -> Vec<PathBuf> {
    listed_visible_dirs(dir)
}

/// [`visible_dirs`] through the standard library's listing.
#[cfg(any(test, not(target_os = "linux")))]
fn listed_visible_dirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .take(EVEROS_SCAN_LIMIT)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect()
}

/// Up to `EVEROS_SCAN_LIMIT` visible sub-folders of `dir`, links excluded,
/// as [`listed_visible_dirs`] finds them. A bank's numbered folders are
/// looked at here before they are read: the standard library asks the
/// kernel for 32 KB of names at a time (hundreds in a large folder, each
/// one costing the kernel work), where only the first few dozen are
/// looked at, so the listing asks for about a hundred.
#[cfg(target_os = "linux")]
fn visible_dirs(dir: &Path) -> Vec<PathBuf> {
    use rustix::fs::{FileType, Mode, OFlags, RawDir};
    use std::os::unix::ffi::OsStrExt as _;
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NONBLOCK;
    let Ok(fd) = rustix::fs::open(dir, flags, Mode::empty()) else {
        return Vec::new();
    };
    let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 4096];
    let mut entries = RawDir::new(fd, &mut buf);
    let mut found = Vec::new();
    let mut seen = 0;
    while seen < EVEROS_SCAN_LIMIT {
        // As the standard library's listing, the first error ends it.
        let Some(Ok(entry)) = entries.next() else {
            break;
        };
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        seen += 1;
        // A hidden name is told by its first byte: a dot is ASCII, never
        // part of a longer character. Only a folder's path is made: most
        // entries of a bank's numbered folders are files.
        let kind = entry.file_type();
        if name.first() == Some(&b'.') || !matches!(kind, FileType::Directory | FileType::Unknown) {
            continue;
        }
        let path = dir.join(std::ffi::OsStr::from_bytes(name));
        // A file system that does not say: asked, without following.
        if kind == FileType::Directory || is_dir(&path) {
            found.push(path);
        }
    }
    found
}

/// Owner folders looked into, in all, when searching a root's tree for a
/// file everos writes: a folder that is not a root is given up on quickly.
const EVEROS_OWNER_LIMIT: usize = 64;

/// The `<app>/<project>/users|agents` folders below `path`, as far as the
/// bounded listings reach.
fn everos_scope_dirs(path: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for app in visible_dirs(path) {
        for project in visible_dirs(&app) {
            for scope in ["users", "agents"] {
                let dir = project.join(scope);
                if is_dir(&dir) {
                    found.push(dir);
                }
            }
        }
    }
    found
}

/// Up to `EVEROS_SCAN_LIMIT` entries of `dir`, with their own types (a
/// link is not followed).
fn first_entries(dir: &Path) -> Vec<(std::ffi::OsString, std::fs::FileType)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .take(EVEROS_SCAN_LIMIT)
        .filter_map(|e| Some((e.file_name(), e.file_type().ok()?)))
        .collect()
}

/// Whether `dir` holds a daily log of `kind`: `<prefix>-<YYYY-MM-DD>.md`
/// by its shape (a day that is not real is still everos's file name).
fn holds_daily_log(dir: &Path, kind: crate::everos::DailyKind) -> bool {
    first_entries(dir).iter().any(|(name, t)| {
        let Some(name) = name.to_str() else {
            return false;
        };
        let day = name
            .strip_prefix(kind.file_prefix())
            .and_then(|s| s.strip_prefix('-'))
            .and_then(|s| s.strip_suffix(".md"));
        t.is_file()
            && day.is_some_and(|d| {
                d.len() == 10
                    && d.bytes().enumerate().all(|(i, b)| match i {
                        4 | 7 => b == b'-',
                        _ => b.is_ascii_digit(),
                    })
            })
    })
}

/// Whether an owner folder holds a file where everos writes one: a
/// daily log in its kind folder, a user's `user.md`, an agent's
/// `skills/skill_<name>/SKILL.md`.
fn owner_has_everos_file(owner: &Path, agents: bool) -> bool {
    use crate::everos::{DailyKind, OwnerKind};
    let wanted = if agents {
        OwnerKind::Agent
    } else {
        OwnerKind::User
    };
    let daily = DailyKind::ALL
        .into_iter()
        .filter(|k| k.owner_kind() == wanted)
        .any(|k| holds_daily_log(&owner.join(k.dir_name()), k));
    if daily {
        return true;
    }
    if !agents {
        return is_file(&owner.join("user.md"));
    }
    first_entries(&owner.join("skills"))
        .iter()
        .any(|(name, t)| {
            t.is_dir()
                && name.to_str().is_some_and(|n| n.starts_with("skill_"))
                && is_file(&owner.join("skills").join(name).join("SKILL.md"))
        })
}

/// An everos memory root, by real evidence: `ome.toml`, `everos.toml` or
/// a `.index/` folder at the top (what everos creates first, so a root
/// not yet written to counts), or a file everos writes in an
/// `<app>/<project>/users|agents/<owner>/` folder. `config.toml` and
/// `.lock` are everos's too, but common elsewhere: they count only beside
/// such a tree. A tree of those names alone (`app/controllers/users/`, or
/// `/run/systemd/users`) is not a root: a check pointed at the wrong
/// folder must fail, not pass on nothing.
pub fn everos_root(path: &Path) -> Option<PathBuf> {
    let marked = is_file(&path.join("ome.toml"))
        || is_file(&path.join("everos.toml"))
        || is_dir(&path.join(".index"));
    if marked {
        return Some(path.to_path_buf());
    }
    let scopes = everos_scope_dirs(path);
    if scopes.is_empty() {
        return None;
    }
    if is_file(&path.join("config.toml")) || is_file(&path.join(".lock")) {
        return Some(path.to_path_buf());
    }
    let mut owners_left = EVEROS_OWNER_LIMIT;
    for scope in &scopes {
        let agents = scope.file_name().is_some_and(|n| n == "agents");
        for owner in visible_dirs(scope) {
            if owners_left == 0 {
                return None;
            }
            owners_left -= 1;
            if owner_has_everos_file(&owner, agents) {
                return Some(path.to_path_buf());
            }
        }
    }
    None
}

/// What `--format everos` takes for a root: [`everos_root`], or any
/// `<app>/<project>/users|agents` tree, since the user has said what the
/// folder is.
pub fn everos_root_forced(path: &Path) -> Option<PathBuf> {
    everos_root(path).or_else(|| (!everos_scope_dirs(path).is_empty()).then(|| path.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounded listing finds the same folders as the standard
    /// library's, in the same order, in a folder of more entries than are
    /// looked at: folders, files, hidden ones and links among them.
    #[test]
    fn the_bounded_listing_finds_what_the_standard_listing_finds() {
        let d = tempfile::tempdir().unwrap();
        for i in 0..150 {
            let name = format!("entry-{i:03}-{}", "x".repeat(i % 40));
            match i % 5 {
                0 | 1 => std::fs::create_dir(d.path().join(&name)).unwrap(),
                2 => std::fs::write(d.path().join(&name), "").unwrap(),
                3 => std::fs::create_dir(d.path().join(format!(".{name}"))).unwrap(),
                _ => {
                    #[cfg(unix)]
                    std::os::unix::fs::symlink(d.path().join("entry-000-"), d.path().join(&name))
                        .unwrap();
                }
            }
        }
        let bounded = visible_dirs(d.path());
        let listed = listed_visible_dirs(d.path());
        assert!(bounded.len() > 10, "{bounded:?}");
        assert!(
            bounded.len() < 60,
            "only the first entries count: {bounded:?}"
        );
        assert_eq!(bounded, listed);
        assert!(visible_dirs(&d.path().join("missing")).is_empty());
        assert!(visible_dirs(&d.path().join("entry-002-xx")).is_empty());
    }

    /// Names that are not UTF-8 are hidden by a leading dot alone, as the
    /// standard listing's lossy name says; folders only, links and files
    /// left out.
    #[cfg(unix)]
    #[test]
    fn the_bounded_listing_tells_names_that_are_not_utf8_as_the_standard_listing() {
        use std::os::unix::ffi::OsStrExt as _;
        let d = tempfile::tempdir().unwrap();
        let names: [&[u8]; 5] = [b"\xffdir", b".\xffdir", b"\xff", b"x\xff.", b"\xef\xbc\x8e"];
        for name in names {
            let path = d.path().join(std::ffi::OsStr::from_bytes(name));
            std::fs::create_dir(&path).unwrap();
            let mut file = path.clone().into_os_string();
            file.push(".file");
            std::fs::write(&file, "").unwrap();
            let mut link = path.into_os_string();
            link.push(".link");
            std::os::unix::fs::symlink(d.path(), link).unwrap();
        }
        let mut bounded = visible_dirs(d.path());
        let mut listed = listed_visible_dirs(d.path());
        bounded.sort();
        listed.sort();
        assert_eq!(bounded, listed);
        let mut wanted: Vec<_> = [&names[0], &names[2], &names[3], &names[4]]
            .iter()
            .map(|n| d.path().join(std::ffi::OsStr::from_bytes(n)))
            .collect();
        wanted.sort();
        assert_eq!(bounded, wanted);
    }
}
