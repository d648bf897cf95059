//! The bank's folders and the files that are not articles: missing and
//! unknown folders, leftovers, non-Markdown files, skipped files and templates.

use std::collections::HashMap;

use crate::bank::{Bank, Resolution};
use crate::layout::{Folder, SkipReason};
use crate::templates::Agent;

use super::{Finding, Severity, finding};

pub(super) fn folder_findings(bank: &Bank, out: &mut Vec<Finding>) {
    for folder in &bank.missing_folders {
        let name = folder.dir_name();
        // A file (or a link) of the folder's name: the folder cannot be
        // made until it is moved, so that is the advice.
        let what_to_do = match std::fs::symlink_metadata(bank.root().join(name)) {
            Ok(_) => format!(
                "A file named {name} is in its place: move or rename the file, then create \
                 the folder."
            ),
            Err(_) => "Create it (it may stay empty).".to_owned(),
        };
        out.push(finding(
            "missing-folder",
            Severity::Warning,
            name,
            None,
            format!(
                "The folder {name} is missing. The format defines seven numbered folders and \
                 some tools expect all of them. {what_to_do}"
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
    file_findings_linked(bank, &|| linked_files(bank), out);
}

/// [`file_findings`], where `linked` gives each file some article links
/// to with the first article that does.
pub(super) fn file_findings_linked<'a>(
    bank: &'a Bank,
    linked: &dyn Fn() -> HashMap<&'a str, &'a str>,
    out: &mut Vec<Finding>,
) {
    // Finding who links to an attachment visits every link: only done when
    // there is one.
    let linked_once = std::cell::OnceCell::new();
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
            let message = match linked_once.get_or_init(linked).get(path.as_str()) {
                Some(from) => format!(
                    "An attachment that “{from}” links to or embeds: keep it where it is. \
                     membank does not read it, so its content is never part of a context; \
                     put what a translator must know into an article."
                ),
                None => "Only .md files are articles, and nothing links to this file, so it \
                         is not used. Rename it to .md if it is meant to be an article; if it is \
                         an attachment, link to it from the article it belongs to."
                    .into(),
            };
            out.push(finding("not-markdown", Severity::Info, path, None, message));
        }
    }
    for s in &bank.skipped {
        if s.reason == SkipReason::NotUnicode {
            out.push(finding(
                "skipped-file",
                Severity::Warning,
                &s.path,
                None,
                "This file's name is not valid Unicode, so membank cannot name it: it is \
                 skipped, never shown, checked or sent to a model (the name shows “�” where \
                 its bytes are). Rename it in a file manager or a shell."
                    .into(),
            ));
        }
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
        if let Some(f) = template_finding(t).or_else(|| unreadable_template(bank, t)) {
            out.push(f);
        }
    }
}

/// An agent's override (§13) the agent cannot use: not a regular file, a
/// link out of the bank, over the size cap, not UTF-8. The agent then
/// takes its bundled template, and only its own run said why.
fn unreadable_template(bank: &Bank, rel: &str) -> Option<Finding> {
    use crate::safe_read::ReadError;
    let (code, severity, why) = match bank.reader().read(std::path::Path::new(rel)) {
        Ok(bytes) => match crate::text::decode(&bytes) {
            Ok(_) => return None,
            Err(e) => ("not-utf8", Severity::Error, e.to_string()),
        },
        Err(e) if e.is_not_found() => return None,
        Err(e) => {
            let (code, severity) = match &e {
                ReadError::NotRegular { .. } => ("not-a-file", Severity::Error),
                ReadError::TooLarge { .. } => ("oversized-file", Severity::Error),
                ReadError::LinkLeavesRoot { .. } => ("link-outside-bank", Severity::Warning),
                _ => ("unreadable-file", Severity::Error),
            };
            (code, severity, e.to_string())
        }
    };
    Some(finding(
        code,
        severity,
        rel,
        None,
        format!(
            "This agent template override cannot be used ({why}), so the agent ignores it \
             and works from its bundled template. Make it a regular UTF-8 file in the bank, \
             or remove it."
        ),
    ))
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

/// Files that are not articles but that some article links to or embeds,
/// each with the first article that does.
fn linked_files(bank: &Bank) -> HashMap<&str, &str> {
    let mut linked = HashMap::new();
    for (id, a) in bank.articles().iter().enumerate() {
        for (_, resolution) in bank.outgoing(id) {
            if let Resolution::File(i) = resolution {
                linked
                    .entry(bank.link_file(i))
                    .or_insert(a.rel_path.as_str());
            }
        }
    }
    linked
}
