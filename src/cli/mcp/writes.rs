//! Writing tools, offered only with `--allow-writes`. Nothing is written
//! when a change is proposed: `propose_write` classifies a reply's
//! `### FILE:` blocks exactly as the review pane does (new, changed with its
//! diff, unchanged, rejected with the reason) and `supersede` plans a Deja Vu
//! supersession as `membank supersede` shows it; `apply_write` then applies
//! one proposal by id. Bank writes go through the same §10 path checks and
//! atomic writes as `membank blocks --apply`, so nothing lands outside the
//! bank or in `06_TEMPLATES`, and nothing is written over a file edited
//! since the proposal.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use membank_args::tools::{
    ApplyParams, FixesApplied, ImportTermsParams, ImportTermsReport, ProposalReport, ProposeParams,
    ProposedBlock, SupersedeParams, ToolAnswer, ToolArgs, output_schema,
};
use membank_core::compile::{self, BlockStatus};
use membank_core::dejavu::supersede;
use membank_core::fix::FileFix;
use membank_core::review::{self, Change};
use membank_core::text::sanitize_for_terminal;
use membank_core::transaction::{FileChange, Kind, Stopped};
use rmcp::model::{Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;

use super::state::{Shared, WITHHELD_WHY, diff_without};
use super::tools::Output;
use crate::cli::supersede::{self as supersede_cmd, PlanJson};

/// Proposals kept at most; the oldest is forgotten first.
const MAX_PROPOSALS: usize = 32;

/// A change checked but not yet applied, with what the disk held then.
pub enum Pending {
    /// A reply's `### FILE:` blocks, classified against the bank.
    Files {
        reply: String,
        classified: review::Proposal,
    },
    /// A Deja Vu supersession; the plan holds every file's text before.
    Supersede(supersede::Plan),
    /// Files moved, changed or made (`fix`, `mv`, `new`), each with its
    /// bytes before, which memory's rules write them, and what the journal
    /// calls the write.
    Fixes(Kind, &'static str, Vec<FileFix>),
    /// New term articles from a terminology file (path and bytes).
    Terms(Vec<(String, Vec<u8>)>),
}

/// Who made a proposal: only the same MCP session may apply it, so one
/// client cannot apply what another client's user declined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// One session: standard input and output, or one HTTP session.
    Session(u64),
    /// An HTTP request outside any session (protocols from 2026-07-28 have
    /// none); only the unguessable id then ties the apply to the proposal.
    Sessionless,
}

/// Pending proposals, oldest first.
#[derive(Default)]
pub struct Proposals {
    pending: VecDeque<(String, Owner, Pending)>,
}

impl Proposals {
    pub fn add(&mut self, owner: Owner, p: Pending) -> Result<String, String> {
        let id = unguessable_id()?;
        self.pending.push_back((id.clone(), owner, p));
        while self.pending.len() > MAX_PROPOSALS {
            self.pending.pop_front();
        }
        Ok(id)
    }

    /// Another session's proposal is answered exactly like an unknown id,
    /// so its existence is not revealed either.
    fn take(&mut self, owner: Owner, id: &str) -> Option<Pending> {
        let at = self
            .pending
            .iter()
            .position(|(known, made_by, _)| known == id.trim() && *made_by == owner)?;
        self.pending.remove(at).map(|(_, _, p)| p)
    }
}

/// `p` and 128 bits from the system's random source, in hex: an id that
/// cannot be guessed from the ids a client has seen.
fn unguessable_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| format!("the system's random source failed ({e}); nothing was proposed"))?;
    let mut id = String::from("p");
    for b in bytes {
        let _ = write!(id, "{b:02x}");
    }
    Ok(id)
}

/// `supersede`'s answer: the plan as `membank supersede --json` prints it,
/// with the id that applies it.
#[derive(Serialize, JsonSchema)]
pub struct SupersedeReport {
    /// `null` when the supersession is recorded already.
    pub proposal_id: Option<String>,
    #[serde(flatten)]
    pub plan: PlanJson,
}

