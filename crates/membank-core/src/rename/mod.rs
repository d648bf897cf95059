//! Renaming or moving a file or a folder of a bank, with every link that
//! reached it rewritten so it reaches it still, the way Obsidian's
//! "automatically update internal links" does: wikilinks (alias, heading
//! and block parts kept), embeds, escaped pipes in tables, path and
//! relative links, Markdown links (percent-encoded) and wikilinks in
//! frontmatter values. A client or domain renamed is renamed in every
//! `client`/`domain` value too, so scoring still finds it.
//!
//! Nothing is written here: [`plan`] returns the moves and changes as the
//! fixes [`crate::transaction::Transaction::commit_fixes`] writes. A
//! rename is refused, with the reason, when its new name is taken or would
//! make links ambiguous, or when a link cannot be rewritten to keep its
//! meaning; every rewritten file is parsed again and each of its links
//! resolved before the plan is returned.

use std::collections::{BTreeMap, BTreeSet};

use crate::article::{Article, CLIENT_KEYS, DOMAIN_KEYS, FrontmatterState};
use crate::bank::{Bank, ProblemKind};
use crate::fix::{Action, FileFix};
use crate::layout::{Folder, is_markdown};
use crate::resolve::{FileRef, LinkIndex};
use crate::wikilink::fold;

pub(crate) mod links;
#[cfg(test)]
mod tests;
pub(crate) mod values;

/// What a rename writes: one `Move` per file moved, one `Change` per other
/// file whose links or values are rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenamePlan {
    /// Each moved file's path before and after, in path order.
    pub moves: Vec<(String, String)>,
    pub fixes: Vec<FileFix>,
    /// How many links were rewritten, over all files.
    pub links_rewritten: usize,
    /// Files of a moved folder that stay where they are: membank writes
    /// notes only. Links to them are rewritten where the move needs it.
    pub left_in_place: Vec<String>,
    /// Markdown files the bank could not read (not readable, over the
    /// size cap): links in them to what moves cannot be seen, so they are
    /// not rewritten.
    pub unread: Vec<String>,
    /// Markdown files outside the format's folders (a `Notes/` folder, a
    /// `README.md` at the root): the bank does not read them, so their
    /// links are left as they are, and the plan says so.
    pub links_left: Vec<String>,
    /// Notes reached through a symbolic link that leads out of the bank (a
    /// linked folder the bank follows with `follow_links_out`, a linked
    /// file): nothing is written through a link, so links in them to what
    /// moves are left as they are, and the plan says so.
    pub through_link: Vec<String>,
}

/// The code a rename's fixes carry.
pub const CODE: &str = "rename";

/// Every file a link can reach, as the bank indexes them.
fn all_files(bank: &Bank) -> Vec<String> {
    let mut files: Vec<String> = bank.articles().iter().map(|a| a.rel_path.clone()).collect();
    files.extend(bank.skipped.iter().map(|f| f.path.clone()));
    files.extend(bank.other_files.iter().cloned());
    files.extend(bank.templates.iter().cloned());
    files.extend(
        bank.problems
            .iter()
            .filter(|p| p.kind == ProblemKind::NotUtf8)
            .map(|p| p.path.clone()),
    );
    let mut seen = BTreeSet::new();
    files.retain(|f| seen.insert(f.clone()));
    files
}

fn index_of(paths: &[String]) -> LinkIndex {
    LinkIndex::build(
        paths
            .iter()
            .enumerate()
            .map(|(i, p)| (p.as_str(), FileRef::Other(i))),
    )
}

/// Where a link leads: the file it opens, and whether other files answer
/// to it as well.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meaning {
    pub file: usize,
    pub ambiguous: bool,
}

/// The files of a bank, before and after the rename, one index each; a
/// file keeps its number through the rename.
pub(crate) struct Files {
    pub old: Vec<String>,
    pub new: Vec<String>,
    old_index: LinkIndex,
    new_index: LinkIndex,
}

