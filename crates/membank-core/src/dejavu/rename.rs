//! Renaming or moving a Deja Vu record, with everything that names it by
//! path following: relative Markdown links in every Markdown file of the
//! project (the index and the summary included), `supersedes` and
//! `superseded_by` values, and `record_path` in `impressions.jsonl`. Ids
//! do not change, so what names a record by id stays. The moved record's
//! own relative links are rewritten from its new folder.
//!
//! Nothing is written here: the plan is fixes for
//! [`crate::transaction::Transaction::commit_fixes`] (a project's
//! transaction), which refuses a file changed since.

use std::ops::Range;

use crate::dejavu::project::Project;
use crate::dejavu::writeback::target::{self, RECORD_FOLDERS, Target};
use crate::dejavu::{IMPRESSIONS_PATH, INDEX_PATH, SUMMARY_PATH, paths};
use crate::fix::{Action, FileFix};
use crate::rename::{CODE, links, values};
use crate::wikilink::{self, LinkKind};

/// The keys whose values name a record by its path.
const PATH_KEYS: [&str; 2] = ["supersedes", "superseded_by"];

/// The plan to rename the record `from` to `to` (project-relative paths;
/// a `to` ending in `/` is a folder it moves into, `.md` is added when
/// missing). `Err` says why it may not be done.
pub fn plan(project: &Project, from: &str, to: &str) -> Result<Vec<FileFix>, String> {
    let from = from.trim().trim_start_matches("./");
    let record = project
        .records
        .iter()
        .find(|r| r.path == from)
        .ok_or_else(|| format!("{from}: no record of that path in the project"))?;
    if record.path == SUMMARY_PATH || record.path == INDEX_PATH {
        return Err(format!(
            "{from}: the summary and the index keep their names"
        ));
    }
    if paths::is_private(from) {
        return Err(format!(
            "{from}: is private memory; membank does not move it"
        ));
    }
    let to = destination(from, to.trim())?;
    // The write follows no link; said now, in the plan, rather than by a
    // commit that could only ever fail.
    writable(project, from)?;
    writable(project, &to)?;
    if project
        .files
        .iter()
        .any(|f| f.path.eq_ignore_ascii_case(&to))
    {
        return Err(format!("{to}: is taken; nothing is moved onto a file"));
    }
    let mut fixes = Vec::new();
    for (path, text) in &project.texts {
        let is_moved = path == from;
        let markdown = crate::layout::is_markdown(path);
        if !markdown && path != IMPRESSIONS_PATH {
            continue;
        }
        let new_path = if is_moved { to.as_str() } else { path.as_str() };
        let edits = if markdown {
            let mut edits = link_edits(text, path, new_path, from, &to, is_moved);
            edits.extend(path_value_edits(text, from, &to));
            edits
        } else {
            route_edits(text, from, &to)
        };
        if edits.is_empty() && !is_moved {
            continue;
        }
        if project.not_utf8.contains(path) && !edits.is_empty() {
            return Err(format!(
                "{path}: is not UTF-8, so what names {from} in it cannot be rewritten"
            ));
        }
        // A private file is named to no one who withholds private memory
        // (the MCP server refuses its rewrite by count); a link it is or
        // has on its way is refused when it is written.
        if !is_moved && !project.is_private(path) {
            writable(project, path)?;
        }
        let before = read(project, path)?;
        let mut after_text = String::clone(text);
        let mut notes = Vec::new();
        let mut edits = edits;
        crate::shared_sort::sort_by_key(&mut edits, |(r, _)| std::cmp::Reverse(r.start));
        for (range, new) in edits {
            let line = crate::text::line_of(text, range.start);
            notes.push(format!(
                "line {line}: {} becomes {new}",
                &text[range.clone()]
            ));
            after_text.replace_range(range, &new);
        }
        notes.reverse();
        let after = match before.starts_with(b"\xEF\xBB\xBF") {
            true => [b"\xEF\xBB\xBF".as_slice(), after_text.as_bytes()].concat(),
            false => after_text.into_bytes(),
        };
        if is_moved {
            notes.insert(0, format!("moved to {to}"));
        }
        fixes.push(FileFix {
            path: path.clone(),
            codes: vec![CODE],
            notes,
            action: if is_moved {
                Action::Move {
                    to: to.clone(),
                    before,
                    after,
                }
            } else {
                Action::Change { before, after }
            },
        });
    }
    Ok(fixes)
}

