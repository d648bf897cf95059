//! The demo memory bank shipped inside the binary, so that `membank` can be
//! tried without a bank of one's own.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

macro_rules! entry {
    ($rel:literal) => {
        ($rel, include_str!(concat!("../demo-bank/", $rel)))
    };
}

/// Every file of `demo-bank/`: (path relative to the bank, text).
pub const FILES: &[(&str, &str)] = &[
    // One line per file of demo-bank/; the test below keeps this list complete.
    entry!("00_INBOX/Brightwell leaflet feedback round 2.md"),
    entry!("00_INBOX/Harbour Lines booking site strings.md"),
    entry!("00_INBOX/_archive/Copperleaf kickoff call.md"),
    entry!("01_CLIENTS/Brightwell Pharma.md"),
    entry!("01_CLIENTS/Copperleaf Software.md"),
    entry!("01_CLIENTS/Harbour Lines.md"),
    entry!("02_TERMINOLOGY/adverse event → ongewenst voorval.md"),
    entry!("02_TERMINOLOGY/batch record → chargedossier.md"),
    entry!("02_TERMINOLOGY/boarding pass → carte d'embarquement.md"),
    entry!("02_TERMINOLOGY/booking reference → référence de réservation.md"),
    entry!("02_TERMINOLOGY/car deck → pont garage.md"),
    entry!("02_TERMINOLOGY/crossing → traversée.md"),
    entry!("02_TERMINOLOGY/dashboard → dashboard.md"),
    entry!("02_TERMINOLOGY/foot passenger → passager piéton.md"),
    entry!(
        "02_TERMINOLOGY/marketing authorisation holder → houder van de vergunning voor het in de handel brengen.md"
    ),
    entry!("02_TERMINOLOGY/package leaflet → bijsluiter.md"),
    entry!("02_TERMINOLOGY/settings → instellingen.md"),
    entry!("02_TERMINOLOGY/shelf life → houdbaarheid.md"),
    entry!("02_TERMINOLOGY/shelf life → vervaldatum.md"),
    entry!("02_TERMINOLOGY/sign in → aanmelden.md"),
    entry!("02_TERMINOLOGY/sign in → inloggen.md"),
    entry!("02_TERMINOLOGY/sign out → afmelden.md"),
    entry!("03_DOMAINS/Medical Devices.md"),
    entry!("03_DOMAINS/Pharmaceuticals.md"),
    entry!("03_DOMAINS/Software Localisation.md"),
    entry!("03_DOMAINS/Travel and Tourism.md"),
    entry!("04_STYLE/Brightwell Style Guide.md"),
    entry!("04_STYLE/General Style fr-FR.md"),
    entry!("04_STYLE/General Style nl-BE.md"),
    entry!("04_STYLE/UI Strings nl-BE.md"),
    entry!("05_INDICES/Index.md"),
    entry!("06_TEMPLATES/query.md"),
    entry!("README.md"),
];

/// Every file of `demo-dejavu/`, the demo Deja Vu project.
pub const DEJAVU_FILES: &[(&str, &str)] = &[
    ("AGENTS.md", include_str!("../demo-dejavu/AGENTS.md")),
    (".gitignore", include_str!("../demo-dejavu/.gitignore")),
    (
        "memory/summary.md",
        include_str!("../demo-dejavu/memory/summary.md"),
    ),
    (
        "memory/index.md",
        include_str!("../demo-dejavu/memory/index.md"),
    ),
    (
        "memory/impressions.jsonl",
        include_str!("../demo-dejavu/memory/impressions.jsonl"),
    ),
    (
        "memory/recall-feedback.jsonl",
        include_str!("../demo-dejavu/memory/recall-feedback.jsonl"),
    ),
    (
        "memory/decisions/settings-sync.md",
        include_str!("../demo-dejavu/memory/decisions/settings-sync.md"),
    ),
    (
        "memory/decisions/local-preferences.md",
        include_str!("../demo-dejavu/memory/decisions/local-preferences.md"),
    ),
    (
        "memory/open-loops/settings-migration.md",
        include_str!("../demo-dejavu/memory/open-loops/settings-migration.md"),
    ),
    (
        "memory/context/project-context.md",
        include_str!("../demo-dejavu/memory/context/project-context.md"),
    ),
    (
        "memory/events/2026-05.md",
        include_str!("../demo-dejavu/memory/events/2026-05.md"),
    ),
];

include!("demo_everos_files.rs");

/// Extract a fresh copy of the everos demo memory root, like `demo_bank_dir`.
pub fn demo_everos_dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("membank-demo-everos-{}", user_tag()));
    extract_fresh_files(&dir, EVEROS_FILES)?;
    Ok(dir)
}

