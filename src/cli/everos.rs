//! The everos commands: `membank everos` (find the root the way everos
//! does), `membank entries` and `membank entry`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use membank_core::everos::query::{self, EntryFilter, EntryJson, EntryRef};
use membank_core::everos::resolve::{self, Env};
use membank_core::everos::{self as core_everos, DailyKind, OwnerKind};
use membank_core::{json, memory};
use schemars::JsonSchema;
use serde::Serialize;

use super::common::{forced_format, print_json, safe};

pub use membank_args::everos::{EntriesArgs, EntriesQuery, EntryArgs, RootArgs, ScopeArgs};

/// The entry filter options ask for (the options' types are defined with
/// the command line).
pub trait ToEntryFilter {
    fn filter(&self) -> anyhow::Result<EntryFilter>;
}

impl ToEntryFilter for ScopeArgs {
    /// The filter these options ask for; a user and an agent together are
    /// refused (the command line refuses them before this).
    fn filter(&self) -> anyhow::Result<EntryFilter> {
        let (owner_kind, owner) = match (&self.user, &self.agent) {
            (Some(_), Some(_)) => {
                bail!("give a user or an agent, not both: an entry belongs to one owner")
            }
            (Some(u), _) => (Some(OwnerKind::User), Some(u.clone())),
            (_, Some(g)) => (Some(OwnerKind::Agent), Some(g.clone())),
            _ => (None, None),
        };
        Ok(EntryFilter {
            app: self.app.clone(),
            project: self.project.clone(),
            owner_kind,
            owner,
            ..EntryFilter::default()
        })
    }
}

impl ToEntryFilter for EntriesQuery {
    fn filter(&self) -> anyhow::Result<EntryFilter> {
        let mut filter = self.scope.filter()?;
        filter.kind = self.kind.as_deref().map(parse_kind).transpose()?;
        filter.since = self.since.as_deref().map(parse_date).transpose()?;
        Ok(filter)
    }
}

/// What `entries --json` prints.
#[derive(Serialize, JsonSchema)]
pub struct EntriesJson<'a> {
    pub entries: Vec<EntryJson<'a>>,
    /// Only in an MCP answer that lists part of the entries.
    #[serde(flatten)]
    pub page: Option<Page>,
}

/// Which part of the list an MCP `entries` answer holds.
#[derive(Serialize, JsonSchema)]
pub struct Page {
    /// Entries the filter kept, listed or not.
    pub total: usize,
    /// Entries skipped before the ones listed.
    pub offset: usize,
    /// True when more entries follow the ones listed.
    pub truncated: bool,
}

/// The most entries one MCP `entries` answer lists.
pub const MCP_MAX_LIMIT: usize = 1000;

pub fn entries_json<'a>(rows: &[EntryRef<'a>]) -> EntriesJson<'a> {
    EntriesJson {
        entries: rows.iter().map(EntryRef::to_json).collect(),
        page: None,
    }
}

/// One line per entry, then the count.
pub fn entries_human(rows: &[EntryRef<'_>]) -> String {
    let mut out = String::new();
    for r in rows {
        entry_line(&mut out, r);
    }
    out.push_str(&count_line(rows.len()));
    out
}

/// An entry's line in the readable list: where, id, summary.
fn entry_line(out: &mut String, r: &EntryRef<'_>) {
    use std::fmt::Write as _;
    let _ = writeln!(
        out,
        "{}:{}  {}  {}",
        safe(&r.file.rel_path),
        r.entry.line,
        safe(&r.entry.id),
        safe(r.summary())
    );
}

/// The last line of the readable list.
fn count_line(n: usize) -> String {
    format!("{n} entr{}\n", if n == 1 { "y" } else { "ies" })
}

/// How a message names the owner's fields: as the command line's flags
/// (`--user u1`) or as a tool's arguments (`"user": "u1"`), the words the
/// reader can type back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OwnerNaming {
    Flags,
    Arguments,
}

