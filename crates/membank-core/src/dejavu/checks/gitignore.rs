//! Whether git would ignore a path, from the project's `.gitignore` files
//! (the root one and any under `memory/`), with git's precedence: a deeper
//! file decides before a shallower one.

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::dejavu::project::Project;

pub struct Ignore {
    /// Deepest folder first.
    matchers: Vec<(String, Gitignore)>,
    root: std::path::PathBuf,
}

impl Ignore {
    pub fn new(project: &Project) -> Ignore {
        let mut matchers: Vec<(String, Gitignore)> = project
            .gitignores
            .iter()
            .filter_map(|(dir, text)| {
                let mut b = GitignoreBuilder::new(project.root.join(dir));
                for line in text.lines() {
                    // A malformed glob is skipped, as git skips it.
                    let _ = b.add_line(None, line);
                }
                b.build().ok().map(|g| (dir.clone(), g))
            })
            .collect();
        crate::shared_sort::sort_by_key(&mut matchers, |(dir, _)| {
            std::cmp::Reverse(dir.matches('/').count() + usize::from(!dir.is_empty()))
        });
        Ignore {
            matchers,
            root: project.root.clone(),
        }
    }

    /// Would git ignore the file at `path`? As in git, a file under an
    /// ignored folder stays ignored whatever a later `!pattern` says of the
    /// file: git never lists an excluded folder, so it cannot re-include
    /// anything inside it. The folders are decided first, outermost first.
    pub fn is_ignored(&self, path: &str) -> bool {
        let mut folder_end = 0;
        while let Some(k) = path[folder_end..].find('/') {
            folder_end += k;
            if self.decide(&path[..folder_end], true) == Some(true) {
                return true;
            }
            folder_end += 1;
        }
        self.decide(path, false) == Some(true)
    }

    /// What the deepest `.gitignore` with a say about `path` itself decides:
    /// `Some(true)` ignored, `Some(false)` re-included, `None` no rule.
    fn decide(&self, path: &str, is_dir: bool) -> Option<bool> {
        let abs = self.root.join(path);
        for (dir, g) in &self.matchers {
            if !dir.is_empty() && !path.starts_with(&format!("{dir}/")) {
                continue;
            }
            let m = g.matched(&abs, is_dir);
            if m.is_ignore() {
                return Some(true);
            }
            if m.is_whitelist() {
                return Some(false);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ignore(gitignores: &[(&str, &str)]) -> Ignore {
        let mut project = Project::default();
        project.root = std::path::PathBuf::from("/p");
        project.gitignores = gitignores
            .iter()
            .map(|(d, t)| ((*d).to_owned(), (*t).to_owned()))
            .collect();
        Ignore::new(&project)
    }

    /// `git check-ignore` answers these the same way.
    #[test]
    fn a_file_under_an_ignored_folder_cannot_be_re_included() {
        let i = ignore(&[("", "memory/private\n!memory/private/a.md\n")]);
        assert!(i.is_ignored("memory/private/a.md"));
        assert!(i.is_ignored("memory/private/b.md"));
        // Ignoring the folder's contents (not the folder) leaves it listed,
        // so a file in it can be re-included.
        let i = ignore(&[("", "memory/private/*\n!memory/private/a.md\n")]);
        assert!(!i.is_ignored("memory/private/a.md"));
        assert!(i.is_ignored("memory/private/b.md"));
        let i = ignore(&[("", "memory/private/\n"), ("memory", "!private/a.md\n")]);
        assert!(i.is_ignored("memory/private/a.md"));
        let i = ignore(&[("", "*.secret.*\n!memory/x.secret.md\n")]);
        assert!(!i.is_ignored("memory/x.secret.md"));
        assert!(!ignore(&[]).is_ignored("memory/private/a.md"));
    }
}