/// Where the record goes, checked against the layout's write rules: a
/// Markdown file directly in one of the record folders.
fn destination(from: &str, to: &str) -> Result<String, String> {
    let name = from.rsplit('/').next().unwrap_or(from);
    let to = to.trim_start_matches("./");
    let to = if to.ends_with('/') {
        format!("{to}{name}")
    } else if crate::layout::is_markdown(to) {
        to.to_owned()
    } else {
        format!("{to}.md")
    };
    if to == from {
        return Err(format!("{from}: already has that name; nothing to do"));
    }
    match target::target(&to) {
        Ok(Target::Record(rel)) if RECORD_FOLDERS.iter().any(|f| rel.starts_with(f)) => Ok(rel),
        Ok(_) => Err(format!(
            "{to}: a record goes directly in one of {}",
            RECORD_FOLDERS.join(", ")
        )),
        Err(reason) => Err(format!("{to}: {reason}")),
    }
}

/// `rel` may be written (or moved away): no symbolic link on its way, a
/// regular file if it exists.
fn writable(project: &Project, rel: &str) -> Result<(), String> {
    target::check_on_disk(&project.root, rel).map_err(|reason| match reason.starts_with(rel) {
        true => format!("{reason}; nothing is moved"),
        false => format!("{rel}: {reason}; nothing is moved"),
    })
}

fn read(project: &Project, rel: &str) -> Result<Vec<u8>, String> {
    let max = crate::safe_read::user_policy().max_file_bytes;
    crate::safe_read::read_regular(&project.root.join(rel), max)
        .map_err(|e| format!("{rel}: cannot be read ({e}); nothing is moved"))
}

/// The Markdown links of `text` (the file at `path`, to be at `new_path`)
/// that must change: those to `from`, and, in the moved record, every
/// relative link, which now starts from another folder.
fn link_edits(
    text: &str,
    path: &str,
    new_path: &str,
    from: &str,
    to: &str,
    is_moved: bool,
) -> Vec<(Range<usize>, String)> {
    let (_, body_start) = links::frontmatter(text);
    let mut edits = Vec::new();
    for l in wikilink::extract_markdown(&text[body_start..]) {
        if l.kind != LinkKind::Markdown {
            continue;
        }
        let whole = body_start + l.span.start..body_start + l.span.end;
        let Some(resolved) = paths::resolve_from(paths::parent(path), &l.target) else {
            continue;
        };
        let target = if resolved == from {
            to
        } else {
            resolved.as_str()
        };
        if resolved != from && !is_moved {
            continue;
        }
        let Some(name) = links::name_range(text, &whole, LinkKind::Markdown) else {
            continue;
        };
        let mut new = paths::relative_link(paths::parent(new_path), target);
        // `decisions/x.md` stays without `./`; `./` and `../` links stay
        // explicitly relative.
        if !text[name.clone()].starts_with('.') {
            new = new.strip_prefix("./").map(str::to_owned).unwrap_or(new);
        }
        let new = links::encode(&new);
        if text[name.clone()] != new {
            edits.push((name, new));
        }
    }
    edits
}

