//! The bank's folders and the files that are not articles: missing and
//! unknown folders, leftovers, non-Markdown files, skipped files and templates.

use crate::bank::Bank;
use crate::layout::{Folder, SkipReason};
use crate::templates::Agent;

use super::{Finding, Severity, finding};

pub(super) fn folder_findings(bank: &Bank, out: &mut Vec<Finding>) {
    for folder in &bank.missing_folders {
        out.push(finding(
            "missing-folder",
            Severity::Warning,
            folder.dir_name(),
            None,
            format!(
                "The folder {} is missing. The format defines seven numbered folders and some \
                 tools expect all of them. Create it (it may stay empty).",
                folder.dir_name()
            ),
        ));
    }
    for name in &bank.unknown_folders {
        out.push(finding(
            "unknown-folder",
            Severity::Info,
            name,
            None,
            "This top-level folder is not part of the memory bank format. It is allowed and \
             ignored: nothing in it is used for context."
                .into(),
        ));
    }
}

pub(super) fn file_findings(bank: &Bank, out: &mut Vec<Finding>) {
    for path in &bank.other_files {
        let folder = path.split('/').next().and_then(Folder::from_dir_name);
        if path.ends_with(".tmp") {
            out.push(finding(
                "tmp-leftover",
                Severity::Warning,
                path,
                None,
                "A temporary file left behind when a program was stopped while saving an \
                 article. The article itself is intact. Delete this file once you have checked \
                 it holds nothing you need."
                    .into(),
            ));
        } else if folder.is_some_and(Folder::is_content) {
            out.push(finding(
                "not-markdown",
                Severity::Info,
                path,
                None,
                "Only .md files are articles; this file is ignored. Rename it to .md if it \
                 should be used, or move it out of the bank."
                    .into(),
            ));
        }
    }
    for s in &bank.skipped {
        if s.reason == SkipReason::Reserved {
            out.push(finding(
                "skipped-file",
                Severity::Info,
                &s.path,
                None,
                "File names starting with “_” are reserved, so this file is skipped and never \
                 used for context. Remove the leading “_” if it is meant to be an article."
                    .into(),
            ));
        }
    }
    for t in &bank.templates {
        if let Some(f) = template_finding(t) {
            out.push(f);
        }
    }
}

/// Does an agent pick up this `06_TEMPLATES` file as its override (§13)?
fn template_finding(rel: &str) -> Option<Finding> {
    let name = rel.strip_prefix("06_TEMPLATES/").unwrap_or(rel);
    let expected: Vec<&str> = Agent::ALL.iter().map(|a| a.file_name()).collect();
    let agent = Agent::ALL
        .into_iter()
        .find(|a| a.override_names().contains(&name));
    match agent {
        Some(a) if a.file_name() == name => None,
        Some(a) => Some(finding(
            "renamed-template",
            Severity::Info,
            rel,
            None,
            format!(
                "{name} is the template name from format version 1.0. membank still uses it, \
                 but current tools look for {}. Rename the file.",
                a.file_name()
            ),
        )),
        None => Some(finding(
            "unknown-template",
            Severity::Warning,
            rel,
            None,
            format!(
                "No agent uses a template at this place, so the file has no effect. An \
                 override must sit directly in 06_TEMPLATES with one of these names: {}. \
                 Check the spelling.",
                expected.join(", ")
            ),
        )),
    }
}
