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

    pub fn is_ignored(&self, path: &str) -> bool {
        let abs = self.root.join(path);
        for (dir, g) in &self.matchers {
            if !dir.is_empty() && !path.starts_with(&format!("{dir}/")) {
                continue;
            }
            let m = g.matched_path_or_any_parents(&abs, false);
            if m.is_ignore() {
                return true;
            }
            if m.is_whitelist() {
                return false;
            }
        }
        false
    }
}