/// The status bar's name for a demo copy of `what`: where it lives is a
/// temporary folder that says nothing, what matters is that it is reset.
pub fn demo_label(what: &str) -> String {
    format!("demo {what} (reset on each run)")
}

/// Extract a fresh copy of the demo Deja Vu project, like `demo_bank_dir`.
pub fn demo_dejavu_dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("membank-demo-dejavu-{}", user_tag()));
    extract_fresh_files(&dir, DEJAVU_FILES)?;
    Ok(dir)
}

/// Marks a folder as a membank demo copy, so that only such a folder is ever
/// deleted when the demo is refreshed.
const MARKER: &str = membank_core::memory::DEMO_MARKER;

/// Extract a fresh copy of the demo bank into a per-user folder under the
/// temporary directory and return its path. A previous demo copy there is
/// replaced; any other folder in that place is left alone and reported.
pub fn demo_bank_dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("membank-demo-{}", user_tag()));
    extract_fresh(&dir)?;
    Ok(dir)
}

/// Write the demo bank into `dir`, which must be missing or hold nothing but
/// hidden entries. Only `dir` itself is created, never its parents.
pub fn write_demo_bank(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() {
        let visible = visible_entries(dir)?;
        if !visible.is_empty() {
            bail!(
                "{}: folder is not empty ({}); the demo bank is only written into an empty folder",
                dir.display(),
                visible.join(", ")
            );
        }
    } else {
        std::fs::create_dir(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    write_files(dir)
}

fn extract_fresh(dir: &Path) -> anyhow::Result<()> {
    extract_fresh_with(dir, |staged| {
        write_file_list(staged, FILES)?;
        // Folders a bank always has, even when the demo keeps nothing in them.
        for folder in membank_core::layout::Folder::ALL {
            let path = staged.join(folder.dir_name());
            std::fs::create_dir_all(&path)
                .with_context(|| format!("{}: cannot create", path.display()))?;
        }
        Ok(())
    })
}

fn extract_fresh_files(dir: &Path, files: &[(&str, &str)]) -> anyhow::Result<()> {
    extract_fresh_with(dir, |staged| write_file_list(staged, files))
}

/// How often a swap is retried when another `membank demo` put its copy
/// in place between our move away and our move in.
const SWAP_ATTEMPTS: usize = 32;

/// Replace the demo copy at `dir` with one `fill` writes. The copy is
/// written beside it under a fresh name, then swapped in by renames, so
/// two runs at once each end with a whole copy instead of one deleting
/// the files the other is writing ("Directory not empty").
fn extract_fresh_with(
    dir: &Path,
    fill: impl FnOnce(&Path) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staged = tempfile::Builder::new()
        .prefix(&format!(".{name}.new-"))
        .tempdir_in(parent)
        .with_context(|| format!("{}: cannot create a folder for the demo", parent.display()))?;
    std::fs::write(
        staged.path().join(MARKER),
        "membank demo copy; replaced on every extraction\n",
    )
    .with_context(|| format!("{}: cannot write", dir.join(MARKER).display()))?;
    fill(staged.path())?;
    for _ in 0..SWAP_ATTEMPTS {
        let previous = move_previous_copy_away(dir, parent, &name)?;
        let placed = std::fs::rename(staged.path(), dir);
        if let Some(previous) = previous {
            // remove_dir_all removes a symlink itself, never what it points to.
            let _ = std::fs::remove_dir_all(previous);
        }
        match placed {
            Ok(()) => {
                // Renamed away: nothing is left for the guard to delete.
                let _ = staged.keep();
                return Ok(());
            }
            // Another run's copy arrived in between: move it away in turn.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::DirectoryNotEmpty | std::io::ErrorKind::AlreadyExists
                ) =>
            {
                continue;
            }
            Err(e) => {
                return Err(e).with_context(|| format!("{}: cannot create", dir.display()));
            }
        }
    }
    bail!(
        "{}: other runs of `membank demo` keep replacing it; try again",
        dir.display()
    )
}

/// Move the demo copy at `dir`, if any, to a fresh name beside it (to be
/// deleted) and return that name. Any other folder there is left alone.
fn move_previous_copy_away(
    dir: &Path,
    parent: &Path,
    name: &str,
) -> anyhow::Result<Option<PathBuf>> {
    let Ok(meta) = dir.symlink_metadata() else {
        return Ok(None);
    };
    // In a shared temporary folder, another user's folder of this name
    // is theirs: never replaced, nor read as our demo.
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if user_id().is_some_and(|uid| uid != 0 && meta.uid() != uid) {
            bail!(
                "{}: belongs to another user; set TMPDIR to a folder of your own to \
                 extract the demo",
                dir.display()
            );
        }
    }
    #[cfg(not(unix))]
    let _ = meta;
    if !dir.join(MARKER).is_file() {
        match visible_entries(dir) {
            Ok(names) if names.is_empty() => {}
            Ok(_) => bail!(
                "{}: exists but is not a membank demo copy; move it away to extract the demo",
                dir.display()
            ),
            // Another run moved it away in between.
            Err(e)
                if e.root_cause()
                    .downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(e),
        }
    }
    if !meta.is_dir() {
        // A link or a file left here: removed itself, never what it leads to.
        return match std::fs::remove_file(dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e).with_context(|| {
                format!("{}: cannot remove the previous demo copy", dir.display())
            }),
            _ => Ok(None),
        };
    }
    // An empty folder of a fresh name: renaming a folder onto it replaces it.
    let away = tempfile::Builder::new()
        .prefix(&format!(".{name}.old-"))
        .tempdir_in(parent)
        .with_context(|| format!("{}: cannot move the previous demo copy", dir.display()))?
        .keep();
    match std::fs::rename(dir, &away) {
        Ok(()) => Ok(Some(away)),
        // Another run moved it first.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let _ = std::fs::remove_dir(&away);
            Ok(None)
        }
        Err(e) => {
            let _ = std::fs::remove_dir(&away);
            Err(e)
                .with_context(|| format!("{}: cannot remove the previous demo copy", dir.display()))
        }
    }
}