impl Files {
    fn meaning(index: &LinkIndex, target: &str, from: &str) -> Option<Meaning> {
        let mut found = Vec::new();
        index.resolve_into(target, Some(from), &mut found);
        let file = match found.first()? {
            FileRef::Other(i) | FileRef::Article(i) => *i,
        };
        Some(Meaning {
            file,
            ambiguous: found.len() > 1,
        })
    }

    pub fn before(&self, target: &str, from: &str) -> Option<Meaning> {
        Self::meaning(&self.old_index, target, from)
    }

    pub fn after(&self, target: &str, from: &str) -> Option<Meaning> {
        Self::meaning(&self.new_index, target, from)
    }
}

/// The plan to rename or move `from` (a file or a folder, bank-relative)
/// to `to`; `Err` says why it may not be done.
///
/// A file moved onto a folder path ending in `/` keeps its name; a note's
/// new name gets `.md` when it is given without it.
pub fn plan(bank: &Bank, from: &str, to: &str) -> Result<RenamePlan, String> {
    let old = all_files(bank);
    let (moves, left_in_place) = moves_of(bank, &old, from, to)?;
    let moved: BTreeMap<&str, &str> = moves
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let new: Vec<String> = old
        .iter()
        .map(|p| {
            moved
                .get(p.as_str())
                .map_or_else(|| p.clone(), |n| n.to_string())
        })
        .collect();
    check_names(&old, &new, &moved)?;
    let files = Files {
        old_index: index_of(&old),
        new_index: index_of(&new),
        old,
        new,
    };
    let mut unread = notes_not_read(bank, &files)?;
    let renamed_values = values::renamed_values(bank, &moves)?;
    let mut fixes = Vec::new();
    let mut through_link = Vec::new();
    let mut links_rewritten = 0;
    for (id, article) in bank.articles().iter().enumerate() {
        let old_path = &article.rel_path;
        let new_path = &files.new[id];
        let is_moved = old_path != new_path;
        let values_hit = values::affects(article, &renamed_values);
        // A note reached through a link is read as usual, but nothing is
        // written through it: the write would refuse the whole plan. A
        // link to another note: its text is the note's, rewritten at its
        // own path. One leading out of the bank: left out, and said.
        if let Some(link) = link_on_the_way(bank, old_path) {
            if link == *old_path {
                check_symlink(bank, old_path, is_moved, &moved)?;
            } else if is_moved {
                return Err(moved_through_link(old_path, &link));
            }
            let leads_out = link != *old_path
                || crate::pathsafe::symlink_target_in(bank.root(), old_path).is_none();
            let needs_rewrite = values_hit
                || !matches!(
                    links::rewrite_article(bank, article, new_path, &files),
                    Ok(None)
                );
            if leads_out && needs_rewrite {
                through_link.push(old_path.clone());
            }
            continue;
        }
        let rewrite = links::rewrite_article(bank, article, new_path, &files)?;
        if !is_moved && rewrite.is_none() && !values_hit {
            continue;
        }
        let before = read(bank, old_path)?;
        let (after, mut notes, count) = if rewrite.is_none() && !values_hit {
            // Moved as it is: its bytes stay, whatever their encoding.
            (before.clone(), Vec::new(), 0)
        } else {
            let (mut text, mut notes, count) = match rewrite {
                Some(r) => (r.text, r.notes, r.count),
                None => (utf8(old_path, &before)?.to_owned(), Vec::new(), 0),
            };
            if values_hit {
                let (edited, value_notes) = values::rewrite(&text, &renamed_values);
                // A value left naming the old name would drop the note
                // from `context` for the new one: refused, not half done.
                if let Some((key, line)) =
                    values::still_named(old_path, article.folder, &edited, &renamed_values)
                {
                    return Err(format!(
                        "{old_path}:{line}: its {key} value is written in a form membank cannot \
                         rewrite (over several lines); write it on one line and rename again; \
                         nothing is moved"
                    ));
                }
                text = edited;
                notes.extend(value_notes);
            }
            (with_bom(&before, &text), notes, count)
        };
        if !is_moved && after == before {
            continue;
        }
        links_rewritten += count;
        check_rewritten(article, new_path, &after, &files)?;
        if is_moved {
            notes.insert(0, format!("moved to {new_path}"));
        }
        fixes.push(FileFix {
            path: old_path.clone(),
            codes: vec![CODE],
            notes,
            action: if is_moved {
                Action::Move {
                    to: new_path.clone(),
                    before,
                    after,
                }
            } else {
                Action::Change { before, after }
            },
        });
    }
    let (skipped_fixes, skipped_count) =
        rewrite_skipped(bank, &files, &mut unread, &mut through_link)?;
    fixes.extend(skipped_fixes);
    links_rewritten += skipped_count;
    // Files that are not notes move as they are.
    for (old_path, new_path) in &moves {
        if bank.find(old_path).is_some() {
            continue;
        }
        if let Some(link) = link_on_the_way(bank, old_path) {
            return Err(moved_through_link(old_path, &link));
        }
        let before = read(bank, old_path)?;
        fixes.push(FileFix {
            path: old_path.clone(),
            codes: vec![CODE],
            notes: vec![format!("moved to {new_path}")],
            action: Action::Move {
                to: new_path.clone(),
                after: before.clone(),
                before,
            },
        });
    }
    through_link.sort();
    Ok(RenamePlan {
        moves,
        fixes,
        links_rewritten,
        left_in_place,
        unread,
        links_left: outside_notes(bank, &files),
        through_link,
    })
}

