//! An approved term translated differently by several articles: the user
//! chooses the translation to keep, and every approved article giving
//! another becomes `status: rejected`. Only that value changes.

use crate::article::Article;
use crate::bank::Bank;
use crate::layout::Folder;
use crate::wikilink::fold;

use super::{Action, FileFix, check_result, edit, read};

/// The source term and language pair an approved term article is about,
/// and its translation (as the `term-conflict` check groups them).
fn term(a: &Article) -> Option<(String, String, String, &str)> {
    if a.folder != Folder::Terminology || a.meta.status.as_deref() != Some("approved") {
        return None;
    }
    let m = &a.meta;
    let (Some(src), Some(target), Some(sl), Some(tl)) = (
        m.term_source(),
        m.term_target(),
        &m.source_lang,
        &m.target_lang,
    ) else {
        return None;
    };
    Some((
        fold(src.trim()),
        sl.trim().to_ascii_lowercase(),
        tl.trim().to_ascii_lowercase(),
        target.trim(),
    ))
}

/// The approved articles about the same term as `keep` whose translation
/// differs from its, each set to `status: rejected`; `keep` and those that
/// agree with it stay as they are.
pub fn keep_translation(bank: &Bank, keep: &str) -> Result<Vec<FileFix>, String> {
    let id = bank
        .find(keep)
        .ok_or_else(|| format!("{keep} is not an article of the bank"))?;
    let kept_article = bank.article(id);
    let (src, sl, tl, kept) =
        term(kept_article).ok_or_else(|| format!("{keep} is not an approved term"))?;
    let mut fixes = Vec::new();
    for other in bank.articles() {
        let Some((o_src, o_sl, o_tl, o_target)) = term(other) else {
            continue;
        };
        if o_src != src || o_sl != sl || o_tl != tl || o_target == kept {
            continue;
        }
        // Another client's own translation is no conflict to settle.
        if !crate::terms::clients_meet(folded_clients(kept_article), folded_clients(other)) {
            continue;
        }
        fixes.push(reject(bank, other, kept)?);
    }
    if fixes.is_empty() {
        return Err(format!(
            "no approved article translates the term of {keep} otherwise"
        ));
    }
    Ok(fixes)
}

fn folded_clients(a: &Article) -> impl Iterator<Item = &str> + Clone {
    a.meta.clients.iter().map(|c| &*c.folded)
}

/// `status: rejected` on an approved article, as a fix of its bytes.
fn reject(bank: &Bank, a: &Article, kept: &str) -> Result<FileFix, String> {
    let path = a.rel_path.as_str();
    let before = read(bank, path)?;
    let bom = before.starts_with(b"\xEF\xBB\xBF");
    let body = if bom { &before[3..] } else { &before[..] };
    let text = std::str::from_utf8(body)
        .map_err(|_| format!("{path} is not UTF-8: it must be saved as UTF-8 first"))?;
    let line = status_line(text).ok_or_else(|| format!("{path}: no status line was found"))?;
    let (new, _, _) = edit::replace_value(text, line, &["status"], |_| Ok("rejected".into()))?;
    let mut after = Vec::with_capacity(new.len() + 3);
    if bom {
        after.extend_from_slice(b"\xEF\xBB\xBF");
    }
    after.extend_from_slice(new.as_bytes());
    check_result(path, &after, Some(a)).map_err(|e| format!("{path}: {e}"))?;
    let theirs = a.meta.term_target().unwrap_or("").trim();
    Ok(FileFix {
        path: path.to_owned(),
        codes: vec!["term-conflict"],
        notes: vec![format!(
            "line {line}: status becomes “rejected” (“{theirs}” gives way to “{kept}”)"
        )],
        action: Action::Change { before, after },
    })
}

/// The 1-based line of the frontmatter's top-level `status:` key.
fn status_line(text: &str) -> Option<usize> {
    let mut lines = text.lines().enumerate();
    let (_, first) = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    for (i, l) in lines {
        if l.trim_end() == "---" {
            return None;
        }
        if edit::key_value(l).is_some_and(|kv| kv.key == "status") {
            return Some(i + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term_file(root: &std::path::Path, name: &str, target: &str, status: &str) {
        std::fs::write(
            root.join(format!("02_TERMINOLOGY/{name}.md")),
            format!(
                "---\nterm_source: \"contract\"\nterm_target: \"{target}\"\nsource_lang: en\n\
                 target_lang: nl\nstatus: {status} # reviewed\n---\n# {name}\n"
            ),
        )
        .unwrap();
    }

    #[test]
    fn the_other_translations_are_rejected_and_nothing_else_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("02_TERMINOLOGY")).unwrap();
        term_file(root, "a", "overeenkomst", "approved");
        term_file(root, "b", "contract", "approved");
        term_file(root, "c", "overeenkomst", "approved");
        term_file(root, "d", "verbintenis", "proposed");
        let bank = Bank::load(root).unwrap();
        let fixes = keep_translation(&bank, "02_TERMINOLOGY/a.md").unwrap();
        assert_eq!(fixes.len(), 1, "{fixes:?}");
        assert_eq!(fixes[0].path, "02_TERMINOLOGY/b.md");
        let Action::Change { before, after } = &fixes[0].action else {
            panic!("{:?}", fixes[0].action);
        };
        assert_eq!(
            String::from_utf8(after.clone()).unwrap(),
            String::from_utf8(before.clone())
                .unwrap()
                .replace("status: approved # reviewed", "status: rejected # reviewed")
        );
        assert!(keep_translation(&bank, "02_TERMINOLOGY/d.md").is_err());
    }

    #[test]
    fn another_clients_translation_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("02_TERMINOLOGY")).unwrap();
        let with_client = |name: &str, target: &str, client: &str| {
            std::fs::write(
                root.join(format!("02_TERMINOLOGY/{name}.md")),
                format!(
                    "---\nterm_source: contract\nterm_target: {target}\nsource_lang: en\n\
                     target_lang: nl\nclients: [\"[[{client}]]\"]\nstatus: approved\n---\n"
                ),
            )
            .unwrap();
        };
        with_client("acme", "overeenkomst", "Acme");
        with_client("acme-too", "contract", "acme");
        with_client("beta", "verbintenis", "Beta");
        term_file(root, "everyone", "akkoord", "approved");
        let bank = Bank::load(root).unwrap();
        let fixes = keep_translation(&bank, "02_TERMINOLOGY/acme.md").unwrap();
        let paths: Vec<&str> = fixes.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            ["02_TERMINOLOGY/acme-too.md", "02_TERMINOLOGY/everyone.md"]
        );
    }
}