/// `supersedes: memory/decisions/old.md` (or a list of paths) naming
/// `from` in the frontmatter.
fn path_value_edits(text: &str, from: &str, to: &str) -> Vec<(Range<usize>, String)> {
    let (Some(yaml), _) = links::frontmatter(text) else {
        return Vec::new();
    };
    let mut edits = Vec::new();
    let mut key: Option<&str> = None;
    let mut at = yaml.start;
    for line in text[yaml.clone()].split_inclusive('\n') {
        let start = at;
        at += line.len();
        let bare = line.trim_end_matches(['\n', '\r']);
        let value = match bare.trim_start().strip_prefix("- ") {
            Some(rest) if key.is_some() => Some((start + bare.len() - rest.len(), rest)),
            _ if !bare.starts_with([' ', '\t', '-']) => bare.split_once(':').map(|(k, rest)| {
                key = Some(k.trim());
                (start + k.len() + 1, rest)
            }),
            _ => None,
        };
        let (Some(k), Some((offset, value))) = (key, value) else {
            continue;
        };
        if !PATH_KEYS.contains(&k) {
            continue;
        }
        for token in values::scalars(value) {
            let written = &value[token.clone()];
            let quoted = written.len() >= 2
                && (written.starts_with('"') || written.starts_with('\''))
                && written.ends_with(&written[..1]);
            let (inner, shift) = match quoted {
                true => (&written[1..written.len() - 1], 1),
                false => (written, 0),
            };
            if inner.trim_start_matches("./") == from {
                let s = offset + token.start + shift;
                edits.push((s..s + inner.len(), to.to_owned()));
            }
        }
    }
    edits
}

