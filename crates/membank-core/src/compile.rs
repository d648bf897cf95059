//! The offline half of Process Inbox: apply an LLM reply to a bank.
//!
//! Blocks are parsed (§9), their paths checked (§10), valid ones written
//! atomically, and then each inbox source is stamped and archived (§11)
//! with `compiled_to` listing only the files actually written for it.
//! Rejected blocks never reach the disk or a `compiled_to` list.
//!
//! Attribution: a block whose frontmatter has `compiled_from` naming one or
//! more sources of the batch belongs to those sources only; any other block
//! belongs to every source of the batch.

use crate::safe_read::{DEFAULT_MAX_FILE_BYTES, ReadError, read_regular};
use std::collections::HashMap;
use std::io;
use std::path::Path;

use serde::Serialize;

use crate::archive::{self, Archived};
use crate::atomic::{self, WriteError, WriteOutcome};
use crate::fileblocks::{self, FileBlock};
use crate::frontmatter::{self, Block};
use crate::outcome::Change;
use crate::pathsafe::{self, SafePath};

/// Write the files, or only report what would be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Dry run: validate everything, write nothing.
    Plan,
    Apply,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockStatus {
    /// Passed every check (plan mode: would be written).
    Valid,
    Rejected,
    Created,
    Updated,
    Unchanged,
}

impl BlockStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            BlockStatus::Valid => "valid",
            BlockStatus::Rejected => "rejected",
            BlockStatus::Created => "created",
            BlockStatus::Updated => "updated",
            BlockStatus::Unchanged => "unchanged",
        }
    }

    /// The file is on disk with the block's content.
    pub fn is_written(self) -> bool {
        matches!(
            self,
            BlockStatus::Created | BlockStatus::Updated | BlockStatus::Unchanged
        )
    }
}

impl From<WriteOutcome> for BlockStatus {
    fn from(o: WriteOutcome) -> Self {
        match o {
            WriteOutcome::Created => BlockStatus::Created,
            WriteOutcome::Updated => BlockStatus::Updated,
            WriteOutcome::Unchanged => BlockStatus::Unchanged,
        }
    }
}

/// What happened to one block.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockResult {
    /// The normalised path if it was valid, else the path as written.
    /// Untrusted text: sanitise before showing it on a terminal.
    pub path: String,
    /// Line of the reply the block's marker is on.
    pub line: usize,
    /// In the older words (`valid`, `created`, `updated`, …) that scripts
    /// written for `blocks --json` read.
    pub status: BlockStatus,
    /// What the block would do (plan) or did (apply), in the words every
    /// command shares: new, changed, unchanged, rejected.
    pub change: Change,
    /// Why it was rejected.
    pub reason: Option<String>,
    pub warnings: Vec<String>,
    /// Inbox sources this block is attributed to (compile only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// In a plan, what writing it would change: a unified diff against
    /// the file on disk (all added lines for a new file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// The result of applying (or planning) a reply's blocks.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct BlocksReport {
    pub blocks: Vec<BlockResult>,
    /// Reply-level warnings, then every block warning.
    pub warnings: Vec<String>,
}

impl BlocksReport {
    pub fn rejected(&self) -> usize {
        self.blocks
            .iter()
            .filter(|b| b.status == BlockStatus::Rejected)
            .count()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceStatus {
    Archived,
    /// Plan mode: would be stamped and archived.
    WouldArchive,
    /// Left in the inbox on purpose (no article was written for it).
    Kept,
    /// Stamping or moving failed; the reason says where it stands.
    Failed,
}

/// An inbox note with the text the model was given for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct SentNote {
    pub path: String,
    pub text: String,
}

/// The notes whose text on disk is still the text the model was given, and
/// a kept result for each of the others: a note edited (or removed) while
/// the model answered must not be stamped "compiled" with words the model
/// never saw, so it stays in the inbox for the next run.
pub fn still_as_sent(root: &Path, notes: &[SentNote]) -> (Vec<String>, Vec<SourceResult>) {
    let mut same = Vec::new();
    let mut changed = Vec::new();
    for note in notes {
        let now = pathsafe::validate(&note.path)
            .ok()
            .and_then(|p| pathsafe::resolve_in_bank(root, &p).ok())
            .and_then(|target| read_regular(&target, DEFAULT_MAX_FILE_BYTES).ok())
            .and_then(|bytes| crate::text::decode(&bytes).ok().map(|d| d.text));
        let why = match now {
            Some(text) if text == note.text => {
                same.push(note.path.clone());
                continue;
            }
            Some(_) => "it changed after it was sent to the model",
            None => "it is gone or unreadable since it was sent to the model",
        };
        changed.push(SourceResult {
            source: note.path.clone(),
            status: SourceStatus::Kept,
            compiled_to: Vec::new(),
            archived_to: None,
            reason: Some(format!("{why}; it stays in the inbox for the next run")),
        });
    }
    (same, changed)
}

/// What happened to one inbox source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceResult {
    pub source: String,
    pub status: SourceStatus,
    pub compiled_to: Vec<String>,
    pub archived_to: Option<String>,
    pub reason: Option<String>,
}