/// What `apply_write` answers: the result of the kind of proposal applied.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used
enum Applied {
    Files(compile::BlocksReport),
    Supersede(PlanJson),
    Fixes(FixesApplied),
    Terms { written: Vec<String> },
}

/// A proposal changes nothing outside the server (asking twice only makes
/// a second id for the same plan), so it is read-only and idempotent.
fn proposing() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

pub fn propose_tool() -> Tool {
    Tool::new(
        "propose_write",
        "Check the `### FILE:` blocks of a reply against the bank without writing, as the \
         review pane does: each block is new (with its content), changed (with a unified \
         diff), unchanged or rejected (with the reason, e.g. a path outside the bank or in \
         06_TEMPLATES). Returns a proposal_id for apply_write.",
        ProposeParams::schema(),
    )
    .with_raw_output_schema(ProposalReport::answer_schema())
    .with_annotations(proposing())
}

pub fn supersede_tool() -> Tool {
    Tool::new(
        "supersede",
        "Plan that a newer Deja Vu record replaces an older one (status, superseded_by, \
         supersedes, the index, the impressions), without writing: every file's diff, as \
         `membank supersede` shows it (same JSON as `membank supersede --json`). Returns a \
         proposal_id for apply_write.",
        SupersedeParams::schema(),
    )
    .with_raw_output_schema(output_schema::<SupersedeReport>())
    .with_annotations(proposing())
}

pub fn import_terms_tool() -> Tool {
    Tool::new(
        "import_terms",
        "Propose term articles from a TBX, CSV or TSV file's text, without writing: each term \
         is new (with the article's text), unchanged, differing in status (left as it is) or \
         a conflict (a second approved target where a client's job would meet both: the \
         term-conflict it would create; two clients may translate a term differently). Existing \
         articles are never changed. Same JSON as `membank terms import --json`, with a \
         proposal_id for apply_write.",
        ImportTermsParams::schema(),
    )
    .with_raw_output_schema(ImportTermsReport::answer_schema())
    .with_annotations(proposing())
}

pub fn import_terms(
    shared: &Arc<Shared>,
    owner: Owner,
    p: ImportTermsParams,
) -> Result<Output, String> {
    use crate::cli::terms as cmd;
    let err = |e: anyhow::Error| format!("import_terms: {e:#}");
    super::tools::file_text_within("import_terms", &p.file_text)?;
    let pair = cmd::pair_arg(p.pair.as_deref(), "pair").map_err(err)?;
    let cmd::ImportProposal {
        terms: proposal,
        left_out,
    } = {
        let memory = shared.memory();
        let bank = membank::layouts::bank(&**memory)
            .ok_or_else(|| "import_terms works on memory banks".to_owned())?;
        let today = crate::cli::common::clock().today().to_string();
        cmd::import_proposal(
            bank,
            (&p.file_name, p.file_name.clone(), &p.file_text),
            p.client,
            p.domain,
            pair,
            today,
        )
        .map_err(err)?
    };
    let files: Vec<(String, Vec<u8>)> = proposal
        .iter()
        .filter(|t| t.writes())
        .map(|t| (t.path.clone(), t.text.clone().into_bytes()))
        .collect();
    let mut text = String::new();
    for why in &left_out {
        let _ = writeln!(
            text,
            "{:<14} {}",
            "left out",
            sanitize_for_terminal(why, false)
        );
    }
    for t in &proposal {
        let _ = writeln!(
            text,
            "{:<14} {}",
            serde_json::to_value(t.outcome)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            sanitize_for_terminal(&t.path, false)
        );
    }
    let proposal_id = if files.is_empty() {
        let _ = writeln!(text, "Nothing to write.");
        None
    } else {
        let count = files.len();
        let id = shared
            .proposals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(owner, Pending::Terms(files))?;
        let _ = writeln!(
            text,
            "Nothing written yet; apply_write with proposal_id {id} writes these {count} new term articles."
        );
        Some(id)
    };
    Output::new(
        ImportTermsReport {
            proposal_id,
            terms: proposal,
            left_out,
        },
        vec![text],
    )
}