/// The `record_path` of each impression line that routes to `from`,
/// however it is written (`./memory/…` leads there too); a route written
/// with `./` keeps it.
fn route_edits(text: &str, from: &str, to: &str) -> Vec<(Range<usize>, String)> {
    let mut edits = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let written = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.get("record_path")?.as_str().map(str::to_owned))
            .filter(|p| p == from || super::paths::resolve_from("", p).as_deref() == Some(from));
        let Some(written) = written else {
            continue;
        };
        let new_route = match written.strip_prefix("./") {
            Some(_) => format!("./{to}"),
            None => to.to_owned(),
        };
        let (Ok(old), Ok(new)) = (
            serde_json::to_string(&written),
            serde_json::to_string(&new_route),
        ) else {
            continue;
        };
        let Some(key) = line.find("\"record_path\"") else {
            continue;
        };
        let after_key = key + "\"record_path\"".len();
        if let Some(i) = line[after_key..].find(&old) {
            let s = start + after_key + i;
            edits.push((s..s + old.len(), new));
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::Duration;

    use crate::transaction::{Kind, Transaction};

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let m = dir.path().join("memory");
        for f in ["decisions", "open-loops", "context", "events"] {
            fs::create_dir_all(m.join(f)).unwrap();
        }
        fs::write(
            m.join("index.md"),
            "# Memory Index\n\n- [Sync](./decisions/sync.md)\n- [Old](decisions/old.md) \
             — superseded by [Sync](./decisions/sync.md)\n",
        )
        .unwrap();
        fs::write(
            m.join("summary.md"),
            "# Summary\n\nSee [sync](decisions/sync.md#why).\n",
        )
        .unwrap();
        fs::write(
            m.join("decisions/sync.md"),
            "---\nid: decision-sync\ntitle: Sync\nstatus: active\nscope: project:x\n\
             updated: 2026-05-16\nsupersedes: memory/decisions/old.md\n---\n# Sync\n\n\
             Replaces [old](./old.md); see [ctx](../context/ctx.md).\n",
        )
        .unwrap();
        fs::write(
            m.join("decisions/old.md"),
            "---\nid: decision-old\ntitle: Old\nstatus: superseded\nscope: project:x\n\
             updated: 2026-03-02\nsuperseded_by: \"memory/decisions/sync.md\"\n---\n# Old\n\n\
             Now [sync](./sync.md).\n",
        )
        .unwrap();
        fs::write(
            m.join("context/ctx.md"),
            "# Ctx\n\n[s](../decisions/sync.md)\n",
        )
        .unwrap();
        fs::write(
            m.join("impressions.jsonl"),
            "{\"id\":\"decision-sync\",\"record_path\":\"memory/decisions/sync.md\",\"x\":1}\n\
             {\"id\":\"decision-old\",\"record_path\":\"memory/decisions/old.md\"}\n\
             {\"id\":\"decision-sync-dot\",\"record_path\":\"./memory/decisions/sync.md\"}\n",
        )
        .unwrap();
        dir
    }

    fn read(dir: &tempfile::TempDir, rel: &str) -> String {
        fs::read_to_string(dir.path().join(rel)).unwrap()
    }

    #[test]
    fn a_record_renamed_takes_its_links_routes_and_supersede_values_along() {
        let dir = project();
        let p = Project::load_root(dir.path().to_path_buf());
        let fixes = plan(&p, "memory/decisions/sync.md", "memory/context/server-sync").unwrap();
        let tx = Transaction::begin(dir.path(), Kind::Project, Duration::ZERO, || {}).unwrap();
        tx.commit_fixes(&fixes).unwrap();
        assert!(!dir.path().join("memory/decisions/sync.md").exists());
        assert_eq!(
            read(&dir, "memory/index.md"),
            "# Memory Index\n\n- [Sync](./context/server-sync.md)\n- [Old](decisions/old.md) \
             — superseded by [Sync](./context/server-sync.md)\n"
        );
        assert_eq!(
            read(&dir, "memory/summary.md"),
            "# Summary\n\nSee [sync](context/server-sync.md#why).\n"
        );
        assert_eq!(
            read(&dir, "memory/decisions/old.md"),
            "---\nid: decision-old\ntitle: Old\nstatus: superseded\nscope: project:x\n\
             updated: 2026-03-02\nsuperseded_by: \"memory/context/server-sync.md\"\n---\n# Old\n\n\
             Now [sync](../context/server-sync.md).\n"
        );
        // Its own links start from its new folder.
        assert_eq!(
            read(&dir, "memory/context/server-sync.md"),
            "---\nid: decision-sync\ntitle: Sync\nstatus: active\nscope: project:x\n\
             updated: 2026-05-16\nsupersedes: memory/decisions/old.md\n---\n# Sync\n\n\
             Replaces [old](../decisions/old.md); see [ctx](./ctx.md).\n"
        );
        assert_eq!(
            read(&dir, "memory/context/ctx.md"),
            "# Ctx\n\n[s](./server-sync.md)\n"
        );
        assert_eq!(
            read(&dir, "memory/impressions.jsonl"),
            "{\"id\":\"decision-sync\",\"record_path\":\"memory/context/server-sync.md\",\"x\":1}\n\
             {\"id\":\"decision-old\",\"record_path\":\"memory/decisions/old.md\"}\n\
             {\"id\":\"decision-sync-dot\",\"record_path\":\"./memory/context/server-sync.md\"}\n",
            "a route written ./memory/… follows the record and keeps its ./"
        );
    }

    #[test]
    fn the_superseded_side_follows_too_and_bad_targets_are_refused() {
        let dir = project();
        let p = Project::load_root(dir.path().to_path_buf());
        let fixes = plan(&p, "memory/decisions/old.md", "memory/decisions/local").unwrap();
        let sync = fixes
            .iter()
            .find(|f| f.path == "memory/decisions/sync.md")
            .expect("sync.md changes");
        let Action::Change { after, .. } = &sync.action else {
            panic!("not a change")
        };
        let after = String::from_utf8(after.clone()).unwrap();
        assert!(
            after.contains("supersedes: memory/decisions/local.md\n"),
            "{after}"
        );
        assert!(after.contains("[old](./local.md)"), "{after}");
        for (to, why) in [
            ("memory/decisions/sync.md", "taken"),
            ("memory/private/x.md", "private"),
            ("notes/x.md", "outside memory/"),
        ] {
            let err = plan(&p, "memory/decisions/old.md", to).unwrap_err();
            assert!(err.contains(why), "{to}: {err}");
        }
        let err = plan(&p, "memory/index.md", "memory/context/i.md").unwrap_err();
        assert!(err.contains("keep their names"), "{err}");
    }
}