impl SourceResult {
    /// The line the command line and the interface both show for it.
    /// Untrusted text: sanitise it before a terminal shows it.
    pub fn outcome_line(&self) -> String {
        let source = &self.source;
        let reason = self.reason.as_deref().unwrap_or("");
        match self.status {
            SourceStatus::Archived => format!(
                "archived  {source} -> {} ({} file(s))",
                self.archived_to.as_deref().unwrap_or(""),
                self.compiled_to.len()
            ),
            SourceStatus::WouldArchive => {
                format!(
                    "would archive  {source} ({} file(s))",
                    self.compiled_to.len()
                )
            }
            SourceStatus::Kept | SourceStatus::Failed => {
                format!("kept in inbox  {source}: {reason}")
            }
        }
    }
}

/// The full result of a compile run.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct CompileReport {
    pub blocks: Vec<BlockResult>,
    pub warnings: Vec<String>,
    pub sources: Vec<SourceResult>,
    /// Stamped files left in the inbox by an interrupted run, now archived.
    pub recovered: Vec<Archived>,
}

impl CompileReport {
    pub fn rejected(&self) -> usize {
        self.blocks
            .iter()
            .filter(|b| b.status == BlockStatus::Rejected)
            .count()
    }

    pub fn failed_sources(&self) -> usize {
        self.sources
            .iter()
            .filter(|s| s.status == SourceStatus::Failed)
            .count()
    }
}

/// Test hook for crash safety, built only with the `failpoints` feature
/// (the tests turn it on): when `MEMBANK_FAILPOINT` is `STEP:N`
/// (`after-write`, `after-stamp` or `after-archive`), the process aborts
/// right after the N-th such step of an apply run, as a kill or power loss
/// would stop it there. Tests use it to prove that a rerun finishes the job
/// without losing or duplicating anything.
#[cfg(feature = "failpoints")]
fn failpoint(step: &str, count: usize) {
    let Some(value) = std::env::var_os("MEMBANK_FAILPOINT") else {
        return;
    };
    let value = value.to_string_lossy();
    if value
        .split_once(':')
        .is_some_and(|(s, n)| s == step && n.trim().parse() == Ok(count))
    {
        std::process::abort();
    }
}

#[cfg(not(feature = "failpoints"))]
fn failpoint(_step: &str, _count: usize) {}