impl OwnerNaming {
    /// `--name value` (or an argument) that can be typed or pasted back:
    /// quoted for a shell when the value holds anything a shell would
    /// split or expand, and joined with `=` when it starts with a dash,
    /// which clap would otherwise take for an option.
    fn field(self, name: &str, value: &str) -> String {
        match self {
            OwnerNaming::Flags => {
                let quoted = shell_word(value);
                if value.starts_with('-') {
                    format!("--{name}={quoted}")
                } else {
                    format!("--{name} {quoted}")
                }
            }
            OwnerNaming::Arguments => format!(
                "\"{name}\": {}",
                serde_json::to_string(value).unwrap_or_default()
            ),
        }
    }

    fn ask(self) -> &'static str {
        match self {
            OwnerNaming::Flags => "name the owner with --user or --agent (and --app / --project)",
            OwnerNaming::Arguments => {
                "name the owner with the `user` or `agent` argument (and `app` / `project`)"
            }
        }
    }
}

/// `value` as one shell word: as it is when every character is one no
/// shell treats specially, in single quotes otherwise (a quote inside
/// written `'\''`).
fn shell_word(value: &str) -> String {
    let plain = !value.is_empty()
        && !value.starts_with('~')
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || "_-.,:/@%+=".contains(c));
    if plain {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', "'\\''"))
    }
}

/// The one entry `hits` holds, or the message saying why there is none:
/// ids are unique per file only, so several hits ask for the owner, in the
/// words `naming` gives.
pub fn one_entry<'a>(
    hits: Vec<EntryRef<'a>>,
    id: &str,
    shown_root: &str,
    filter: &EntryFilter,
    naming: OwnerNaming,
) -> Result<EntryRef<'a>, String> {
    use std::fmt::Write as _;
    match hits.as_slice() {
        [] => Err(format!(
            "no entry {} in {}{}",
            safe(id),
            safe(shown_root),
            owner_words(filter)
        )),
        [one] => Ok(*one),
        many => {
            let mut message = format!(
                "{} is the id of {} entries (ids are unique per file only); {}:",
                safe(id),
                many.len(),
                naming.ask()
            );
            let owners: Vec<_> = many
                .iter()
                .map(|h| {
                    let j = h.to_json();
                    (j.owner_kind, j.owner, j.app, j.project)
                })
                .collect();
            // Two folders of one id (`default/` and `default_app/`) are
            // named by their folder names, which tell them apart.
            let scope_name = |of: fn(&core_everos::Place) -> (Option<&str>, Option<&str>)| {
                move |h: &EntryRef| {
                    let (dir, id) = of(&h.file.place);
                    let shared_id = many.iter().any(|o| {
                        let (o_dir, o_id) = of(&o.file.place);
                        o_id == id && o_dir != dir
                    });
                    if shared_id { dir } else { id }.unwrap_or("-").to_owned()
                }
            };
            let app_name = scope_name(|p| (p.app_dir.as_deref(), p.app()));
            let project_name = scope_name(|p| (p.project_dir.as_deref(), p.project()));
            for (h, (kind, owner, _, _)) in many.iter().zip(&owners) {
                let _ = write!(
                    message,
                    "\n  {}  {}",
                    safe(h.file.rel_path.as_str()),
                    naming.field(kind.unwrap_or("user"), &safe(owner.unwrap_or("-")))
                );
                // The same owner in another app or project: the owner alone
                // would find both again.
                let shared = owners
                    .iter()
                    .filter(|(k, o, _, _)| (k, o) == (kind, owner))
                    .count()
                    > 1;
                if shared {
                    let _ = write!(
                        message,
                        " {} {}",
                        naming.field("app", &safe(&app_name(h))),
                        naming.field("project", &safe(&project_name(h)))
                    );
                }
            }
            Err(message)
        }
    }
}

/// The entry's place and owner, a blank line, then its text.
pub fn entry_human(entry: &EntryRef<'_>) -> String {
    let j = entry.to_json();
    format!(
        "{}:{}  {}  {} {} {}/{} {}\n\n{}\n",
        safe(j.file),
        j.line,
        safe(j.id),
        j.kind.unwrap_or("-"),
        j.owner_kind.unwrap_or("-"),
        safe(j.app.unwrap_or("-")),
        safe(j.project.unwrap_or("-")),
        safe(j.owner.unwrap_or("-")),
        membank_core::text::sanitize_for_terminal(j.text, true)
    )
}

