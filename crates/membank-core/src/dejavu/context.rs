//! What a model is given about a cue: the records the protocol would load
//! for its recall (nothing, the summary, or one to three records), never a
//! private one.

use super::Project;
use super::paths;
use super::recall::Recall;

/// What a model reads in place of a line of shared memory that names
/// private memory (a summary's link into it, an impression routing to it):
/// such a line says what private memory holds and where.
pub const PRIVATE_LINE: &str =
    "[line withheld: it names private memory, which is never sent to a model]";

/// How a sent record's withheld lines are told beside its path: "(2
/// lines withheld: they name private memory)"; empty for none.
pub fn withheld_lines_note(withheld_lines: &[(String, usize)], path: &str) -> String {
    match withheld_lines
        .iter()
        .find(|(p, _)| p == path)
        .map(|(_, n)| *n)
    {
        None | Some(0) => String::new(),
        Some(1) => " (1 line withheld: it names private memory)".to_owned(),
        Some(n) => format!(" ({n} lines withheld: they name private memory)"),
    }
}

/// The context for one cue, and what was left out and why.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecallContext {
    /// Project-relative paths, in the order given to the model.
    pub used: Vec<String>,
    /// Paths recall selected that were not given, with the reason.
    pub withheld: Vec<(String, &'static str)>,
    /// Paths given with some of their lines replaced by [`PRIVATE_LINE`],
    /// and how many: said as the whole records withheld are.
    pub withheld_lines: Vec<(String, usize)>,
    /// The records, each under a `### FILE: path` line.
    pub text: String,
}