fn apply_terms(shared: &Arc<Shared>, files: &[(String, Vec<u8>)]) -> Result<Output, String> {
    let root = bank_root(shared);
    let tx = crate::cli::common::begin_bank_write(&root).map_err(|e| format!("{e:#}"))?;
    let done = match tx.commit_new_articles(files) {
        Ok(done) => done,
        Err(Stopped::Stale(stale)) => {
            let names: Vec<String> = stale
                .iter()
                .map(|p| sanitize_for_terminal(p, false))
                .collect();
            return Err(format!(
                "not applied: {} exist(s) by now; call import_terms again",
                names.join(", ")
            ));
        }
        Err(e @ Stopped::Refused(_)) => {
            return Err(format!(
                "not applied: {}",
                sanitize_for_terminal(&e.to_string(), false)
            ));
        }
    };
    let journalled = tx.finish();
    crate::cli::common::clean_leftovers(&tx);
    drop(tx);
    shared.reload(done.report.clone());
    let text = format!(
        "written: {}\n{}",
        sanitize_for_terminal(&done.report.join(", "), false),
        journal_warning(journalled)
    );
    Output::new(serde_json::json!({ "written": done.report }), vec![text])
}

pub fn apply_tool() -> Tool {
    Tool::new(
        "apply_write",
        "Apply a proposal of propose_write, import_terms, supersede, fix, mv or new atomically; \
         rejected blocks are never written. Refused if a file changed on disk since the \
         proposal. Same JSON as `membank blocks --apply --json` or `membank supersede --yes \
         --json`; for import_terms, the files written; for fix, mv and new, the files \
         written and those deleted.",
        ApplyParams::schema(),
    )
    .with_raw_output_schema(output_schema::<Applied>())
    .with_annotations(
        ToolAnnotations::new()
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(false),
    )
}

/// What the undo journal had to say about a write (its entry is over the
/// size bound, or could not be kept), as a line of the tool's text.
fn journal_warning(warning: Option<String>) -> String {
    warning
        .map(|w| format!("warning: {}\n", sanitize_for_terminal(&w, false)))
        .unwrap_or_default()
}

fn bank_root(shared: &Shared) -> PathBuf {
    shared.memory().root().to_path_buf()
}

pub fn propose(shared: &Arc<Shared>, owner: Owner, p: ProposeParams) -> Result<Output, String> {
    let root = bank_root(shared);
    let classified = review::classify(&root, &p.reply, &[], crate::cli::common::clock().now());
    if classified.files.is_empty() {
        return Err(
            "the reply has no `### FILE: <path>` blocks; each file to write starts with such a \
             line, followed by the file's whole new content"
                .to_owned(),
        );
    }
    let id = shared
        .proposals
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .add(
            owner,
            Pending::Files {
                reply: p.reply,
                classified: classified.clone(),
            },
        )?;
    let report = ProposalReport {
        proposal_id: id,
        blocks: classified
            .files
            .iter()
            .map(|file| ProposedBlock {
                file,
                content: (file.change == Change::New).then_some(file.content.as_str()),
            })
            .collect(),
        warnings: &classified.warnings,
    };
    let text = describe_proposal(&report);
    Output::new(report, vec![text])
}

