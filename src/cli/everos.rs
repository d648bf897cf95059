//! The everos commands: `membank everos` (find the root the way everos
//! does), `membank entries` and `membank entry`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use membank_core::everos::query::{self, EntryFilter, EntryJson, EntryRef};
use membank_core::everos::resolve::{self, Env};
use membank_core::everos::{self as core_everos, DailyKind, MemoryRoot, OwnerKind};
use membank_core::memory;
use serde::Serialize;

use super::common::{forced_format, print_json, safe};

/// Scope and owner options shared by `entries` and `entry`.
#[derive(clap::Args)]
pub struct ScopeArgs {
    /// Only this app (`default` for default_app).
    #[arg(long, value_name = "A")]
    app: Option<String>,
    /// Only this project (`default` for default_project).
    #[arg(long, value_name = "P")]
    project: Option<String>,
    /// Only this user's memory.
    #[arg(long, value_name = "U", conflicts_with = "agent")]
    user: Option<String>,
    /// Only this agent's memory.
    #[arg(long, value_name = "G")]
    agent: Option<String>,
}

impl ScopeArgs {
    fn filter(&self) -> EntryFilter {
        let (owner_kind, owner) = match (&self.user, &self.agent) {
            (Some(u), _) => (Some(OwnerKind::User), Some(u.clone())),
            (_, Some(g)) => (Some(OwnerKind::Agent), Some(g.clone())),
            _ => (None, None),
        };
        EntryFilter {
            app: self.app.clone(),
            project: self.project.clone(),
            owner_kind,
            owner,
            ..EntryFilter::default()
        }
    }
}

