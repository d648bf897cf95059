//! The terminology check of a translated file, started from the Health
//! pane or `membank PATH --qa FILE`: the file is read through the core's
//! bounded reader and checked on a worker thread, and the report comes back
//! as a message; the interface's thread only shows it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::app::{App, Msg, Pane};
use super::jobs::{self, Ran};
use super::panes::qa::QaView;
use super::update::update;
use membank_core::bank::Bank;
use membank_core::memory::Memory;
use membank_core::terms::qa::{self, JobRefused, QaReport};
use membank_core::terms::{self, Filter, MAX_INPUT_BYTES, bilingual};

/// A check's report, with what it was checked for.
#[derive(Debug)]
pub struct QaOutput {
    /// The file checked, without the pair typed after its name.
    pub file: PathBuf,
    pub client: Option<String>,
    pub report: QaReport,
}

/// A check's report, or why there is none.
#[derive(Debug)]
pub struct TermsChecked(pub Result<QaOutput, String>);

impl App {
    /// Check `file` against the bank's terms (for the Context pane's
    /// client, when one is set) and show the report in the Health pane.
    pub fn check_terms(&mut self, file: PathBuf) {
        let health = &mut self.panes.health;
        let generation = health.qa.as_ref().map_or(0, |v| v.generation) + 1;
        health.qa = Some(QaView::running(file, generation));
        self.focus_pane(Pane::Health);
        self.dirty = true;
        if crate::layouts::is_unread(&*self.memory) {
            // Started with the interface: the bank arrives first.
            if let Some(view) = &mut self.panes.health.qa {
                view.waiting = true;
            }
            return;
        }
        self.start_term_check();
    }

    /// The check waiting for the memory to be read, now that it is.
    pub(super) fn resume_term_check(&mut self) {
        if self.panes.health.qa.as_ref().is_some_and(|v| v.waiting) {
            self.start_term_check();
        }
    }

    fn start_term_check(&mut self) {
        let Some(view) = &mut self.panes.health.qa else {
            return;
        };
        view.waiting = false;
        let (file, generation) = (view.file.clone(), view.generation);
        let memory = Arc::clone(&self.memory);
        let client = self.panes.context.query().client;
        let ran = jobs::run(self.background.as_ref(), "membank-qa", move || {
            let checked = check(&*memory, &file, client);
            Msg::TermsChecked {
                generation,
                checked: Box::new(TermsChecked(checked)),
            }
        });
        match ran {
            Ran::Now(msg) => update(self, msg),
            Ran::Started => {}
            Ran::NotStarted(e) => {
                self.terms_checked(generation, Err(format!("could not start the check: {e}")))
            }
        }
    }

    /// A check's report arrived: shown unless a later check was asked for.
    pub(super) fn terms_checked(&mut self, generation: u64, checked: Result<QaOutput, String>) {
        let height = self.height_of(Pane::Health);
        let Some(view) = &mut self.panes.health.qa else {
            return;
        };
        if view.generation != generation {
            return;
        }
        if let Ok(out) = &checked {
            let r = &out.report;
            // "0 findings" alone would read as a clean job.
            self.status.info(if r.checked == 0 && r.segments > 0 {
                format!(
                    "nothing was checked: none of {} has a confirmed translation",
                    crate::plural::count(r.segments, "segment")
                )
            } else {
                format!(
                    "terms checked: {}",
                    crate::plural::count(r.findings.len(), "finding")
                )
            });
        }
        view.finished(checked, height.saturating_sub(1));
        self.dirty = true;
    }
}

fn check(memory: &dyn Memory, typed: &Path, client: Option<String>) -> Result<QaOutput, String> {
    let bank = crate::layouts::bank(memory)
        .ok_or_else(|| "terms are checked against a memory bank only".to_owned())?;
    let all = terms::records(bank, &Filter::default());
    let (file, pair) = file_and_pair(typed);
    let shown = file.display();
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    let text = read_text(&file)?;
    let type_the_pair = format!("type the pair after the file's name, e.g. {name} en-US:nl-BE");
    let read = qa::read_job(&name, &text, pair, &all).map_err(|refused| match refused {
        JobRefused::Unreadable(e) => format!("{shown}: {e}"),
        // As `membank qa` says: an empty file is not a clean one.
        JobRefused::NoSegments => {
            format!("{shown}: no segments found (the file is empty or holds no translation unit)")
        }
        JobRefused::NoTargetLanguage => format!(
            "{shown}: names no target language (target-language on <file>, trgLang on \
             <xliff>): {type_the_pair}"
        ),
        JobRefused::SeveralPairs(pairs) => format!(
            "{shown}: names no languages and the bank has terms for several pairs ({}): \
             {type_the_pair}",
            pairs.join(", ")
        ),
    })?;
    Ok(qa_of(bank, file, &read, client))
}

/// What was typed: a file's path, or a path then the language pair
/// (`job.xlf en-US:nl-BE`) for an XLIFF that names no target language. A
/// file of that whole name is taken as it is.
fn file_and_pair(typed: &Path) -> (PathBuf, Option<(String, String)>) {
    let whole = || (typed.to_path_buf(), None);
    if typed.exists() {
        return whole();
    }
    let Some((path, last)) = typed
        .to_str()
        .and_then(|t| t.trim_end().rsplit_once(char::is_whitespace))
    else {
        return whole();
    };
    match terms::parse_pair(last) {
        Some(pair) if !path.trim().is_empty() => (PathBuf::from(path.trim()), Some(pair)),
        _ => whole(),
    }
}

/// The text of the file at `path`, read as far as the core's bound allows
/// and only when it is a regular file, decoded as the terms' readers do.
fn read_text(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let bytes = membank_core::safe_read::read_regular(path, MAX_INPUT_BYTES)
        .map_err(|e| format!("{shown}: {e}"))?;
    membank_core::terms::encoding::decode(&bytes).map_err(|e| format!("{shown}: {e}"))
}

/// The check of `file` against the bank's terms for its pair and `client`
/// (and terms for no client in particular), as `membank qa` makes it.
fn qa_of(
    bank: &Bank,
    path: PathBuf,
    file: &bilingual::BilingualFile,
    client: Option<String>,
) -> QaOutput {
    let records = terms::records(
        bank,
        &Filter {
            client: client.clone(),
            ..Filter::default()
        },
    );
    let wanted = qa::for_pair(&records, file);
    QaOutput {
        file: path,
        client,
        report: qa::check(&wanted, file),
    }
}