/// The symbolic link `path` is reached through, when it is; see
/// [`crate::pathsafe::link_on_the_way`].
fn link_on_the_way(bank: &Bank, path: &str) -> Option<String> {
    let folders_too = bank.reader().policy().follow_links_out;
    crate::pathsafe::link_on_the_way(bank.root(), path, folders_too)
}

/// Why a file reached through a linked folder is not moved.
fn moved_through_link(path: &str, link: &str) -> String {
    format!(
        "{path} is reached through the symbolic link {link}; membank writes nothing through a \
         link: move it by hand; nothing is moved"
    )
}

/// The Markdown files of the bank's root and of the folders the format
/// does not have whose links the rename leaves pointing elsewhere (or
/// that cannot be read to tell): listing every such file would name a
/// README that links nowhere on every rename. Links are not followed,
/// hidden entries are skipped, and the walk stops after a bound, as a
/// bank's own walk does.
fn outside_notes(bank: &Bank, files: &Files) -> Vec<String> {
    const MAX_ENTRIES: usize = 10_000;
    const MAX_DEPTH: usize = 16;
    let mut found = Vec::new();
    let mut folders = vec![(String::new(), 0)];
    let mut seen = 0;
    while let Some((dir, depth)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(bank.root().join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                folders.clear();
                break;
            }
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            // `file_type` does not follow a link: a link is neither.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let path = if dir.is_empty() {
                name.clone()
            } else {
                format!("{dir}/{name}")
            };
            if kind.is_dir() {
                let format_folder = dir.is_empty() && Folder::from_dir_name(&name).is_some();
                if !format_folder && depth < MAX_DEPTH {
                    folders.push((path, depth + 1));
                }
            } else if kind.is_file() && is_markdown(&name) && links_stay_behind(bank, files, &path)
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Does the note at `path`, which the rename does not rewrite, hold a link
/// that would no longer open what it opened? One that cannot be read (a
/// size cap, not text) may: it is counted in.
fn links_stay_behind(bank: &Bank, files: &Files, path: &str) -> bool {
    let Ok(bytes) = bank.reader().read(std::path::Path::new(path)) else {
        return true;
    };
    let Ok(decoded) = crate::text::decode(&bytes) else {
        return true;
    };
    let text = decoded.text;
    let (yaml, body_start) = links::frontmatter(&text);
    yaml.map(|y| crate::wikilink::extract_plain(&text[y]))
        .unwrap_or_default()
        .into_iter()
        .chain(crate::wikilink::extract_markdown(&text[body_start..]))
        .any(|l| !links::keeps_meaning(files, &l.target, path, path))
}

/// The links in the Markdown files the bank skips (`_draft.md`, reserved
/// names) rewritten as a note's are: the bank does not score them, but
/// they are the author's notes, and Obsidian rewrites every Markdown file
/// of the vault. One that cannot be read or is not UTF-8 is listed in
/// `unread`. A skipped file a folder move moves keeps its bytes.
fn rewrite_skipped(
    bank: &Bank,
    files: &Files,
    unread: &mut Vec<String>,
    through_link: &mut Vec<String>,
) -> Result<(Vec<FileFix>, usize), String> {
    let mut fixes = Vec::new();
    let mut count = 0;
    for skipped in &bank.skipped {
        let path = &skipped.path;
        if !is_markdown(path) || skipped.reason == crate::layout::SkipReason::NotUnicode {
            continue;
        }
        let Some(i) = files.old.iter().position(|p| p == path) else {
            continue;
        };
        let Some(folder) = path.split('/').next().and_then(Folder::from_dir_name) else {
            continue;
        };
        if files.new[i] != *path {
            continue;
        }
        let Ok(before) = bank.reader().read(std::path::Path::new(path)) else {
            unread.push(path.clone());
            continue;
        };
        let Ok(decoded) = crate::text::decode(&before) else {
            unread.push(path.clone());
            continue;
        };
        let article = Article::parse(path.clone(), folder, decoded);
        let through = link_on_the_way(bank, path);
        let rewritten = links::rewrite_article(bank, &article, path, files);
        if through.is_some() {
            // Written through no link: left as it is, and said (a link to
            // a note of the bank is rewritten at that note's path).
            let leads_out = through.as_deref() != Some(path.as_str())
                || crate::pathsafe::symlink_target_in(bank.root(), path).is_none();
            if leads_out && !matches!(rewritten, Ok(None)) {
                through_link.push(path.clone());
            }
            continue;
        }
        let Some(rewrite) = rewritten? else {
            continue;
        };
        let after = with_bom(&before, &rewrite.text);
        check_rewritten(&article, path, &after, files)?;
        count += rewrite.count;
        fixes.push(FileFix {
            path: path.clone(),
            codes: vec![CODE],
            notes: rewrite.notes,
            action: Action::Change { before, after },
        });
    }
    Ok((fixes, count))
}

/// The notes whose links the plan cannot rewrite, checked before anything
/// is planned: one that is not UTF-8 is read as well as it can be, and a
/// link in it that the move would break refuses the move (`membank fix`
/// saves it as UTF-8 first); the notes that could not be read at all are
/// listed, for the plan to say so.
fn notes_not_read(bank: &Bank, files: &Files) -> Result<Vec<String>, String> {
    let mut unread = Vec::new();
    for problem in bank.problems.iter().filter(|p| is_markdown(&p.path)) {
        let path = &problem.path;
        match problem.kind {
            ProblemKind::NotUtf8 => {
                let Ok(bytes) = bank.reader().read(std::path::Path::new(path)) else {
                    unread.push(path.clone());
                    continue;
                };
                let text = String::from_utf8_lossy(&bytes);
                let new_path = files
                    .old
                    .iter()
                    .position(|p| p == path)
                    .map_or(path.as_str(), |i| files.new[i].as_str());
                let (yaml, body_start) = links::frontmatter(&text);
                let breaks = yaml
                    .map(|y| crate::wikilink::extract_plain(&text[y]))
                    .unwrap_or_default()
                    .into_iter()
                    .chain(crate::wikilink::extract_markdown(&text[body_start..]))
                    .any(|l| !links::keeps_meaning(files, &l.target, path, new_path));
                if breaks {
                    return Err(format!(
                        "{path}: is not UTF-8, so its links cannot be rewritten; `membank fix` \
                         saves it as UTF-8; nothing is moved"
                    ));
                }
            }
            ProblemKind::Io | ProblemKind::TooLarge => unread.push(path.clone()),
            _ => {}
        }
    }
    Ok(unread)
}

/// A symbolic link among the notes is neither moved (that would make it
/// a copy) nor left pointing at a note the plan moves.
fn check_symlink(
    bank: &Bank,
    link: &str,
    is_moved: bool,
    moved: &BTreeMap<&str, &str>,
) -> Result<(), String> {
    if is_moved {
        return Err(format!(
            "{link} is a symbolic link; membank moves no link (written anew it would become a \
             copy): move it by hand; nothing is moved"
        ));
    }
    match crate::pathsafe::symlink_target_in(bank.root(), link) {
        Some(target) if moved.contains_key(target.as_str()) => Err(format!(
            "{link} is a symbolic link to {target}, which would point nowhere after the \
             move; nothing is moved"
        )),
        _ => Ok(()),
    }
}

/// Why a path the bank has, but not as a note or a folder of notes,
/// cannot be moved: "no file of that name" would be untrue.
fn not_movable(bank: &Bank, path: &str) -> Option<String> {
    let problem = bank.problems.iter().find(|p| p.path == path)?;
    let what = match problem.kind {
        ProblemKind::SymlinkedFolder => "is a link to a folder, which the bank does not follow; \
             membank moves no link: move it by hand"
            .to_owned(),
        ProblemKind::NotRegular
        | ProblemKind::LinkOutside
        | ProblemKind::DanglingLink
        | ProblemKind::LinkLoop => format!(
            "{}; membank moves notes (Markdown files) only",
            problem.message
        ),
        _ => format!("cannot be read ({}); nothing is moved", problem.message),
    };
    Some(format!("{path}: {what}"))
}

/// Each moved file's old path with its new one.
type Moves = Vec<(String, String)>;

/// The files moved, each old path with its new one, and the files of a
/// moved folder that are not notes (they stay).
fn moves_of(
    bank: &Bank,
    files: &[String],
    from: &str,
    to: &str,
) -> Result<(Moves, Vec<String>), String> {
    // The normalising below drops a leading `/`, which would read an
    // absolute path as one inside the bank.
    let relative = |p: &str| {
        // Only line ends are trimmed: a name may end in a space (one
        // `check` asks to rename), and it must be given as it is.
        let p = p.trim_matches(['\n', '\r']);
        let absolute = p.starts_with(['/', '\\']) || p.get(1..2) == Some(":");
        crate::bank::normalize_rel_path(p)
            .filter(|p| !p.is_empty() && !absolute)
            .ok_or_else(|| {
                format!("{p}: is not a path inside the bank; give one such as 03_DOMAINS/Legal.md")
            })
    };
    let from_path = relative(from)?;
    let into_folder = to.trim_end().ends_with(['/', '\\']);
    let to_path = relative(to)?;
    let find = |wanted: &str| {
        let folded = fold(wanted);
        files.iter().find(|f| **f == wanted).or_else(|| {
            let mut same = files.iter().filter(|f| fold(f) == folded);
            match (same.next(), same.next()) {
                (Some(one), None) => Some(one),
                _ => None,
            }
        })
    };
    // A note may be named without its `.md`, as links name it, unless a
    // folder has that name.
    let is_a_folder = files
        .iter()
        .any(|f| f.starts_with(&format!("{from_path}/")));
    let file = find(&from_path).or_else(|| {
        (!is_a_folder)
            .then(|| find(&format!("{from_path}.md")))
            .flatten()
    });
    let mut left = Vec::new();
    let moves = if let Some(file) = file {
        let name = file.rsplit('/').next().unwrap_or(file);
        if !is_markdown(name) {
            return Err(format!(
                "{file}: is not a note; membank moves notes (Markdown files) only"
            ));
        }
        let target = if into_folder || is_folder(files, &to_path) {
            format!("{to_path}/{name}")
        } else {
            with_extension_of(file, &to_path)
        };
        vec![(file.clone(), target)]
    } else {
        let prefix = format!("{from_path}/");
        let (inside, others): (Vec<&String>, Vec<&String>) = files
            .iter()
            .filter(|f| f.starts_with(&prefix))
            .partition(|f| is_markdown(f));
        left = others.into_iter().cloned().collect();
        if inside.is_empty() {
            return Err(not_movable(bank, &from_path)
                .unwrap_or_else(|| format!("{from}: no file or folder of that name in the bank")));
        }
        let base = if into_folder {
            let name = from_path.rsplit('/').next().unwrap_or(&from_path);
            format!("{to_path}/{name}")
        } else {
            to_path.clone()
        };
        // A folder given its own path (or the folder it is in) is where it
        // is already: the same answer a file gets, not "into itself".
        if base == from_path {
            return Err(format!("{from}: already has that name; nothing to do"));
        }
        if base.starts_with(&prefix) {
            return Err(format!("{from}: a folder cannot be moved into itself"));
        }
        inside
            .into_iter()
            .map(|f| (f.clone(), format!("{base}/{}", &f[prefix.len()..])))
            .collect()
    };
    if moves.iter().all(|(a, b)| a == b) {
        return Err(format!("{from}: already has that name; nothing to do"));
    }
    for (old, new) in &moves {
        check_destination(bank, old, new)?;
    }
    Ok((moves, left))
}

fn is_folder(files: &[String], path: &str) -> bool {
    let prefix = format!("{path}/");
    Folder::from_dir_name(path).is_some() || files.iter().any(|f| f.starts_with(&prefix))
}

/// `to` with the extension of `file` when it was given without it.
fn with_extension_of(file: &str, to: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    match name.rsplit_once('.') {
        Some((_, ext)) if !fold(to).ends_with(&format!(".{}", fold(ext))) => {
            format!("{to}.{ext}")
        }
        _ => to.to_owned(),
    }
}

/// A new path must be one a note may have in a bank, in a folder of the
/// format, with a name a link can name.
fn check_destination(bank: &Bank, old: &str, new: &str) -> Result<(), String> {
    let safe = crate::pathsafe::validate(new).map_err(|r| format!("{new}: {}", r.reason))?;
    if old.starts_with("06_TEMPLATES/") {
        return Err(format!("{old}: membank never moves the prompt templates"));
    }
    // Obsidian's own rule: these characters end a name inside a link.
    let name = safe.file_name();
    if let Some(c) = name.chars().find(|c| "[]|#^\\".contains(*c)) {
        return Err(format!(
            "{new}: a name with “{c}” cannot be written in a link; choose another"
        ));
    }
    // A link's name is read trimmed: `[[ Legal]]` names `Legal`.
    if name.starts_with(char::is_whitespace) {
        return Err(format!(
            "{new}: a name starting with a space cannot be written in a link; choose another"
        ));
    }
    // A name the bank skips would make the note vanish from every
    // context and check, as `new` refuses too.
    let old_name = old.rsplit('/').next().unwrap_or(old);
    if crate::layout::skip_reason(name).is_some() && crate::layout::skip_reason(old_name).is_none()
    {
        return Err(format!(
            "{new}: a file name starting with “_” is reserved (as _EXAMPLE_ files are), so \
             the bank would skip the article; choose a name without it"
        ));
    }
    if crate::pathsafe::in_archive(new) && !crate::pathsafe::in_archive(old) {
        return Err(format!(
            "{new}: the inbox's archive holds compiled notes, which the bank does not read; \
             a note is archived when it is compiled"
        ));
    }
    // Where the write would land: never through a link, never outside.
    crate::pathsafe::resolve_in_bank(bank.root(), &safe)
        .map_err(|r| format!("{new}: {}", r.reason))?;
    if bank.root().join(new).exists() && fold(old) != fold(new) {
        return Err(format!("{new}: is taken; nothing is moved onto a file"));
    }
    Ok(())
}

/// A new path must not be taken, nor give a note a name another file
/// already answers to (its bare links would become ambiguous).
fn check_names(old: &[String], new: &[String], moved: &BTreeMap<&str, &str>) -> Result<(), String> {
    let name = |p: &str| fold(p.rsplit('/').next().unwrap_or(p));
    let staying: Vec<&String> = old
        .iter()
        .filter(|p| !moved.contains_key(p.as_str()))
        .collect();
    // Only a name this move makes can be taken: two files the bank has
    // already that differ only in case are `check`'s to report, and must
    // not block every rename in the bank.
    let mut holders: BTreeMap<String, usize> = BTreeMap::new();
    for p in new {
        *holders.entry(fold(p)).or_default() += 1;
    }
    for p in moved.values() {
        if holders.get(&fold(p)).is_some_and(|&n| n > 1) {
            // On a case-sensitive file system the path itself may be free
            // while a file staying differs from it in case only: "taken"
            // would be untrue, the clash is in the links.
            if let Some(other) = staying
                .iter()
                .find(|o| o.as_str() != *p && fold(o) == fold(p))
            {
                return Err(ambiguous(p, other));
            }
            return Err(format!("{p}: is taken; nothing is moved onto a file"));
        }
    }
    for (old_path, new_path) in moved {
        if name(old_path) == name(new_path) {
            continue;
        }
        if let Some(other) = staying.iter().find(|p| name(p) == name(new_path)) {
            return Err(ambiguous(new_path, other));
        }
    }
    Ok(())
}

/// Why `new_path` may not be made: `other`, which stays, answers to the
/// same bare link.
fn ambiguous(new_path: &str, other: &str) -> String {
    let n = new_path.rsplit('/').next().unwrap_or(new_path);
    format!(
        "{new_path}: {other} has that name already, so a link [[{}]] would become ambiguous; \
         choose another name",
        n.strip_suffix(".md").unwrap_or(n)
    )
}

fn read(bank: &Bank, rel: &str) -> Result<Vec<u8>, String> {
    bank.reader()
        .read(std::path::Path::new(rel))
        .map_err(|e| format!("{rel}: cannot be read ({e}); nothing is moved"))
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

fn utf8<'a>(path: &str, bytes: &'a [u8]) -> Result<&'a str, String> {
    std::str::from_utf8(bytes.strip_prefix(BOM).unwrap_or(bytes)).map_err(|_| {
        format!("{path}: is not UTF-8, so its links cannot be rewritten; `membank fix` saves it as UTF-8")
    })
}

