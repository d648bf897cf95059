//! Fixes that move a file: a template under its version-1.0 name, and an
//! inbox note marked compiled that never reached the archive.

use crate::bank::{Bank, Resolution};
use crate::health::Finding;
use crate::layout::{ARCHIVE_DIR, Folder};
use crate::templates::Agent;

use super::{Action, FileFix, read};

/// `renamed-template`: the file under the name current tools look for.
pub(super) fn template(bank: &Bank, f: &Finding) -> Result<FileFix, String> {
    let name = f.path.strip_prefix("06_TEMPLATES/").unwrap_or(&f.path);
    let agent = Agent::ALL
        .into_iter()
        .find(|a| a.override_names().contains(&name))
        .ok_or("no agent uses a template of this name")?;
    let to = format!("06_TEMPLATES/{}", agent.file_name());
    if bank.templates.contains(&to) || std::fs::symlink_metadata(bank.root().join(&to)).is_ok() {
        return Err(format!(
            "{to} exists too: keep one of the two by hand (membank uses {to})"
        ));
    }
    let before = read(bank, &f.path)?;
    Ok(FileFix {
        path: f.path.to_string(),
        codes: vec![f.code()],
        notes: vec![format!("rename to {to}")],
        action: Action::Move {
            to,
            after: before.clone(),
            before,
        },
    })
}

/// `compiled-not-archived`: the note moved into `00_INBOX/_archive/`,
/// once every article its `compiled_to` lists is there.
pub(super) fn archive(bank: &Bank, f: &Finding) -> Result<FileFix, String> {
    let id = bank.find(&f.path).ok_or("the note was not loaded")?;
    // Read again when the bank kept no frontmatter for the note.
    let text = bank
        .frontmatter_text(id)
        .map_err(|p| format!("cannot be read: {}", p.message))?;
    let yaml = bank.article(id).yaml_range().and_then(|r| text.get(r));
    let compiled_to = match yaml {
        Some(yaml) => crate::frontmatter::parse_yaml(yaml, 1)
            .map(|map| crate::frontmatter::strings(&map, "compiled_to"))
            .unwrap_or_default(),
        None => Vec::new(),
    };
    if compiled_to.is_empty() {
        return Err(
            "compiled_to lists no article, so nothing shows the note was turned into \
             articles; check it, then move it into 00_INBOX/_archive/ by hand"
                .into(),
        );
    }
    let missing: Vec<&String> = compiled_to
        .iter()
        .filter(|target| !exists(bank, target))
        .collect();
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().map(|m| m.as_str()).collect();
        return Err(format!(
            "compiled_to lists {} that the bank does not hold; process the note again",
            shown.join(", ")
        ));
    }
    let file_name = f.path.rsplit('/').next().unwrap_or(&f.path);
    let archive = format!("{}/{ARCHIVE_DIR}", Folder::Inbox.dir_name());
    // The write would refuse these; the plan does not offer what it will
    // not make.
    if crate::pathsafe::is_symlink_at(bank.root(), &archive) {
        return Err(format!(
            "{}; move the note by hand",
            crate::pathsafe::writes_through_no_link(&archive)
        ));
    }
    if std::fs::symlink_metadata(bank.root().join(&archive)).is_ok_and(|m| !m.is_dir()) {
        return Err(format!(
            "{archive} is a file, not a folder; move or rename it, then the note can be archived"
        ));
    }
    let to = format!("{archive}/{file_name}");
    if bank.find(&to).is_some() || std::fs::symlink_metadata(bank.root().join(&to)).is_ok() {
        return Err(format!("{to} is taken; move the note by hand"));
    }
    let before = read(bank, &f.path)?;
    Ok(FileFix {
        path: f.path.to_string(),
        codes: vec![f.code()],
        notes: vec![format!(
            "move to {to}: every article compiled_to lists exists"
        )],
        action: Action::Move {
            to,
            after: before.clone(),
            before,
        },
    })
}

/// A `compiled_to` entry names an article of the bank: a path, or a link.
fn exists(bank: &Bank, target: &str) -> bool {
    let name = crate::wikilink::normalize_value(target);
    bank.find(name).is_some()
        || bank.find(&format!("{name}.md")).is_some()
        || matches!(bank.resolve_from(name, None), Resolution::One(_))
}