/// The demo written as a user's own bank: through the one write
/// transaction, journalled, so `membank undo` can take it back out.
fn write_files(dir: &Path) -> anyhow::Result<()> {
    use membank_core::transaction::{Kind, Transaction};
    // Folders a bank always has, even when the demo keeps nothing in them,
    // and every folder a file sits in, outermost first.
    let mut folders: Vec<String> = membank_core::layout::Folder::ALL
        .iter()
        .map(|f| f.dir_name().to_owned())
        .collect();
    for (rel, _) in FILES {
        let mut at = 0;
        while let Some(slash) = rel[at..].find('/') {
            at += slash;
            folders.push(rel[..at].to_owned());
            at += 1;
        }
    }
    membank_core::shared_sort::sort_by_key(&mut folders, |f| f.matches('/').count());
    let mut seen = std::collections::HashSet::new();
    folders.retain(|f| seen.insert(f.clone()));
    let files: Vec<(String, &[u8])> = FILES
        .iter()
        .map(|(rel, text)| ((*rel).to_owned(), text.as_bytes()))
        .collect();
    let tx = Transaction::begin(dir, Kind::Bank, std::time::Duration::ZERO, || {})
        .map_err(|e| anyhow::anyhow!(e))?;
    tx.set_label("init");
    tx.create_layout(&folders, &files)
        .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))
}

fn write_file_list(dir: &Path, files: &[(&str, &str)]) -> anyhow::Result<()> {
    for (rel, text) in files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("{}: cannot write", path.display()))?;
    }
    Ok(())
}