#[derive(clap::Args)]
pub struct EntriesArgs {
    /// The everos memory root.
    root: PathBuf,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Only this kind: episode, atomic_fact, foresight, agent_case.
    #[arg(long, value_name = "K")]
    kind: Option<String>,
    /// Only daily logs of this day (YYYY-MM-DD) or later.
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Print JSON: {"entries": [{"file", "id", "app", "project", "owner_kind",
    /// "owner", "kind", "date", "line", "text"}]}.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct EntryArgs {
    /// The everos memory root.
    root: PathBuf,
    /// The entry id, e.g. ep_20260601_00000001.
    id: String,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Print JSON: one object as in `membank entries --json`.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct RootArgs {
    /// Print only the root and the rule that chose it.
    #[arg(long)]
    print: bool,
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
            "unknown kind {:?}: use one of episode, atomic_fact, foresight, agent_case",
            safe(word)
        )
    })
}

fn parse_date(word: &str) -> anyhow::Result<jiff::civil::Date> {
    core_everos::paths::parse_day(word)
        .ok_or_else(|| anyhow::anyhow!("--since {:?} is not a YYYY-MM-DD date", safe(word)))
}

/// Load only the folders the filter can match: a narrow query on a large
/// root reads little.
fn load(root: &Path, filter: &EntryFilter) -> anyhow::Result<MemoryRoot> {
    core_everos::load_filtered(root, &filter.load_filter()).map_err(|e| anyhow::anyhow!(safe(&e)))
}

pub fn run_entries(args: EntriesArgs) -> anyhow::Result<ExitCode> {
    let root_dir = everos_root(&args.root)?;
    let mut filter = args.scope.filter();
    filter.kind = args.kind.as_deref().map(parse_kind).transpose()?;
    filter.since = args.since.as_deref().map(parse_date).transpose()?;
    let root = load(&root_dir, &filter)?;
    let rows = query::entries(&root, &filter);
    if args.json {
        #[derive(Serialize)]
        struct Out<'a> {
            entries: Vec<EntryJson<'a>>,
        }
        print_json(&Out {
            entries: rows.iter().map(EntryRef::to_json).collect(),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for r in &rows {
        let first = r.summary();
        writeln!(
            out,
            "{}:{}  {}  {}",
            safe(&r.file.rel_path),
            r.entry.line,
            safe(&r.entry.id),
            safe(first)
        )?;
    }
    writeln!(
        out,
        "{} entr{}",
        rows.len(),
        if rows.len() == 1 { "y" } else { "ies" }
    )?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub fn run_entry(args: EntryArgs) -> anyhow::Result<ExitCode> {
    let root_dir = everos_root(&args.root)?;
    let mut filter = args.scope.filter();
    // The id's prefix names its kind, so only that kind's folders are read.
    filter.kind = core_everos::entries::EntryId::parse(&args.id)
        .ok()
        .and_then(|id| DailyKind::from_id_prefix(&id.prefix));
    let mut root = load(&root_dir, &filter)?;
    if query::find(&root, &args.id, &filter).is_empty() && filter.kind.is_some() {
        // An id whose prefix belongs to another kind's folder.
        filter.kind = None;
        root = load(&root_dir, &filter)?;
    }
    let hits = query::find(&root, &args.id, &filter);
    match hits.as_slice() {
        [] => {
            eprintln!(
                "membank: no entry {} in {}{}",
                safe(&args.id),
                safe(&root_dir.to_string_lossy()),
                owner_words(&filter)
            );
            Ok(ExitCode::from(1))
        }
        [one] => {
            if args.json {
                print_json(&one.to_json())?;
            } else {
                let j = one.to_json();
                println!(
                    "{}:{}  {}  {} {} {}/{} {}",
                    safe(j.file),
                    j.line,
                    safe(j.id),
                    j.kind.unwrap_or("-"),
                    j.owner_kind.unwrap_or("-"),
                    safe(j.app.unwrap_or("-")),
                    safe(j.project.unwrap_or("-")),
                    safe(j.owner.unwrap_or("-")),
                );
                println!();
                println!(
                    "{}",
                    membank_core::text::sanitize_for_terminal(j.text, true)
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        many => {
            eprintln!(
                "membank: {} is the id of {} entries (ids are unique per file only); \
                 name the owner with --user or --agent (and --app / --project):",
                safe(&args.id),
                many.len()
            );
            for h in many {
                let j = h.to_json();
                eprintln!(
                    "  {}  --{} {}",
                    safe(j.file),
                    j.owner_kind.unwrap_or("user"),
                    safe(j.owner.unwrap_or("-"))
                );
            }
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
    let r = resolve_root();
    for note in &r.notes {
        eprintln!("membank: note: {}", safe(note));
    }
    println!(
        "everos memory root: {}, {}",
        safe(&r.path.to_string_lossy()),
        safe(&r.rule.describe())
    );
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
    let loaded = load(&root, &EntryFilter::default())?;
    print!("{}", overview(&loaded));
    Ok(ExitCode::SUCCESS)
}

/// Apps, projects and owners with their entry counts.
fn overview(root: &MemoryRoot) -> String {
    use std::collections::BTreeMap;
    use std::fmt::Write as _;
    let mut owners: BTreeMap<(String, String, &str, String), (usize, usize)> = BTreeMap::new();
    for f in &root.files {
        let p = &f.place;
        let (Some(app), Some(project), Some((kind, owner))) = (p.app(), p.project(), &p.owner)
        else {
            continue;
        };
        let e = owners
            .entry((
                app.to_owned(),
                project.to_owned(),
                kind.as_str(),
                owner.clone(),
            ))
            .or_default();
        if p.daily().is_some() {
            e.0 += 1;
            e.1 += f.entries.len();
        }
    }
    let mut out = String::new();
    for ((app, project, kind, owner), (logs, entries)) in &owners {
        let _ = writeln!(
            out,
            "  {}/{}  {} {}: {} entries in {} daily logs",
            safe(app),
            safe(project),
            kind,
            safe(owner),
            entries,
            logs
        );
    }
    let _ = writeln!(
        out,
        "{} entries; `membank entries`, `membank check` and `membank search` read it",
        root.entry_count()
    );
    out
}