pub fn for_recall(project: &Project, recall: &Recall) -> RecallContext {
    let mut ctx = RecallContext::default();
    for path in recall.would_load() {
        let Some(path) = paths::resolve_from("", &path) else {
            ctx.withheld.push((path, "outside the project"));
            continue;
        };
        if project.is_private(&path) {
            ctx.withheld
                .push((path, "private memory is never sent to a model"));
            continue;
        }
        match project.text(&path) {
            Some(text) => {
                let (text, replaced) = crate::text::replace_lines(
                    text,
                    &project.lines_naming_private(&path),
                    PRIVATE_LINE,
                );
                if replaced > 0 {
                    ctx.withheld_lines.push((path.clone(), replaced));
                }
                ctx.text
                    .push_str(&format!("### FILE: {path}\n{}\n\n", text.trim_end()));
                ctx.used.push(path);
            }
            None => ctx.withheld.push((path, "not found or not readable")),
        }
    }
    ctx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_records_are_never_given() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("memory/private")).unwrap();
        std::fs::write(root.join("memory/summary.md"), "# S\n").unwrap();
        std::fs::write(root.join("memory/private/key.md"), "secret plans\n").unwrap();
        std::fs::write(root.join("memory/open.md"), "open plans\n").unwrap();
        std::fs::write(
            root.join("memory/impressions.jsonl"),
            concat!(
                r#"{"id":"p","title":"plans","keywords":["plans"],"record_path":"memory/private/key.md","weight":1}"#,
                "\n",
                r#"{"id":"o","title":"plans","keywords":["plans"],"record_path":"memory/open.md","weight":1}"#,
                "\n"
            ),
        )
        .unwrap();
        let project = Project::load(root).unwrap();
        let r = crate::dejavu::recall(project.impressions.as_ref(), "plans");
        let ctx = for_recall(&project, &r);
        assert_eq!(ctx.used, vec!["memory/open.md"]);
        assert_eq!(ctx.withheld[0].0, "memory/private/key.md");
        assert!(!ctx.text.contains("secret"));
        assert!(ctx.text.contains("### FILE: memory/open.md\nopen plans"));
    }

    #[test]
    fn private_memory_in_any_letter_case_is_never_given() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("memory/Private")).unwrap();
        std::fs::create_dir_all(root.join("memory/decisions")).unwrap();
        std::fs::write(root.join("memory/summary.md"), "# S\n").unwrap();
        std::fs::write(root.join("memory/Private/plan.md"), "hidden plan\n").unwrap();
        std::fs::write(root.join("memory/decisions/y.SECRET.md"), "hidden key\n").unwrap();
        std::fs::write(
            root.join("memory/impressions.jsonl"),
            concat!(
                r#"{"id":"p","title":"plan","keywords":["plan"],"record_path":"memory/Private/plan.md","weight":1}"#,
                "\n",
                r#"{"id":"y","title":"plan","keywords":["plan"],"record_path":"memory/decisions/y.SECRET.md","weight":1}"#,
                "\n"
            ),
        )
        .unwrap();
        let project = Project::load(root).unwrap();
        let r = crate::dejavu::recall(project.impressions.as_ref(), "plan");
        let ctx = for_recall(&project, &r);
        assert!(
            ctx.used
                .iter()
                .all(|p| !p.contains("plan.md") && !p.contains("SECRET"))
        );
        assert!(!ctx.text.contains("hidden"), "{}", ctx.text);
        assert_eq!(ctx.withheld.len(), 2, "{:?}", ctx.withheld);
    }

    #[test]
    fn shared_lines_naming_private_memory_are_replaced_by_a_marker() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("memory/private")).unwrap();
        std::fs::write(
            root.join("memory/summary.md"),
            "# Summary\n\n- [Launch plan](./private/plan.md)\n- shared fact\n",
        )
        .unwrap();
        std::fs::write(root.join("memory/private/plan.md"), "hidden\n").unwrap();
        std::fs::write(
            root.join("memory/impressions.jsonl"),
            concat!(
                r#"{"id":"s","title":"summary","keywords":["fact"],"record_path":"memory/summary.md","weight":1}"#,
                "\n"
            ),
        )
        .unwrap();
        let project = Project::load(root).unwrap();
        let r = crate::dejavu::recall(project.impressions.as_ref(), "fact");
        let ctx = for_recall(&project, &r);
        assert!(
            ctx.used.contains(&"memory/summary.md".to_owned()),
            "{ctx:?}"
        );
        assert!(!ctx.text.contains("private/plan.md"), "{}", ctx.text);
        assert!(!ctx.text.contains("Launch plan"), "{}", ctx.text);
        assert!(ctx.text.contains(PRIVATE_LINE), "{}", ctx.text);
        assert!(ctx.text.contains("shared fact"), "{}", ctx.text);
        // Said, as a whole record withheld is.
        assert_eq!(
            ctx.withheld_lines,
            vec![("memory/summary.md".to_owned(), 1)]
        );
        assert_eq!(
            withheld_lines_note(&ctx.withheld_lines, "memory/summary.md"),
            " (1 line withheld: it names private memory)"
        );
        assert_eq!(withheld_lines_note(&ctx.withheld_lines, "memory/x.md"), "");
    }

    /// A committed link from a shared folder into private memory is
    /// private by where it leads, not by its own name.
    #[cfg(unix)]
    #[test]
    fn a_link_into_private_memory_is_private() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("memory/private")).unwrap();
        std::fs::create_dir_all(root.join("memory/decisions")).unwrap();
        std::fs::write(root.join("memory/summary.md"), "# S\n").unwrap();
        std::fs::write(root.join("memory/private/plans.md"), "secret plans\n").unwrap();
        std::os::unix::fs::symlink(
            "../private/plans.md",
            root.join("memory/decisions/alias.md"),
        )
        .unwrap();
        std::fs::write(
            root.join("memory/impressions.jsonl"),
            concat!(
                r#"{"id":"a","title":"plans","keywords":["plans"],"record_path":"memory/decisions/alias.md","weight":1}"#,
                "\n"
            ),
        )
        .unwrap();
        let project = Project::load(root).unwrap();
        assert!(project.is_private("memory/decisions/alias.md"));
        assert!(project.record("memory/decisions/alias.md").unwrap().private);
        let r = crate::dejavu::recall(project.impressions.as_ref(), "plans");
        let ctx = for_recall(&project, &r);
        assert!(ctx.used.is_empty(), "{:?}", ctx.used);
        assert_eq!(ctx.withheld[0].0, "memory/decisions/alias.md");
        assert!(!ctx.text.contains("secret"), "{}", ctx.text);
    }
}
