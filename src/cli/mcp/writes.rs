//! Writing tools, offered only with `--allow-writes`: `propose_write` checks
//! a reply's `### FILE:` blocks and shows each as new, changed (with a
//! diff), unchanged or rejected, exactly as the review pane does; nothing
//! is written until `apply_write` names the proposal. Applying goes through
//! the same §10 path checks and atomic writes as `membank blocks --apply`,
//! so nothing lands outside the bank or in `06_TEMPLATES`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use membank::diff::unified_diff;
use membank_core::compile::{self, BlockStatus, Mode};
use membank_core::text::sanitize_for_terminal;
use rmcp::handler::server::common::schema_for_type;
use rmcp::model::{Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::state::Shared;
use super::tools::Output;

/// Proposals kept at most; the oldest is forgotten first.
const MAX_PROPOSALS: usize = 32;

#[derive(Deserialize, JsonSchema)]
pub struct ProposeParams {
    /// The reply: any text with `### FILE: <path>` blocks, each followed by
    /// the whole new content of that file.
    reply: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct ApplyParams {
    /// The `proposal_id` that `propose_write` returned.
    proposal_id: String,
}

/// A reply checked but not yet applied, with what the disk held then.
struct Proposal {
    reply: String,
    /// Per valid block: its path and the file's text at proposal time.
    seen: Vec<(String, Option<String>)>,
}

#[derive(Default)]
pub struct Proposals {
    next: u64,
    pending: BTreeMap<u64, Proposal>,
}

/// One block as the review shows it.
#[derive(Serialize)]
pub struct ProposedBlock {
    pub path: String,
    pub line: usize,
    /// `new`, `changed`, `unchanged` or `rejected`.
    pub change: &'static str,
    pub reason: Option<String>,
    pub warnings: Vec<String>,
    /// Unified diff against the file on disk (`changed` only).
    pub diff: Option<String>,
    /// The whole new file (`new` only).
    pub content: Option<String>,
}

#[derive(Serialize)]
pub struct ProposalReport {
    pub proposal_id: String,
    pub blocks: Vec<ProposedBlock>,
    pub warnings: Vec<String>,
}

pub fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "propose_write",
            "Check the `### FILE:` blocks of a reply against the bank without writing: each \
             block is new, changed (with a unified diff), unchanged or rejected (with the \
             reason, e.g. a path outside the bank or in 06_TEMPLATES). Returns a proposal_id \
             for apply_write.",
            schema_for_type::<ProposeParams>(),
        )
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .open_world(false),
        ),
        Tool::new(
            "apply_write",
            "Write the valid blocks of a proposal atomically into the bank; rejected blocks \
             are never written. Refused if a file changed on disk since the proposal. Same \
             JSON as `membank blocks --apply --json`.",
            schema_for_type::<ApplyParams>(),
        )
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(true)
                .idempotent(false)
                .open_world(false),
        ),
    ]
}

/// The bank's folder; the `### FILE:` rules (§10) are a bank's.
fn bank_root(shared: &Shared) -> Result<std::path::PathBuf, String> {
    let memory = shared.memory();
    if memory.spec().name != "bank" {
        return Err(format!(
            "### FILE: replies are written into memory banks; this is {}",
            memory.spec().title
        ));
    }
    Ok(memory.root().to_path_buf())
}

