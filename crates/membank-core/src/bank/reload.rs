//! Reading changed files again: in place, or into a new bank while the old
//! one stays in use (an interface keeps showing it until the new one is
//! ready).

use std::collections::HashSet;
use std::path::Path;

use rayon::prelude::*;

use super::walk::{classify_file, read_article};
use super::{Bank, Found, LoadProblem};
use crate::article::Article;

impl Bank {
    /// Re-read the given files (relative paths) after they changed on disk:
    /// added, edited or removed. Only those files are read again, on all
    /// cores; the rest of the bank is kept as it is.
    pub fn reload(&mut self, rel_paths: &[String]) {
        let changed = changed_set(rel_paths);
        self.articles
            .retain(|a| !changed.contains(a.rel_path.as_str()));
        self.merge_reread(&changed);
    }

    /// A copy of this bank with the given files read again, as
    /// [`Bank::reload`] would leave it; `self` is not changed. Costs a copy
    /// of the articles that did not change.
    pub fn reloaded(&self, rel_paths: &[String]) -> Bank {
        let changed = changed_set(rel_paths);
        let mut bank = Bank {
            root: self.root.clone(),
            options: self.options,
            reader: self.reader.clone(),
            articles: self
                .articles
                .par_iter()
                .filter(|a| !changed.contains(a.rel_path.as_str()))
                .cloned()
                .collect(),
            skipped: self.skipped.clone(),
            problems: self.problems.clone(),
            templates: self.templates.clone(),
            other_files: self.other_files.clone(),
            missing_folders: self.missing_folders.clone(),
            unknown_folders: self.unknown_folders.clone(),
            index: Default::default(),
            scoring: std::sync::OnceLock::new(),
        };
        bank.merge_reread(&changed);
        bank
    }

    /// Drop what was known about `changed` (articles are already gone),
    /// read those files again and put everything back in order.
    fn merge_reread(&mut self, changed: &HashSet<String>) {
        let gone = |p: &String| !changed.contains(p.as_str());
        self.problems.retain(|p| gone(&p.path));
        self.skipped.retain(|s| gone(&s.path));
        self.other_files.retain(gone);
        self.templates.retain(gone);
        let read: Vec<Result<Article, Found>> = changed
            .par_iter()
            .filter_map(|rel| self.read_again(rel))
            .collect();
        for r in read {
            match r {
                Ok(a) => self.articles.push(a),
                Err(Found::Article(..)) => {}
                Err(Found::Skipped(s)) => self.skipped.push(s),
                Err(Found::Template(t)) => self.templates.push(t),
                Err(Found::Other(o)) => self.other_files.push(o),
                Err(Found::Problem(p)) => self.problems.push(p),
            }
        }
        self.articles
            .par_sort_by(|a, b| (a.folder, &a.rel_path).cmp(&(b.folder, &b.rel_path)));
        crate::shared_sort::sort_by(&mut self.problems, |a, b| a.path.cmp(&b.path));
        crate::shared_sort::sort_by(&mut self.skipped, |a, b| a.path.cmp(&b.path));
        self.templates.sort();
        self.other_files.sort();
        self.rebuild_index();
    }

    /// One changed file as it is now: an article, something else the bank
    /// lists, or nothing when it is gone or is a folder.
    fn read_again(&self, rel: &str) -> Option<Result<Article, Found>> {
        let path = self.root.join(rel);
        // Not `is_file`: a FIFO or a link out must still be reported.
        match std::fs::symlink_metadata(&path) {
            Err(_) => return None,
            Ok(_) if path.is_dir() => return None,
            Ok(_) => {}
        }
        if let Err(e) = self.reader.check_inside(Path::new(rel)) {
            if e.is_not_found() {
                return None;
            }
            let problem = LoadProblem::from_read_error(rel.to_owned(), &e);
            return Some(Err(Found::Problem(problem)));
        }
        Some(match classify_file(&self.root, &path)? {
            Found::Article(rel, folder) => read_article(
                &self.reader,
                None,
                &path,
                false,
                rel,
                folder,
                &self.options,
                None,
            )
            .map_err(Found::Problem),
            other => Err(other),
        })
    }
}

fn changed_set(rel_paths: &[String]) -> HashSet<String> {
    rel_paths.iter().map(|r| r.replace('\\', "/")).collect()
}