/// Check that `path` is an everos root (honouring `--format`) and return
/// the root folder.
fn everos_root(path: &Path) -> anyhow::Result<PathBuf> {
    let found =
        memory::detect(path, forced_format()).map_err(|e| anyhow::anyhow!(safe(&e.to_string())))?;
    if found.spec != &core_everos::LAYOUT {
        bail!(
            "{}",
            safe(
                &memory::OpenError::WrongLayout {
                    path: path.to_path_buf(),
                    found: found.spec,
                    wanted: &core_everos::LAYOUT,
                }
                .to_string()
            )
        );
    }
    Ok(found.root)
}

fn parse_kind(word: &str) -> anyhow::Result<DailyKind> {
    DailyKind::from_filter(word).ok_or_else(|| {
        anyhow::anyhow!(
            "unknown kind {}: use one of episode, atomic_fact, foresight, agent_case",
            membank_core::text::quoted(&safe(word))
        )
    })
}

fn parse_date(word: &str) -> anyhow::Result<jiff::civil::Date> {
    core_everos::paths::parse_day(word).ok_or_else(|| {
        anyhow::anyhow!(
            "--since {} is not a YYYY-MM-DD date",
            membank_core::text::quoted(&safe(word))
        )
    })
}

/// The entries are written as the root is read, a window of files at a
/// time, so a large root is never held whole: the output is the same as
/// [`entries_json`] or [`entries_human`] over the loaded root.
pub fn run_entries(args: EntriesArgs) -> anyhow::Result<ExitCode> {
    let root_dir = everos_root(&args.root)?;
    let mut filter = args.query.filter()?;
    filter.settle(&root_dir);
    let walked = core_everos::stream::walk(&root_dir, &filter.load_filter())
        .map_err(|e| anyhow::anyhow!(safe(&e)))?;
    if args.limit > 0 || args.offset > 0 {
        return print_entries_page(&args, &root_dir, &filter, &walked);
    }
    // Large writes: a wide slice prints hundreds of megabytes.
    let out = std::io::BufWriter::with_capacity(1 << 18, std::io::stdout().lock());
    let mut failed: Option<std::io::Error> = None;
    let mut any_listed = false;
    if args.json {
        let head = EntriesJson {
            entries: Vec::new(),
            page: None,
        };
        let mut stream = json::ItemStream::start(out, &head).context("writing JSON")?;
        let problems = walked.read(
            // A file's rows, joined as the stream joins them, so that
            // they are pushed as one.
            |_, file| {
                let mut rows = String::new();
                if filter.keeps(&file) {
                    core_everos::rows_json::push_file_rows(&mut rows, &file);
                }
                rows
            },
            |rows| {
                if !rows.is_empty() {
                    any_listed = true;
                    failed = stream.push(&rows).err();
                }
                failed.is_none()
            },
        );
        if let Some(e) = failed {
            return Err(e).context("writing JSON");
        }
        let mut out = stream.finish().context("writing JSON")?;
        writeln!(out)?;
        out.flush()?;
        warn_unread(&problems, "its entries are not listed");
        if !any_listed {
            warn_if_no_such_scope(&root_dir, &filter);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = out;
    let mut listed = 0;
    let problems = walked.read(
        |_, file| {
            let mut lines = String::new();
            if !filter.keeps(&file) {
                return (0, lines);
            }
            let file = &file;
            for entry in &file.entries {
                entry_line(&mut lines, &EntryRef { file, entry });
            }
            (file.entries.len(), lines)
        },
        |(n, lines)| {
            listed += n;
            failed = out.write_all(lines.as_bytes()).err();
            failed.is_none()
        },
    );
    if let Some(e) = failed {
        return Err(e.into());
    }
    out.write_all(count_line(listed).as_bytes())?;
    out.flush()?;
    warn_unread(&problems, "its entries are not listed");
    if listed == 0 {
        warn_if_no_such_scope(&root_dir, &filter);
    }
    Ok(ExitCode::SUCCESS)
}

/// One page of the list (`--limit`, `--offset`), as the MCP `entries`
/// tool lists it. The root is still read as a stream: only the files that
/// hold the page's entries are kept, the others only counted.
fn print_entries_page(
    args: &EntriesArgs,
    root_dir: &Path,
    filter: &EntryFilter,
    walked: &core_everos::stream::Walked,
) -> anyhow::Result<ExitCode> {
    let wanted = args.offset..args.offset.saturating_add(match args.limit {
        0 => usize::MAX,
        n => n,
    });
    let mut total = 0usize;
    let mut kept: Vec<(core_everos::MemFile, std::ops::Range<usize>)> = Vec::new();
    let problems = walked.read(
        |_, file| filter.keeps(&file).then_some(file),
        |file| {
            let Some(file) = file else {
                return true;
            };
            let n = file.entries.len();
            let start = wanted.start.saturating_sub(total).min(n);
            let end = wanted.end.saturating_sub(total).min(n);
            total += n;
            if start < end {
                kept.push((file, start..end));
            }
            true
        },
    );
    let page: Vec<EntryRef<'_>> = kept
        .iter()
        .flat_map(|(file, range)| {
            file.entries[range.clone()]
                .iter()
                .map(move |entry| EntryRef { file, entry })
        })
        .collect();
    warn_unread(&problems, "its entries are not listed");
    let listed = PageOf {
        listed: page.len(),
        total,
        offset: args.offset,
    };
    if args.json {
        let mut json = entries_json(&page);
        json.page = listed.page();
        print_json(&json)?;
    } else {
        let mut text = entries_human(&page);
        text.push_str(&listed.line());
        out!("{text}")?;
    }
    if total == 0 {
        warn_if_no_such_scope(root_dir, filter);
    }
    Ok(ExitCode::SUCCESS)
}

/// Which part of a list of `total` entries a page holds.
pub struct PageOf {
    pub listed: usize,
    pub total: usize,
    pub offset: usize,
}

impl PageOf {
    /// `None` for a page that is the whole list, so that it is the JSON of
    /// the whole list.
    pub fn page(&self) -> Option<Page> {
        (self.listed < self.total).then(|| Page {
            total: self.total,
            offset: self.offset,
            truncated: self.next() < self.total,
        })
    }

    fn next(&self) -> usize {
        self.offset.saturating_add(self.listed)
    }

    /// The line under a page that is not the whole list; empty otherwise.
    pub fn line(&self) -> String {
        if self.listed >= self.total {
            return String::new();
        }
        let next = self.next();
        format!(
            "listed {} of {} from offset {}{}\n",
            self.listed,
            self.total,
            self.offset,
            if next < self.total {
                format!("; offset {next} lists the next")
            } else {
                String::new()
            }
        )
    }
}

/// Say on stderr which files of the root were not read (over the size
/// cap, not UTF-8, unreadable, a daily log whose YAML does not parse),
/// with `what` they are missing from: a listing or a search without them
/// would look complete. `membank check` reports them as findings; the
/// first ten are named here.
pub fn warn_unread(problems: &[membank_core::health::Finding], what: &str) {
    for line in unread_warnings(problems, what) {
        eprintln!("membank: warning: {line}");
    }
}

/// The lines of [`warn_unread`], for an answer that carries them itself
/// (the MCP tools); sanitised.
pub fn unread_warnings(problems: &[membank_core::health::Finding], what: &str) -> Vec<String> {
    let unread: Vec<_> = problems
        .iter()
        .filter(|f| {
            matches!(
                f.code(),
                "everos-unreadable" | "everos-not-utf8" | "everos-unparsable-yaml"
            )
        })
        .collect();
    let mut lines: Vec<String> = unread
        .iter()
        .take(10)
        .map(|f| {
            // A line makes it `path:line: message`, as a compiler says it.
            let at = f.line().map(|l| format!(":{l}:")).unwrap_or_default();
            format!("{}{at} {} ({what})", safe(&f.path), safe(&f.message()))
        })
        .collect();
    if unread.len() > 10 {
        lines.push(format!(
            "{} more files were not read (`membank check` lists them)",
            unread.len() - 10
        ));
    }
    lines
}

/// When a filter found nothing because the app, project or owner it names
/// is not in the root, say so on stderr (see [`no_such_scope_warning`]).
fn warn_if_no_such_scope(root: &Path, filter: &EntryFilter) {
    if let Some(warning) = no_such_scope_warning(root, filter) {
        eprintln!("membank: warning: {warning}");
    }
}

/// When the owner named is there but the kind of log asked for is never
/// one of its kind's (an agent's episodes), say so, with the kinds such an
/// owner has. Sanitised.
fn kind_not_of_owner(load: &core_everos::LoadFilter) -> Option<String> {
    let (Some(owner_kind), Some(owner), Some(kind)) = (load.owner_kind, &load.owner, load.kind)
    else {
        return None;
    };
    if kind.owner_kind() == owner_kind {
        return None;
    }
    let kinds: Vec<&str> = DailyKind::ALL
        .into_iter()
        .filter(|k| k.owner_kind() == owner_kind)
        .map(DailyKind::as_str)
        .collect();
    let who = owner_kind.as_str();
    Some(safe(&format!(
        "{who} '{owner}' has no {kind} entries: {who}s have no {kind} logs; the kinds a{n} {who} \
         has: {}",
        kinds.join(", "),
        kind = kind.as_str(),
        n = if who == "agent" { "n" } else { "" },
    )))
}

/// Why a filter found nothing, when the app, project or owner it names is
/// not in the root: with the names closest to it, or the ones there are.
/// A misspelt owner otherwise reads as "0 entries". Sanitised.
pub fn no_such_scope_warning(root: &Path, filter: &EntryFilter) -> Option<String> {
    let load = filter.load_filter();
    let Some(missing) = core_everos::load::no_such_scope(root, &load) else {
        return kind_not_of_owner(&load);
    };
    let present: Vec<&str> = missing.present.iter().map(String::as_str).collect();
    let close = membank_core::suggest::closest(&missing.wanted, present.iter().copied());
    let hint = if !close.is_empty() {
        membank_core::suggest::did_you_mean(&close)
    } else if present.is_empty() {
        format!("; it has no {}s", missing.what)
    } else {
        const NAMED: usize = 12;
        let more = if present.len() > NAMED { ", …" } else { "" };
        format!(
            "; its {}s: {}{more}",
            missing.what,
            present[..present.len().min(NAMED)].join(", ")
        )
    };
    // Where it was looked for: the app and project the filter names above it.
    let above: Vec<&str> = match missing.what {
        "app" => Vec::new(),
        "project" => load.app.as_deref().into_iter().collect(),
        _ => [load.app.as_deref(), load.project.as_deref()]
            .into_iter()
            .flatten()
            .collect(),
    };
    let place = if above.is_empty() {
        "this memory root".to_owned()
    } else {
        above.join("/")
    };
    Some(safe(&format!(
        "no {} '{}' in {place}{hint}",
        missing.what, missing.wanted
    )))
}

pub fn run_entry(args: EntryArgs) -> anyhow::Result<ExitCode> {
    let root_dir = everos_root(&args.root)?;
    let mut filter = args.scope.filter()?;
    filter.settle(&root_dir);
    // The id's prefix names its kind, so only that kind's folders are read.
    filter.kind = core_everos::entries::EntryId::parse(&args.id)
        .ok()
        .and_then(|id| DailyKind::from_id_prefix(&id.prefix));
    // Only the files holding the id are kept of what is read.
    let holding = |filter: &EntryFilter| {
        query::load_holding(&root_dir, &args.id, filter).map_err(|e| anyhow::anyhow!(safe(&e)))
    };
    let mut root = holding(&filter)?;
    if query::find(&root, &args.id, &filter).is_empty() && filter.kind.is_some() {
        // An id whose prefix belongs to another kind's folder.
        filter.kind = None;
        root = holding(&filter)?;
    }
    let hits = query::find(&root, &args.id, &filter);
    if hits.is_empty() {
        warn_unread(&root.problems, "it was not looked in");
    }
    match one_entry(
        hits,
        &args.id,
        &root_dir.to_string_lossy(),
        &filter,
        OwnerNaming::Flags,
    ) {
        Ok(one) => {
            if args.json {
                print_json(&one.to_json())?;
            } else {
                out!("{}", entry_human(&one))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(message) => {
            eprintln!("membank: {message}");
            Ok(ExitCode::from(1))
        }
    }
}

fn owner_words(f: &EntryFilter) -> String {
    match (&f.owner_kind, &f.owner) {
        (Some(k), Some(o)) => format!(" for {} {}", k.as_str(), safe(o)),
        _ => String::new(),
    }
}

/// Resolve the root as everos does and say which rule chose it.
pub fn resolve_root() -> resolve::Resolved {
    resolve::resolve(&Env::process())
}

pub fn run_root(args: &RootArgs) -> anyhow::Result<ExitCode> {
    // --format is global; this command only ever finds everos's root.
    if let Some(other) =
        forced_format().filter(|l| l.kind != membank_core::memory::LayoutKind::Everos)
    {
        bail!(
            "`membank everos` finds everos's own memory root; --format {} does not apply to it",
            other.name
        );
    }
    let r = resolve_root();
    for note in &r.notes {
        eprintln!("membank: note: {}", safe(note));
    }
    outln!(
        "everos memory root: {}, {}",
        safe(&r.path.to_string_lossy()),
        safe(&r.rule.describe())
    )?;
    if args.print {
        return Ok(ExitCode::SUCCESS);
    }
    if !r.path.is_dir() {
        bail!(
            "{}: no such folder; everos has not written a memory root there yet",
            safe(&r.path.to_string_lossy())
        );
    }
    let root = everos_root(&r.path)?;
    out!("{}", overview_streamed(&root)?)?;
    Ok(ExitCode::SUCCESS)
}

/// Apps, projects and owners with their entry counts, counted as the
/// root is read a window of files at a time: a large root is never held
/// whole. The same as [`overview`] over the loaded root.
fn overview_streamed(root: &Path) -> anyhow::Result<String> {
    let walked = core_everos::stream::walk(root, &EntryFilter::default().load_filter())
        .map_err(|e| anyhow::anyhow!(safe(&e)))?;
    let mut tally = OwnerTally::default();
    walked.read(
        |_, file| (file.place, file.entries.len()),
        |(place, entries)| {
            tally.add(&place, entries);
            true
        },
    );
    Ok(tally.render())
}

/// [`overview_streamed`] over a root already loaded.
#[cfg(test)]
fn overview(root: &core_everos::MemoryRoot) -> String {
    let mut tally = OwnerTally::default();
    for f in &root.files {
        tally.add(&f.place, f.entries.len());
    }
    tally.render()
}

/// Daily logs and entries per (app, project, owner kind, owner), and the
/// entries of every file.
#[derive(Default)]
struct OwnerTally {
    owners: std::collections::BTreeMap<(String, String, &'static str, String), (usize, usize)>,
    entries: usize,
}

impl OwnerTally {
    fn add(&mut self, place: &core_everos::paths::Place, entries: usize) {
        self.entries += entries;
        let (Some(app), Some(project), Some((kind, owner))) =
            (place.app(), place.project(), &place.owner)
        else {
            return;
        };
        let counts = self
            .owners
            .entry((
                app.to_owned(),
                project.to_owned(),
                kind.as_str(),
                owner.clone(),
            ))
            .or_default();
        if place.daily().is_some() {
            counts.0 += 1;
            counts.1 += entries;
        }
    }

    fn render(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        for ((app, project, kind, owner), (logs, entries)) in &self.owners {
            let _ = writeln!(
                out,
                "  {}/{}  {} {}: {} in {} daily log{}",
                safe(app),
                safe(project),
                kind,
                safe(owner),
                count_line(*entries).trim_end(),
                logs,
                if *logs == 1 { "" } else { "s" }
            );
        }
        let _ = writeln!(
            out,
            "{}; `membank entries`, `membank check` and `membank search` read it",
            count_line(self.entries).trim_end()
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy_tree(from: &Path, to: &Path) {
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                std::fs::create_dir_all(&target).unwrap();
                copy_tree(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }

    /// More daily logs than one window holds, on the pool, with the
    /// fixture roots' apps, projects, users and agents beside them: the
    /// streamed overview counts what the loaded root counts.
    #[test]
    fn the_streamed_overview_counts_what_the_loaded_root_counts() {
        let dir = tempfile::tempdir().unwrap();
        membank_core::synth_everos::generate(dir.path(), 7_000).unwrap();
        for fixture in ["everos-root", "everos-written"] {
            copy_tree(
                &Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures")
                    .join(fixture),
                dir.path(),
            );
        }
        let loaded = core_everos::load(dir.path()).unwrap();
        let expected = overview(&loaded);
        assert!(expected.lines().count() > 3, "{expected}");
        assert!(expected.starts_with("  "), "{expected}");
        assert_eq!(overview_streamed(dir.path()).unwrap(), expected);
    }
}