pub fn propose(shared: &Arc<Shared>, p: ProposeParams) -> Result<Output, String> {
    let root = bank_root(shared)?;
    let (previews, warnings) = compile::preview_reply(&root, &p.reply);
    if previews.is_empty() {
        return Err(
            "the reply has no `### FILE: <path>` blocks; each file to write starts with such a \
             line, followed by the file's whole new content"
                .to_owned(),
        );
    }
    let mut seen = Vec::new();
    let blocks: Vec<ProposedBlock> = previews
        .into_iter()
        .map(|b| {
            let r = b.result;
            let (change, diff, content) = if r.status == BlockStatus::Rejected {
                ("rejected", None, None)
            } else {
                seen.push((r.path.clone(), b.existing.clone()));
                match &b.existing {
                    None => ("new", None, Some(b.content)),
                    Some(old) if *old == b.content => ("unchanged", None, None),
                    Some(old) => (
                        "changed",
                        Some(unified_diff(&r.path, old, &b.content)),
                        None,
                    ),
                }
            };
            ProposedBlock {
                path: r.path,
                line: r.line,
                change,
                reason: r.reason,
                warnings: r.warnings,
                diff,
                content,
            }
        })
        .collect();
    let id = {
        let mut proposals = shared.proposals.lock().unwrap_or_else(|e| e.into_inner());
        proposals.next += 1;
        let id = proposals.next;
        proposals.pending.insert(
            id,
            Proposal {
                reply: p.reply,
                seen,
            },
        );
        while proposals.pending.len() > MAX_PROPOSALS {
            proposals.pending.pop_first();
        }
        id
    };
    let report = ProposalReport {
        proposal_id: format!("p{id}"),
        blocks,
        warnings,
    };
    let text = describe_proposal(&report);
    Output::new(report, vec![text])
}

fn describe_proposal(r: &ProposalReport) -> String {
    let s = |t: &str| sanitize_for_terminal(t, false);
    let mut out = String::new();
    let _ = writeln!(out, "proposal {}", r.proposal_id);
    for b in &r.blocks {
        let _ = writeln!(out, "{:<9} {}", b.change, s(&b.path));
        if let Some(reason) = &b.reason {
            let _ = writeln!(out, "          {}", s(reason));
        }
        for w in &b.warnings {
            let _ = writeln!(out, "          warning: {}", s(w));
        }
        if let Some(d) = &b.diff {
            out.push_str(&sanitize_for_terminal(d, true));
        }
        if let Some(c) = &b.content {
            out.push_str(&sanitize_for_terminal(c, true));
            if !c.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {}", s(w));
    }
    let writable = r
        .blocks
        .iter()
        .any(|b| matches!(b.change, "new" | "changed"));
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

pub fn apply(shared: &Arc<Shared>, p: ApplyParams) -> Result<Output, String> {
    let id: Option<u64> = p
        .proposal_id
        .trim()
        .strip_prefix('p')
        .and_then(|n| n.parse().ok());
    let proposal = {
        let mut proposals = shared.proposals.lock().unwrap_or_else(|e| e.into_inner());
        id.and_then(|id| proposals.pending.remove(&id))
    }
    .ok_or_else(|| {
        format!(
            "no pending proposal {:?}: it was applied already, forgotten (only the last \
             {MAX_PROPOSALS} are kept) or never made; call propose_write again",
            sanitize_for_terminal(&p.proposal_id, false)
        )
    })?;
    let root = bank_root(shared)?;
    // Another membank run writing the bank at the same time waits for us,
    // and we for it, as on the command line.
    let lock = crate::cli::common::lock_bank(&root).map_err(|e| format!("{e:#}"))?;
    // Someone (a person in Obsidian, another assistant) may have edited a
    // file since it was reviewed: writing over that edit would lose it.
    let (now, _) = compile::preview_reply(&root, &proposal.reply);
    let current: Vec<(String, Option<String>)> = now
        .into_iter()
        .filter(|b| b.result.status != BlockStatus::Rejected)
        .map(|b| (b.result.path, b.existing))
        .collect();
    if current != proposal.seen {
        let moved: Vec<String> = proposal
            .seen
            .iter()
            .filter(|s| !current.contains(s))
            .map(|(path, _)| sanitize_for_terminal(path, false))
            .collect();
        return Err(format!(
            "not applied: {} changed on disk since the proposal; call propose_write again to \
             review the current state",
            if moved.is_empty() {
                "the bank".to_owned()
            } else {
                moved.join(", ")
            }
        ));
    }
    let report = compile::apply_reply(&root, &proposal.reply, Mode::Apply);
    crate::cli::common::clean_leftovers(&root, &lock);
    drop(lock);
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
    Output::new(report, vec![text])
}