fn describe_proposal(r: &ProposalReport<'_>) -> String {
    let s = |t: &str| sanitize_for_terminal(t, false);
    let mut out = String::new();
    let _ = writeln!(out, "proposal {}", r.proposal_id);
    for b in &r.blocks {
        let f = b.file;
        let _ = writeln!(out, "{:<9} {}", f.change.as_str(), s(&f.path));
        if let Some(reason) = &f.reason {
            let _ = writeln!(out, "          {}", s(reason));
        }
        for w in &f.warnings {
            let _ = writeln!(out, "          warning: {}", s(w));
        }
        if let Some(d) = &f.diff {
            out.push_str(&sanitize_for_terminal(d, true));
        }
        if let Some(c) = b.content {
            out.push_str(&sanitize_for_terminal(c, true));
            if !c.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    for w in r.warnings {
        let _ = writeln!(out, "warning: {}", s(w));
    }
    let writable = r
        .blocks
        .iter()
        .any(|b| matches!(b.file.change, Change::New | Change::Changed));
    let _ = writeln!(
        out,
        "{}",
        if writable {
            format!(
                "Nothing written yet; apply_write with proposal_id {} writes the new and changed files.",
                r.proposal_id
            )
        } else {
            "Nothing to write.".to_owned()
        }
    );
    out
}

pub fn supersede(shared: &Arc<Shared>, owner: Owner, p: SupersedeParams) -> Result<Output, String> {
    let plan = {
        let memory = shared.memory();
        let project = membank::layouts::project(&**memory)
            .ok_or_else(|| "supersede works on Deja Vu projects".to_owned())?;
        // The plan shows both records' text and the index would link them:
        // private memory is refused as `read` refuses it, before planning.
        // A private record and one that is not there get one answer,
        // naming only what was asked: telling them apart would tell a
        // client which private records exist.
        if !shared.include_private {
            for key in [&p.old, &p.new] {
                if project.find_record(key).is_none_or(|r| r.private) {
                    return Err(format!(
                        "supersede: `{}`: no record of that id or path is served here (it does \
                         not exist, or it is private memory: {WITHHELD_WHY})",
                        sanitize_for_terminal(key, false)
                    ));
                }
            }
        }
        let plan =
            supersede::plan(project, &p.old, &p.new).map_err(|e| format!("supersede: {e}"))?;
        let withheld = shared.withheld_with_proposed(
            &**memory,
            plan.edits
                .iter()
                .map(|e| (e.path.as_str(), e.after.as_str())),
        );
        (plan, withheld)
    };
    let (plan, withheld) = plan;
    // The diffs' context would quote shared lines that name private memory.
    let mut text = diff_without(&supersede_cmd::human(&plan), &withheld);
    let mut json = PlanJson::new(&plan, None);
    for e in &mut json.edits {
        e.diff = diff_without(&e.diff, &withheld);
    }
    // Nothing to change needs no id: applying it would be a dead end.
    let proposal_id = if plan.edits.is_empty() {
        None
    } else {
        let files = plan.edits.len();
        let id = shared
            .proposals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(owner, Pending::Supersede(plan))?;
        let _ = writeln!(
            text,
            "Nothing written yet; apply_write with proposal_id {id} writes these {files} files."
        );
        Some(id)
    };
    Output::new(
        SupersedeReport {
            proposal_id,
            plan: json,
        },
        vec![text],
    )
}

pub fn apply(shared: &Arc<Shared>, owner: Owner, p: ApplyParams) -> Result<Output, String> {
    let pending = shared
        .proposals
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take(owner, &p.proposal_id)
        .ok_or_else(|| {
            format!(
                "no pending proposal {} in this session: it was applied already, forgotten \
                 (only the last {MAX_PROPOSALS} are kept) or never made here; propose the \
                 change again",
                membank_core::text::quoted(&sanitize_for_terminal(&p.proposal_id, false))
            )
        })?;
    match pending {
        Pending::Files { reply, classified } => apply_files(shared, &reply, &classified),
        Pending::Supersede(plan) => apply_supersede(shared, &plan),
        Pending::Fixes(kind, label, fixes) => apply_fixes(shared, kind, label, &fixes),
        Pending::Terms(files) => apply_terms(shared, &files),
    }
}

fn apply_files(
    shared: &Arc<Shared>,
    reply: &str,
    classified: &review::Proposal,
) -> Result<Output, String> {
    let root = bank_root(shared);
    // Another membank run writing the bank at the same time waits for us,
    // and we for it, as on the command line. A file someone (a person in
    // Obsidian, another assistant) edited since it was reviewed is not
    // written over: the transaction refuses the whole write.
    let tx = crate::cli::common::begin_bank_write(&root).map_err(|e| format!("{e:#}"))?;
    let report = match tx.commit_blocks(classified, &[], reply) {
        Ok(done) => done.report,
        Err(Stopped::Stale(stale)) => {
            let names: Vec<String> = stale
                .iter()
                .map(|p| sanitize_for_terminal(p, false))
                .collect();
            return Err(format!(
                "not applied: {} changed on disk since the proposal; call propose_write again \
                 to review the current state",
                names.join(", ")
            ));
        }
        Err(e @ Stopped::Refused(_)) => {
            return Err(format!(
                "not applied: {}",
                sanitize_for_terminal(&e.to_string(), false)
            ));
        }
    };
    let journalled = tx.finish();
    crate::cli::common::clean_leftovers(&tx);
    drop(tx);
    let written: Vec<String> = report
        .blocks
        .iter()
        .filter(|b| matches!(b.status, BlockStatus::Created | BlockStatus::Updated))
        .map(|b| b.path.clone())
        .collect();
    shared.reload(written);
    let mut text = String::new();
    for b in &report.blocks {
        let _ = writeln!(
            text,
            "{:<9} {}{}",
            b.status.as_str(),
            sanitize_for_terminal(&b.path, false),
            b.reason
                .as_deref()
                .map(|r| format!("  ({})", sanitize_for_terminal(r, false)))
                .unwrap_or_default()
        );
    }
    for w in &report.warnings {
        let _ = writeln!(text, "warning: {}", sanitize_for_terminal(w, false));
    }
    text += &journal_warning(journalled);
    Output::new(report, vec![text])
}

fn apply_supersede(shared: &Arc<Shared>, plan: &supersede::Plan) -> Result<Output, String> {
    let root = bank_root(shared);
    // Under the project's lock, as on the command line; `apply` refuses,
    // writing nothing, when a record or the index changed since the plan.
    let tx = crate::cli::common::begin_dejavu_write(&root).map_err(|e| format!("{e:#}"))?;
    let written = supersede::apply(&tx, plan).map_err(|e| {
        format!(
            "not applied: {}; call supersede again",
            sanitize_for_terminal(&e, false)
        )
    })?;
    let journalled = tx.finish();
    drop(tx);
    shared.reload(written.clone());
    let text = format!(
        "written: {}\n{}",
        sanitize_for_terminal(&written.join(", "), false),
        journal_warning(journalled)
    );
    Output::new(PlanJson::new(plan, Some(written)), vec![text])
}

fn apply_fixes(
    shared: &Arc<Shared>,
    kind: Kind,
    label: &'static str,
    fixes: &[FileFix],
) -> Result<Output, String> {
    let root = bank_root(shared);
    let tx = crate::cli::common::begin_write(&root, kind).map_err(|e| format!("{e:#}"))?;
    tx.set_label(label);
    let done = match tx.commit_fixes(fixes) {
        Ok(done) => done,
        Err(Stopped::Stale(stale)) => {
            let names: Vec<String> = stale
                .iter()
                .map(|p| sanitize_for_terminal(p, false))
                .collect();
            return Err(format!(
                "not applied: {} changed on disk (or appeared) since the proposal; propose \
                 again to review the current state",
                names.join(", ")
            ));
        }
        Err(e @ Stopped::Refused(_)) => {
            return Err(format!(
                "not applied: {}",
                sanitize_for_terminal(&e.to_string(), false)
            ));
        }
    };
    let journalled = tx.finish();
    drop(tx);
    shared.reload(done.written());
    // A file deleted is not one written, though both are changes.
    let (written, deleted): (Vec<_>, Vec<_>) = done.changes.iter().partition(|c| c.after.is_some());
    let paths = |changes: Vec<&FileChange>| -> Vec<String> {
        changes.into_iter().map(|c| c.path.clone()).collect()
    };
    let (written, deleted) = (paths(written), paths(deleted));
    let mut text = format!(
        "written: {}\n",
        sanitize_for_terminal(&written.join(", "), false)
    );
    if !deleted.is_empty() {
        text += &format!(
            "deleted: {}\n",
            sanitize_for_terminal(&deleted.join(", "), false)
        );
    }
    text += &journal_warning(journalled);
    Output::new(FixesApplied { written, deleted }, vec![text])
}
