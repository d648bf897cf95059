//! Helpers shared by the subcommands.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use membank_core::bank::{Bank, LoadOptions};
use membank_core::clock::Clock;
use membank_core::memory::{self, DocId, LayoutKind, LayoutSpec, Memory, Resolution};
use membank_core::text::sanitize_for_terminal;
use membank_core::transaction::{Kind, Stopped, Transaction};

/// The layout `--format` forces for this run; set once by `main` before any
/// command runs. A process-wide value because `--format` is a global flag
/// and every command opens its path the same way.
static FORCED_FORMAT: OnceLock<Option<&'static LayoutSpec>> = OnceLock::new();

pub fn set_forced_format(format: Option<&'static LayoutSpec>) {
    let _ = FORCED_FORMAT.set(format);
}

pub fn forced_format() -> Option<&'static LayoutSpec> {
    FORCED_FORMAT.get().copied().flatten()
}

/// The clock `--today` or `MEMBANK_TODAY` chose for this run; set once by
/// `main`, like the forced format, since every command dates its work the
/// same way.
static CLOCK: OnceLock<Clock> = OnceLock::new();

pub fn set_clock(clock: Clock) {
    let _ = CLOCK.set(clock);
}

/// The run's clock (the system's until `main` pins another).
pub fn clock() -> Clock {
    CLOCK.get().copied().unwrap_or_default()
}

/// Safe-to-print form of an open error (paths may hold control characters).
fn open_error(e: memory::OpenError) -> anyhow::Error {
    anyhow::anyhow!(safe(&e.to_string()))
}

/// The error of a layout that could not read the memory at `root`, as
/// opening it through the layout boundary words it.
pub fn layout_error(root: &Path, message: String) -> anyhow::Error {
    open_error(memory::OpenError::Layout {
        path: root.to_path_buf(),
        message,
    })
}

/// Open the memory at `path`, whatever its layout, through the layout
/// boundary.
///
/// The memory lives until the process ends: a command reads it and exits,
/// and freeing hundreds of thousands of small allocations one by one only
/// to exit costs more than the query itself on a small bank.
pub fn open_memory(path: &Path) -> anyhow::Result<&'static dyn Memory> {
    let memory = memory::open(path, forced_format()).map_err(open_error)?;
    tracing::info!(
        layout = memory.spec().name,
        root = %memory.root().display(),
        documents = memory.len(),
        "opened"
    );
    Ok(Box::leak(memory))
}

/// The layout of the memory at `path` and its root, without reading it.
pub fn detect_memory(path: &Path) -> anyhow::Result<memory::Detected> {
    memory::detect(path, forced_format()).map_err(open_error)
}

/// [`open_memory`], reading a memory bank only as far as `bank_options`
/// asks (another layout is read as usual).
pub fn open_memory_with(
    path: &Path,
    bank_options: LoadOptions,
) -> anyhow::Result<&'static dyn Memory> {
    let found = memory::detect(path, forced_format()).map_err(open_error)?;
    if found.spec.kind != LayoutKind::Bank {
        return open_memory(path);
    }
    let bank: &'static Bank = open_bank_with(path, bank_options)?;
    Ok(bank)
}

/// Open a memory bank, for the commands only banks have; any other layout
/// is refused with a message naming what `path` is.
pub fn open_bank(path: &Path) -> anyhow::Result<&'static Bank> {
    open_bank_with(path, LoadOptions::EVERYTHING)
}

/// [`open_bank`] reading only what the command needs.
pub fn open_bank_with(path: &Path, options: LoadOptions) -> anyhow::Result<&'static Bank> {
    Ok(Box::leak(Box::new(open_bank_owned(path, options)?)))
}

/// [`open_bank_with`] for a command that reads the bank more than once:
/// each copy is freed when it is done with.
pub fn open_bank_owned(path: &Path, options: LoadOptions) -> anyhow::Result<Bank> {
    let bank = memory::open_bank_only(path, forced_format(), options).map_err(open_error)?;
    tracing::info!(
        layout = LayoutKind::Bank.spec().name,
        root = %bank.root().display(),
        articles = bank.articles().len(),
        "opened"
    );
    Ok(bank)
}

/// Open a Deja Vu project, for the commands only Deja Vu has (`recall`,
/// `supersede`, `feedback`); any other layout is refused by name.
pub fn open_dejavu(path: &Path) -> anyhow::Result<membank_core::dejavu::Project> {
    membank_core::dejavu::open_project(path, forced_format()).map_err(open_error)
}