fn with_bom(before: &[u8], text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 3);
    if before.starts_with(BOM) {
        out.extend_from_slice(BOM);
    }
    out.extend_from_slice(text.as_bytes());
    out
}

/// The rewritten file read back as the bank reads it: its frontmatter
/// still parses, and each link opens the file it opened before.
fn check_rewritten(
    article: &Article,
    new_path: &str,
    after: &[u8],
    files: &Files,
) -> Result<(), String> {
    let decoded = crate::text::decode(after)
        .map_err(|e| format!("{new_path}: the rewritten file would not be UTF-8 ({e})"))?;
    crate::secrets::refuse_each(&[("the file", &decoded.text)])
        .map_err(|reason| format!("{}: {reason}; it is not rewritten", article.rel_path))?;
    let reread = Article::parse(new_path.to_owned(), article.folder, decoded);
    let was_parsed = matches!(article.frontmatter, FrontmatterState::Parsed(_));
    if was_parsed && !matches!(reread.frontmatter, FrontmatterState::Parsed(_)) {
        return Err(format!(
            "{}: its frontmatter would not parse after the rewrite; nothing is moved",
            article.rel_path
        ));
    }
    if reread.links.len() != article.links.len() {
        return Err(format!(
            "{}: a rewritten link would change how the file is read; nothing is moved",
            article.rel_path
        ));
    }
    for (old, new) in article.links.iter().zip(&reread.links) {
        let before = files.before(old.target(), &article.rel_path);
        let after = files.after(new.target(), new_path);
        let kept = match (before, after) {
            (None, _) => true,
            (Some(b), Some(a)) => a.file == b.file && (!a.ambiguous || b.ambiguous),
            (Some(_), None) => false,
        };
        if !kept {
            return Err(format!(
                "{}:{}: {} could not be rewritten to open {} still; nothing is moved",
                article.rel_path,
                old.line,
                old.written(),
                before.map_or("", |b| files.new[b.file].as_str())
            ));
        }
    }
    Ok(())
}

/// Which values a renamed client or domain note's old name stands for.
pub(crate) fn value_keys(folder: Folder) -> &'static [&'static str] {
    match folder {
        Folder::Clients => &CLIENT_KEYS,
        Folder::Domains => &DOMAIN_KEYS,
        _ => &[],
    }
}