/// Test hook, built only with the `failpoints` feature: when
/// `MEMBANK_PAUSE` is `STEP:FILE`, a run reaching STEP creates FILE and
/// waits until it is gone (a minute at most), so a test can change the bank
/// at a moment it could not otherwise reach, such as between showing a plan
/// and applying it.
#[cfg(feature = "failpoints")]
pub fn pause_point(step: &str) {
    let Some(value) = std::env::var_os("MEMBANK_PAUSE") else {
        return;
    };
    let value = value.to_string_lossy();
    let Some(file) = value.strip_prefix(step).and_then(|v| v.strip_prefix(':')) else {
        return;
    };
    let file = std::path::Path::new(file);
    if std::fs::write(file, step).is_err() {
        return;
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while file.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[cfg(not(feature = "failpoints"))]
pub fn pause_point(_step: &str) {}

/// A block after the checks, before writing.
struct Checked {
    block: FileBlock,
    verdict: Result<SafePath, String>,
}

fn check_blocks(root: &Path, blocks: Vec<FileBlock>, protected: &[String]) -> Vec<Checked> {
    let mut checked: Vec<Checked> = blocks
        .into_iter()
        .map(|block| {
            let verdict = check_one(root, &block, protected);
            Checked { block, verdict }
        })
        .collect();

    // Two blocks for one file: the later one wins, the earlier is reported.
    // One file is any spelling the same on a case-insensitive, normalising
    // file system.
    let mut last_for: HashMap<String, usize> = HashMap::new();
    for (i, c) in checked.iter().enumerate() {
        if let Ok(p) = &c.verdict {
            last_for.insert(pathsafe::same_file_key(p.as_str()), i);
        }
    }
    for i in 0..checked.len() {
        let later = match &checked[i].verdict {
            Ok(p) => last_for
                .get(&pathsafe::same_file_key(p.as_str()))
                .copied()
                .filter(|&j| j != i),
            Err(_) => None,
        };
        if let Some(j) = later {
            checked[i].verdict = Err(format!(
                "a later block (line {}) in this reply writes the same file; only that one is used",
                checked[j].block.marker_line
            ));
        }
    }
    checked
}

fn check_one(root: &Path, block: &FileBlock, protected: &[String]) -> Result<SafePath, String> {
    let path = pathsafe::validate(&block.path_raw).map_err(|r| r.reason)?;
    // Where the write would land (no link is written through, so this is
    // the path as the disk spells it): every rule below is applied to it
    // as well as to the path as written.
    let landing = pathsafe::resolved_rel(root, &path).map_err(|r| r.reason)?;
    if block.content.trim().is_empty() {
        return Err("the block is empty; writing it would leave an empty file".into());
    }
    if let Some(twin) = pathsafe::case_twin(root, path.as_str()) {
        return Err(format!(
            "{twin} already exists and differs only in letter case or Unicode form; writing \
             this would overwrite it on case-insensitive file systems and make links ambiguous \
             elsewhere (write to {twin} to change it)"
        ));
    }
    check_size_and_kind(root, &path, &block.content)?;
    crate::secrets::refuse(&block.content)?;
    crate::text::refuse_control_characters(&block.content)?;
    let protected_hit = protected.iter().find(|s| {
        s.eq_ignore_ascii_case(path.as_str())
            || s.eq_ignore_ascii_case(&landing)
            || resolves_to(root, s) == Some(landing.to_lowercase())
    });
    if let Some(source) = protected_hit {
        return Err(format!(
            "it would overwrite {source}, an inbox file this run stamps and archives itself"
        ));
    }
    if pathsafe::in_archive(path.as_str()) || pathsafe::in_archive(&landing) {
        return Err(
            "00_INBOX/_archive/ is kept by Process Inbox itself (sources are archived automatically)"
                .into(),
        );
    }
    Ok(path)
}

/// What the write itself would refuse, said before it is tried, so a
/// review shows the same verdict the write gives: an existing file that
/// is not a regular one (a FIFO would hang the write) or over the size
/// the write reads; and a file the bank could not read back because the
/// block makes it larger than the per-file limit.
fn check_size_and_kind(root: &Path, path: &SafePath, content: &str) -> Result<(), String> {
    let Ok(target) = pathsafe::resolve_in_bank(root, path) else {
        return Ok(());
    };
    let existing = match read_regular(&target, DEFAULT_MAX_FILE_BYTES) {
        Ok(bytes) => Some(bytes),
        Err(ReadError::Io(_)) => None,
        Err(e) => return Err(format!("the existing file {e}; nothing was written")),
    };
    let limit = crate::safe_read::user_policy().max_file_bytes;
    let size = atomic::article_bytes(content, existing.as_deref()).len() as u64;
    if size > limit {
        return Err(format!(
            "written, the file {}, and the bank would not read it; nothing was written",
            crate::safe_read::over_the_limit(size, limit)
        ));
    }
    Ok(())
}

/// Where an inbox source really is (a link to a file in the bank
/// followed: the bank reads through it), lower-cased, to compare with a
/// block's landing place. `resolved_rel` would refuse the link, as it is
/// meant for writes.
fn resolves_to(root: &Path, source: &str) -> Option<String> {
    pathsafe::validate(source).ok()?;
    let root = root.canonicalize().ok()?;
    let real = root.join(source).canonicalize().ok()?;
    let rel = real.strip_prefix(&root).ok()?;
    Some(rel.to_string_lossy().replace('\\', "/").to_lowercase())
}

/// Warn (but still write) when a block's frontmatter will not parse.
fn frontmatter_warning(block: &FileBlock, path: &str) -> Option<String> {
    let located = frontmatter::locate(&block.content);
    match &located.block {
        Block::Present(r) => frontmatter::parse_yaml(
            &located.text[r.clone()],
            2 + located.line_shift,
        )
        .err()
        .map(|e| {
            format!(
                "{path}: its frontmatter is not valid YAML{} ({}); readers will not see its keys",
                e.line.map(|l| format!(" at line {l}")).unwrap_or_default(),
                e.message
            )
        }),
        Block::Unclosed => Some(format!(
            "{path}: its frontmatter starts with --- but is never closed"
        )),
        Block::Missing => None,
    }
}

fn run_blocks(
    root: &Path,
    reply: &str,
    mode: Mode,
    protected: &[String],
    declined: &[usize],
) -> (Vec<(BlockResult, Option<FileBlock>)>, Vec<String>) {
    let parsed = fileblocks::parse_reply(reply);
    let mut warnings = parsed.warnings.clone();
    let mut results = Vec::new();
    let checked = check_blocks(root, parsed.blocks, protected);
    let mut written = 0;
    for (index, Checked { block, verdict }) in checked.into_iter().enumerate() {
        let verdict = match verdict {
            Ok(_) if declined.contains(&index) => Err("declined by the user".to_owned()),
            v => v,
        };
        let mut result = BlockResult {
            path: block.path_raw.clone(),
            line: block.marker_line,
            status: BlockStatus::Rejected,
            change: Change::Rejected,
            reason: None,
            warnings: block.warnings.clone(),
            sources: Vec::new(),
            diff: None,
        };
        match verdict {
            Err(reason) => result.reason = Some(reason),
            Ok(path) => {
                result.path = path.as_str().to_owned();
                result
                    .warnings
                    .extend(frontmatter_warning(&block, path.as_str()));
                match mode {
                    Mode::Plan => {
                        result.status = BlockStatus::Valid;
                        result.change = planned_change(root, &path, &block.content);
                    }
                    Mode::Apply => match atomic::write_article(root, &path, &block.content) {
                        Ok(outcome) => {
                            result.status = outcome.into();
                            result.change = match outcome {
                                WriteOutcome::Created => Change::New,
                                WriteOutcome::Updated => Change::Changed,
                                WriteOutcome::Unchanged => Change::Unchanged,
                            };
                            written += 1;
                            failpoint("after-write", written);
                        }
                        Err(WriteError::Rejected { rejection, .. }) => {
                            result.reason = Some(rejection.reason)
                        }
                        Err(WriteError::Io { error, .. }) => {
                            result.reason = Some(format!("could not be written: {error}"))
                        }
                    },
                }
            }
        }
        warnings.extend(result.warnings.iter().cloned());
        let keep = (result.status != BlockStatus::Rejected).then_some(block);
        results.push((result, keep));
    }
    (results, warnings)
}

/// What writing `content` at a checked path would do, judged on the bytes
/// the write would put there. A file that cannot be read counts as
/// changed: the write itself then says why it fails.
fn planned_change(root: &Path, path: &SafePath, content: &str) -> Change {
    let Ok(target) = pathsafe::resolve_in_bank(root, path) else {
        return Change::Changed;
    };
    match read_regular(&target, DEFAULT_MAX_FILE_BYTES) {
        Ok(existing) if atomic::article_bytes(content, Some(&existing)) == existing => {
            Change::Unchanged
        }
        Ok(_) => Change::Changed,
        Err(e) if e.is_not_found() => Change::New,
        Err(_) => Change::Changed,
    }
}

/// Parse a reply's blocks, check them and (in [`Mode::Apply`]) write the
/// valid ones. Rejected blocks are reported and skipped; the rest of the
/// reply is still processed (§10).
pub fn apply_reply(root: &Path, reply: &str, mode: Mode) -> BlocksReport {
    apply_reply_declining(root, reply, mode, &[])
}

/// [`apply_reply`], treating the blocks at the `declined` indices (in reply
/// order, as [`preview_reply`] lists them) as rejected by the user.
pub fn apply_reply_declining(
    root: &Path,
    reply: &str,
    mode: Mode,
    declined: &[usize],
) -> BlocksReport {
    let (results, warnings) = run_blocks(root, reply, mode, &[], declined);
    BlocksReport {
        blocks: results.into_iter().map(|(r, _)| r).collect(),
        warnings,
    }
}

/// One block as a user should see it before anything is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreviewBlock {
    /// Status `valid` or `rejected` with the reason.
    pub result: BlockResult,
    /// What would be written (LF line endings).
    pub content: String,
    /// The file's current text if it exists (BOM removed, LF), for a diff.
    pub existing: Option<String>,
}

/// Check a reply without writing and return each block with its content and
/// the current text of its target, so a user can review changes first.
/// Returns the blocks and the reply-level warnings.
pub fn preview_reply(root: &Path, reply: &str) -> (Vec<PreviewBlock>, Vec<String>) {
    let parsed = fileblocks::parse_reply(reply);
    let reply_warnings = parsed.warnings.clone();
    let (results, _) = run_blocks(root, reply, Mode::Plan, &[], &[]);
    let previews = results
        .into_iter()
        .zip(parsed.blocks)
        .map(|((result, _), block)| {
            let existing = (result.status == BlockStatus::Valid)
                .then(|| pathsafe::validate(&result.path).ok())
                .flatten()
                .and_then(|p| pathsafe::resolve_in_bank(root, &p).ok())
                .and_then(|target| read_regular(&target, DEFAULT_MAX_FILE_BYTES).ok())
                .and_then(|bytes| crate::text::decode(&bytes).ok())
                .map(|d| d.text);
            PreviewBlock {
                result,
                content: block.content,
                existing,
            }
        })
        .collect();
    (previews, reply_warnings)
}

/// Does a `compiled_from` value name this inbox source? Accepts the bank
/// path, the path inside `00_INBOX/`, the file name, the name without
/// `.md`, and `[[wikilink]]` forms of these, ignoring letter case.
pub fn names_source(value: &str, source: &str) -> bool {
    let v = value.trim();
    let v = v
        .strip_prefix("[[")
        .and_then(|s| s.strip_suffix("]]"))
        .unwrap_or(v);
    let v = v
        .split('|')
        .next()
        .unwrap_or(v)
        .trim()
        .replace('\\', "/")
        .to_lowercase();
    if v.is_empty() {
        return false;
    }
    let source = source.to_lowercase();
    let inside = source.strip_prefix("00_inbox/").unwrap_or(&source);
    let file = source.rsplit('/').next().unwrap_or(&source);
    let stem = file.strip_suffix(".md").unwrap_or(file);
    let inside_stem = inside.strip_suffix(".md").unwrap_or(inside);
    [source.as_str(), inside, file, stem, inside_stem].contains(&v.as_str())
}

fn attributed_sources(
    block: &FileBlock,
    sources: &[String],
    warnings: &mut Vec<String>,
    path: &str,
) -> Vec<String> {
    let located = frontmatter::locate(&block.content);
    let named: Vec<String> = match &located.block {
        Block::Present(r) => frontmatter::parse_yaml(&located.text[r.clone()], 2)
            .map(|m| frontmatter::strings(&m, "compiled_from"))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    if named.is_empty() {
        return sources.to_vec();
    }
    let matched: Vec<String> = sources
        .iter()
        .filter(|s| named.iter().any(|n| names_source(n, s)))
        .cloned()
        .collect();
    if matched.is_empty() {
        warnings.push(format!(
            "{path}: compiled_from ({}) names no file of this batch; counted for every source",
            named.join(", ")
        ));
        return sources.to_vec();
    }
    matched
}

/// Apply a reply to a batch of inbox sources: write the valid blocks, then
/// stamp and archive each source with the files written for it. In
/// [`Mode::Plan`] nothing is written, stamped or moved.
pub fn compile_reply(
    root: &Path,
    sources: &[String],
    reply: &str,
    mode: Mode,
    now: jiff::civil::DateTime,
) -> CompileReport {
    compile_reply_declining(root, sources, reply, mode, now, &[])
}

/// [`compile_reply`], treating the blocks at the `declined` indices (reply
/// order) as rejected by the user: they are not written and appear in no
/// `compiled_to`.
pub fn compile_reply_declining(
    root: &Path,
    sources: &[String],
    reply: &str,
    mode: Mode,
    now: jiff::civil::DateTime,
    declined: &[usize],
) -> CompileReport {
    let (results, mut warnings) = run_blocks(root, reply, mode, sources, declined);
    let mut report = CompileReport::default();
    for (mut result, block) in results {
        if let Some(block) = block {
            result.sources = attributed_sources(&block, sources, &mut warnings, &result.path);
        }
        report.blocks.push(result);
    }

    let (mut stamped, mut archived_count) = (0, 0);
    let any_usable = report
        .blocks
        .iter()
        .any(|b| b.status != BlockStatus::Rejected);
    for source in sources {
        let compiled_to: Vec<String> = report
            .blocks
            .iter()
            .filter(|b| b.status != BlockStatus::Rejected && b.sources.contains(source))
            .map(|b| b.path.clone())
            .collect();
        let mut entry = SourceResult {
            source: source.clone(),
            status: SourceStatus::Kept,
            compiled_to: compiled_to.clone(),
            archived_to: None,
            reason: None,
        };
        if compiled_to.is_empty() {
            entry.reason = Some(if any_usable {
                "every file written names other sources in compiled_from; left in the inbox".into()
            } else {
                "no file was written from this reply; left in the inbox".into()
            });
        } else if mode == Mode::Plan {
            // Only what applying would archive: a note that cannot be
            // stamped stays, and the plan says why.
            match archive::check_stampable(root, source, &compiled_to, now.date()) {
                Ok(()) => entry.status = SourceStatus::WouldArchive,
                Err(e) => {
                    entry.status = SourceStatus::Failed;
                    entry.reason = Some(e.reason);
                }
            }
        } else {
            // `archive::archive_source`'s two steps, with the test hook between.
            let archived =
                archive::stamp_source(root, source, &compiled_to, now.date()).and_then(|()| {
                    stamped += 1;
                    failpoint("after-stamp", stamped);
                    archive::move_to_archive(root, source, now)
                });
            match archived {
                Ok(archived_to) => {
                    archived_count += 1;
                    failpoint("after-archive", archived_count);
                    entry.status = SourceStatus::Archived;
                    entry.archived_to = Some(archived_to);
                }
                Err(e) => {
                    entry.status = SourceStatus::Failed;
                    entry.reason = Some(e.reason);
                }
            }
        }
        report.sources.push(entry);
    }
    report.warnings = warnings;
    report
}

/// Process Inbox with a given reply: finish any interrupted archive moves
/// (apply mode), list the pending sources, and compile them. When nothing is
/// pending the report's `sources` is empty and nothing is written.
pub fn compile_pending(
    root: &Path,
    reply: &str,
    mode: Mode,
    now: jiff::civil::DateTime,
) -> io::Result<CompileReport> {
    let mut recovered = Vec::new();
    let mut warnings = Vec::new();
    if mode == Mode::Apply {
        let (moved, errors) = archive::recover_inbox(root, now);
        recovered = moved;
        warnings.extend(errors.iter().map(|e| e.to_string()));
    }
    let pending = crate::inbox::pending_on_disk(root)?;
    let mut report = if pending.is_empty() {
        CompileReport::default()
    } else {
        compile_reply(root, &pending, reply, mode, now)
    };
    report.recovered = recovered;
    warnings.append(&mut report.warnings);
    report.warnings = warnings;
    Ok(report)
}

#[cfg(test)]
mod tests;