/// [`open_dejavu`] for a command that only scans the impressions: they are
/// read in pieces, not held whole.
pub fn open_dejavu_streamed(path: &Path) -> anyhow::Result<membank_core::dejavu::Project> {
    membank_core::dejavu::layout::open_project_streamed(path, forced_format()).map_err(open_error)
}

/// Warn on stderr about each query value no article carries, with the
/// closest values the bank uses: a typo would otherwise just score nothing.
pub fn warn_unknown_values(bank: &Bank, query: &membank_core::scoring::Query) {
    let vocabulary = membank_core::vocabulary::collect(bank);
    for unknown in membank_core::suggest::unknown_values(&vocabulary, query) {
        eprintln!("membank: warning: {}", safe(&unknown.to_string()));
    }
}

/// An error naming `client` and the closest clients the bank uses when
/// no article names it: a mistyped client would select no client's terms,
/// and a check or an export of them would pass as if nothing were wrong.
pub fn known_client(bank: &Bank, client: Option<&str>) -> anyhow::Result<()> {
    let Some(client) = client else {
        return Ok(());
    };
    let query = membank_core::scoring::Query {
        client: Some(client.to_owned()),
        ..Default::default()
    };
    let vocabulary = membank_core::vocabulary::collect(bank);
    match membank_core::suggest::unknown_values(&vocabulary, &query).first() {
        Some(unknown) => {
            let refs: Vec<&str> = unknown.suggestions.iter().map(String::as_str).collect();
            anyhow::bail!(
                "--client: no client '{}' in this bank{}",
                safe(&unknown.value),
                safe(&membank_core::suggest::did_you_mean(&refs))
            )
        }
        None => Ok(()),
    }
}

/// A client, domain or language asked for that no article carries, with
/// the closest ones the bank uses (a typo would otherwise just score
/// nothing). Looked up only
/// when some asked-for signal earned no article a point, since collecting
/// the bank's values reads every article.
pub fn unknown_values_of(bank: &Bank, listed: &membank_core::context::Listed) -> Vec<String> {
    let q = &listed.report.query;
    let earned = listed.earned;
    let unmatched = (q.client.is_some() && earned.client == 0)
        || (q.domain.is_some() && earned.domain == 0)
        || ((q.source_lang.is_some() || q.target_lang.is_some()) && earned.language == 0);
    if !unmatched {
        return Vec::new();
    }
    membank_core::suggest::unknown_values(&membank_core::vocabulary::collect(bank), q)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// Check that `path` is a memory bank without reading it, for commands that
/// write into it (`blocks --apply`, `compile`) and read only what they need.
pub fn bank_root(path: &Path) -> anyhow::Result<PathBuf> {
    let found = memory::detect(path, forced_format()).map_err(open_error)?;
    let bank = LayoutKind::Bank.spec();
    if found.spec != bank {
        return Err(open_error(memory::OpenError::WrongLayout {
            path: path.to_path_buf(),
            found: found.spec,
            wanted: bank,
        }));
    }
    Ok(found.root)
}

/// Write a command's output to stdout, through `anstream` when `styled`
/// (styles kept or dropped as `--color` says). The error, unlike
/// `println!`'s panic, names standard output and ends the run with exit 2.
pub fn write_stdout(styled: bool, args: std::fmt::Arguments<'_>) -> anyhow::Result<()> {
    let written = if styled {
        anstream::stdout().write_fmt(args)
    } else {
        std::io::stdout().lock().write_fmt(args)
    };
    written.map_err(stdout_error)
}

/// A failed write to standard output, said as such.
pub fn stdout_error(e: std::io::Error) -> anyhow::Error {
    anyhow::Error::new(e).context("cannot write to standard output")
}

/// Whether `e` is a write into a pipe whose reader has gone.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Print a value as JSON on stdout through the one JSON writer (pretty,
/// terminal controls escaped), the same for every `--json`.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    membank_core::json::write(&mut out, value).map_err(|e| stdout_error(e.into()))?;
    writeln!(out).map_err(stdout_error)?;
    out.flush().map_err(stdout_error)?;
    Ok(())
}

/// Print text meant for a model (a snapshot, a rendered context, a prompt
/// template): exact when piped, so a model gets the files as they are;
/// with control characters made visible when stdout is a terminal, so a
/// file cannot drive the terminal.
pub fn print_model_text(text: &str) -> anyhow::Result<()> {
    use std::io::IsTerminal as _;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if stdout.is_terminal() {
        out.write_all(sanitize_for_terminal(text, true).as_bytes())
    } else {
        out.write_all(text.as_bytes())
    }
    .and_then(|()| out.flush())
    .map_err(stdout_error)
}

/// Text from a file, safe to print on a terminal.
pub fn safe(s: &str) -> String {
    sanitize_for_terminal(s, false)
}