fn visible_entries(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))?
    {
        let name = entry
            .with_context(|| format!("{}: cannot list", dir.display()))?
            .file_name()
            .to_string_lossy()
            .into_owned();
        if !name.starts_with('.') {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// A file-name-safe tag for the current user, so users sharing a temporary
/// directory do not replace each other's demo copy.
fn user_tag() -> String {
    let name = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_default();
    let tag: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    if !tag.is_empty() {
        return tag;
    }
    // No name (a container, cron): one shared "user" folder would be every
    // such user's, so the numeric user id names it.
    match user_id() {
        Some(uid) => format!("uid{uid}"),
        None => "user".to_owned(),
    }
}

fn user_id() -> Option<u32> {
    #[cfg(unix)]
    {
        // SAFETY: getuid takes nothing, cannot fail and touches no memory.
        Some(unsafe { libc::getuid() })
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(root, &path, out);
                } else {
                    let rel = path
                        .strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/");
                    out.insert(rel, std::fs::read(&path).unwrap());
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(dir, dir, &mut out);
        out
    }

    fn repo_demo_bank() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-bank")
    }

    #[test]
    fn embedded_list_matches_the_demo_bank_folder() {
        let on_disk = tree(&repo_demo_bank());
        let embedded: BTreeMap<String, Vec<u8>> = FILES
            .iter()
            .map(|(rel, text)| (rel.to_string(), text.as_bytes().to_vec()))
            .collect();
        let missing: Vec<_> = on_disk
            .keys()
            .filter(|k| !embedded.contains_key(*k))
            .collect();
        assert!(missing.is_empty(), "add these to demo::FILES: {missing:?}");
        assert_eq!(on_disk.len(), embedded.len());
    }

    #[test]
    fn written_bank_is_identical_to_the_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("demo");
        write_demo_bank(&dir).unwrap();
        let written = tree(&dir);
        assert_eq!(written.len(), FILES.len());
        assert_eq!(written, tree(&repo_demo_bank()));
        for folder in membank_core::layout::Folder::ALL {
            assert!(dir.join(folder.dir_name()).is_dir());
        }
    }

    #[test]
    fn demo_labels_say_demo_and_reset_not_the_temporary_path() {
        let label = super::demo_label("Deja Vu project");
        assert_eq!(label, "demo Deja Vu project (reset on each run)");
        assert_eq!(
            super::demo_label("everos root"),
            "demo everos root (reset on each run)"
        );
    }

    #[test]
    fn embedded_dejavu_list_matches_its_folder() {
        let on_disk = tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu"));
        let embedded: BTreeMap<String, Vec<u8>> = DEJAVU_FILES
            .iter()
            .map(|(rel, text)| (rel.to_string(), text.as_bytes().to_vec()))
            .collect();
        assert_eq!(
            on_disk, embedded,
            "demo::DEJAVU_FILES must list demo-dejavu/ exactly"
        );
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("dv");
        extract_fresh_files(&dir, DEJAVU_FILES).unwrap();
        let project = membank_core::dejavu::Project::load(&dir).unwrap();
        let report = membank_core::dejavu::checks::check(&project);
        assert!(report.findings.is_empty(), "{:#?}", report.findings);
    }

    #[test]
    fn the_everos_demo_is_complete_and_everos_reads_it() {
        let on_disk = tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-everos"));
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("everos");
        extract_fresh_files(&dir, EVEROS_FILES).unwrap();
        let mut written = tree(&dir);
        written.remove(MARKER);
        assert_eq!(written, on_disk, "regenerate src/demo_everos_files.rs");
        let memory = membank_core::memory::open(&dir, None).unwrap();
        assert_eq!(memory.spec().kind, membank_core::memory::LayoutKind::Everos);
    }

    #[test]
    fn write_refuses_a_non_empty_folder() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("mine.md"), "keep").unwrap();
        let err = write_demo_bank(tmp.path()).unwrap_err().to_string();
        assert!(err.contains("not empty"), "{err}");
        assert_eq!(tree(tmp.path()).len(), 1);
    }

    #[test]
    fn refresh_replaces_only_a_previous_demo_copy() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("membank-demo-test");
        extract_fresh(&dir).unwrap();
        let edited = dir.join("01_CLIENTS/Harbour Lines.md");
        std::fs::write(&edited, "changed").unwrap();
        std::fs::write(dir.join("00_INBOX/new note.md"), "x").unwrap();
        extract_fresh(&dir).unwrap();
        assert_ne!(std::fs::read_to_string(&edited).unwrap(), "changed");
        assert!(!dir.join("00_INBOX/new note.md").exists());

        let foreign = tmp.path().join("someone else");
        std::fs::create_dir(&foreign).unwrap();
        std::fs::write(foreign.join("thesis.md"), "precious").unwrap();
        assert!(extract_fresh(&foreign).is_err());
        assert_eq!(
            std::fs::read_to_string(foreign.join("thesis.md")).unwrap(),
            "precious"
        );
    }

    #[test]
    fn runs_at_once_each_end_with_a_whole_copy_and_leave_nothing_behind() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("membank-demo-test");
        extract_fresh(&dir).unwrap();
        let results: Vec<anyhow::Result<()>> = std::thread::scope(|scope| {
            let runs: Vec<_> = (0..6)
                .map(|_| scope.spawn(|| extract_fresh(&dir)))
                .collect();
            runs.into_iter().map(|run| run.join().unwrap()).collect()
        });
        for result in results {
            result.unwrap();
        }
        assert_eq!(
            tree(&dir).len(),
            FILES.len() + 1,
            "every file and the marker"
        );
        // Only the copy itself is left in the temporary folder.
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, ["membank-demo-test"]);
    }

    #[test]
    fn content_articles_have_frontmatter_and_only_one_is_fenced() {
        let mut fenced = Vec::new();
        for (rel, text) in FILES {
            let folder = rel.split('/').next().unwrap();
            let is_content =
                membank_core::layout::Folder::from_dir_name(folder).is_some_and(|f| f.is_content());
            if !is_content {
                continue;
            }
            let located = membank_core::frontmatter::locate(text);
            assert!(
                matches!(located.block, membank_core::frontmatter::Block::Present(_)),
                "{rel}"
            );
            if located.fenced {
                fenced.push(*rel);
            }
        }
        assert_eq!(
            fenced,
            ["02_TERMINOLOGY/booking reference → référence de réservation.md"]
        );
    }
}