/// Find a document by relative path (`03_DOMAINS/Legal.md`) or by the
/// name a wikilink would use (`Legal`, `[[Legal]]`, `[[Legal|the law]]`),
/// in a memory of any layout.
pub fn find_document(memory: &dyn Memory, wanted: &str) -> anyhow::Result<DocId> {
    find_served_document(memory, wanted, &|_| true)
}

/// A name that fits several documents: the error [`find_document`] gives
/// then, told apart from "not found" by its type.
#[derive(Debug)]
pub struct NamesSeveral(pub String);

impl std::fmt::Display for NamesSeveral {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NamesSeveral {}

/// [`find_document`] among the documents `served` keeps: a name a
/// withheld document shares finds the one served, and is never said to
/// fit the withheld one too.
pub fn find_served_document(
    memory: &dyn Memory,
    wanted: &str,
    served: &dyn Fn(DocId) -> bool,
) -> anyhow::Result<DocId> {
    // `./03_DOMAINS/Legal.md` and `03_DOMAINS\Legal.md` name the same file.
    let as_path = membank_core::bank::normalize_rel_path(wanted).unwrap_or_default();
    if let Some(id) = memory.find(&as_path) {
        return Ok(id);
    }
    let normalised = link_target(wanted).replace('\\', "/");
    let several = |ids: &[DocId]| -> anyhow::Error {
        let names: Vec<&str> = ids.iter().map(|&i| memory.document(i).path).collect();
        NamesSeveral(format!(
            "`{}` names several documents: {}; give a path",
            safe(wanted),
            safe(&names.join(", "))
        ))
        .into()
    };
    let resolved = match memory.resolve(&normalised) {
        Resolution::Ambiguous(ids) => {
            let ids: Vec<DocId> = ids.into_iter().filter(|&i| served(i)).collect();
            match ids[..] {
                [] => Resolution::Dead,
                [one] => Resolution::One(one),
                _ => Resolution::Ambiguous(ids),
            }
        }
        other => other,
    };
    match resolved {
        Resolution::One(id) => Ok(id),
        Resolution::Ambiguous(ids) => Err(several(&ids)),
        Resolution::Dead | Resolution::File(_) => {
            // Inbox and index notes are not link targets but can be
            // inspected by their file name.
            let wanted_stem = normalised.to_lowercase();
            let wanted_stem = wanted_stem.strip_suffix(".md").unwrap_or(&wanted_stem);
            let named: Vec<usize> = memory
                .documents()
                .enumerate()
                .filter(|(_, d)| {
                    let file = d.path.rsplit('/').next().unwrap_or(d.path);
                    file.strip_suffix(".md").unwrap_or(file).to_lowercase() == wanted_stem
                })
                .map(|(i, _)| i)
                .filter(|&i| served(i))
                .collect();
            // Several owners' `user.md` answer to one name: picking one
            // would hand over someone else's file without saying so.
            if named.len() > 1 {
                return Err(several(&named));
            }
            named.first().copied().ok_or_else(|| {
                if let Some(why) = why_not_read(memory.root(), memory.spec(), &as_path) {
                    return anyhow::anyhow!("{} {}", safe(&as_path), safe(&why));
                }
                if let Some((rel, why)) = unread_named(memory.root(), memory.spec(), wanted_stem) {
                    return anyhow::anyhow!("{} {}", safe(&rel), safe(&why));
                }
                let what = membank::layouts::face(memory.spec()).missing_noun;
                // As `links` answers: the closest names the memory has;
                // never a private one (the MCP server answers with this
                // error too, and private memory is not named to a client).
                let names = memory.documents().filter(|d| !d.private).map(|d| {
                    let file = d.path.rsplit('/').next().unwrap_or(d.path);
                    file.strip_suffix(".md").unwrap_or(file)
                });
                let close = membank_core::suggest::closest(&normalised, names);
                anyhow::anyhow!(
                    "no {what} `{}` in {}{}",
                    safe(wanted),
                    safe(&memory.root().display().to_string()),
                    safe(&membank_core::suggest::did_you_mean(&close))
                )
            })
        }
    }
}

/// Why a file that is in the memory's folder is not one of its documents,
/// when the reason is the file itself (not UTF-8, too large, a link out, not
/// a regular file); read with the same limits as loading.
pub fn why_not_read(root: &Path, layout: &LayoutSpec, rel: &str) -> Option<String> {
    if rel.is_empty() {
        return None;
    }
    let reader = membank_core::safe_read::RootReader::for_root(root)
        .ok()?
        .named(layout.place);
    match reader.read(Path::new(rel)) {
        Ok(bytes) => membank_core::text::decode(&bytes)
            .err()
            .map(|e| format!("is {e}; it is not read")),
        Err(e) if e.is_not_found() => None,
        Err(e) => Some(e.to_string()),
    }
}

/// A file named `stem` (`.md`, any case) somewhere in the memory that
/// was found but not read, with why: by name, as by path, "no such
/// document" would hide the reason. Looked for only once a name matched
/// nothing; hidden folders are skipped and no link is followed.
pub fn unread_named(root: &Path, layout: &LayoutSpec, stem: &str) -> Option<(String, String)> {
    /// Deeper than any layout nests its documents.
    const MOST_LEVELS: usize = 8;
    let wanted = format!("{stem}.md");
    let mut stack = vec![(PathBuf::new(), 0)];
    let mut found = Vec::new();
    while let Some((rel, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let path = rel.join(&name);
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && depth < MOST_LEVELS {
                stack.push((path, depth + 1));
            } else if !is_dir && name.to_lowercase() == wanted {
                found.push(path.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort();
    found
        .into_iter()
        .find_map(|rel| why_not_read(root, layout, &rel).map(|why| (rel, why)))
}

/// `[[Target|alias]]` and `[[Target#heading]]` name `Target`.
fn link_target(wanted: &str) -> &str {
    let trimmed = wanted.trim();
    let inner = trimmed
        .strip_prefix("[[")
        .and_then(|s| s.strip_suffix("]]"))
        .unwrap_or(trimmed);
    let end = inner.find(['|', '#']).unwrap_or(inner.len());
    inner[..end].trim()
}

/// Begin the transaction every write of this run goes through: the
/// memory's lock, held until it is dropped, waiting (and saying so on
/// stderr) while another membank run changes the memory.
pub fn begin_write(root: &Path, kind: Kind) -> anyhow::Result<Transaction> {
    let noun = kind.noun();
    Transaction::begin(root, kind, membank_core::lock::DEFAULT_WAIT, || {
        eprintln!("membank: another membank run is changing this {noun}; waiting for it to finish");
    })
    .map_err(|e| anyhow::anyhow!(safe(&e)))
}

/// [`begin_write`] for a memory bank.
pub fn begin_bank_write(root: &Path) -> anyhow::Result<Transaction> {
    begin_write(root, Kind::Bank)
}

/// [`begin_write`] for a Deja Vu project.
pub fn begin_dejavu_write(root: &Path) -> anyhow::Result<Transaction> {
    begin_write(root, Kind::Project)
}

/// Journal what `tx` wrote, now, before the command prints its report: a
/// reader that stops early (`| head`, a closed pipe) ends the process
/// mid-report, and the change must be undoable all the same. What the
/// journal has to say about the entry (it is over the size bound, it could
/// not be written) is said on stderr and returned.
pub fn finish(tx: &Transaction) -> Option<String> {
    let warning = tx.finish()?;
    eprintln!("membank: warning: {}", safe(&warning));
    Some(warning)
}

/// After a run that wrote to the bank: remove what killed runs left behind
/// and say so on stderr.
pub fn clean_leftovers(tx: &Transaction) {
    for rel in membank_core::atomic::remove_leftover_temps(tx.root(), tx.lock()) {
        eprintln!(
            "membank: removed {}, a temporary file left by an interrupted run",
            safe(&rel)
        );
    }
}

/// Write reviewed changes through `tx`. `Ok(false)` when a file changed on
/// disk since it was read: that is said (the plan was made `when`), nothing
/// is written, and the caller exits 1 so the user runs it again. A refusal
/// is an error.
pub fn commit_reviewed(
    tx: &Transaction,
    fixes: &[membank_core::fix::FileFix],
    when: &str,
) -> anyhow::Result<bool> {
    match tx.commit_fixes(fixes) {
        Ok(_) => Ok(true),
        Err(Stopped::Stale(paths)) => {
            let paths: Vec<String> = paths.iter().map(|p| safe(p)).collect();
            eprintln!(
                "membank: {} changed on disk while {when}; nothing was written. Run again.",
                paths.join(", ")
            );
            Ok(false)
        }
        Err(e @ Stopped::Refused(_)) => anyhow::bail!(safe(&e.to_string())),
    }
}

/// On a terminal, say what is being read from standard input and how to
/// end it: a command waiting silently looks hung.
pub fn say_reading_stdin(what: &str) {
    use std::io::IsTerminal as _;
    if std::io::stdin().is_terminal() {
        eprintln!("Reading {what} from standard input; end it with Ctrl-D (Ctrl-Z on Windows).");
    }
}
